/* earshot rooms: the room library. With no subcommand it lists every room
 * with its acoustic parameters; --show prints one room (or any IR file) in
 * full with its energy decay plotted. new, add, import-jconvolver and
 * build-shipped are in cmd_rooms_edit.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acoustics.h"
#include "core/args.h"
#include "core/json.h"
#include "core/suggest.h"
#include "core/text.h"
#include "audiofile.h"
#include "app.h"
#include "irfile.h"
#include "field_layout.h"
#include "library.h"
#include "prepare.h"
#include "rooms_cli.h"
#include "sofa.h"

#define PLOT_W 60
#define PLOT_H 12
#define PLOT_DB 60.0 /* the plot's range: 0 to -60 dB */

static const char usage[] =
    "usage: earshot rooms [--rooms DIR] [--json]             list the room library\n"
    "       earshot rooms --show NAME|FILE [--channel N] [--rooms DIR] [--json]\n"
    "       earshot rooms new NAME --size LxWxH --absorption A --source X,Y,Z\n"
    "                     --listener X,Y,Z [--wall W=A] [--spacing M] [--rate HZ]\n"
    "                     [--seconds S] [--seed N] [--description TEXT] [--to DIR]\n"
    "                     [--binaural HRIR.sofa [--orientations N] | --ambisonic N]\n"
    "       earshot rooms add FILE [--name N] [--description TEXT] [--source TEXT]\n"
    "                     [--licence TEXT] [--layout L] [--gain DB] [--predelay MS] [--to DIR]\n"
    "       earshot rooms import-jconvolver FILE.conf [--name N] [--description TEXT]\n"
    "                     [--to DIR]\n"
    "\n"
    "Rooms come from the rooms built with earshot, the user's folder\n"
    "($XDG_DATA_HOME/earshot/rooms, else ~/.local/share/earshot/rooms) and\n"
    "--rooms DIR, each folder with a rooms.txt manifest (see docs/ROOMS.md).\n"
    "The list gives each room's length, channels, rate, the gain that\n"
    "levels it for programme material, and its acoustic parameters (ISO 3382-1, first\n"
    "channel that sounds): T30 and EDT in s, C80 in dB, D50. --show adds T20\n"
    "and C50 per octave band (63 Hz - 8 kHz) of that channel (--channel N: of\n"
    "channel N, or the next that sounds), the noise floor, the energy decay\n"
    "curve, and every channel's (a matrix's every path's) broadband figures\n"
    "with the direct sound's arrival. For a SOFA filter set (FILE.sofa: a\n"
    "head-related set by source direction, or a room measured at several head\n"
    "orientations), --show gives its convention and a row per measurement: the\n"
    "pose, the first path's broadband figures and, for two ears, the interaural\n"
    "level and time differences. For an Ambisonic room, --show adds its energy\n"
    "by degree and its direct sound's direction of arrival.\n"
    "\n"
    "new synthesises a shoebox room (image sources and an Eyring-decay tail per\n"
    "octave band, a stereo microphone pair 0.17 m apart) into the user folder:\n"
    "  --absorption A or A125,A250,A500,A1k,A2k,A4k for every wall, then\n"
    "  --wall NAME=A... for one of left right front back floor ceiling.\n"
    "  --binaural HRIR.sofa: heard by a head instead, a SOFA set of N head\n"
    "  orientations (--orientations, 72: yaw steps round, yaw 0 looking at the\n"
    "  source), each image source through the HRIR nearest its direction, a\n"
    "  tail with the set's interaural coherence (docs/BINAURAL.md).\n"
    "  --ambisonic N: a sound field of order N (1..7) instead, (N+1)^2 channels\n"
    "  laid out ambixN (ACN/SN3D), heard through any head and turned with it.\n"
    "add validates an IR file and copies it into the user folder (a SOFA set\n"
    "is kept as it is: a room that follows the head, docs/BINAURAL.md);\n"
    "import-jconvolver builds a room from a jconvolver configuration, read as\n"
    "jconvolver 1.1 reads it (/cd, /convolver/new with MAXSIZE cutting every\n"
    "filter, /impulse/read, dirac, hilbert and copy, port and client names;\n"
    "docs/ROOMS.md): one WAV, or for a matrix past 1,024 paths or mostly\n"
    "empty, a matrix room (NAME.conf naming a WAV per input in NAME.paths/,\n"
    "its filters alone). --to DIR writes to DIR instead.\n";

