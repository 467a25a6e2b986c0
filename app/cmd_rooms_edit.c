/* earshot rooms new | add | import-jconvolver | build-shipped: putting rooms
 * into a library folder (the user's, or --to DIR), each as an IR file plus
 * its entry in that folder's rooms.txt. Nothing is written until the room
 * has been checked the way playing it would check it. `add` is
 * cmd_rooms_add.c's, over the destination and options made here. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/args.h"
#include "core/files.h"
#include "core/lines.h"
#include "core/text.h"
#include "audiofile.h"
#include "irfile.h"
#include "jconvolver.h"
#include "library.h"
#include "room_recipe.h"
#include "core/param.h"
#include "field_layout.h"
#include "rooms_cli.h"
#include "sofa.h"
#include "synth.h"
#include "synth_binaural.h"

typedef es_rooms_destination destination;

void es_rooms_destination_init(destination *d, const char *to)
{
    memset(d, 0, sizeof *d);
    d->meta.path = "";
    d->meta.description = d->description;
    d->meta.source = d->source;
    d->meta.licence = d->licence;
    d->meta.input_names = d->input_names;
    d->meta.output_names = d->output_names;
    d->to = to;
}

/* Options every subcommand takes; 1 consumed, 0 not ours, -1 bad. */
static int common_option(destination *d, int argc, char **argv, int *i)
{
    const char *o = argv[*i], *v;
    char *field = !strcmp(o, "--name")          ? d->meta.name
                : !strcmp(o, "--description")   ? d->description
                : !strcmp(o, "--source")        ? d->source
                : !strcmp(o, "--licence")       ? d->licence
                : !strcmp(o, "--layout")        ? d->meta.layout : NULL;
    const size_t size = !strcmp(o, "--name")     ? sizeof d->meta.name
                      : !strcmp(o, "--layout")   ? sizeof d->meta.layout
                      : !strcmp(o, "--licence")  ? sizeof d->licence
                                                 : sizeof d->description;
    if (field) {
        if (!(v = es_arg_value(argc, argv, i)))
            return -1;
        /* A manifest line each: not empty, valid UTF-8 with no control
         * character (a newline would write lines of its own, an escape
         * would drive the terminal of whoever lists the room), and whole
         * or refused. */
        const es_param text = {o + 2, ES_PARAM_STRING, 0, (double)(size - 1), NULL, NULL, NULL, 0,
                               NULL, NULL};
        const char *value = NULL;
        char err[256];
        if (es_param_parse(&text, o, v, &value, err, sizeof err) != 0) {
            es_error("rooms: %s", err);
            return -1;
        }
        if (es_text_check(value, err, sizeof err) != 0) {
            es_error("rooms: %s: %s", o, err);
            return -1;
        }
        snprintf(field, size, "%s", value);
        return 1;
    }
    if (!strcmp(o, "--to"))
        return (d->to = es_arg_value(argc, argv, i)) ? 1 : -1;
    static const es_param numbers[] = {
        {"gain", ES_PARAM_DOUBLE, -60, 60, NULL, "DB", NULL, offsetof(destination, meta.gain_db),
         NULL, NULL},
        {"predelay", ES_PARAM_DOUBLE, 0, 1000, NULL, "MS", NULL,
         offsetof(destination, meta.predelay_ms), NULL, NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
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

int es_rooms_check_destination(destination *d, char *dir, size_t n)
{
    if (d->to)
        snprintf(dir, n, "%s", d->to);
    else
        es_library_user_dir(dir, n);
    if (!es_room_name_valid(d->meta.name)) {
        es_error("rooms: '%s' is not a room name (letters, digits, - _ . up to 63, not "
                 "starting with .)", d->meta.name);
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

int es_rooms_save(destination *d, const char *dir, float *const *ch, int channels, int frames,
                  double rate)
{
    char path[1300], err[1400];
    if (es_library_put_room(dir, &d->meta, ch, channels, frames, rate, path, sizeof path, err,
                            sizeof err) != 0) {
        es_error("rooms: %s", err);
        return -1;
    }
    const char *base = strrchr(path, '/');
    char wanted[ES_ROOM_NAME_MAX + 8];
    snprintf(wanted, sizeof wanted, "%s.wav", d->meta.name);
    printf("room '%s' added: %s (%.2f s, %d channel%s, %g Hz)", d->meta.name, path,
           frames / rate, channels, channels == 1 ? "" : "s", rate);
    if (base && strcmp(base + 1, wanted) != 0)
        printf("; %s is another file's, so this one is %s", wanted, base + 1);
    printf("\n");
    return 0;
}

/* The binaural room: a SOFA set over `orientations` head orientations,
 * through the HRIRs of `hrir_file`, written beside the library and put in
 * it as the room's file. */
static int new_binaural(destination *d, const char *dir, const es_room_spec *spec,
                        const char *hrir_file, int orientations)
{
    char err[1400], tmp[1100] = "", path[1300], file[1200] = "";
    es_sofa *hrir = es_sofa_load(hrir_file, spec->rate, err, sizeof err);
    if (!hrir) {
        es_error("rooms new %s: --binaural: %s", d->meta.name, err);
        return 1;
    }
    es_sofa *set = es_room_synthesise_binaural(spec, hrir, orientations, err, sizeof err);
    es_sofa_free(hrir);
    if (!set) {
        es_error("rooms new %s: --binaural %s: %s", d->meta.name, hrir_file, err);
        return 1;
    }
    /* The listener's frame: yaw 0 looks at the source (synth_binaural.h). */
    const double dx = spec->source[0] - spec->listener[0], dy = spec->source[1] - spec->listener[1];
    es_sofa_about about = {d->meta.name, d->description,
                           {hypot(dx, dy), 0, spec->source[2] - spec->listener[2]}};
    const char *base = getenv("TMPDIR");
    snprintf(tmp, sizeof tmp, "%s/earshot-binaural-XXXXXX", base && *base ? base : "/tmp");
    int rc = 1;
    if (!mkdtemp(tmp)) {
        es_error("rooms new %s: cannot make a folder in %s: %s", d->meta.name,
                 base && *base ? base : "/tmp", strerror(errno));
        tmp[0] = 0;
        goto done;
    }
    snprintf(file, sizeof file, "%s/%s.sofa", tmp, d->meta.name);
    if (es_sofa_write(file, set, &about, err, sizeof err) != 0 ||
        es_library_put_file(dir, &d->meta, file, path, sizeof path, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", d->meta.name, err);
        goto done;
    }
    remove(file);
    printf("room '%s' added: %s (SOFA SingleRoomSRIR, %d head orientations, %.2f s at %g Hz)\n",
           d->meta.name, path, set->count, set->taps / set->rate, set->rate);
    if (!es_sofa_libmysofa_reads(set->count, set->outputs, set->taps))
        es_error("note: %s holds %.0f MB of filters, past the 268 MB that libmysofa (and "
                 "players built on it) reads; earshot reads it through netCDF", path,
                 (double)set->count * set->outputs * set->taps * sizeof(double) / 1e6);
    rc = 0;
done:
    if (tmp[0]) {
        remove(file);
        rmdir(tmp);
    }
    es_sofa_free(set);
    return rc;
}

/* What `rooms new` is asked for: the room's entry, its recipe, and the
 * head that hears it, if one does. */
typedef struct {
    destination d;
    es_room_spec spec;
    const char *binaural; /* --binaural HRIR.sofa; NULL: a microphone pair */
    int orientations;
    int ambisonic;        /* --ambisonic N: a field of order N; 0: none */
} new_room;

/* --binaural, --orientations and --ambisonic: 1 taken, 0 not one of
 * them, -1 said. */
static int binaural_option(new_room *r, int argc, char **argv, int *i)
{
    const char *o = argv[*i];
    const int ambisonic = !strcmp(o, "--ambisonic");
    if (strcmp(o, "--binaural") != 0 && strcmp(o, "--orientations") != 0 && !ambisonic)
        return 0;
    const char *v = es_arg_value(argc, argv, i);
    if (!v)
        return -1;
    if (!strcmp(o, "--binaural")) {
        r->binaural = v;
        return 1;
    }
    char *end;
    const long k = strtol(v, &end, 10);
    const int max = ambisonic ? ES_AMBI_ORDER_MAX : ES_BINAURAL_ORIENTATIONS_MAX;
    if (*end || end == v || k < 1 || k > max) {
        es_error("rooms new: %s '%s': a whole number, 1 to %d", o, v, max);
        return -1;
    }
    *(ambisonic ? &r->ambisonic : &r->orientations) = (int)k;
    return 1;
}

/* The options after NAME, the room's words first (here --source is where
 * the sound starts), then the entry's: 0, or 2 after saying what is
 * wrong. */
static int read_new_options(new_room *r, int argc, char **argv)
{
    char err[512];
    for (int i = 3; i < argc; i++) {
        int used = binaural_option(r, argc, argv, &i);
        if (used < 0)
            return 2;
        if (used)
            continue;
        used = i + 1 < argc ? es_room_recipe_option(&r->spec, argv[i], argv[i + 1], err,
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
        used = common_option(&r->d, argc, argv, &i);
        if (used == 0)
            es_error("rooms new: unknown option '%s' (see earshot rooms --help)", argv[i]);
        if (used <= 0)
            return 2;
    }
    /* Words for the other rendering alone: one line, not silently unused. */
    if (r->ambisonic && r->binaural) {
        es_error("rooms new: --ambisonic makes a room any head hears (--hrir when it plays); "
                 "--binaural makes one for one head: give one of them");
        return 2;
    }
    for (int i = 3; i < argc; i++)
        if (r->ambisonic && (!strcmp(argv[i], "--orientations") || !strcmp(argv[i], "--spacing"))) {
            es_error("rooms new: %s is not for --ambisonic (a field turns with any head)",
                     argv[i]);
            return 2;
        }
    for (int i = 3; i < argc; i++)
        if ((!r->binaural && !strcmp(argv[i], "--orientations")) ||
            (r->binaural && !strcmp(argv[i], "--spacing"))) {
            es_error("rooms new: %s is for %s", argv[i],
                     r->binaural ? "a microphone pair, not --binaural"
                                 : "a binaural room (--binaural HRIR.sofa)");
            return 2;
        }
    if (!es_room_recipe_complete(&r->spec, err, sizeof err) ||
        es_room_spec_check(&r->spec, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", r->d.meta.name, err);
        return 2;
    }
    return 0;
}

/* A binaural room's description and source, where none was given. */
static void describe_binaural(new_room *r, const double *t60)
{
    destination *d = &r->d;
    const es_room_spec *spec = &r->spec;
    if (!d->description[0])
        snprintf(d->description, sizeof d->description,
                 "%gx%gx%g m, Eyring T60 %.2f s at 1 kHz, binaural, %d head orientations",
                 spec->size[0], spec->size[1], spec->size[2], t60[3], r->orientations);
    if (d->source[0])
        return;
    const char *base = strrchr(r->binaural, '/');
    snprintf(d->source, sizeof d->source,
             "synthesised by earshot rooms new (image sources through the HRIRs of "
             "%s, a binaural Eyring tail)", base ? base + 1 : r->binaural);
    /* A file name the manifest cannot hold as it is (too long, not UTF-8,
     * a control character) is left out, before the work rather than after
     * it. */
    char err[512];
    if (es_room_fields_check(&d->meta, err, sizeof err) != 0)
        snprintf(d->source, sizeof d->source, "synthesised by earshot rooms new (image "
                 "sources through a SOFA set's HRIRs, a binaural Eyring tail)");
}

/* The room heard by a stereo microphone pair: synthesised, described
 * where it was not, and saved into dir. The exit status. */
static int new_stereo(new_room *r, const char *dir, const double *t60)
{
    destination *d = &r->d;
    const es_room_spec *spec = &r->spec;
    float **ch;
    int frames;
    char err[512];
    if (es_room_synthesise(spec, &ch, &frames, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", d->meta.name, err);
        return 1;
    }
    if (!d->description[0])
        snprintf(d->description, sizeof d->description,
                 "%gx%gx%g m, Eyring T60 %.2f s at 1 kHz", spec->size[0], spec->size[1],
                 spec->size[2], t60[3]);
    if (!d->source[0])
        snprintf(d->source, sizeof d->source,
                 "synthesised by earshot rooms new (image sources, Eyring tail)");
    snprintf(d->meta.layout, sizeof d->meta.layout, "stereo");
    const int rc = es_rooms_save(d, dir, ch, 2, frames, spec->rate);
    es_audiofile_free_channels(ch, 2);
    return rc ? 1 : 0;
}

/* earshot rooms new NAME recipe... */
static int cmd_new(int argc, char **argv)
{
    new_room r = {.orientations = 72};
    es_rooms_destination_init(&r.d, NULL);
    es_room_spec_defaults(&r.spec);
    if (argc < 3 || argv[2][0] == '-') {
        es_error("rooms new: give the new room's NAME first (see earshot rooms --help)");
        return 2;
    }
    snprintf(r.d.meta.name, sizeof r.d.meta.name, "%s", argv[2]);
    if (read_new_options(&r, argc, argv) != 0)
        return 2;
    char dir[1024];
    if (es_rooms_check_destination(&r.d, dir, sizeof dir) != 0)
        return 1;
    double t60[ES_OCTAVE_BANDS];
    es_room_eyring(&r.spec, t60);
    if (r.ambisonic)
        return es_rooms_new_ambisonic(&r.d, dir, &r.spec, r.ambisonic, t60);
    if (!r.binaural)
        return new_stereo(&r, dir, t60);
    describe_binaural(&r, t60);
    return new_binaural(&r.d, dir, &r.spec, r.binaural, r.orientations);
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

int es_rooms_input_and_options(destination *d, int argc, char **argv, const char *what)
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

/* earshot rooms import-jconvolver FILE.conf */
#define MATRIX_ROOM_CHANNELS 1024 /* libsndfile writes no WAV of more */
static int cmd_import(int argc, char **argv)
{
    destination d;
    es_rooms_destination_init(&d, NULL);
    if (es_rooms_input_and_options(&d, argc, argv, "FILE.conf") != 0)
        return 2;
    const char *conf = argv[2];
    char err[1400], dir[1024];
    es_jconvolver_room room;
    if (es_jconvolver_load(conf, &room, err, sizeof err) != 0) {
        es_error("rooms import-jconvolver: %s", err);
        return 1;
    }
    /* What jconvolver would have cut or dropped too, said as it says it. */
    if (room.notes[0])
        es_error("rooms import-jconvolver: note: %s: %s", conf, room.notes);
    const int ins = room.inputs, outs = room.outputs, frames = room.frames, paths = ins * outs;
    const double rate = room.rate > 0 ? room.rate : 48000.0; /* no file gave one */
    int filters = 0;
    for (int p = 0; p < paths; p++)
        filters += room.paths[p] != NULL;
    int rc = 1;
    if (es_rooms_check_destination(&d, dir, sizeof dir) != 0)
        goto done;
    snprintf(d.meta.layout, sizeof d.meta.layout, "%dx%d", ins, outs);
    if (paths == 1 || (ins == 2 && outs == 2))
        snprintf(d.meta.layout, sizeof d.meta.layout, "%s", paths == 1 ? "mono" : "true-stereo");
    const es_field_layout bformat = {.inputs = ins, .order = 1, .norm = ES_AMBI_FUMA};
    if (es_field_layout_bformat((const char(*)[64])room.output_name, outs))
        es_field_layout_word(&bformat, d.meta.layout, sizeof d.meta.layout);
    if (!d.source[0])
        snprintf(d.source, sizeof d.source, "imported from jconvolver %s", conf);
    /* The configuration's port names, kept in the manifest: the room
     * names its JACK ports as jconvolver would, from the library too. */
    es_jconvolver_names_join(room.input_name, ins, d.input_names, sizeof d.input_names);
    es_jconvolver_names_join(room.output_name, outs, d.output_names, sizeof d.output_names);
    /* One WAV of inputs x outputs channels (a path without a filter a
     * silent channel), unless a WAV cannot hold them or most would be
     * silence: then a matrix room, its filters alone. */
    if (paths > MATRIX_ROOM_CHANNELS || 2 * filters < paths) {
        char path[1300];
        if (es_library_put_matrix(dir, &d.meta, room.paths, ins, outs, frames, rate, path,
                                  sizeof path, err, sizeof err) != 0) {
            es_error("rooms: %s", err);
            goto done;
        }
        printf("room '%s' added: %s (a %d x %d matrix of %d filter%s, %.2f s, %g Hz)\n",
               d.meta.name, path, ins, outs, filters, filters == 1 ? "" : "s", frames / rate,
               rate);
        rc = 0;
        goto done;
    }
    for (int p = 0; p < paths; p++)
        if (!room.paths[p] && !(room.paths[p] = calloc((size_t)frames, sizeof(float)))) {
            es_error("rooms import-jconvolver: %s: out of memory", conf);
            goto done;
        }
    rc = es_rooms_save(&d, dir, room.paths, paths, frames, rate) ? 1 : 0;
done:
    es_jconvolver_free(&room);
    return rc;
}

/* earshot rooms build-shipped RECIPES DIR: the build runs this to make the
 * rooms that ship with earshot. Every line is checked before anything is
 * written; the WAVs are written whole, then DIR's manifest afresh, so a
 * bad recipe leaves the last build's rooms as they were. */
typedef struct {
    char *name, *description;
    es_room_spec spec;
} recipe;

/* Reads and checks every line; the count, or -1 (said). */
static int read_recipes(const char *list, char *text, size_t cap, recipe *out, int max)
{
    char err[1400];
    FILE *f = es_fopen_regular(list, err, sizeof err);
    if (!f) {
        es_error("%s", err);
        return -1;
    }
    int count = 0, number = 0, bad = 0, got;
    size_t used = 0, len;
    while (!bad && used < cap &&
           (got = es_line_read(f, text + used, cap - used < 2048 ? cap - used : 2048, &len)) !=
               ES_LINE_END) {
        number++;
        /* Whole lines, or one message: never a long line read in pieces. */
        if (got != ES_LINE_OK) {
            es_error("%s:%d: %s", list, number,
                     got == ES_LINE_LONG  ? "a line longer than 2047 characters"
                     : got == ES_LINE_NUL ? "a NUL byte"
                                          : "read error");
            bad = 1;
            break;
        }
        char *line = text + used;
        used += len + 1;
        recipe r;
        const int kind = es_room_recipe_line(line, &r.name, &r.description, &r.spec, err,
                                             sizeof err);
        if (kind < 0) {
            es_error("%s:%d: %s", list, number, err);
            bad = 1;
        } else if (kind > 0 && count == max) {
            es_error("%s:%d: more than %d rooms", list, number, max);
            bad = 1;
        } else if (kind > 0) {
            for (int k = 0; k < count && !bad; k++)
                if (!strcmp(out[k].name, r.name)) {
                    es_error("%s:%d: a second room '%s'", list, number, r.name);
                    bad = 1;
                }
            if (!es_room_name_valid(r.name)) {
                es_error("%s:%d: '%s' is not a room name", list, number, r.name);
                bad = 1;
            }
            out[count++] = r;
        }
    }
    if (!bad && used >= cap) {
        es_error("%s: longer than %zu bytes", list, cap);
        bad = 1;
    }
    fclose(f);
    return bad ? -1 : count;
}

static int cmd_build_shipped(int argc, char **argv)
{
    enum { MAX_SHIPPED = 64, LIST_BYTES = 64 * 1024 };
    if (argc != 4) {
        es_error("rooms build-shipped: expected RECIPES DIR");
        return 2;
    }
    static char text[LIST_BYTES];
    static recipe recipes[MAX_SHIPPED];
    static es_room rooms[MAX_SHIPPED];
    static char descriptions[MAX_SHIPPED][256], files[MAX_SHIPPED][ES_ROOM_NAME_MAX + 8];
    const int count = read_recipes(argv[2], text, sizeof text, recipes, MAX_SHIPPED);
    if (count < 0)
        return 1;
    char err[1400], path[1300];
    if (es_library_make_dir(argv[3], err, sizeof err) != 0) {
        es_error("%s", err);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        float **ch;
        int frames;
        const es_room_spec *spec = &recipes[i].spec;
        if (es_room_synthesise(spec, &ch, &frames, err, sizeof err) != 0) {
            es_error("%s: room '%s': %s", argv[2], recipes[i].name, err);
            return 1;
        }
        snprintf(files[i], sizeof files[i], "%.63s.wav", recipes[i].name);
        snprintf(path, sizeof path, "%.1200s/%.71s", argv[3], files[i]);
        const es_write_spec ws = {.sample_rate = spec->rate, .channels = 2};
        es_audiofile *f = es_audiofile_create(path, &ws, err, sizeof err);
        const int ok = f && es_audiofile_write(f, (const float *const *)ch, frames, err,
                                               sizeof err) == 0 &&
                       es_audiofile_commit(f, err, sizeof err) == 0;
        es_audiofile_close(f);
        es_audiofile_free_channels(ch, 2);
        if (!ok) {
            es_error("%s", err);
            return 1;
        }
        snprintf(descriptions[i], sizeof descriptions[i], "%s", recipes[i].description);
        rooms[i] = (es_room){.path = files[i], .description = descriptions[i],
                             .source = "synthesised at build time by earshot (image sources, "
                                       "Eyring tail)",
                             .licence = "generated, no recorded audio", .layout = "stereo"};
        snprintf(rooms[i].name, sizeof rooms[i].name, "%s", recipes[i].name);
        printf("room '%s' built: %s (%.2f s)\n", rooms[i].name, path, frames / spec->rate);
    }
    if (es_library_write_manifest(argv[3], rooms, count, err, sizeof err) != 0) {
        es_error("%s", err);
        return 1;
    }
    return 0;
}

int es_cmd_rooms_edit(int argc, char **argv)
{
    const char *sub = argv[1];
    if (!strcmp(sub, "new"))
        return cmd_new(argc, argv);
    if (!strcmp(sub, "add"))
        return es_rooms_add(argc, argv);
    if (!strcmp(sub, "import-jconvolver"))
        return cmd_import(argc, argv);
    if (!strcmp(sub, "build-shipped"))
        return cmd_build_shipped(argc, argv);
    es_error("rooms: unknown subcommand '%s' (new, add, import-jconvolver; see earshot rooms "
             "--help)", sub);
    return 2;
}
