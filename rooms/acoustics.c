#define _DEFAULT_SOURCE /* M_PI, M_SQRT2 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"

const double es_octave_centres[ES_OCTAVE_BANDS] = {125, 250, 500, 1000, 2000, 4000};
const double es_measure_centres[ES_MEASURE_BANDS] = {63, 125, 250, 500, 1000, 2000, 4000, 8000};

int es_measure_band(double hz)
{
    for (int b = 0; b < ES_MEASURE_BANDS; b++)
        if (fabs(es_measure_centres[b] - hz) < 1)
            return b;
    return -1;
}

#define LN10 2.302585092994046

const char *es_figure_text(char *out, size_t n, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(out, n, "n/a");
    else
        snprintf(out, n, fmt, v);
    return out;
}

/* A decay time (0 when the curve did not reach its range), or NAN and
 * why: it needs `range` dB between the peak and the noise, and the fit. */
static double checked_time(double t, double range, double noise_db, const char **why,
                           const char *short_why, const char *noisy_why)
{
    if (!isnan(noise_db) && -noise_db < range) {
        *why = noisy_why;
        return NAN;
    }
    if (!(t > 0)) {
        *why = short_why;
        return NAN;
    }
    /* Shorter than the 10 ms over which the decay is smoothed and fitted:
     * a filter's ringing, not a room's reverberation. */
    if (t < ES_DECAY_MIN_S) {
        *why = "a decay under 10 ms (a filter, not a room)";
        return NAN;
    }
    *why = NULL;
    return t;
}

/* Least-squares line through level[from..to) (dB per window, dB at 0). */
static void fit(const double *level, int from, int to, double *slope_db, double *at0)
{
    double n = to - from, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = from; i < to; i++) {
        sx += i;
        sy += level[i];
        sxx += (double)i * i;
        sxy += i * level[i];
    }
    const double d = n * sxx - sx * sx;
    *slope_db = d != 0 ? (n * sxy - sx * sy) / d : 0;
    *at0 = n > 0 ? (sy - *slope_db * sx) / n : 0;
}

/* Least-squares slope (dB per sample) of db[from..to). */
static double slope(const double *db, int from, int to)
{
    double s, at0;
    fit(db, from, to, &s, &at0);
    return s;
}

/* Reverberation time from the decay curve between `top` and `bottom` dB
 * (e.g. -5 and -35 for T30): -60 / slope. 0 if the curve stops short. */
static double decay_time(const double *edc, int n, double rate, double top, double bottom)
{
    int from = -1, to = -1;
    for (int i = 0; i < n; i++) {
        if (from < 0 && edc[i] <= top)
            from = i;
        if (edc[i] <= bottom) {
            to = i;
            break;
        }
    }
    if (from < 0 || to < 0 || to - from < 4)
        return 0;
    double s = slope(edc, from, to + 1);
    return s < 0 ? -60.0 / (s * rate) : 0;
}

/* Mean of e[from..to). */
static double mean(const double *e, int from, int to)
{
    double s = 0;
    for (int i = from; i < to; i++)
        s += e[i];
    return to > from ? s / (to - from) : 0;
}

/* The level in dB of e averaged over windows of `win` samples; the count. */
static int levels(const double *e, int n, int win, double *level)
{
    const int windows = n / win;
    for (int w = 0; w < windows; w++)
        level[w] = 10 * log10(mean(e, w * win, (w + 1) * win) + 1e-300);
    return windows;
}

#define LUNDEBY_ROUNDS 5
#define LUNDEBY_PER_10DB 5 /* windows per 10 dB of decay after the first fit */

/* Lundeby, Vigran, Bietz and Vorlander (1995), the truncation ISO 3382-1
 * points to: the squared IR's level in 10 ms windows; the noise from the
 * last tenth; a line fitted from the start to 10 dB above it, and where it
 * meets the noise (the cross point). Then, up to five rounds: windows of
 * a fifth of the time the decay takes to fall 10 dB; the noise from 10 dB
 * of decay past the cross point to the end (at least the last tenth); the
 * late decay fitted from 25 dB above that noise (or the start) to 5 dB
 * above it; a new cross point, until it moves by less than a window. In
 * *noise the mean noise energy, *cut the cross point (n: none), *k the
 * late decay's energy rate per sample (0: none). */
