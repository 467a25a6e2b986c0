/* A field room as one filter matrix, heard at one orientation
 * (field_layout.h, es_field_heard): what its engine plays while the head
 * holds still there, for what the past rings at a primed swap. Each
 * input's SH channels are rotated in time (a matrix per degree), then
 * each channel convolved with its decoder filters and summed, through
 * FFTW: one channel's spectrum and the two ears' sums are all that is
 * held (order 7, 10 s: 10 MB, not the 400 MB of every channel's). */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "field_layout.h"
#include "fftw_planner.h"

typedef struct {
    int size, bins;
    float *x;
    fftwf_complex *spec, *filter;
    fftwf_complex **sum; /* [outputs] */
    fftwf_plan fwd, inv;
} heard_work;

static void work_free(heard_work *w, int outputs)
{
    es_fftw_destroy_plans(w->fwd, w->inv);
    fftwf_free(w->x);
    fftwf_free(w->spec);
    fftwf_free(w->filter);
    for (int o = 0; w->sum && o < outputs; o++)
        fftwf_free(w->sum[o]);
    free(w->sum);
}

static int work_alloc(heard_work *w, int frames, int outputs)
{
    memset(w, 0, sizeof *w);
    w->size = 64;
    while (w->size < frames)
        w->size *= 2;
    w->bins = w->size / 2 + 1;
    w->x = fftwf_malloc(sizeof(float) * (size_t)w->size);
    w->spec = fftwf_malloc(sizeof(fftwf_complex) * (size_t)w->bins);
    w->filter = fftwf_malloc(sizeof(fftwf_complex) * (size_t)w->bins);
    w->sum = calloc((size_t)outputs, sizeof *w->sum);
    int ok = w->x && w->spec && w->filter && w->sum;
    for (int o = 0; ok && o < outputs; o++)
        ok = (w->sum[o] = fftwf_malloc(sizeof(fftwf_complex) * (size_t)w->bins)) != NULL;
    if (!ok)
        return -1;
    es_fftw_planner_lock();
    w->fwd = fftwf_plan_dft_r2c_1d(w->size, w->x, w->spec, FFTW_ESTIMATE);
    w->inv = fftwf_plan_dft_c2r_1d(w->size, w->spec, w->x, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    return w->fwd && w->inv ? 0 : -1;
}

/* x = `length` samples of h (NULL: silence), zero-padded; its spectrum
 * into out. */
static void transform(heard_work *w, const float *h, int length, fftwf_complex *out)
{
    memset(w->x, 0, sizeof(float) * (size_t)w->size);
    if (h)
        memcpy(w->x, h, sizeof(float) * (size_t)length);
    fftwf_execute_dft_r2c(w->fwd, w->x, out);
}

/* SH channel k of input i, rotated: the degree's channels mixed by its
 * block of the rotation. */
static void rotated_channel(const es_ir *room, int i, int k, const double *blocks, float *out)
{
    const int l = (int)floor(sqrt(k + 0.5)), first = l * l, side = 2 * l + 1;
    const double *b = blocks + (size_t)l * (2 * l - 1) * (2 * l + 1) / 3; /* degrees below */
    memset(out, 0, sizeof(float) * (size_t)room->length);
    for (int j = 0; j < side; j++) {
        const float *h = room->taps[i * room->outputs + first + j];
        const float c = (float)b[(k - first) * side + j];
        for (int t = 0; h && c != 0.0f && t < room->length; t++)
            out[t] += c * h[t];
    }
}

/* A decoder of one tap a path (AllRAD's gains): the rotated channels
 * mixed in time, no transform. */
static void heard_by_gains(const es_ir *room, const es_ir *decoder, int k_all,
                           const double *blocks, float *channel, es_ir *ir)
{
    const int outs = decoder->outputs;
    for (int i = 0; i < room->inputs; i++)
        for (int k = 0; k < k_all; k++) {
            rotated_channel(room, i, k, blocks, channel);
            for (int o = 0; o < outs; o++) {
                const float *g = decoder->taps[k * outs + o];
                float *h = ir->taps[i * outs + o];
                for (int t = 0; g && g[0] != 0.0f && t < room->length; t++)
                    h[t] += g[0] * channel[t];
            }
        }
}

es_ir *es_field_heard(const es_ir *room, const es_ir *decoder, int order, float yaw, float pitch,
                      float roll, char *err, size_t n)
{
    const int k_all = ES_AMBI_CHANNELS(order), outs = decoder->outputs;
    const int length = room->length + decoder->length - 1;
    double blocks[ES_AMBI_BLOCKS(ES_AMBI_ORDER_MAX)];
    es_rotation m;
    es_head_field_matrix(yaw, pitch, roll, &m);
    es_sh_rotation(order, &m, blocks);
    heard_work w = {0};
    float *channel = malloc(sizeof(float) * (size_t)room->length);
    es_ir *ir = es_ir_create(room->inputs, outs, length, room->sample_rate);
    for (int p = 0; ir && p < room->inputs * outs; p++)
        if (!es_ir_path(ir, p / outs, p % outs)) {
            es_ir_destroy(ir);
            ir = NULL;
        }
    if (channel && ir && decoder->length == 1) {
        heard_by_gains(room, decoder, k_all, blocks, channel, ir);
        free(channel);
        return ir;
    }
    if (!channel || !ir || work_alloc(&w, length, outs) != 0) {
        snprintf(err, n, "out of memory for the field heard as one filter");
        goto fail;
    }
    for (int i = 0; i < room->inputs; i++) {
        for (int o = 0; o < outs; o++)
            memset(w.sum[o], 0, sizeof(fftwf_complex) * (size_t)w.bins);
        for (int k = 0; k < k_all; k++) {
            rotated_channel(room, i, k, blocks, channel);
            transform(&w, channel, room->length, w.spec);
            for (int o = 0; o < outs; o++) {
                transform(&w, decoder->taps[k * outs + o], decoder->length, w.filter);
                for (int b = 0; b < w.bins; b++)
                    w.sum[o][b] += w.spec[b] * w.filter[b];
            }
        }
        for (int o = 0; o < outs; o++) {
            float *h = ir->taps[i * outs + o];
            memcpy(w.spec, w.sum[o], sizeof(fftwf_complex) * (size_t)w.bins);
            fftwf_execute_dft_c2r(w.inv, w.spec, w.x);
            for (int t = 0; t < length; t++)
                h[t] = w.x[t] / (float)w.size;
        }
    }
    work_free(&w, outs);
    free(channel);
    return ir;
fail:
    work_free(&w, outs);
    free(channel);
    es_ir_destroy(ir);
    return NULL;
}
