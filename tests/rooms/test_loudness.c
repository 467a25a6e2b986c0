/* BS.1770-4's integrated loudness (rooms/loudness.h) against the
 * standard's own figures: a 997 Hz sine at full scale in one channel reads
 * -3.01 LUFS (the K-weighting's gain there is +0.69 dB, which the -0.691
 * offset takes back), at -20 dBFS -23.01, in two channels 3.01 LU more;
 * the same at 44.1 and 96 kHz (the filters designed for each rate); a
 * 25 Hz tone far below it (the high-pass); silence after the tone is
 * gated out (absolute gate), and a quiet stretch 25 dB under the rest by
 * the relative gate, the blocks that straddle the edge counted as the
 * standard counts them; under one block, -inf. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "loudness.h"

static int failures;

static void check(int ok, const char *what, double got)
{
    printf("%s %s: %.3f\n", ok ? "ok  " : "FAIL", what, got);
    failures += !ok;
}

/* `seconds` of a sine at `hz`, `db` dBFS peak, then `quiet` seconds of the
 * same at quiet_db (-inf: silence). */
static float *tone(double rate, double hz, double db, double seconds, double quiet,
                   double quiet_db, long *frames)
{
    *frames = (long)((seconds + quiet) * rate);
    float *x = malloc((size_t)*frames * sizeof *x);
    const long loud = (long)(seconds * rate);
    for (long t = 0; t < *frames; t++) {
        const double level = t < loud ? db : quiet_db;
        x[t] = (float)(pow(10, level / 20) * sin(2 * 3.14159265358979323846 * hz * (double)t / rate));
    }
    return x;
}

int main(void)
{
    long n;
    const double rates[] = {48000, 44100, 96000};
    for (int r = 0; r < 3; r++) {
        float *x = tone(rates[r], 997, 0, 10, 0, 0, &n);
        char what[80];
        snprintf(what, sizeof what, "997 Hz at 0 dBFS, one channel, %.1f kHz (-3.01)",
                 rates[r] / 1000);
        const float *one[1] = {x};
        const double l = es_loudness_lufs(one, 1, n, rates[r]);
        check(fabs(l + 3.01) < 0.02, what, l);
        free(x);
    }
    float *x = tone(48000, 997, -20, 10, 0, 0, &n);
    const float *two[2] = {x, x};
    double l = es_loudness_lufs(two, 1, n, 48000);
    check(fabs(l + 23.01) < 0.02, "997 Hz at -20 dBFS (-23.01)", l);
    l = es_loudness_lufs(two, 2, n, 48000);
    check(fabs(l + 20.0) < 0.02, "the same in two channels (-20.00)", l);
    free(x);
    x = tone(48000, 25, 0, 10, 0, 0, &n);
    two[0] = x;
    l = es_loudness_lufs(two, 1, n, 48000);
    check(l < -3.01 - 10, "25 Hz at 0 dBFS: more than 10 LU under 997 Hz (the high-pass)", l);
    free(x);
    x = tone(48000, 997, -20, 5, 5, -INFINITY, &n);
    two[0] = x;
    l = es_loudness_lufs(two, 1, n, 48000);
    /* Gated: 47 blocks wholly in the tone and the three that straddle its
     * end (3/4, 1/2, 1/4 of it): -23.01 + 10 log10(48.5 / 50) = -23.142. */
    const double straddled = -23.01 + 10 * log10(48.5 / 50);
    check(fabs(l - straddled) < 0.01, "5 s at -20 dBFS, 5 s of silence: the silence gated "
          "out (-23.142)", l);
    free(x);
    x = tone(48000, 997, -20, 5, 5, -45, &n);
    two[0] = x;
    l = es_loudness_lufs(two, 1, n, 48000);
    check(fabs(l - straddled) < 0.01, "5 s at -20 dBFS, 5 s at -45: the quiet part gated out "
          "by the relative gate (-23.142)", l);
    l = es_loudness_lufs(two, 1, 1000, 48000);
    check(isinf(l) && l < 0, "under one block (400 ms): -inf", l);
    free(x);
    return failures ? 1 : 0;
}