static void lundeby(const double *e, int n, double rate, double *noise, int *cut, double *k)
{
    int win = (int)(0.010 * rate) > 1 ? (int)(0.010 * rate) : 1;
    *cut = n;
    *k = 0;
    if (n / win < 4)
        return;
    double *level = malloc(sizeof(double) * (size_t)n);
    if (!level)
        return;
    int windows = levels(e, n, win, level);
    double floor_db = 10 * log10(*noise + 1e-300), slope_db, at0;
    /* A quiet stretch early on (the gap before a large hall's first
     * reflections) is not the end of the decay: up to the last window
     * 10 dB above the noise. */
    int end = windows;
    while (end > 1 && level[end - 1] <= floor_db + 10)
        end--;
    fit(level, 0, end > 2 ? end : 2, &slope_db, &at0);
    if (!(slope_db < 0)) {
        free(level);
        return;
    }
    /* In samples from here on: dB per sample, the cross point's sample. */
    double per_sample = slope_db / win, start_db = at0;
    double cross = (floor_db - start_db) / per_sample + 0.5 * win;
    for (int round = 0; round < LUNDEBY_ROUNDS; round++) {
        int w2 = (int)(-10.0 / per_sample / LUNDEBY_PER_10DB);
        w2 = w2 < 1 ? 1 : w2 > n / 4 ? n / 4 : w2;
        const double from_decay = cross + 10.0 / -per_sample;
        int noise_from = from_decay < n ? (int)from_decay : n;
        noise_from = noise_from < n - n / 10 ? noise_from : n - n / 10;
        const double noise_now = mean(e, noise_from, n);
        if (!(noise_now > 0))
            break;
        floor_db = 10 * log10(noise_now);
        windows = levels(e, n, w2, level);
        int from = 0, to = windows;
        while (to > 1 && level[to - 1] <= floor_db + 5)
            to--;
        while (from < to && level[from] > floor_db + 25)
            from++;
        if (to - from < 3) /* under 20 dB of late decay: from the start */
            from = 0;
        if (to - from < 2)
            break;
        double s, a;
        fit(level, from, to, &s, &a);
        if (!(s < 0))
            break;
        *noise = noise_now;
        per_sample = s / w2;
        const double was = cross;
        cross = (floor_db - a) / per_sample + 0.5 * w2;
        win = w2;
        if (fabs(cross - was) < w2)
            break;
    }
    *k = -per_sample * LN10 / 10;
    if (cross > 0 && cross < n)
        *cut = (int)cross;
    free(level);
}

/* The analysis core. e: squared IR from the onset, n samples. Fills the
 * decay curve in dB into edc (n values; only the first `*usable` mean
 * anything) and the parameters. */
static void analyse(const double *e, int n, double rate, double *edc, int *usable,
                    es_acoustics *out)
{
    double peak = 0;
    for (int i = 0; i < n; i++)
        peak = e[i] > peak ? e[i] : peak;
    double noise = mean(e, n - n / 10, n); /* the last tenth (none: 0) */

    /* Where the decay meets the noise (Lundeby): the cut, and the decay
     * rate the tail beyond it is compensated with. */
    int cut = n;
    double k = 0; /* energy decay rate per sample (natural log) */
    lundeby(e, n, rate, &noise, &cut, &k);
    if (!(noise > peak * 1e-12))
        cut = n; /* no floor: the decay is used to its end */
    out->noise_db = 10 * log10((noise + 1e-300) / peak);
    const int win = (int)(0.010 * rate) > 1 ? (int)(0.010 * rate) : 1;
    if (noise < peak * 1e-9)
        noise = 0; /* no measurable floor: nothing to take out */

    /* Schroeder: backward sum of (energy - noise) up to the cut, plus the
     * tail the fitted decay would have had beyond it. */
    double tail = 0;
    if (cut < n && k > 0) {
        double at_cut = 0;
        for (int i = cut - win > 0 ? cut - win : 0; i < cut; i++)
            at_cut += e[i] - noise;
        at_cut = at_cut > 0 ? at_cut / win : 0;
        tail = at_cut / (1 - exp(-k));
    }
    double sum = tail;
    for (int i = cut - 1; i >= 0; i--) {
        sum += e[i] - noise;
        edc[i] = sum > 0 ? sum : 0;
    }
    const double total = edc[0] > 0 ? edc[0] : 1;
    for (int i = 0; i < cut; i++)
        edc[i] = 10 * log10(edc[i] / total + 1e-300);
    *usable = cut;
    out->usable_s = cut / rate;
    if (out->noise_db < -90 && noise == 0) {
        out->noise_db = NAN; /* no floor to measure: digital silence */
        out->why_noise = "no noise floor above -90 dB (a synthetic or cleaned response)";
    }
    out->edt = checked_time(decay_time(edc, cut, rate, 0.0, -10.0), 0, out->noise_db,
                            &out->why_edt, "the decay does not reach -10 dB", NULL);
    out->t20 = checked_time(decay_time(edc, cut, rate, -5.0, -25.0), 35, out->noise_db,
                            &out->why_t20, "the decay does not reach -25 dB",
                            "less than 35 dB between the peak and the noise");
    out->t30 = checked_time(decay_time(edc, cut, rate, -5.0, -35.0), 45, out->noise_db,
                            &out->why_t30, "the decay does not reach -35 dB",
                            "less than 45 dB between the peak and the noise");

    /* Clarity and definition from the energy before and after 50/80 ms. */
    double e50 = 0, e80 = 0, all = tail;
    const int n50 = (int)(0.050 * rate), n80 = (int)(0.080 * rate);
    for (int i = 0; i < cut; i++) {
        const double v = e[i] - noise > 0 ? e[i] - noise : 0;
        e50 += i < n50 ? v : 0;
        e80 += i < n80 ? v : 0;
        all += v;
    }
    /* Energy after 80 ms, against the early: none (a response shorter than
     * 80 ms, a filter) leaves clarity undefined, not +3000 dB. */
    if (!(all - e80 > 1e-12 * all) || !(all > 0)) {
        out->c50 = out->c80 = out->d50 = NAN;
        out->why_clarity = "no energy after 80 ms";
        return;
    }
    out->c50 = 10 * log10(e50 / (all - e50) + 1e-300);
    out->c80 = 10 * log10(e80 / (all - e80));
    out->d50 = e50 / all;
}