static void plot(const float *ir, int length, double rate, double usable)
{
    double db[PLOT_W];
    if (es_acoustics_decay_curve(ir, length, rate, db, PLOT_W) != 0)
        return;
    printf("\n  energy decay (0 to -%.0f dB over %.2f s)\n", PLOT_DB, usable);
    for (int row = 0; row < PLOT_H; row++) {
        const double level = -PLOT_DB * row / (PLOT_H - 1) + 0.0; /* no "-0" */
        char line[PLOT_W + 1];
        for (int c = 0; c < PLOT_W; c++) {
            const double here = db[c] < -PLOT_DB ? -PLOT_DB : db[c];
            /* The row whose level band contains the curve gets a mark. */
            line[c] = fabs(here - level) <= PLOT_DB / (PLOT_H - 1) / 2 ? '*' : ' ';
        }
        line[PLOT_W] = 0;
        printf("  %4.0f dB |%s\n", level, line);
    }
    printf("          +");
    for (int c = 0; c < PLOT_W; c++)
        putchar('-');
    printf("\n           0 s%*s%.2f s\n", PLOT_W - 8, "", usable);
}

/* A figure for JSON: null when it cannot be measured. */
const char *es_rooms_json_figure(char *out, size_t n, const char *fmt, double v)
{
    return isnan(v) ? "null" : (snprintf(out, n, fmt, v), out);
}

/* A row of figures; `onset` adds the direct sound's arrival (a channel's
 * row, not a band's). */
void es_rooms_band_row(const char *label, const es_acoustics *a, int json, int last, int onset)
{
    char f[6][32];
    if (json) {
        printf("\"%s\":{\"t20\":%s,\"t30\":%s,\"edt\":%s,\"c50\":%s,\"c80\":%s,"
               "\"d50\":%s", label, es_rooms_json_figure(f[0], 32, "%.4f", a->t20),
               es_rooms_json_figure(f[1], 32, "%.4f", a->t30), es_rooms_json_figure(f[2], 32, "%.4f", a->edt),
               es_rooms_json_figure(f[3], 32, "%.3f", a->c50), es_rooms_json_figure(f[4], 32, "%.3f", a->c80),
               es_rooms_json_figure(f[5], 32, "%.4f", a->d50));
        if (onset)
            printf(",\"onset_s\":%.5f", a->onset_s);
        printf("}%s", last ? "" : ",");
        return;
    }
    printf("  %-9s %6s %6s %6s %7s %7s %6s", label, es_figure_text(f[0], 32, "%.2f", a->t20),
           es_figure_text(f[1], 32, "%.2f", a->t30), es_figure_text(f[2], 32, "%.2f", a->edt),
           es_figure_text(f[3], 32, "%.1f", a->c50), es_figure_text(f[4], 32, "%.1f", a->c80),
           es_figure_text(f[5], 32, "%.2f", a->d50));
    if (onset)
        printf(" %7.1f", 1e3 * a->onset_s);
    printf("\n");
}

/* Why each broadband figure that reads n/a does, a line each. */
static void reasons(const char *label, const es_acoustics *a)
{
    const struct {
        const char *figure, *why;
    } rows[] = {{"T20", a->why_t20}, {"T30", a->why_t30}, {"EDT", a->why_edt},
                {"C50, C80, D50", a->why_clarity}, {"noise floor", a->why_noise}};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++)
        if (rows[k].why)
            printf("  %s: %s n/a: %s\n", label, rows[k].figure, rows[k].why);
}

/* A field from a manifest or a path, escaped for the terminal. */
static const char *safe(char *buf, size_t n, const char *text)
{
    return es_text_escape(buf, n, text);
}

/* The first channel that sounds from `from` on (round), measured whole
 * into *a: its index, or -1 when every channel is silent. */
