/* What the past still rings (ringing.h says what and why).
 *
 * One linear convolution per path of the last P = L + latency - 1 input
 * frames with the path's L taps, by FFTs of one size N >= P + L - 1 (no
 * wrap-around), of the form 2^a 3^b 5^c that FFTW does fastest. Each
 * input's past is transformed once and each filter once (at create, so
 * that a switch pays only for the input's transforms); an output sums
 * its paths' products in the frequency domain and is transformed back
 * once. Of the convolution y = h * past, output frame M + m takes
 * y[P - latency + m]: input time M + m - latency, counted from the past's
 * first frame M - P. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fftw_planner.h"
#include "ringing.h"

struct es_ringing {
    int inputs, outputs, length, latency;
    int past, frames;          /* P, and the frames owed (the same count) */
    int n;                     /* FFT size */
    int bins;                  /* n / 2 + 1 */
    fftwf_complex **h;         /* [inputs * outputs] bins each, NULL: no path */
    fftwf_complex **x;         /* [inputs] bins each: the past, transformed */
    fftwf_complex *acc;        /* bins: one output's sum */
    float *real;               /* n: a signal on its way in or out */
    fftwf_plan forward, inverse;
    size_t bytes;
};

/* The smallest 2^a 3^b 5^c at least `need` that is even (a real FFT). */
static long fft_size(long need)
{
    long best = 2;
    while (best < need)
        best <<= 1;
    for (long p3 = 1; p3 < best; p3 *= 3)
        for (long p35 = p3; p35 < best; p35 *= 5) {
            long m = p35;
            while (m < need)
                m <<= 1;
            if (m % 2 == 0 && m < best)
                best = m;
        }
    return best;
}

static void free_spectra(fftwf_complex **s, int count)
{
    for (int k = 0; s && k < count; k++)
        es_free(s[k]);
    free(s);
}

void es_ringing_destroy(es_ringing *r)
{
    if (!r)
        return;
    es_fftw_planner_lock();
    if (r->forward)
        fftwf_destroy_plan(r->forward);
    if (r->inverse)
        fftwf_destroy_plan(r->inverse);
    es_fftw_planner_unlock();
    free_spectra(r->h, r->inputs * r->outputs);
    free_spectra(r->x, r->inputs);
    es_free(r->acc);
    es_free(r->real);
    free(r);
}

/* Transforms `count` frames of `from` (zero-padded to n) into `to`. */
static void transform(es_ringing *r, const float *from, int count, fftwf_complex *to)
{
    memcpy(r->real, from, (size_t)count * sizeof(float));
    memset(r->real + count, 0, (size_t)(r->n - count) * sizeof(float));
    fftwf_execute_dft_r2c(r->forward, r->real, to);
}

es_ringing *es_ringing_create(const es_ir *ir, int latency, size_t max_bytes, char *err,
                              size_t n)
{
    es_ringing *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, n, "out of memory for the ringing");
        return NULL;
    }
    r->inputs = ir->inputs;
    r->outputs = ir->outputs;
    r->length = ir->length;
    r->latency = latency;
    r->past = r->frames = ir->length + latency - 1;
    if (r->past <= 0) /* one tap and no latency: the past owes nothing */
        return r;
    const long size = fft_size((long)r->past + ir->length - 1);
    const int paths = es_ir_path_count(ir);
    r->bins = (int)(size / 2 + 1);
    r->bytes = ((size_t)paths + (size_t)ir->inputs + 1) * (size_t)r->bins *
                   sizeof(fftwf_complex) + (size_t)size * sizeof(float);
    if (size > 1L << 30 || r->bytes > max_bytes) {
        snprintf(err, n, "%d paths of %.1f s take %.0f MB to prime, more than the %.0f MB "
                 "allowed", paths, ir->length / ir->sample_rate, (double)r->bytes / 1048576.0,
                 (double)max_bytes / 1048576.0);
        es_ringing_destroy(r);
        return NULL;
    }
    r->n = (int)size;
    r->h = calloc((size_t)ir->inputs * (size_t)ir->outputs, sizeof *r->h);
    r->x = calloc((size_t)ir->inputs, sizeof *r->x);
    const size_t spectrum = (size_t)r->bins * sizeof(fftwf_complex);
    r->acc = es_alloc(spectrum);
    r->real = es_alloc((size_t)r->n * sizeof(float));
    int ok = r->h && r->x && r->acc && r->real;
    for (int i = 0; ok && i < ir->inputs; i++)
        ok = (r->x[i] = es_alloc(spectrum)) != NULL;
    if (ok) {
        es_fftw_planner_lock();
        r->forward = fftwf_plan_dft_r2c_1d(r->n, r->real, r->acc, FFTW_ESTIMATE);
        r->inverse = fftwf_plan_dft_c2r_1d(r->n, r->acc, r->real, FFTW_ESTIMATE);
        es_fftw_planner_unlock();
        ok = r->forward && r->inverse;
    }
    for (int p = 0; ok && p < ir->inputs * ir->outputs; p++) {
        if (!ir->taps[p])
            continue;
        ok = (r->h[p] = es_alloc(spectrum)) != NULL;
        if (ok)
            transform(r, ir->taps[p], ir->length, r->h[p]);
    }
    if (!ok) {
        snprintf(err, n, "out of memory for the ringing (%.0f MB)",
                 (double)r->bytes / 1048576.0);
        es_ringing_destroy(r);
        return NULL;
    }
    return r;
}

int es_ringing_past_frames(const es_ringing *r)
{
    return r->past > 0 ? r->past : 0;
}

int es_ringing_frames(const es_ringing *r)
{
    return r->frames > 0 ? r->frames : 0;
}

size_t es_ringing_bytes(const es_ringing *r)
{
    return r->bytes;
}

void es_ringing_run(es_ringing *r, const float *const *past, float *const *out)
{
    if (r->past <= 0)
        return;
    for (int i = 0; i < r->inputs; i++)
        transform(r, past[i], r->past, r->x[i]);
    const float scale = 1.0f / (float)r->n;
    const int from = r->past - r->latency;
    for (int o = 0; o < r->outputs; o++) {
        int any = 0;
        for (int i = 0; i < r->inputs; i++) {
            /* As plain floats (re, im): ISO C before C23 takes no const
             * pointer to FFTW's array type. */
            const float *h = (const float *)r->h[i * r->outputs + o];
            const float *x = (const float *)r->x[i];
            if (!h)
                continue;
            if (!any)
                memset(r->acc, 0, (size_t)r->bins * sizeof(fftwf_complex));
            any = 1;
            float *acc = (float *)r->acc;
            for (int k = 0; k < 2 * r->bins; k += 2) {
                acc[k] += x[k] * h[k] - x[k + 1] * h[k + 1];
                acc[k + 1] += x[k] * h[k + 1] + x[k + 1] * h[k];
            }
        }
        if (!any) {
            memset(out[o], 0, (size_t)r->frames * sizeof(float));
            continue;
        }
        fftwf_execute_dft_c2r(r->inverse, r->acc, r->real);
        for (int m = 0; m < r->frames; m++)
            out[o][m] = r->real[from + m] * scale;
    }
}
