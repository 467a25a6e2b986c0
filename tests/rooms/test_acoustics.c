/* Acoustic parameters against impulse responses with known answers (and
 * what cannot be measured reading n/a with a reason: one tap, a filter):
 *   - exponential decays of known reverberation time (noise under an
 *     envelope falling 60 dB in RT): T20 and T30 within 2 %, EDT within 5 %,
 *     broadband and in the 500 Hz - 4 kHz octave bands (5 %);
 *   - the same with a noise floor 45 dB under the start, 10 dB below the end
 *     of the T30 range: T30 within 3 % (Schroeder integration that ignores
 *     the floor is off by 79-700 % here, so this checks the handling);
 *   - Lundeby's cross point, with floors 48 and 60 dB under the start and
 *     the noise going on to twice the crossing: within 10 % of where the
 *     decay's mean energy meets the noise's, T30 within 3 %; and where a
 *     double slope's late decay meets the noise (a fit from the start,
 *     Lundeby's first step alone, finds it 22 % late);
 *   - C50, C80 and D50 from four impulses with chosen energies before and
 *     after 50 and 80 ms (to 0.01 dB). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "acoustics.h"

#define RATE 48000.0

static int failures;

static double noise(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)*s / 4294967296.0 * 2.0 - 1.0;
}

static void near(const char *what, double got, double want, double rel)
{
    const int ok = fabs(got - want) <= rel * fabs(want);
    printf("%s %-34s %8.4f (want %.4f +- %.0f %%)\n", ok ? "ok  " : "FAIL", what, got, want,
           100 * rel);
    failures += !ok;
}

static float *decay(double rt, double seconds, double floor_db, unsigned seed)
{
    const int n = (int)(seconds * RATE);
    float *h = malloc(sizeof(float) * n);
    const double floor_amp = pow(10.0, floor_db / 20);
    for (int i = 0; i < n; i++)
        h[i] = (float)(noise(&seed) * pow(10.0, -3.0 * i / RATE / rt) +
                       (floor_db > -200 ? floor_amp * noise(&seed) : 0));
    return h;
}

/* What cannot be measured reads NAN with a reason, never 0 or 3000: a
 * one-tap room and a short band-pass filter (an octave-band FIR). */
static void not_measurable(void)
{
    float one = 0.5f;
    es_acoustics a;
    es_acoustics_measure(&one, 1, RATE, &a);
    const int tap_ok = isnan(a.t30) && isnan(a.t20) && isnan(a.edt) && isnan(a.c80) &&
                       isnan(a.d50) && isnan(a.noise_db) && a.why_t30 && a.why_clarity &&
                       a.why_noise;
    printf("%s one tap: T30, T20, EDT, C80, D50 and the noise floor n/a (%s; %s; %s)\n",
           tap_ok ? "ok  " : "FAIL", a.why_t30 ? a.why_t30 : "-",
           a.why_clarity ? a.why_clarity : "-", a.why_noise ? a.why_noise : "-");
    failures += !tap_ok;
    /* A 1 kHz band-pass of 201 taps (Hann-windowed), 4 ms long. */
    float fir[201];
    for (int k = 0; k < 201; k++) {
        const double t = k - 100, w = 0.5 - 0.5 * cos(2 * 3.14159265358979 * k / 200);
        fir[k] = (float)(w * (t == 0 ? 2 * 707.0 / RATE
                                     : (sin(2 * 3.14159265358979 * 1414.0 * t / RATE) -
                                        sin(2 * 3.14159265358979 * 707.0 * t / RATE)) / (3.14159265358979 * t)));
    }
    es_acoustics_measure(fir, 201, RATE, &a);
    const int fir_ok = isnan(a.t30) && isnan(a.c80) && a.why_t30 && a.why_clarity;
    printf("%s a band-pass filter: T30 n/a (%s), C80 n/a (%s)\n", fir_ok ? "ok  " : "FAIL",
           a.why_t30 ? a.why_t30 : "-", a.why_clarity ? a.why_clarity : "-");
    failures += !fir_ok;
}

