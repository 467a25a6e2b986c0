/* earshot rooms --show FILE.sofa: a SOFA filter set (rooms/sofa.h), its
 * convention and what varies, then a row per measurement: its pose, the
 * broadband ISO 3382 figures of its first path, and for two receivers
 * (ears) the interaural level and time differences, what a head turn
 * changes. At the file's own rate, as it is. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "acoustics.h"
#include "core/args.h"
#include "core/json.h"
#include "core/text.h"
#include "rooms_cli.h"
#include "sofa.h"


static double energy(const float *x, int n)
{
    double e = 0;
    for (int t = 0; t < n; t++)
        e += (double)x[t] * x[t];
    return e;
}

/* The lag in samples (within +-1.5 ms) at which b best follows a: positive
 * when b (the second ear) hears later. */
static int lag_of(const float *a, const float *b, int n, double rate)
{
    const int max = (int)(0.0015 * rate);
    int best = 0;
    double top = -INFINITY;
    for (int lag = -max; lag <= max; lag++) {
        double s = 0;
        for (int t = lag > 0 ? lag : 0; t < n && t - lag < n; t++)
            s += (double)b[t] * a[t - lag];
        if (s > top) {
            top = s;
            best = lag;
        }
    }
    return best;
}


/* The set's first lines: its convention, what varies over which poses,
 * its shape; as text with the table's heading, or the JSON object's
 * members up to its poses. */
static void show_sofa_heading(const char *path, const es_sofa *s, int json)
{
    if (json) {
        printf("{\"file\":");
        es_json_string(stdout, path);
        printf(",\"convention\":");
        es_json_string(stdout, s->convention);
        printf(",\"varies\":\"%s\",\"measurements\":%d,\"inputs\":%d,\"outputs\":%d,"
               "\"taps\":%d,\"rate\":%g,\"max_delay\":%g,\"poses\":[",
               es_sofa_varies_key(s->varies),
               s->count, s->inputs, s->outputs, s->taps, s->rate, s->max_delay);
        return;
    }
    float az_lo = INFINITY, az_hi = -INFINITY, el_lo = INFINITY, el_hi = -INFINITY;
    for (int m = 0; m < s->count; m++) {
        az_lo = fminf(az_lo, s->pose[m].azimuth), az_hi = fmaxf(az_hi, s->pose[m].azimuth);
        el_lo = fminf(el_lo, s->pose[m].elevation), el_hi = fmaxf(el_hi, s->pose[m].elevation);
    }
    char shown[4096 * 4];
    printf("%s: SOFA %s, %d %s (azimuth %.1f to %.1f, elevation %.1f to %.1f degrees), "
           "%d input%s x %d output%s, %d taps at %g Hz (%.1f ms), Data.Delay up to %g "
           "samples\n\n  %5s %8s %8s %6s %6s %6s %7s %6s",
           es_text_escape(shown, sizeof shown, path), s->convention, s->count,
           es_sofa_varies_words(s->varies), az_lo, az_hi, el_lo, el_hi, s->inputs,
           s->inputs == 1 ? "" : "s", s->outputs, s->outputs == 1 ? "" : "s", s->taps,
           s->rate, 1e3 * s->taps / s->rate, s->max_delay, "#", "azimuth", "elev.",
           "T20 s", "T30 s", "EDT s", "C50 dB", "C80 dB");
    printf(s->outputs == 2 ? " %6s %7s %7s\n" : " %6s\n", "D50", "ILD dB", "ITD ms");
}

/* Between two ears: how much louder the first hears (ILD, dB) and how
 * much later the second (ITD, ms); NaN where an ear hears nothing. */
static void interaural(const es_ir *ir, double *ild, double *itd)
{
    *ild = *itd = NAN;
    const double l = energy(ir->taps[0], ir->length), r = energy(ir->taps[1], ir->length);
    if (l > 0 && r > 0) {
        *ild = 10 * log10(l / r);
        *itd = 1e3 * lag_of(ir->taps[0], ir->taps[1], ir->length, ir->sample_rate) /
               ir->sample_rate;
    }
}