/* The squared IR from its onset: the first sample within 20 dB of the
 * peak (ISO 3382-1 A.3.4), which goes in *onset_at. Returns the length, 0
 * if silent. */
static int squared_from_onset(const float *ir, int length, double **e, int *onset_at)
{
    double peak = 0;
    for (int i = 0; ir && i < length; i++)
        peak = (double)ir[i] * ir[i] > peak ? (double)ir[i] * ir[i] : peak;
    if (peak <= 0)
        return 0; /* silent, or a matrix's path without a filter (NULL) */
    int onset = 0;
    while (onset < length && (double)ir[onset] * ir[onset] < peak * 0.01)
        onset++;
    *onset_at = onset;
    const int n = length - onset;
    *e = malloc(sizeof(double) * (size_t)n);
    if (!*e)
        return 0;
    for (int i = 0; i < n; i++)
        (*e)[i] = (double)ir[onset + i] * ir[onset + i];
    return n;
}

int es_acoustics_measure(const float *ir, int length, double rate, es_acoustics *out)
{
    memset(out, 0, sizeof *out);
    double *e = NULL;
    int onset = 0;
    const int n = squared_from_onset(ir, length, &e, &onset);
    double *edc = n ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (!n || !edc) {
        free(e);
        return -1;
    }
    int usable;
    analyse(e, n, rate, edc, &usable, out);
    out->onset_s = onset / rate;
    free(e);
    free(edc);
    return 0;
}

int es_acoustics_noise(const float *ir, int length, double rate, double *noise_db, int *cut)
{
    double *e = NULL;
    int onset = 0;
    const int n = squared_from_onset(ir, length, &e, &onset);
    if (!n)
        return -1;
    double peak = 0;
    for (int i = 0; i < n; i++)
        peak = e[i] > peak ? e[i] : peak;
    double noise = mean(e, n - n / 10, n), k;
    int at = n;
    lundeby(e, n, rate, &noise, &at, &k);
    *noise_db = noise > 0 ? 10 * log10(noise / peak) : -INFINITY;
    *cut = onset + at;
    free(e);
    return 0;
}

/* One octave band: a 6th-order Butterworth band-pass (three biquads, the
 * order IEC 61260 class 1 octave filters use), band edges fc/sqrt2 and
 * fc*sqrt2, designed by the bilinear transform with prewarped edges. It
 * runs over the time-reversed IR and the result is reversed back, so the
 * filter's own ringing does not lengthen the decay (ISO 3382-1 suggests
 * reverse filtering for short reverberation times). */
typedef struct {
    double b0, a1, a2; /* b = b0 * (1, 0, -1) */
} bandpass_section;

