/* earshot rooms new | add | import-jconvolver | build-shipped: putting rooms
 * into a library folder (the user's, or --to DIR), each as an IR file plus
 * its entry in that folder's rooms.txt. Nothing is written until the room
 * has been checked the way playing it would check it. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/args.h"
#include "audiofile.h"
#include "jconvolver.h"
#include "library.h"
#include "room_recipe.h"
#include "core/param.h"
#include "rooms_cli.h"
#include "synth.h"

typedef struct {
    es_room meta;          /* name, description, source, licence, layout, gain, predelay */
    const char *to;        /* destination folder; NULL: the user's */
} destination;

/* Options every subcommand takes; 1 consumed, 0 not ours, -1 bad. */
static int common_option(destination *d, int argc, char **argv, int *i)
{
    const char *o = argv[*i], *v;
    char *field = !strcmp(o, "--name")          ? d->meta.name
                : !strcmp(o, "--description")   ? d->meta.description
                : !strcmp(o, "--source")        ? d->meta.source
                : !strcmp(o, "--licence")       ? d->meta.licence
                : !strcmp(o, "--layout")        ? d->meta.layout : NULL;
    const size_t size = !strcmp(o, "--name")     ? sizeof d->meta.name
                      : !strcmp(o, "--layout")   ? sizeof d->meta.layout
                      : !strcmp(o, "--licence")  ? sizeof d->meta.licence
                                                 : sizeof d->meta.description;
    if (field) {
        if (!(v = es_arg_value(argc, argv, i)))
            return -1;
        /* A manifest line each: not empty, no control character (a newline
         * would write lines of its own), and whole or refused. */
        const es_param text = {o + 2, ES_PARAM_STRING, 0, (double)(size - 1), NULL, NULL, 0,
                               NULL, NULL};
        const char *value = NULL;
        char err[256];
        if (es_param_parse(&text, o, v, &value, err, sizeof err) != 0) {
            es_error("rooms: %s", err);
            return -1;
        }
        snprintf(field, size, "%s", value);
        return 1;
    }
    if (!strcmp(o, "--to"))
        return (d->to = es_arg_value(argc, argv, i)) ? 1 : -1;
    static const es_param numbers[] = {
        {"gain", ES_PARAM_DOUBLE, -60, 60, "DB", NULL, offsetof(destination, meta.gain_db),
         NULL, NULL},
        {"predelay", ES_PARAM_DOUBLE, 0, 1000, "MS", NULL,
         offsetof(destination, meta.predelay_ms), NULL, NULL},
        {NULL, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
    };
    const es_param *p = strncmp(o, "--", 2) ? NULL : es_param_find(numbers, o + 2);
    if (!p)
        return 0;
    char err[256];
    if (!(v = es_arg_value(argc, argv, i)))
        return -1;
    if (es_param_parse(p, o, v, d, err, sizeof err) != 0) {
        es_error("%s", err);
        return -1;
    }
    return 1;
}

/* The folder, a name free in the library, and valid. 0 or -1 (said). */
static int check_destination(destination *d, char *dir, size_t n)
{
    if (d->to)
        snprintf(dir, n, "%s", d->to);
    else
        es_library_user_dir(dir, n);
    if (!es_room_name_valid(d->meta.name)) {
        es_error("rooms: '%s' is not a room name (letters, digits, - _ . up to 63)",
                 d->meta.name);
        return -1;
    }
    es_library lib;
    es_library_open(&lib, d->to);
    const es_room *same = es_library_find(&lib, d->meta.name);
    if (same)
        es_error("rooms: there is already a room '%s' (%s); pick another --name",
                 d->meta.name, same->path);
    es_library_close(&lib);
    return same ? -1 : 0;
}

/* Writes the channels as DIR/NAME.wav (float) and appends the entry. */
static int save(destination *d, const char *dir, float *const *ch, int channels, int frames,
                double rate)
{
    char file[ES_ROOM_NAME_MAX + 8], path[1200], err[1400];
    snprintf(file, sizeof file, "%s.wav", d->meta.name);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    es_audiofile *f = NULL;
    /* The WAV is written unnamed and put in place whole; the manifest is
     * renamed over the old one last. If that fails, the WAV goes again:
     * the library is as it was. */
    if (es_library_make_dir(dir, err, sizeof err) != 0 ||
        !(f = es_audiofile_create(path, rate, channels, ES_SAMPLE_FLOAT, err, sizeof err)) ||
        es_audiofile_write(f, (const float *const *)ch, frames, err, sizeof err) != 0 ||
        es_audiofile_commit(f, err, sizeof err) != 0) {
        es_error("%s", err);
        es_audiofile_close(f);
        return -1;
    }
    es_audiofile_close(f);
    if (es_library_append(dir, &d->meta, file, err, sizeof err) != 0) {
        unlink(path);
        es_error("%s", err);
        return -1;
    }
    printf("room '%s' added: %s (%.2f s, %d channel%s, %g Hz)\n", d->meta.name, path,
           frames / rate, channels, channels == 1 ? "" : "s", rate);
    return 0;
}

/* earshot rooms new NAME recipe... */
static int cmd_new(int argc, char **argv)
{
    destination d = {0};
    es_room_spec spec;
    es_room_spec_defaults(&spec);
    char err[512];
    if (argc < 3 || argv[2][0] == '-') {
        es_error("rooms new: give the new room's NAME first (see earshot rooms --help)");
        return 2;
    }
    snprintf(d.meta.name, sizeof d.meta.name, "%s", argv[2]);
    /* The room's words first: here --source is where the sound starts. */
    for (int i = 3; i < argc; i++) {
        int used = i + 1 < argc ? es_room_recipe_option(&spec, argv[i], argv[i + 1], err,
                                                        sizeof err)
                                : 0;
        if (used < 0) {
            es_error("rooms new: %s", err);
            return 2;
        }
        if (used == 1) {
            i++;
            continue;
        }
        used = common_option(&d, argc, argv, &i);
        if (used == 0)
            es_error("rooms new: unknown option '%s' (see earshot rooms --help)", argv[i]);
        if (used <= 0)
            return 2;
    }
    if (!es_room_recipe_complete(&spec, err, sizeof err) ||
        es_room_spec_check(&spec, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", d.meta.name, err);
        return 2;
    }
    char dir[1024];
    if (check_destination(&d, dir, sizeof dir) != 0)
        return 1;
    float **ch;
    int frames;
    if (es_room_synthesise(&spec, &ch, &frames, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", d.meta.name, err);
        return 1;
    }
    double t60[ES_OCTAVE_BANDS];
    es_room_eyring(&spec, t60);
    if (!d.meta.description[0])
        snprintf(d.meta.description, sizeof d.meta.description,
                 "%gx%gx%g m, Eyring T60 %.2f s at 1 kHz", spec.size[0], spec.size[1],
                 spec.size[2], t60[3]);
    if (!d.meta.source[0])
        snprintf(d.meta.source, sizeof d.meta.source,
                 "synthesised by earshot rooms new (image sources, Eyring tail)");
    snprintf(d.meta.layout, sizeof d.meta.layout, "stereo");
    const int rc = save(&d, dir, ch, 2, frames, spec.rate);
    es_audiofile_free_channels(ch, 2);
    return rc ? 1 : 0;
}

static void name_from_file(const char *path, char *name, size_t n)
{
    const char *base = strrchr(path, '/');
    snprintf(name, n, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = 0;
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '-';
}

/* `earshot rooms SUB INPUT [options]`: the input, then only the common
 * options; the room's name defaults to the input's file name. 0, or 2
 * after saying what is wrong. */
static int input_and_options(destination *d, int argc, char **argv, const char *what)
{
    if (argc < 3 || argv[2][0] == '-') {
        es_error("rooms %s: give the %s first (see earshot rooms --help)", argv[1], what);
        return 2;
    }
    for (int i = 3; i < argc; i++) {
        const int used = common_option(d, argc, argv, &i);
        if (used == 0)
            es_error("rooms %s: unknown option '%s'", argv[1], argv[i]);
        if (used <= 0)
            return 2;
    }
    if (!d->meta.name[0])
        name_from_file(argv[2], d->meta.name, sizeof d->meta.name);
    return 0;
}

/* earshot rooms add FILE: checked by preparing it exactly as playing would,
 * then copied (as float WAV, so any format libsndfile reads comes along). */
static int cmd_add(int argc, char **argv)
{
    destination d = {0};
    if (input_and_options(&d, argc, argv, "IR FILE") != 0)
        return 2;
    const char *file = argv[2];
    snprintf(d.meta.path, sizeof d.meta.path, "%s", file);
    char err[1400], dir[1024];
    es_prepared_room check;
    if (es_rooms_prepare_native(&d.meta, &check, err, sizeof err) != 0) {
        es_error("rooms add: %s", err);
        return 1;
    }
    es_prepared_room_free(&check);
    if (check_destination(&d, dir, sizeof dir) != 0)
        return 1;
    float **ch = NULL;
    es_audio_info info;
    if (es_audiofile_load(file, &ch, &info, err, sizeof err) != 0) {
        es_error("rooms add: %s", err);
        return 1;
    }
    if (!d.meta.source[0])
        snprintf(d.meta.source, sizeof d.meta.source, "added from %s", file);
    const int rc = save(&d, dir, ch, info.channels, (int)info.frames, info.sample_rate);
    es_audiofile_free_channels(ch, info.channels);
    return rc ? 1 : 0;
}

/* earshot rooms import-jconvolver FILE.conf */
static int cmd_import(int argc, char **argv)
{
    destination d = {0};
    if (input_and_options(&d, argc, argv, "FILE.conf") != 0)
        return 2;
    const char *conf = argv[2];
    char err[1400], dir[1024];
    float **ch;
    int ins, outs, frames;
    double rate;
    if (es_jconvolver_read(conf, &ch, &ins, &outs, &frames, &rate, err, sizeof err) != 0) {
        es_error("rooms import-jconvolver: %s", err);
        return 1;
    }
    int rc = 1;
    if (check_destination(&d, dir, sizeof dir) == 0) {
        snprintf(d.meta.layout, sizeof d.meta.layout, "%dx%d", ins, outs);
        if (ins * outs == 1 || (ins == 2 && outs == 2))
            snprintf(d.meta.layout, sizeof d.meta.layout, "%s",
                     ins * outs == 1 ? "mono" : "true-stereo");
        if (!d.meta.source[0])
            snprintf(d.meta.source, sizeof d.meta.source, "imported from jconvolver %s", conf);
        rc = save(&d, dir, ch, ins * outs, frames, rate) ? 1 : 0;
    }
    es_audiofile_free_channels(ch, ins * outs);
    return rc;
}

/* earshot rooms build-shipped RECIPES DIR: the build runs this to make the
 * rooms that ship with earshot; DIR's manifest is written afresh. */
static int cmd_build_shipped(int argc, char **argv)
{
    if (argc != 4) {
        es_error("rooms build-shipped: expected RECIPES DIR");
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    char err[1400], manifest[1200], *line = NULL;
    size_t line_cap = 0;
    ssize_t got_line;
    if (!f) {
        es_error("%s: cannot read: %s", argv[2], strerror(errno));
        return 1;
    }
    snprintf(manifest, sizeof manifest, "%s/rooms.txt", argv[3]);
    if (es_library_make_dir(argv[3], err, sizeof err) != 0 ||
        (remove(manifest) != 0 && errno != ENOENT &&
         snprintf(err, sizeof err, "%s: cannot replace: %s", manifest, strerror(errno)))) {
        es_error("%s", err);
        fclose(f);
        return 1;
    }
    int number = 0, rc = 0;
    while (rc == 0 && (got_line = getline(&line, &line_cap, f)) >= 0) {
        number++;
        /* Whole lines, or one message: never a long line read in pieces. */
        if (got_line > 2048 || memchr(line, 0, (size_t)got_line)) {
            es_error("%s:%d: %s", argv[2], number,
                     got_line > 2048 ? "a line longer than 2047 characters" : "a NUL byte");
            rc = 1;
            break;
        }
        destination d = {.to = argv[3]};
        char *name, *description;
        es_room_spec spec;
        const int got = es_room_recipe_line(line, &name, &description, &spec, err, sizeof err);
        if (got < 0) {
            es_error("%s:%d: %s", argv[2], number, err);
            rc = 1;
        }
        if (got <= 0)
            continue;
        float **ch;
        int frames;
        if (es_room_synthesise(&spec, &ch, &frames, err, sizeof err) != 0) {
            es_error("%s:%d: %s", argv[2], number, err);
            rc = 1;
            break;
        }
        snprintf(d.meta.name, sizeof d.meta.name, "%s", name);
        snprintf(d.meta.description, sizeof d.meta.description, "%s", description);
        snprintf(d.meta.source, sizeof d.meta.source,
                 "synthesised at build time by earshot (image sources, Eyring tail)");
        snprintf(d.meta.licence, sizeof d.meta.licence, "generated, no recorded audio");
        snprintf(d.meta.layout, sizeof d.meta.layout, "stereo");
        rc = save(&d, argv[3], ch, 2, frames, spec.rate) ? 1 : 0;
        es_audiofile_free_channels(ch, 2);
    }
    fclose(f);
    free(line);
    return rc;
}

int es_cmd_rooms_edit(int argc, char **argv)
{
    const char *sub = argv[1];
    if (!strcmp(sub, "new"))
        return cmd_new(argc, argv);
    if (!strcmp(sub, "add"))
        return cmd_add(argc, argv);
    if (!strcmp(sub, "import-jconvolver"))
        return cmd_import(argc, argv);
    if (!strcmp(sub, "build-shipped"))
        return cmd_build_shipped(argc, argv);
    es_error("rooms: unknown subcommand '%s' (new, add, import-jconvolver; see earshot rooms "
             "--help)", sub);
    return 2;
}
