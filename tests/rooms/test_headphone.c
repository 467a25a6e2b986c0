/* Headphone equalisation (rooms/headphone.c):
 *   - a room convolved with a two-ear filter equals the float64 direct
 *     convolution of each path by its output's ear (-110 dB), on fresh
 *     random taps; a one-ear filter goes on every output; a two-ear filter
 *     on a room of 6 outputs is refused in one line;
 *   - a filter designed from a SimpleHeadphoneIR set (make_sofa.py's
 *     `phones`: a pulse and a resonance per ear, three fittings) makes the
 *     fittings' mean power response flat within +-1 dB from 200 Hz to
 *     10 kHz, per ear; it is minimum-phase (99 % of its energy in its
 *     first 512 taps);
 *   - a SOFA set of another convention and a WAV of 3 channels are
 *     refused in one line naming the file.
 *   test_headphone PHONES.sofa OTHER.sofa THREE_CHANNELS.wav */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "headphone.h"
#include "sofa.h"

static int failures;

static void check(int ok, const char *line)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", line);
    failures += !ok;
}

static unsigned long long rng_state;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 2 - 1;
}

static void apply_checks(void)
{
    char err[300], line[400];
    es_ir *ir = es_ir_create(1, 2, 3000, 48000);
    for (int o = 0; o < 2; o++) {
        float *h = es_ir_path(ir, 0, o);
        for (int t = 0; t < 3000; t++)
            h[t] = (float)uniform() * expf(-t / 800.0f);
    }
    es_headphone_eq eq = {.ears = 2, .taps = 500, .rate = 48000};
    for (int e = 0; e < 2; e++) {
        eq.ear[e] = malloc(500 * sizeof(float));
        for (int t = 0; t < 500; t++)
            eq.ear[e][t] = (float)uniform() * 0.2f;
    }
    es_ir *out = es_headphone_apply(&eq, ir, err, sizeof err);
    double peak = 0, diff = 0;
    for (int o = 0; out && o < 2; o++)
        for (int t = 0; t < out->length; t++) {
            double want = 0;
            for (int k = 0; k < 500; k++)
                if (t - k >= 0 && t - k < 3000)
                    want += (double)eq.ear[o][k] * ir->taps[o][t - k];
            peak = fmax(peak, fabs(want));
            diff = fmax(diff, fabs(want - out->taps[o][t]));
        }
    const double db = diff > 0 ? 20 * log10(diff / peak) : -INFINITY;
    snprintf(line, sizeof line, "a 1 x 2 room of 3000 taps through a two-ear filter of 500: "
             "%d taps, %.1f dB against float64", out ? out->length : -1, db);
    check(out && out->length == 3499 && db < -110, line);
    es_ir_destroy(out);
    es_headphone_eq mono = {.ears = 1, .taps = 500, .rate = 48000, .ear = {eq.ear[1], NULL}};
    out = es_headphone_apply(&mono, ir, err, sizeof err);
    int same = out != NULL;
    for (int t = 0; same && t < out->length; t++) {
        double want = 0;
        for (int k = 0; k < 500; k++)
            if (t - k >= 0 && t - k < 3000)
                want += (double)mono.ear[0][k] * ir->taps[0][t - k];
        same = fabs(want - out->taps[0][t]) < 1e-4 * (peak > 0 ? peak : 1);
    }
    check(same, "a one-ear filter goes on every output (output 1 through it)");
    es_ir_destroy(out);
    es_ir *six = es_ir_create(1, 6, 100, 48000);
    es_ir_path(six, 0, 0);
    out = es_headphone_apply(&eq, six, err, sizeof err);
    snprintf(line, sizeof line, "a two-ear filter on a room of 6 outputs: %s", out ? "made" : err);
    check(!out && strstr(err, "two ears"), line);
    es_ir_destroy(six);
    es_ir_destroy(ir);
    free(eq.ear[0]);
    free(eq.ear[1]);
}

/* |X(f)|^2 of x (len taps at rate) by a direct DFT at frequency f. */
static double power_at(const float *x, int len, double rate, double f)
{
    double re = 0, im = 0;
    for (int t = 0; t < len; t++) {
        const double w = 2 * 3.14159265358979323846 * f * t / rate;
        re += x[t] * cos(w);
        im -= x[t] * sin(w);
    }
    return re * re + im * im;
}

static void design_checks(const char *path)
{
    char err[300], line[400];
    es_headphone_eq eq;
    if (es_headphone_load(path, 48000, &eq, err, sizeof err) != 0) {
        snprintf(line, sizeof line, "the filter designed from %s: %s", path, err);
        check(0, line);
        return;
    }
    es_sofa *s = es_sofa_load(path, 48000, err, sizeof err);
    if (!s) {
        check(0, err);
        es_headphone_free(&eq);
        return;
    }
    for (int e = 0; e < eq.ears; e++) {
        double lo = INFINITY, hi = -INFINITY;
        for (double f = 200; f <= 10000; f *= 1.05) {
            double p = 0;
            for (int m = 0; m < s->count; m++)
                p += power_at(s->sets[m]->taps[e], s->taps, 48000, f) / s->count;
            const double db = 10 * log10(p * power_at(eq.ear[e], eq.taps, 48000, f));
            lo = fmin(lo, db);
            hi = fmax(hi, db);
        }
        double head = 0, all = 0;
        for (int t = 0; t < eq.taps; t++) {
            const double v = (double)eq.ear[e][t] * eq.ear[e][t];
            all += v;
            head += t < 512 ? v : 0;
        }
        snprintf(line, sizeof line, "ear %d: the fittings' mean response through the filter "
                 "reads %+.2f to %+.2f dB from 200 Hz to 10 kHz; %.2f %% of its energy in its "
                 "first 512 taps", e + 1, lo, hi, 100 * head / all);
        check(lo > -1 && hi < 1 && head > 0.99 * all, line);
    }
    snprintf(line, sizeof line, "said: %s", eq.said);
    check(eq.ears == 2 && eq.taps == ES_HEADPHONE_TAPS && strstr(eq.said, "3 fittings"), line);
    es_sofa_free(s);
    es_headphone_free(&eq);
}

static void refused(const char *path, const char *want)
{
    char err[300], line[500];
    es_headphone_eq eq;
    const int rc = es_headphone_load(path, 48000, &eq, err, sizeof err);
    snprintf(line, sizeof line, "%s refused: %s", strrchr(path, '/') ? strrchr(path, '/') + 1
                                                                   : path,
             rc == 0 ? "(loaded)" : err);
    check(rc != 0 && strstr(err, path) && strstr(err, want) && !strchr(err, '\n'), line);
    if (rc == 0)
        es_headphone_free(&eq);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_headphone PHONES.sofa OTHER.sofa THREE_CHANNELS.wav\n");
        return 2;
    }
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)rng_state);
    apply_checks();
    design_checks(argv[1]);
    refused(argv[2], "SimpleHeadphoneIR");
    refused(argv[3], "3 channels");
    return failures ? 1 : 0;
}