static void design_octave(double centre, double rate, bandpass_section sec[3])
{
    const double fs2 = 2 * rate;
    const double lo = fs2 * tan(M_PI * centre / M_SQRT2 / rate);
    const double hi = fs2 * tan(M_PI * centre * M_SQRT2 / rate);
    const double w0sq = lo * hi, bw = hi - lo;
    /* Butterworth order-3 prototype poles in the upper half plane and on
     * the axis: each gives a band-pass pole whose conjugate comes from the
     * mirrored prototype pole. */
    const double complex proto[3] = {-1.0, -0.5 + 0.8660254037844386 * I,
                                     -0.5 + 0.8660254037844386 * I};
    const double wc = 2 * M_PI * centre / rate;
    const double complex zc = cexp(I * wc);
    for (int k = 0; k < 3; k++) {
        const double complex pb = proto[k] * bw;
        const double complex root = csqrt(pb * pb - 4 * w0sq);
        /* k = 1 and 2 take the two roots of the same prototype pole. */
        double complex s = (pb + (k == 2 ? -root : root)) / 2;
        if (cimag(s) < 0)
            s = conj(s);
        const double complex z = (1 + s / fs2) / (1 - s / fs2);
        sec[k].a1 = -2 * creal(z);
        sec[k].a2 = creal(z) * creal(z) + cimag(z) * cimag(z);
        /* Unity gain at the centre frequency. */
        const double complex zi = 1.0 / zc;
        const double complex h = (1 - zi * zi) / (1 + sec[k].a1 * zi + sec[k].a2 * zi * zi);
        sec[k].b0 = 1.0 / cabs(h);
    }
}

static void octave(const float *ir, int length, double rate, double centre, float *out)
{
    bandpass_section sec[3];
    design_octave(centre, rate, sec);
    double *x = malloc(sizeof(double) * (size_t)length);
    if (!x) {
        memset(out, 0, sizeof(float) * (size_t)length);
        return;
    }
    for (int i = 0; i < length; i++)
        x[i] = ir[length - 1 - i];
    for (int k = 0; k < 3; k++) {
        double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
        for (int i = 0; i < length; i++) {
            const double in = x[i];
            const double y = sec[k].b0 * (in - x2) - sec[k].a1 * y1 - sec[k].a2 * y2;
            x2 = x1;
            x1 = in;
            y2 = y1;
            y1 = y;
            x[i] = y;
        }
    }
    for (int i = 0; i < length; i++)
        out[i] = (float)x[length - 1 - i];
    free(x);
}

int es_acoustics_room(const float *ir, int length, double rate, es_room_acoustics *out)
{
    memset(out, 0, sizeof *out);
    if (es_acoustics_measure(ir, length, rate, &out->broadband) != 0)
        return -1;
    float *band = malloc(sizeof(float) * (size_t)length);
    if (!band)
        return -1;
    for (int b = 0; b < ES_MEASURE_BANDS; b++) {
        /* The 63 Hz octave's true centre is 62.5 Hz (1000 / 2^4). */
        const double centre = b == 0 ? 62.5 : es_measure_centres[b];
        es_acoustics *a = &out->band[b];
        if (centre * 1.5 >= rate / 2 || (octave(ir, length, rate, centre, band),
                                         es_acoustics_measure(band, length, rate, a)) != 0) {
            *a = (es_acoustics){.t20 = NAN, .t30 = NAN, .edt = NAN, .c50 = NAN, .c80 = NAN,
                                .d50 = NAN, .noise_db = NAN};
            a->why_t20 = a->why_t30 = a->why_edt = a->why_clarity = a->why_noise =
                centre * 1.5 >= rate / 2 ? "the band is above this rate's Nyquist frequency"
                                         : "nothing in this band";
        }
    }
    free(band);
    return 0;
}

int es_acoustics_decay_curve(const float *ir, int length, double rate, double *db, int points)
{
    double *e = NULL;
    int onset;
    const int n = squared_from_onset(ir, length, &e, &onset);
    double *edc = n ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (!n || !edc || points < 2) {
        free(e);
        free(edc);
        return -1;
    }
    es_acoustics a;
    int usable;
    analyse(e, n, rate, edc, &usable, &a);
    for (int p = 0; p < points; p++)
        db[p] = edc[(int)((double)p * (usable - 1) / (points - 1))];
    free(e);
    free(edc);
    return 0;
}
