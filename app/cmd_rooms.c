/* earshot rooms --show FILE: what a room is before you hear it. Acoustic
 * parameters (ISO 3382-1), broadband and per octave band, and the energy
 * decay curve as a small plot. Named rooms come with the room library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"
#include "args.h"
#include "audiofile.h"
#include "commands.h"

#define PLOT_W 60
#define PLOT_H 12
#define PLOT_DB 60.0 /* the plot's range: 0 to -60 dB */

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

static void row(const char *label, const es_acoustics *a, int json, int last)
{
    if (json) {
        printf("\"%s\":{\"t20\":%.4f,\"t30\":%.4f,\"edt\":%.4f,\"c50\":%.3f,\"c80\":%.3f,"
               "\"d50\":%.4f}%s", label, a->t20, a->t30, a->edt, a->c50, a->c80, a->d50,
               last ? "" : ",");
        return;
    }
    printf("  %-9s %6.2f %6.2f %6.2f %7.1f %7.1f %6.2f\n", label, a->t20, a->t30, a->edt,
           a->c50, a->c80, a->d50);
}

int es_cmd_rooms(int argc, char **argv)
{
    const char *file = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--show")) {
            if (!(file = es_arg_value(argc, argv, &i)))
                return 2;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: earshot rooms --show FILE [--json]\n"
                   "Prints an impulse response's acoustic parameters (ISO 3382-1): T20,\n"
                   "T30 and EDT in seconds, C50 and C80 in dB, D50, broadband and per\n"
                   "octave band (first channel), and its energy decay curve. (The room\n"
                   "library with named rooms is not built yet.)\n");
            return 0;
        } else {
            es_error("rooms: unknown option '%s' (see earshot rooms --help)", argv[i]);
            return 2;
        }
    }
    if (!file) {
        es_error("rooms: the room library is not built yet; use --show FILE");
        return 2;
    }
    float **ch = NULL;
    es_audio_info info;
    char err[512];
    if (es_audiofile_load(file, &ch, &info, err, sizeof err) != 0) {
        es_error("%s", err);
        return 1;
    }
    es_room_acoustics a;
    int rc = info.frames > 0 ? es_acoustics_room(ch[0], (int)info.frames, info.sample_rate, &a)
                             : -1;
    if (rc != 0) {
        es_error("%s: the impulse response is empty or silent", file);
    } else if (json) {
        printf("{\"file\":\"%s\",\"seconds\":%.4f,\"channels\":%d,\"rate\":%g,"
               "\"noise_db\":%.1f,", file, (double)info.frames / info.sample_rate,
               info.channels, info.sample_rate, a.broadband.noise_db);
        row("broadband", &a.broadband, 1, 0);
        for (int b = 0; b < ES_OCTAVE_BANDS; b++) {
            char label[16];
            snprintf(label, sizeof label, "%.0f", es_octave_centres[b]);
            row(label, &a.band[b], 1, b == ES_OCTAVE_BANDS - 1);
        }
        printf("}\n");
    } else {
        printf("%s: %.2f s, %d channel%s, %g Hz, noise floor %.0f dB\n\n", file,
               (double)info.frames / info.sample_rate, info.channels,
               info.channels == 1 ? "" : "s", info.sample_rate, a.broadband.noise_db);
        printf("  %-9s %6s %6s %6s %7s %7s %6s\n", "band", "T20 s", "T30 s", "EDT s",
               "C50 dB", "C80 dB", "D50");
        row("broadband", &a.broadband, 0, 0);
        for (int b = 0; b < ES_OCTAVE_BANDS; b++) {
            char label[16];
            snprintf(label, sizeof label, "%.0f Hz", es_octave_centres[b]);
            row(label, &a.band[b], 0, 0);
        }
        plot(ch[0], (int)info.frames, info.sample_rate, a.broadband.usable_s);
    }
    for (int c = 0; c < info.channels; c++)
        free(ch[c]);
    free(ch);
    return rc == 0 ? 0 : 1;
}
