/* earshot rooms add FILE: an IR file (any format libsndfile reads, kept as
 * a float WAV) or a SOFA set (kept as it is) put into a library folder,
 * once it has been checked as playing would check it.
 *
 * The file is opened once. That descriptor is copied into the library
 * folder (es_library_stage), the copy is what is checked and read, and a
 * SOFA set's copy is what is renamed into place under the folder's lock:
 * no name of the source is looked up twice, so a source swapped for
 * another file (a link, a rename) while the add waits for the lock is
 * never the file added, nor does a file only its owner reads become a
 * room anybody reads (the copy has the library's mode). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audiofile.h"
#include "core/args.h"
#include "core/files.h"
#include "irfile.h"
#include "library.h"
#include "rooms_cli.h"
#include "sofa.h"

#define MESSAGE_MAX 1400

/* The checks name the copy they read; the user named the source. Each
 * mention of `staged` in err becomes `file`. */
static void as_source(char *err, size_t n, const char *staged, const char *file)
{
    char out[MESSAGE_MAX];
    const size_t len = strlen(staged);
    size_t used = 0;
    for (const char *p = err; *p && used + 1 < sizeof out;) {
        if (len && !strncmp(p, staged, len)) {
            const int k = snprintf(out + used, sizeof out - used, "%s", file);
            used += k > 0 ? (size_t)k : 0;
            used = used < sizeof out ? used : sizeof out - 1;
            p += len;
        } else {
            out[used++] = *p++;
        }
    }
    out[used] = '\0';
    snprintf(err, n, "%s", out);
}

/* A SOFA set: read whole as playing reads it, then the copy read is the
 * room's file. */
static int add_sofa(es_rooms_destination *d, const char *dir, const char *file,
                    const char *staged)
{
    char err[MESSAGE_MAX], path[1300], what[200];
    es_sofa *set = es_sofa_load(staged, 0, err, sizeof err);
    if (!set) {
        as_source(err, sizeof err, staged, file);
        es_error("rooms add: %s", err);
        return 1;
    }
    snprintf(what, sizeof what, "SOFA %s, %d %s, %d x %d, %.2f s at %g Hz", set->convention,
             set->count, es_sofa_varies_words(set->varies), set->inputs, set->outputs,
             set->taps / set->rate, set->rate);
    es_sofa_free(set);
    if (es_library_put_staged(dir, &d->meta, staged, path, sizeof path, err, sizeof err) != 0) {
        es_error("rooms: %s", err);
        return 1;
    }
    printf("room '%s' added: %s (%s)\n", d->meta.name, path, what);
    return 0;
}

/* Any other IR file: prepared exactly as playing would prepare it, then
 * its channels written as the room's float WAV (so any format libsndfile
 * reads comes along). */
static int add_audio(es_rooms_destination *d, const char *dir, const char *file,
                     const char *staged)
{
    char err[MESSAGE_MAX];
    es_prepared_room check;
    d->meta.path = staged;
    int failed = es_rooms_prepare_native(&d->meta, &check, err, sizeof err) != 0;
    if (!failed)
        es_prepared_room_free(&check);
    float **ch = NULL;
    es_audio_info info;
    failed = failed || es_audiofile_load(staged, &ch, &info, err, sizeof err) != 0;
    d->meta.path = file;
    if (failed) {
        as_source(err, sizeof err, staged, file);
        es_error("rooms add: %s", err);
        return 1;
    }
    const int rc = es_rooms_save(d, dir, ch, info.channels, (int)info.frames, info.sample_rate);
    es_audiofile_free_channels(ch, info.channels);
    return rc ? 1 : 0;
}

int es_rooms_add(int argc, char **argv)
{
    es_rooms_destination d;
    es_rooms_destination_init(&d, NULL);
    if (es_rooms_input_and_options(&d, argc, argv, "IR FILE") != 0)
        return 2;
    const char *file = argv[2];
    if (es_ir_file_is_config(file)) {
        es_error("rooms add: %s is a jconvolver configuration: earshot rooms "
                 "import-jconvolver %s brings it in", file, file);
        return 2;
    }
    d.meta.path = file;
    if (!d.source[0])
        snprintf(d.source, sizeof d.source, "added from %s", file);
    char err[MESSAGE_MAX], dir[1024], staged[1300];
    /* Opened before anything waits, and never again by name. */
    const int fd = es_open_regular(file, err, sizeof err);
    if (fd < 0) {
        es_error("rooms add: %s", err);
        return 1;
    }
    if (es_rooms_check_destination(&d, dir, sizeof dir) != 0) {
        close(fd);
        return 1;
    }
    struct stat st;
    const int existed = stat(dir, &st) == 0;
    const int staged_ok = es_library_stage(dir, &d.meta, fd, file, staged, sizeof staged, err,
                                           sizeof err) == 0;
    close(fd);
    int rc = 1;
    if (!staged_ok)
        es_error("rooms add: %s", err);
    else
        rc = es_sofa_is_file(staged) ? add_sofa(&d, dir, file, staged)
                                     : add_audio(&d, dir, file, staged);
    if (staged_ok)
        unlink(staged); /* already gone where it became the room's file */
    if (rc != 0 && !existed)
        rmdir(dir); /* a folder made for a room refused, when nothing else came */
    return rc;
}