static int first_sounding(float *const *ch, int channels, int frames, double rate, int from,
                          es_room_acoustics *a)
{
    for (int k = 0; k < channels; k++) {
        const int c = (from + k) % channels;
        if (es_acoustics_room(ch[c], frames, rate, a) == 0)
            return c;
    }
    return -1;
}

/* --channel N (from 1): the channel whose bands --show prints. */
static int show_channel;

/* Every channel's broadband figures, a row (text) or an array (JSON); a
 * matrix's channels are its paths, named input -> output. */
static void per_channel(float *const *ch, int channels, int frames, double rate,
                        const char *layout, int json)
{
    int ins, outs;
    const int paths = es_layout_matrix(layout, &ins, &outs) && ins * outs == channels;
    if (json)
        printf(",\"per_channel\":[");
    else
        printf("\n  %-9s %6s %6s %6s %7s %7s %6s %7s  (broadband, each %s)\n",
               paths ? "path" : "channel", "T20 s", "T30 s", "EDT s", "C50 dB", "C80 dB", "D50",
               "at ms", paths ? "path, input -> output" : "channel");
    int empty = 0, first = 1;
    for (int c = 0; c < channels; c++) {
        es_acoustics a;
        char label[24];
        if (!ch[c]) { /* a matrix room's path with no filter: counted, not listed */
            empty++;
            continue;
        }
        const char *comma = first ? "" : ",";
        first = 0;
        if (paths)
            snprintf(label, sizeof label, "%d->%d", c / outs + 1, c % outs + 1);
        else
            snprintf(label, sizeof label, json ? "%d" : "ch %d", c + 1);
        const int silent = es_acoustics_measure(ch[c], frames, rate, &a) != 0;
        if (json && silent)
            printf("%s{\"%s\":null}", comma, label);
        else if (json)
            printf("%s{", comma), es_rooms_band_row(label, &a, 1, 1, 1), printf("}");
        else if (silent)
            printf("  %-9s silent\n", label);
        else
            es_rooms_band_row(label, &a, 0, 0, 1);
    }
    if (json)
        printf("]");
    else if (empty)
        printf("  (%d path%s without a filter)\n", empty, empty == 1 ? "" : "s");
}

/* An IR that --show prints: a library room (room; its layout and gain
 * from the manifest, its tail as prepared) or any file (room NULL). */
typedef struct {
    const char *title;
    const es_room *room;
    const char *layout;
    float *const *ch;
    int channels, frames;
    double rate, gain_db, trimmed_s;
} shown_ir;

/* A field room's energy by degree and its direct sound's direction
 * (field_layout.h), as text or as the JSON object's "field" member. */
static void show_field(const shown_ir *ir, int json)
{
    es_field_layout f;
    es_field_analysis a;
    if (!es_field_layout_parse(ir->layout, &f) ||
        es_field_analyse((const float *const *)ir->ch, ir->channels, ir->frames, ir->rate, &f, &a) != 0) {
        if (json)
            printf(",\"field\":null");
        return;
    }
    if (json) {
        printf(",\"field\":{\"order\":%d,\"energy_db\":[", a.order);
        for (int l = 0; l <= a.order; l++)
            printf("%s%.2f", l ? "," : "", isfinite(a.energy_db[l]) ? a.energy_db[l] : -999.0);
        printf("],\"direct\":{\"azimuth\":%.1f,\"elevation\":%.1f,\"at_s\":%.5f}}",
               a.azimuth, a.elevation, a.onset_s);
        return;
    }
    printf("\n  field       Ambisonic order %d; energy by degree against W's:", a.order);
    for (int l = 1; l <= a.order; l++)
        printf(" %+.1f", a.energy_db[l]);
    printf(" dB\n  direct      from azimuth %.1f, elevation %.1f (the first-order intensity "
           "at %.1f ms)\n", a.azimuth, a.elevation, 1e3 * a.onset_s);
}

/* --show --json: one object, the bands of channel `measured`, then every
 * channel's broadband figures. */
