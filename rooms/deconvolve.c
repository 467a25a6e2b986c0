/* A sweep's recording deconvolved into an impulse response (deconvolve.h). */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deconvolve.h"
#include "fftw_planner.h"

#define REGULARISATION 1e-7   /* e: see deconvolve.h */

struct es_deconvolver {
    es_sweep sweep;
    size_t n, bins, period;
    float *time;              /* n */
    fftwf_complex *spec, *ref; /* bins each */
    fftwf_complex *inverse;   /* bins: W conj(X) / (|X|^2 + e max|X|^2) */
    float *weight;            /* bins: W */
    fftwf_plan forward, forward_ref, backward;
};

/* The smallest 2^a 3^b 5^c at or over n: a length FFTW transforms fast. */
size_t es_fft_fast_length(size_t n)
{
    for (size_t m = n;; m++) {
        size_t r = m;
        while (r % 2 == 0)
            r /= 2;
        while (r % 3 == 0)
            r /= 3;
        while (r % 5 == 0)
            r /= 5;
        if (r == 1)
            return m;
    }
}

/* A raised-cosine step from 0 (x <= 0) to 1 (x >= 1). */
static double step(double x)
{
    return x <= 0 ? 0 : x >= 1 ? 1 : 0.5 - 0.5 * cos(3.14159265358979323846 * x);
}

/* W at f: 0 outside the sweep's full-level range [top_low, top_high], a
 * raised-cosine rise up to the flat band [low, high] and a fall after it
 * (es_sweep_band), on a scale of octaves. */
static double band_weight(double f, double top_low, double low, double high, double top_high)
{
    if (f <= top_low || f >= top_high)
        return 0;
    if (f < low)
        return step(log2(f / top_low) / log2(low / top_low));
    if (f > high)
        return step(log2(top_high / f) / log2(top_high / high));
    return 1;
}

void es_deconvolver_destroy(es_deconvolver *d)
{
    if (!d)
        return;
    es_fftw_planner_lock();
    if (d->forward)
        fftwf_destroy_plan(d->forward);
    if (d->forward_ref)
        fftwf_destroy_plan(d->forward_ref);
    if (d->backward)
        fftwf_destroy_plan(d->backward);
    es_fftw_planner_unlock();
    fftwf_free(d->time);
    fftwf_free(d->spec);
    fftwf_free(d->ref);
    fftwf_free(d->inverse);
    free(d->weight);
    free(d);
}

