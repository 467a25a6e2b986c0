/* SOFA filter sets (rooms/sofa.c) against what the files hold:
 *   - MIT KEMAR (Debian's libmysofa1, SimpleFreeFieldHRIR, 710 source
 *     directions, 44.1 kHz, its Data.Delay zero): loaded at its own rate
 *     every filter is the file's, bit for bit, read by libmysofa beside
 *     it (the delays honoured: none); a source at 90 degrees (left) is
 *     louder in the left ear than the right by more than 10 dB, at -90 the
 *     reverse, and the right ear hears the left source 0.45 to 0.85 ms
 *     later (the cross-correlation's peak); at 48 kHz the same signs and
 *     the lag scaled by 48/44.1 within a sample;
 *   - a SingleRoomSRIR of the test's own (make_sofa.py: 4 head yaws, a
 *     step at tap 3 scaled 0.5 + 0.1 m, Data.Delay 10 samples on the left
 *     ear and 17 on the right): each filter's step at tap 13 and 20 to the
 *     sample, the poses at yaw 0, 90, 180 and 270, the nearest pose found
 *     for a head turned to 85 and to -100 degrees; at 96 kHz the delays
 *     doubled (the step's peak at 26 and 40);
 *   - a MultiSpeakerBRIR (5 emitters: each measurement 5 x 2);
 *   - refused in one line naming the file: cut short, text, a folder, a
 *     FIFO, missing, an unknown convention, a negative delay, NaN in
 *     Data.IR.
 *
 *   test_sofa KEMAR.sofa DIR   (DIR: make_sofa.py's files, see test_sofa.sh) */
#include <math.h>
#include <mysofa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sofa.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static double energy_db(const float *x, int n)
{
    double e = 0;
    for (int t = 0; t < n; t++)
        e += (double)x[t] * x[t];
    return 10 * log10(e + 1e-30);
}

/* The lag (samples, -max..max) at which b best matches a delayed: b[t] ~ a[t - lag]. */
static int xcorr_lag(const float *a, const float *b, int n, int max)
{
    int best = 0;
    double top = -1e300;
    for (int lag = -max; lag <= max; lag++) {
        double s = 0;
        for (int t = 0; t < n; t++)
            if (t - lag >= 0 && t - lag < n)
                s += (double)b[t] * a[t - lag];
        if (s > top) {
            top = s;
            best = lag;
        }
    }
    return best;
}

static int peak_at(const float *x, int n)
{
    int at = 0;
    for (int t = 1; t < n; t++)
        if (fabsf(x[t]) > fabsf(x[at]))
            at = t;
    return at;
}

/* Left and right ear levels (dB) and the right ear's lag for a source at
 * azimuth az; receiver 1 is the left ear. */
static void ears(const es_sofa *s, float az, double *l_db, double *r_db, int *lag)
{
    const int m = es_sofa_nearest(s, az, 0);
    const es_ir *ir = s->sets[m];
    *l_db = energy_db(ir->taps[0], ir->length);
    *r_db = energy_db(ir->taps[1], ir->length);
    *lag = xcorr_lag(ir->taps[0], ir->taps[1], ir->length, (int)(0.0015 * s->rate));
}

static void kemar(const char *path)
{
    char err[512], line[1200];
    es_sofa *s = es_sofa_load(path, 0, err, sizeof err);
    check(s != NULL, s ? "KEMAR loads" : err);
    if (!s)
        return;
    snprintf(line, sizeof line, "KEMAR: %s, %d source directions, %d x %d, %d taps at %.0f Hz",
             s->convention, s->count, s->inputs, s->outputs, s->taps, s->rate);
    check(s->count == 710 && s->inputs == 1 && s->outputs == 2 && s->taps == 512 &&
              s->varies == ES_SOFA_SOURCE && !strcmp(s->convention, "SimpleFreeFieldHRIR"),
          line);
    int code = 0;
    struct MYSOFA_HRTF *h = mysofa_load(path, &code);
    long differ = 0;
    for (int m = 0; h && m < s->count; m++)
        for (int r = 0; r < 2; r++)
            for (int t = 0; t < 512; t++)
                differ += s->sets[m]->taps[r][t] != h->DataIR.values[((size_t)m * 2 + r) * 512 + t];
    snprintf(line, sizeof line, "KEMAR at its own rate: %ld of %d samples differ from the "
             "file's (its Data.Delay %g and %g: none to add)", differ, 710 * 2 * 512,
             h ? h->DataDelay.values[0] : -1, h ? h->DataDelay.values[1] : -1);
    check(h && differ == 0, line);
    mysofa_free(h);
    double l, r, l2, r2;
    int lag, lag2;
    ears(s, 90, &l, &r, &lag);
    ears(s, -90, &l2, &r2, &lag2);
    const double itd_ms = 1e3 * lag / s->rate;
    snprintf(line, sizeof line, "KEMAR ILD: left source %+.1f dB left over right, right source "
             "%+.1f dB; ITD %d samples (%.2f ms) right ear late, %d for the right source",
             l - r, l2 - r2, lag, itd_ms, lag2);
    check(l - r > 10 && l2 - r2 < -10 && itd_ms > 0.45 && itd_ms < 0.85 && lag2 < 0, line);
    es_sofa_free(s);
    s = es_sofa_load(path, 48000, err, sizeof err);
    check(s != NULL, s ? "KEMAR at 48 kHz loads" : err);
    if (!s)
        return;
    ears(s, 90, &l2, &r2, &lag2);
    const double want = lag * 48000.0 / 44100.0;
    snprintf(line, sizeof line, "KEMAR at 48 kHz: %d taps, ILD %+.1f dB, ITD %d samples "
             "(%.1f from 44.1 kHz's %d)", s->taps, l2 - r2, lag2, want, lag);
    check(s->rate == 48000 && l2 - r2 > 10 && fabs(lag2 - want) <= 1.0, line);
    es_sofa_free(s);
}