static void show_json(const shown_ir *ir, const es_room_acoustics *a, int measured)
{
    char noise[32];
    printf("{\"name\":");
    es_json_string(stdout, ir->title);
    printf(",\"seconds\":%.4f,\"trimmed_s\":%.4f,\"channels\":%d,\"rate\":%g,"
           "\"gain_db\":%.2f,\"noise_db\":%s,\"channel\":%d,\"onset_s\":%.5f,",
           ir->frames / ir->rate, ir->trimmed_s, ir->channels, ir->rate, ir->gain_db,
           es_rooms_json_figure(noise, sizeof noise, "%.1f", a->broadband.noise_db),
           measured + 1, a->broadband.onset_s);
    if (ir->room) {
        printf("\"description\":");
        es_json_string(stdout, ir->room->description);
        printf(",\"file\":");
        es_json_string(stdout, ir->room->path);
        printf(",");
    }
    es_rooms_band_row("broadband", &a->broadband, 1, 0, 0);
    for (int b = 0; b < ES_MEASURE_BANDS; b++) {
        char label[16];
        snprintf(label, sizeof label, "%.0f", es_measure_centres[b]);
        es_rooms_band_row(label, &a->band[b], 1, b == ES_MEASURE_BANDS - 1, 0);
    }
    per_channel(ir->ch, ir->channels, ir->frames, ir->rate, ir->layout, 1);
    show_field(ir, 1);
    printf("}\n");
}

/* --show's first lines: the IR's length, shape, rate, noise and direct
 * sound, then a library room's manifest entry. */
static void show_heading(const shown_ir *ir, const es_room_acoustics *a)
{
    char t[5][1100], noise[32];
    /* A matrix is its sides and its filters, not its 4,096 channels. */
    char shape[64];
    int ins, outs, filters = 0;
    for (int c = 0; c < ir->channels; c++)
        filters += ir->ch[c] != NULL;
    if (es_layout_matrix(ir->layout, &ins, &outs) && ins * outs == ir->channels &&
        ins * outs > 4)
        snprintf(shape, sizeof shape, "a %d x %d matrix of %d filter%s", ins, outs, filters,
                 filters == 1 ? "" : "s");
    else
        snprintf(shape, sizeof shape, "%d channel%s", ir->channels,
                 ir->channels == 1 ? "" : "s");
    /* A tail cut (prepare.h: nothing it changes is over -120 dB) is said,
     * so the length here and the file's measured length agree. */
    char cut[96] = "";
    if (ir->trimmed_s >= 0.0005)
        snprintf(cut, sizeof cut, " (the file's last %.3f s cut: under -%.0f dB in any output)",
                 ir->trimmed_s, ES_TRIM_DB);
    printf("%s: %.2f s%s, %s, %g Hz, noise floor %s, direct sound at %.1f ms\n",
           safe(t[0], sizeof t[0], ir->title), ir->frames / ir->rate, cut, shape, ir->rate,
           es_figure_text(noise, sizeof noise, "%.0f dB", a->broadband.noise_db),
           1e3 * a->broadband.onset_s);
    const es_room *room = ir->room;
    if (!room)
        return;
    printf("  %s\n  file %s\n  source: %s; licence: %s; layout: %s; gain %+.1f dB "
           "(levelled for programme material)\n",
           room->description[0] ? safe(t[0], sizeof t[0], room->description)
                                : "(no description)",
           safe(t[1], sizeof t[1], room->path),
           room->source[0] ? safe(t[2], sizeof t[2], room->source) : "not given",
           room->licence[0] ? safe(t[3], sizeof t[3], room->licence) : "not given",
           ir->layout[0] ? safe(t[4], sizeof t[4], ir->layout)
                         : es_layout_for_channels(ir->channels),
           ir->gain_db);
}

/* --show as text: the heading, the bands of channel `measured`, why a
 * figure is n/a, every channel's figures and the decay plotted. */
