/* Headphone equalisation (headphone.h): the filter read from a WAV or
 * designed from a SimpleHeadphoneIR set, and a room convolved with it. */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "fftw_planner.h"
#include "headphone.h"
#include "irfile.h"
#include "sofa.h"

/* The design's band (Hz), regularisation in it and outside (relative to
 * the band's mean power), and the ramps between (octaves). */
#define BAND_LO_HZ 100.0
#define BAND_HI_HZ 16000.0
#define BETA_IN 0.003
#define BETA_OUT 1.0
#define RAMP_OCTAVES 0.5
#define FADE_TAPS 256 /* the designed filter's end, faded out */

void es_headphone_free(es_headphone_eq *eq)
{
    for (int e = 0; e < 2; e++) {
        free(eq->ear[e]);
        eq->ear[e] = NULL;
    }
}

/* 0 inside the band, 1 well outside, a raised cosine over RAMP_OCTAVES. */
static double outside(double f, double hi)
{
    if (f <= 0)
        return 1;
    const double below = log2(BAND_LO_HZ / f), above = log2(f / hi);
    const double d = below > above ? below : above; /* octaves outside, < 0 in */
    if (d <= 0)
        return 0;
    if (d >= RAMP_OCTAVES)
        return 1;
    return 0.5 - 0.5 * cos(3.14159265358979323846 * d / RAMP_OCTAVES);
}

/* One ear's filter from `count` responses of `len` taps at `rate`: the
 * regularised inverse of their mean power, minimum-phase. */