int main(void)
{
    static const double rts[] = {0.3, 1.0, 2.5};
    char what[64];
    not_measurable();
    for (int r = 0; r < 3; r++) {
        const double rt = rts[r];
        float *h = decay(rt, 1.5 * rt + 0.1, -300, 7 + r);
        es_room_acoustics a;
        es_acoustics_room(h, (int)((1.5 * rt + 0.1) * RATE), RATE, &a);
        snprintf(what, sizeof what, "RT %.1f s: T30", rt);
        near(what, a.broadband.t30, rt, 0.02);
        snprintf(what, sizeof what, "RT %.1f s: T20", rt);
        near(what, a.broadband.t20, rt, 0.02);
        snprintf(what, sizeof what, "RT %.1f s: EDT", rt);
        near(what, a.broadband.edt, rt, 0.05);
        for (int b = es_measure_band(500); b < ES_MEASURE_BANDS; b++) {
            snprintf(what, sizeof what, "RT %.1f s: T30 at %.0f Hz", rt, es_measure_centres[b]);
            near(what, a.band[b].t30, rt, 0.05);
        }
        free(h);

        /* A noise floor 45 dB under the start. */
        h = decay(rt, 1.5 * rt + 0.5, -45, 40 + r);
        es_acoustics n;
        es_acoustics_measure(h, (int)((1.5 * rt + 0.5) * RATE), RATE, &n);
        snprintf(what, sizeof what, "RT %.1f s, -45 dB floor: T30", rt);
        near(what, n.t30, rt, 0.03);
        free(h);

        /* Lundeby's cross point: where the decay's mean energy meets the
         * noise's, RT x (floor / -60 dB) in, the response going on in noise
         * to twice that; T30 from the decay up to it. */
        for (int f = 0; f < 2; f++) {
            const double floor_db = f ? -60 : -48, cross = rt * floor_db / -60;
            h = decay(rt, 2 * cross, floor_db, 60 + 2 * r + f);
            es_acoustics_measure(h, (int)(2 * cross * RATE), RATE, &n);
            snprintf(what, sizeof what, "RT %.1f s, %.0f dB floor: cross point", rt, floor_db);
            near(what, n.usable_s, cross, 0.10);
            snprintf(what, sizeof what, "RT %.1f s, %.0f dB floor: T30", rt, floor_db);
            near(what, n.t30, rt, 0.03);
            free(h);
        }
    }

    /* A double slope, where a fit from the start goes wrong: an early
     * decay of RT 0.3 s, a late one of RT 2 s from -15 dB, noise 55 dB
     * under the start. The late decay meets the noise at 1.33 s. */
    {
        const double cross = 40.0 / 30.0, seconds = 2 * cross, floor_amp = pow(10, -55 / 20.0);
        const int len = (int)(seconds * RATE);
        float *h = malloc(sizeof(float) * len);
        unsigned seed = 99;
        for (int i = 0; i < len; i++) {
            const double t = i / RATE, early = pow(10, -3 * t / 0.3),
                         late = pow(10, -15 / 20.0 - 3 * t / 2.0);
            h[i] = (float)(noise(&seed) * (early > late ? early : late) +
                           floor_amp * noise(&seed));
        }
        es_acoustics n;
        es_acoustics_measure(h, len, RATE, &n);
        near("double slope: cross point", n.usable_s, cross, 0.10);
        free(h);
    }

    /* Four impulses: 0 ms (a), 30 ms (b), 65 ms (c), 100 ms (d). */
    const double a = 1.0, b = 0.5, c = 0.4, d = 0.3;
    const int n = (int)(0.2 * RATE);
    float *h = calloc(n, sizeof(float));
    h[0] = (float)a;
    h[(int)(0.030 * RATE)] = (float)b;
    h[(int)(0.065 * RATE)] = (float)c;
    h[(int)(0.100 * RATE)] = (float)d;
    es_acoustics s;
    es_acoustics_measure(h, n, RATE, &s);
    const double early50 = a * a + b * b, late50 = c * c + d * d, early80 = early50 + c * c;
    near("C50 (dB)", s.c50, 10 * log10(early50 / late50), 0.001);
    near("C80 (dB)", s.c80, 10 * log10(early80 / (d * d)), 0.001);
    near("D50", s.d50, early50 / (early50 + late50), 0.001);
    free(h);
    printf("acoustics: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