static void show_text(const shown_ir *ir, const es_room_acoustics *a, int measured)
{
    show_heading(ir, a);
    printf("\n  %-9s %6s %6s %6s %7s %7s %6s  (channel %d)\n", "band", "T20 s", "T30 s",
           "EDT s", "C50 dB", "C80 dB", "D50", measured + 1);
    es_rooms_band_row("broadband", &a->broadband, 0, 0, 0);
    for (int b = 0; b < ES_MEASURE_BANDS; b++) {
        char label[16];
        snprintf(label, sizeof label, "%.0f Hz", es_measure_centres[b]);
        es_rooms_band_row(label, &a->band[b], 0, 0, 0);
    }
    reasons("broadband", &a->broadband);
    show_field(ir, 0);
    if (ir->channels > 1)
        per_channel(ir->ch, ir->channels, ir->frames, ir->rate, ir->layout, 0);
    plot(ir->ch[measured], ir->frames, ir->rate, a->broadband.usable_s);
}

/* 0, or 1 (said) when the IR cannot be measured. The bands are those of
 * the first channel that sounds (named); every channel's broadband
 * figures follow. */
static int show(const shown_ir *ir, int json)
{
    es_room_acoustics a;
    if (show_channel > ir->channels) {
        es_error("rooms --show: --channel %d: %s has %d channel%s", show_channel, ir->title,
                 ir->channels, ir->channels == 1 ? "" : "s");
        return 1;
    }
    const int measured = first_sounding(ir->ch, ir->channels, ir->frames, ir->rate,
                                        show_channel > 0 ? show_channel - 1 : 0, &a);
    if (measured < 0) {
        es_error("%s: the impulse response is silent (every channel)", ir->title);
        return 1;
    }
    if (json)
        show_json(ir, &a, measured);
    else
        show_text(ir, &a, measured);
    return 0;
}

int es_rooms_prepare_native(const es_room *room, es_prepared_room *out, char *err, size_t n)
{
    return es_room_prepare(room, 0, out, err, n);
}

/* Any IR file, with the checks `rooms add` and playing apply (a regular
 * file, a sample rate earshot takes, no NaN or infinite sample, not
 * empty), at its own rate and as it is: no trim, no normalisation. */
static int show_file(const char *file, int json)
{
    float **ch = NULL;
    es_ir_load_info li;
    char err[512], layout[16] = "";
    int ins, outs;
    if (es_ir_read_paths(file, 0, &ch, &li, &ins, &outs, err, sizeof err) != 0) {
        es_error("%s", err);
        return 1;
    }
    if (ins > 0)
        snprintf(layout, sizeof layout, "%dx%d", ins, outs);
    const shown_ir ir = {file, NULL, layout, ch, li.file_channels, li.frames, li.file_rate, 0, 0};
    const int rc = show(&ir, json);
    es_audiofile_free_channels(ch, li.file_channels);
    return rc;
}

void es_rooms_list_row(const es_room *r, const es_acoustics *a, double seconds, int channels,
                       double rate, double gain_db, int json)
{
    char f[4][32];
    if (json) {
        printf("{\"name\":");
        es_json_string(stdout, r->name);
        printf(",\"origin\":\"%s\",\"seconds\":%.4f,\"channels\":%d,\"rate\":%g,"
               "\"gain_db\":%.2f,\"t30\":%s,\"edt\":%s,\"c80\":%s,\"d50\":%s",
               r->origin == ES_ROOMS_SHIPPED ? "shipped"
               : r->origin == ES_ROOMS_USER  ? "user" : "rooms-dir",
               seconds, channels, rate, gain_db,
               es_rooms_json_figure(f[0], 32, "%.4f", a->t30),
               es_rooms_json_figure(f[1], 32, "%.4f", a->edt),
               es_rooms_json_figure(f[2], 32, "%.3f", a->c80),
               es_rooms_json_figure(f[3], 32, "%.4f", a->d50));
        return;
    }
    printf("%-16s %6s %6s %6s %5s %6.2f %2d %6.1f %+6.1f", r->name,
           es_figure_text(f[0], 32, "%.2f", a->t30), es_figure_text(f[1], 32, "%.2f", a->edt),
           es_figure_text(f[2], 32, "%.1f", a->c80), es_figure_text(f[3], 32, "%.2f", a->d50),
           seconds, channels, rate / 1000, gain_db);
}

