/* cpu-direct: time-domain FIR, zero latency.
 *
 * Each input keeps its history in a power-of-two ring. The first `mirror`
 * samples of the ring are written a second time just past its end, so the
 * window a block needs (taps - 1 old samples plus the block) is always one
 * contiguous run of memory and the SIMD kernel never wraps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "fir_kernel.h"

typedef struct {
    es_engine base;
    int inputs, outputs, taps, max_block;
    size_t ring;      /* power of two, >= window */
    size_t mirror;    /* samples duplicated past the end: the window size */
    size_t write;     /* where the next input sample goes, < ring */
    float **history;  /* [inputs] ring + mirror floats */
    float **reversed; /* [inputs * outputs] IR reversed, NULL = no path */
    es_fir_fn fir;
} direct;

static int direct_probe(char *why, size_t n)
{
    const char *kernel = NULL;
    es_fir_select(&kernel);
    snprintf(why, n, "%s kernel", kernel);
    return 1;
}

static void direct_destroy(es_engine *e)
{
    direct *d = (direct *)e;
    if (!d)
        return;
    if (d->history)
        for (int i = 0; i < d->inputs; i++)
            es_free(d->history[i]);
    if (d->reversed)
        for (int r = 0; r < d->inputs * d->outputs; r++)
            es_free(d->reversed[r]);
    free(d->history);
    free(d->reversed);
    free(d);
}

static es_engine *direct_create(const es_format *fmt, const es_ir *ir,
                                const es_options *opt, char *err, size_t n)
{
    (void)opt;
    direct *d = calloc(1, sizeof *d);
    if (!d)
        goto nomem;
    d->inputs = ir->inputs;
    d->outputs = ir->outputs;
    d->taps = ir->length;
    d->max_block = fmt->max_block;
    d->fir = es_fir_select(NULL);
    d->mirror = (size_t)ir->length - 1 + (size_t)fmt->max_block;
    d->ring = 1;
    while (d->ring < d->mirror)
        d->ring <<= 1;
    d->history = calloc((size_t)d->inputs, sizeof *d->history);
    d->reversed = calloc((size_t)d->inputs * (size_t)d->outputs, sizeof *d->reversed);
    if (!d->history || !d->reversed)
        goto nomem;
    for (int i = 0; i < d->inputs; i++)
        if (!(d->history[i] = es_alloc((d->ring + d->mirror) * sizeof(float))))
            goto nomem;
    for (int r = 0; r < d->inputs * d->outputs; r++) {
        const float *h = ir->taps[r];
        if (!h)
            continue;
        float *hr = d->reversed[r] = es_alloc((size_t)d->taps * sizeof(float));
        if (!hr)
            goto nomem;
        for (int t = 0; t < d->taps; t++)
            hr[t] = h[d->taps - 1 - t];
    }
    d->base.klass = &es_engine_cpu_direct;
    return &d->base;
nomem:
    snprintf(err, n, "cpu-direct: out of memory for %d taps x %d paths", ir->length,
             es_ir_path_count(ir));
    direct_destroy(d ? &d->base : NULL);
    return NULL;
}

static ES_RT void push_input(direct *d, float *ring, const float *in, int frames)
{
    const size_t mask = d->ring - 1;
    for (int t = 0; t < frames; t++) {
        size_t at = (d->write + (size_t)t) & mask;
        ring[at] = in[t];
        if (at < d->mirror)
            ring[at + d->ring] = in[t];
    }
}

static ES_RT void direct_process(es_engine *e, const float *const *in,
                                 float *const *out, int frames)
{
    direct *d = (direct *)e;
    const size_t mask = d->ring - 1;
    for (int i = 0; i < d->inputs; i++)
        push_input(d, d->history[i], in[i], frames);
    /* The window starts taps - 1 samples before this block's first sample. */
    const size_t start = (d->write + d->ring - (size_t)(d->taps - 1)) & mask;
    for (int o = 0; o < d->outputs; o++) {
        int written = 0;
        for (int i = 0; i < d->inputs; i++) {
            const float *hr = d->reversed[i * d->outputs + o];
            if (!hr)
                continue;
            d->fir(hr, d->taps, d->history[i] + start, out[o], frames, written);
            written = 1;
        }
        if (!written)
            memset(out[o], 0, (size_t)frames * sizeof(float));
    }
    d->write = (d->write + (size_t)frames) & mask;
}

static int direct_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

static void direct_reset(es_engine *e)
{
    direct *d = (direct *)e;
    for (int i = 0; i < d->inputs; i++)
        memset(d->history[i], 0, (d->ring + d->mirror) * sizeof(float));
    d->write = 0;
}

const es_engine_class es_engine_cpu_direct = {
    .name = "cpu-direct",
    .summary = "time-domain FIR, AVX2/FMA or portable kernel, zero latency",
    .caps = 0,
    .probe = direct_probe,
    .create = direct_create,
    .process = direct_process,
    .latency = direct_latency,
    .reset = direct_reset,
    .destroy = direct_destroy,
};