static void room_set(const char *dir)
{
    char path[4096], err[512], line[1200];
    snprintf(path, sizeof path, "%s/srir.sofa", dir);
    es_sofa *s = es_sofa_load(path, 0, err, sizeof err);
    check(s != NULL, s ? "a SingleRoomSRIR of the test's own loads" : err);
    if (!s)
        return;
    int steps_right = 1;
    for (int m = 0; m < s->count; m++) {
        const float want = 0.5f + 0.1f * (float)m;
        steps_right &= peak_at(s->sets[m]->taps[0], s->taps) == 13 &&
                       peak_at(s->sets[m]->taps[1], s->taps) == 20 &&
                       s->sets[m]->taps[0][13] == want && s->sets[m]->taps[1][20] == want;
    }
    snprintf(line, sizeof line, "SingleRoomSRIR: %d head yaws (%.0f, %.0f, %.0f, %.0f), each "
             "step at 3 + Data.Delay: 13 left, 20 right, to the sample; %d taps",
             s->count, s->pose[0].azimuth, s->pose[1].azimuth, s->pose[2].azimuth,
             s->pose[3].azimuth, s->taps);
    check(s->count == 4 && s->varies == ES_SOFA_VIEW && steps_right &&
              fabsf(s->pose[1].azimuth - 90) < 1e-3 && s->taps == 64 + 17,
          line);
    const int a = es_sofa_nearest(s, 85, 0), b = es_sofa_nearest(s, -100, 0);
    snprintf(line, sizeof line, "the nearest yaw to 85 degrees is measurement %d (90), to -100 "
             "measurement %d (270)", a + 1, b + 1);
    check(a == 1 && b == 3, line);
    es_sofa_free(s);
    s = es_sofa_load(path, 96000, err, sizeof err);
    if (!s) {
        check(0, err);
        return;
    }
    const int pl = peak_at(s->sets[0]->taps[0], s->taps), pr = peak_at(s->sets[0]->taps[1], s->taps);
    snprintf(line, sizeof line, "at 96 kHz: the steps at %d and %d (3 + 10 and 3 + 17, doubled: "
             "26 and 40), delay %.0f", pl, pr, s->max_delay);
    check(pl == 26 && pr == 40 && s->max_delay == 34, line);
    es_sofa_free(s);
    snprintf(path, sizeof path, "%s/brir.sofa", dir);
    s = es_sofa_load(path, 0, err, sizeof err);
    snprintf(line, sizeof line, "MultiSpeakerBRIR: %s",
             s ? "5 emitters into 2 receivers, 3 head yaws" : err);
    check(s && s->count == 3 && s->inputs == 5 && s->outputs == 2 &&
              s->sets[2]->taps[4 * 2 + 1] && s->sets[2]->taps[4 * 2 + 1][20] == 0.7f,
          line);
    es_sofa_free(s);
}

static void refused(const char *dir, const char *name, const char *want)
{
    char path[4096], err[512] = "", line[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    es_sofa *s = es_sofa_load(path, 48000, err, sizeof err);
    snprintf(line, sizeof line, "%s refused: %s", name, err);
    check(!s && strstr(err, path) && strstr(err, want) && !strchr(err, '\n'), line);
    es_sofa_free(s);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_sofa KEMAR.sofa DIR\n");
        return 2;
    }
    kemar(argv[1]);
    room_set(argv[2]);
    refused(argv[2], "cut.sofa", "");
    refused(argv[2], "text.sofa", "not a SOFA file");
    refused(argv[2], "folder.sofa", "not a regular file");
    refused(argv[2], "fifo.sofa", "not a regular file");
    refused(argv[2], "missing.sofa", "cannot open it");
    refused(argv[2], "unknown.sofa", "convention 'FreeFieldDirectivityTF'");
    refused(argv[2], "negative.sofa", "not a delay");
    refused(argv[2], "nan.sofa", "not a finite number");
    return failures ? 1 : 0;
}