static int list(const es_library *lib, int json)
{
    int problems = 0;
    if (!json)
        printf("%-16s %6s %6s %6s %5s %6s %2s %6s %6s  %s\n", "room", "T30 s", "EDT s",
               "C80 dB", "D50", "len s", "ch", "kHz", "gain", "description");
    for (int i = 0; i < lib->count; i++) {
        const es_room *r = &lib->rooms[i];
        if (es_sofa_is_file(r->path)) {
            problems += es_rooms_list_sofa(r, json) != 0;
            continue;
        }
        es_prepared_room p;
        char err[1024];
        es_room_acoustics a = {0}; /* the list shows the broadband figures only */
        if (es_rooms_prepare_native(r, &p, err, sizeof err) != 0) {
            es_error("%s (left out)", err);
            problems++;
            continue;
        }
        /* The first channel that sounds; every figure n/a when none does. */
        a.broadband = (es_acoustics){.t30 = NAN, .edt = NAN, .c80 = NAN, .d50 = NAN};
        for (int c = 0; c < p.channels; c++)
            if (es_acoustics_measure(p.ch[c], p.frames, p.rate, &a.broadband) == 0)
                break;
        char description[1100];
        es_rooms_list_row(r, &a.broadband, p.frames / p.rate, p.channels, p.rate, p.gain_db,
                          json);
        if (json) {
            printf(",\"description\":");
            es_json_string(stdout, r->description);
            printf("}\n");
        } else {
            printf("  %.40s\n", safe(description, sizeof description, r->description));
        }
        es_prepared_room_free(&p);
    }
    if (!json && lib->count == 0)
        printf("(no rooms: see earshot rooms --help)\n");
    return problems;
}

int es_cmd_rooms(int argc, char **argv)
{
    /* --help anywhere, after a subcommand too (rooms add --help), is the
     * usage and success, never a complaint about the missing FILE. */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        }
    if (argc > 1 && argv[1][0] != '-')
        return es_cmd_rooms_edit(argc, argv);
    const char *target = NULL, *extra = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--show")) {
            if (!(target = es_arg_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(argv[i], "--rooms")) {
            if (!(extra = es_arg_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--channel")) {
            const char *v = es_arg_value(argc, argv, &i);
            char *end;
            const long c = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || c < 1 || c > 4096) {
                if (v)
                    es_error("rooms --channel: '%s' is not a channel number (1..4096)", v);
                return 2;
            }
            show_channel = (int)c;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else {
            es_error("rooms: unknown option '%s' (see earshot rooms --help)", argv[i]);
            return 2;
        }
    }
    es_library lib;
    es_library_open(&lib, extra);
    for (int m = 0; m < lib.message_count; m++)
        es_error("%s", lib.messages[m]);
    int rc = lib.message_count ? 1 : 0;
    if (!target) {
        rc |= list(&lib, json) ? 1 : 0;
    } else {
        const es_room *room = es_library_find(&lib, target);
        struct stat st;
        if (!room && stat(target, &st) == 0) {
            rc = es_sofa_is_file(target) ? es_rooms_show_sofa(target, json)
                                          : show_file(target, json);
        } else if (!room) {
            es_suggestion near = {0};
            for (int i = 0; i < lib.count; i++)
                es_suggest_consider(&near, target, lib.rooms[i].name);
            char mean[160];
            es_error("rooms --show: no room or file named '%s'%s (earshot rooms lists them)",
                     target, es_suggest_text(&near, "", mean, sizeof mean));
            rc = 1;
        } else if (es_sofa_is_file(room->path)) {
            rc = es_rooms_show_sofa(room->path, json);
        } else {
            es_prepared_room p;
            char err[1024];
            if (es_rooms_prepare_native(room, &p, err, sizeof err) != 0) {
                es_error("%s", err);
                rc = 1;
            } else {
                const shown_ir ir = {room->name, room, p.layout, p.ch, p.channels, p.frames,
                                     p.rate, p.gain_db, p.trimmed_s};
                rc = show(&ir, json);
                es_prepared_room_free(&p);
            }
        }
    }
    es_library_close(&lib);
    return rc;
}