/* Measurement m: its pose, its first path's broadband figures and, for
 * two ears, what differs between them; a row of text or a JSON object. */
static void show_sofa_measurement(const es_sofa *s, int m, int json)
{
    const es_ir *ir = s->sets[m];
    const int ears = s->outputs == 2;
    es_acoustics a;
    const int silent = es_acoustics_measure(ir->taps[0], ir->length, ir->sample_rate, &a) != 0;
    double ild = NAN, itd = NAN;
    if (ears)
        interaural(ir, &ild, &itd);
    char f[2][32];
    if (json) {
        printf("%s{\"azimuth\":%.3f,\"elevation\":%.3f,\"distance\":%.3f,", m ? "," : "",
               s->pose[m].azimuth, s->pose[m].elevation, s->pose[m].distance);
        if (silent)
            printf("\"first_path\":null");
        else
            es_rooms_band_row("first_path", &a, 1, 1, 1);
        if (ears)
            printf(",\"ild_db\":%s,\"itd_ms\":%s",
                   isnan(ild) ? "null" : (snprintf(f[0], 32, "%.2f", ild), f[0]),
                   isnan(itd) ? "null" : (snprintf(f[1], 32, "%.4f", itd), f[1]));
        printf("}");
        return;
    }
    printf("  %5d %8.1f %8.1f", m + 1, s->pose[m].azimuth, s->pose[m].elevation);
    if (silent) {
        printf("  silent\n");
        return;
    }
    char t[6][32];
    printf(" %6s %6s %6s %7s %6s %6s", es_figure_text(t[0], 32, "%.2f", a.t20),
           es_figure_text(t[1], 32, "%.2f", a.t30), es_figure_text(t[2], 32, "%.2f", a.edt),
           es_figure_text(t[3], 32, "%.1f", a.c50), es_figure_text(t[4], 32, "%.1f", a.c80),
           es_figure_text(t[5], 32, "%.2f", a.d50));
    if (ears)
        printf(" %7s %7s", es_figure_text(f[0], 32, "%+.1f", ild),
               es_figure_text(f[1], 32, "%+.2f", itd));
    printf("\n");
}

int es_rooms_show_sofa(const char *path, int json)
{
    char err[1024];
    es_sofa *s = es_sofa_load(path, 0, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    show_sofa_heading(path, s, json);
    for (int m = 0; m < s->count; m++)
        show_sofa_measurement(s, m, json);
    if (json)
        printf("]}\n");
    else if (s->outputs == 2)
        printf("\n  the figures are the first path's (input 1 to output 1); ILD: output 1 over "
               "output 2 (the left ear over the right, in SOFA's order), ITD: how much later "
               "output 2 hears\n");
    es_sofa_free(s);
    return 0;
}

int es_rooms_list_sofa(const es_room *room, int json)
{
    char err[1024], said[4096 * 4];
    es_sofa *s = es_sofa_load(room->path, 0, err, sizeof err);
    if (!s) {
        es_error("%s (left out)", err);
        return 1;
    }
    const es_ir *first = s->sets[0];
    es_acoustics a = {.t30 = NAN, .edt = NAN, .c80 = NAN, .d50 = NAN};
    for (int r = 0; r < first->inputs * first->outputs; r++)
        if (first->taps[r] &&
            es_acoustics_measure(first->taps[r], first->length, first->sample_rate, &a) == 0)
            break;
    char what[160];
    snprintf(what, sizeof what, "SOFA %s, %d %s", s->convention, s->count,
             es_sofa_varies_words(s->varies));
    es_rooms_list_row(room, &a, s->taps / s->rate, s->outputs, s->rate, 0, json);
    if (json) {
        printf(",\"sofa\":{\"convention\":");
        es_json_string(stdout, s->convention);
        printf(",\"varies\":\"%s\",\"measurements\":%d},\"description\":",
               es_sofa_varies_key(s->varies),
               s->count);
        es_json_string(stdout, room->description);
        printf("}\n");
    } else {
        printf("  %.40s\n", es_text_escape(said, sizeof said, room->description &&
                                                               room->description[0]
                                                           ? room->description : what));
    }
    es_sofa_free(s);
    return 0;
}