es_deconvolver *es_deconvolver_create(const es_sweep *s, char *err, size_t n)
{
    if (es_sweep_check(s, err, n) != 0)
        return NULL;
    es_deconvolver *d = calloc(1, sizeof *d);
    if (!d)
        goto fail;
    d->sweep = *s;
    d->period = es_sweep_period(s);
    const size_t frames = es_sweep_frames(s);
    /* The response (a period) and the inverse (as long as the sweep, before
     * time zero) side by side: nothing of one wraps onto the other. */
    d->n = es_fft_fast_length(d->period + frames);
    d->bins = d->n / 2 + 1;
    d->time = fftwf_malloc(d->n * sizeof *d->time);
    d->spec = fftwf_malloc(d->bins * sizeof *d->spec);
    d->ref = fftwf_malloc(d->bins * sizeof *d->ref);
    d->inverse = fftwf_malloc(d->bins * sizeof *d->inverse);
    d->weight = malloc(d->bins * sizeof *d->weight);
    if (!d->time || !d->spec || !d->ref || !d->inverse || !d->weight)
        goto fail;
    es_fftw_planner_lock();
    /* FFTW_ESTIMATE: each measurement has a length of its own, planned
     * once and used a few times; measuring plans would take longer. */
    d->forward = fftwf_plan_dft_r2c_1d((int)d->n, d->time, d->spec, FFTW_ESTIMATE);
    d->forward_ref = fftwf_plan_dft_r2c_1d((int)d->n, d->time, d->ref, FFTW_ESTIMATE);
    d->backward = fftwf_plan_dft_c2r_1d((int)d->n, d->spec, d->time, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    if (!d->forward || !d->forward_ref || !d->backward)
        goto fail;

    double top_low, top_high, low, high;
    es_sweep_full_level(s, &top_low, &top_high);
    es_sweep_band(s, &low, &high);
    memset(d->time, 0, d->n * sizeof *d->time);
    es_sweep_fill(s, d->time);
    fftwf_execute(d->forward);
    double strongest = 0;
    for (size_t k = 0; k < d->bins; k++) {
        const double p = (double)d->spec[k][0] * d->spec[k][0] +
                         (double)d->spec[k][1] * d->spec[k][1];
        strongest = p > strongest ? p : strongest;
    }
    const double floor = REGULARISATION * strongest;
    for (size_t k = 0; k < d->bins; k++) {
        const double f = (double)k * s->rate / (double)d->n;
        const double re = d->spec[k][0], im = d->spec[k][1];
        const double w = band_weight(f, top_low, low, high, top_high);
        /* 1/n: FFTW's inverse transform is not scaled. */
        const double g = w / ((re * re + im * im + floor) * (double)d->n);
        d->weight[k] = (float)w;
        d->inverse[k][0] = (float)(g * re);
        d->inverse[k][1] = (float)(-g * im);
    }
    return d;
fail:
    snprintf(err, n, "out of memory for a sweep of %zu frames", es_sweep_total(s));
    es_deconvolver_destroy(d);
    return NULL;
}

size_t es_deconvolver_length(const es_deconvolver *d)
{
    return d->n;
}

void es_sweep_average(const es_sweep *s, const float *recording, float *out)
{
    const size_t period = es_sweep_period(s);
    for (size_t i = 0; i < period; i++) {
        double sum = 0;
        for (int r = 0; r < s->repeats; r++)
            sum += recording[(size_t)r * period + i];
        out[i] = (float)(sum / s->repeats);
    }
}

/* d->time: the period's frames of x, then zeros. */
static void load(es_deconvolver *d, const float *x)
{
    memcpy(d->time, x, d->period * sizeof *d->time);
    memset(d->time + d->period, 0, (d->n - d->period) * sizeof *d->time);
}

int es_deconvolve(es_deconvolver *d, const float *response, const float *reference, float *h)
{
    if (reference) {
        load(d, reference);
        fftwf_execute(d->forward_ref);
    }
    load(d, response);
    fftwf_execute(d->forward);
    if (!reference) {
        for (size_t k = 0; k < d->bins; k++) {
            const double yr = d->spec[k][0], yi = d->spec[k][1];
            const double ir = d->inverse[k][0], ii = d->inverse[k][1];
            d->spec[k][0] = (float)(yr * ir - yi * ii);
            d->spec[k][1] = (float)(yr * ii + yi * ir);
        }
    } else {
        double strongest = 0, in_band = 0;
        for (size_t k = 0; k < d->bins; k++) {
            const double p = (double)d->ref[k][0] * d->ref[k][0] +
                             (double)d->ref[k][1] * d->ref[k][1];
            strongest = p > strongest ? p : strongest;
            in_band += d->weight[k] * p;
        }
        if (!(in_band > 0))
            return -1;
        const double floor = REGULARISATION * strongest;
        for (size_t k = 0; k < d->bins; k++) {
            const double rr = d->ref[k][0], ri = d->ref[k][1];
            const double yr = d->spec[k][0], yi = d->spec[k][1];
            const double g = d->weight[k] / ((rr * rr + ri * ri + floor) * (double)d->n);
            /* Y conj(R) g */
            d->spec[k][0] = (float)(g * (yr * rr + yi * ri));
            d->spec[k][1] = (float)(g * (yi * rr - yr * ri));
        }
    }
    fftwf_execute(d->backward);
    memcpy(h, d->time, d->n * sizeof *h);
    return 0;
}