static float *design(float *const *resp, int count, int len, double rate)
{
    int N = 8192;
    while (N < 2 * len)
        N *= 2;
    const int bins = N / 2 + 1;
    float *t = fftwf_malloc((size_t)N * sizeof *t);
    fftwf_complex *X = fftwf_malloc((size_t)bins * sizeof *X);
    double *P = calloc((size_t)bins, sizeof *P);
    float *h = calloc(ES_HEADPHONE_TAPS, sizeof *h);
    if (!t || !X || !P || !h) {
        free(h);
        h = NULL;
        goto done;
    }
    es_fftw_planner_lock();
    fftwf_plan fwd = fftwf_plan_dft_r2c_1d(N, t, X, FFTW_ESTIMATE);
    fftwf_plan inv = fftwf_plan_dft_c2r_1d(N, X, t, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    /* The fittings' mean power. */
    for (int m = 0; m < count; m++) {
        memset(t, 0, (size_t)N * sizeof *t);
        for (int k = 0; k < len && k < N; k++)
            t[k] = resp[m][k];
        fftwf_execute(fwd);
        for (int k = 0; k < bins; k++)
            P[k] += ((double)X[k][0] * X[k][0] + (double)X[k][1] * X[k][1]) / count;
    }
    const double hi = BAND_HI_HZ < 0.45 * rate ? BAND_HI_HZ : 0.45 * rate;
    double ref = 0;
    int in_band = 0;
    for (int k = 0; k < bins; k++) {
        const double f = k * rate / N;
        if (f >= BAND_LO_HZ && f <= hi)
            ref += P[k], in_band++;
    }
    ref = in_band ? ref / in_band : 1;
    /* log|C| as a real, even spectrum; its inverse is the real cepstrum. */
    for (int k = 0; k < bins; k++) {
        const double f = k * rate / N;
        const double beta = ref * (BETA_IN + (BETA_OUT - BETA_IN) * outside(f, hi));
        const double mag = sqrt(P[k]) / (P[k] + beta);
        X[k][0] = (float)log(mag > 1e-12 ? mag : 1e-12);
        X[k][1] = 0;
    }
    fftwf_execute(inv); /* t = N x cepstrum */
    /* Folded onto positive quefrencies: the minimum-phase log spectrum. */
    for (int q = 1; q < N / 2; q++)
        t[q] *= 2;
    for (int q = N / 2 + 1; q < N; q++)
        t[q] = 0;
    for (int q = 0; q < N; q++)
        t[q] /= N;
    fftwf_execute(fwd);
    for (int k = 0; k < bins; k++) {
        const double a = exp(X[k][0]), phi = X[k][1];
        X[k][0] = (float)(a * cos(phi));
        X[k][1] = (float)(a * sin(phi));
    }
    fftwf_execute(inv);
    for (int k = 0; k < ES_HEADPHONE_TAPS; k++) {
        double v = k < N ? (double)t[k] / N : 0;
        const int from_end = ES_HEADPHONE_TAPS - 1 - k;
        if (from_end < FADE_TAPS)
            v *= 0.5 - 0.5 * cos(3.14159265358979323846 * from_end / FADE_TAPS);
        h[k] = (float)v;
    }
    es_fftw_destroy_plans(fwd, inv);
done:
    fftwf_free(t);
    fftwf_free(X);
    free(P);
    return h;
}

static int from_sofa(const char *path, double rate, es_headphone_eq *eq, char *err, size_t n)
{
    es_sofa *s = es_sofa_load(path, rate, err, n);
    if (!s)
        return -1;
    if (strcmp(s->convention, "SimpleHeadphoneIR") != 0 || s->inputs != 1 ||
        s->outputs < 1 || s->outputs > 2) {
        snprintf(err, n, "%s: %s with %d x %d filters: a headphone filter comes from a "
                 "SimpleHeadphoneIR set of one or two ears", path, s->convention, s->inputs,
                 s->outputs);
        es_sofa_free(s);
        return -1;
    }
    float **resp = calloc((size_t)s->count, sizeof *resp);
    int rc = resp ? 0 : -1;
    eq->ears = s->outputs;
    for (int e = 0; rc == 0 && e < eq->ears; e++) {
        for (int m = 0; m < s->count; m++)
            resp[m] = s->sets[m]->taps[e] ? s->sets[m]->taps[e] : NULL;
        for (int m = 0; m < s->count; m++)
            if (!resp[m])
                rc = -1;
        if (rc == 0 && !(eq->ear[e] = design(resp, s->count, s->taps, rate)))
            rc = -1;
    }
    if (rc != 0)
        snprintf(err, n, "%s: out of memory designing its filter", path);
    eq->taps = ES_HEADPHONE_TAPS;
    eq->rate = rate;
    snprintf(eq->said, sizeof eq->said, "%.160s: designed from %d fitting%s (%d ear%s), %d taps, "
             "minimum-phase", path, s->count, s->count == 1 ? "" : "s", eq->ears,
             eq->ears == 1 ? "" : "s", eq->taps);
    free(resp);
    es_sofa_free(s);
    return rc;
}

static int from_wav(const char *path, double rate, es_headphone_eq *eq, char *err, size_t n)
{
    float **ch = NULL;
    es_audio_info info;
    if (es_audiofile_load(path, &ch, &info, err, n) != 0)
        return -1;
    if (info.channels < 1 || info.channels > 2 || info.frames < 1) {
        snprintf(err, n, "%s: %d channels: a headphone filter has one (both ears) or two "
                 "(left, right)", path, info.channels);
        es_audiofile_free_channels(ch, info.channels);
        return -1;
    }
    long frames = info.frames;
    if (info.sample_rate != rate &&
        (frames = es_ir_resample(path, ch, info.channels, (long)info.frames, info.sample_rate,
                                 rate, err, n)) < 0) {
        es_audiofile_free_channels(ch, info.channels);
        return -1;
    }
    for (long t = 0; t < frames; t++)
        for (int c = 0; c < info.channels; c++)
            if (!isfinite(ch[c][t])) {
                snprintf(err, n, "%s: sample %ld of channel %d is not a number", path, t + 1,
                         c + 1);
                es_audiofile_free_channels(ch, info.channels);
                return -1;
            }
    eq->ears = info.channels;
    eq->taps = (int)frames;
    eq->rate = rate;
    for (int c = 0; c < info.channels; c++) {
        eq->ear[c] = ch[c]; /* taken */
        ch[c] = NULL;
    }
    es_audiofile_free_channels(ch, info.channels);
    snprintf(eq->said, sizeof eq->said, "%.200s: %d ear%s, %d taps, used as it is", path,
             eq->ears, eq->ears == 1 ? "" : "s", eq->taps);
    return 0;
}

int es_headphone_load(const char *path, double rate, es_headphone_eq *eq, char *err, size_t n)
{
    memset(eq, 0, sizeof *eq);
    const int rc = es_sofa_is_file(path) ? from_sofa(path, rate, eq, err, n)
                                         : from_wav(path, rate, eq, err, n);
    if (rc != 0)
        es_headphone_free(eq);
    return rc;
}

es_ir *es_headphone_apply(const es_headphone_eq *eq, const es_ir *ir, char *err, size_t n)
{
    if (eq->ears == 2 && ir->outputs != 2) {
        snprintf(err, n, "the headphone filter has two ears; the room has %d output%s",
                 ir->outputs, ir->outputs == 1 ? "" : "s");
        return NULL;
    }
    const int len = ir->length + eq->taps - 1;
    int N = 1;
    while (N < len)
        N *= 2;
    const int bins = N / 2 + 1;
    es_ir *out = es_ir_create(ir->inputs, ir->outputs, len, ir->sample_rate);
    float *t = fftwf_malloc((size_t)N * sizeof *t);
    fftwf_complex *X = fftwf_malloc((size_t)bins * sizeof *X);
    fftwf_complex *E = fftwf_malloc((size_t)eq->ears * bins * sizeof *E);
    int ok = out && t && X && E;
    fftwf_plan fwd = NULL, inv = NULL;
    if (ok) {
        es_fftw_planner_lock();
        fwd = fftwf_plan_dft_r2c_1d(N, t, X, FFTW_ESTIMATE);
        inv = fftwf_plan_dft_c2r_1d(N, X, t, FFTW_ESTIMATE);
        es_fftw_planner_unlock();
        ok = fwd && inv;
    }
    for (int e = 0; ok && e < eq->ears; e++) {
        memset(t, 0, (size_t)N * sizeof *t);
        memcpy(t, eq->ear[e], (size_t)eq->taps * sizeof *t);
        fftwf_execute(fwd);
        memcpy(E + (size_t)e * bins, X, (size_t)bins * sizeof *X);
    }
    for (int i = 0; ok && i < ir->inputs; i++)
        for (int o = 0; ok && o < ir->outputs; o++) {
            const float *h = ir->taps[i * ir->outputs + o];
            if (!h)
                continue;
            float *y = es_ir_path(out, i, o);
            if (!y) {
                ok = 0;
                break;
            }
            memset(t, 0, (size_t)N * sizeof *t);
            memcpy(t, h, (size_t)ir->length * sizeof *t);
            fftwf_execute(fwd);
            fftwf_complex *ear = E + (size_t)(eq->ears == 2 ? o : 0) * bins;
            for (int k = 0; k < bins; k++) {
                const float re = X[k][0] * ear[k][0] - X[k][1] * ear[k][1];
                const float im = X[k][0] * ear[k][1] + X[k][1] * ear[k][0];
                X[k][0] = re / N;
                X[k][1] = im / N;
            }
            fftwf_execute(inv);
            memcpy(y, t, (size_t)len * sizeof *y);
        }
    es_fftw_destroy_plans(fwd, inv);
    fftwf_free(t);
    fftwf_free(X);
    fftwf_free(E);
    if (!ok) {
        es_ir_destroy(out);
        snprintf(err, n, "out of memory for the room with its headphone filter");
        return NULL;
    }
    return out;
}
