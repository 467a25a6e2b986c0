#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor.h"

struct es_processor {
    es_format fmt;
    es_engine *engine;
    es_mix mix;
    int latency;
    /* Dry delay line per input, power-of-two ring of >= latency + max_block,
     * so the dry signal reaches the mix in step with the wet one. */
    float **dry_ring;
    size_t dry_size, dry_write;
    float **wet;      /* [outputs] max_block scratch */
};

es_processor *es_processor_create(const es_format *fmt, es_engine *engine,
                                  const es_mix *mix, char *err, size_t n)
{
    es_processor *p = calloc(1, sizeof *p);
    if (!p)
        goto nomem;
    p->fmt = *fmt;
    p->engine = engine;
    p->mix = *mix;
    p->latency = es_engine_latency(engine);
    p->dry_size = 1;
    while (p->dry_size < (size_t)p->latency + (size_t)fmt->max_block)
        p->dry_size <<= 1;
    p->dry_ring = calloc((size_t)fmt->inputs, sizeof *p->dry_ring);
    p->wet = calloc((size_t)fmt->outputs, sizeof *p->wet);
    if (!p->dry_ring || !p->wet)
        goto nomem;
    for (int i = 0; i < fmt->inputs; i++)
        if (!(p->dry_ring[i] = es_alloc(p->dry_size * sizeof(float))))
            goto nomem;
    for (int o = 0; o < fmt->outputs; o++)
        if (!(p->wet[o] = es_alloc((size_t)fmt->max_block * sizeof(float))))
            goto nomem;
    return p;
nomem:
    snprintf(err, n, "out of memory for the processor");
    if (p)
        es_processor_destroy(p);
    else
        es_engine_destroy(engine);
    return NULL;
}

void es_processor_destroy(es_processor *p)
{
    if (!p)
        return;
    es_engine_destroy(p->engine);
    for (int i = 0; p->dry_ring && i < p->fmt.inputs; i++)
        es_free(p->dry_ring[i]);
    for (int o = 0; p->wet && o < p->fmt.outputs; o++)
        es_free(p->wet[o]);
    free(p->dry_ring);
    free(p->wet);
    free(p);
}

int es_processor_latency(const es_processor *p)
{
    return p->latency;
}

const es_engine *es_processor_engine(const es_processor *p)
{
    return p->engine;
}

/* Which input feeds output o on the dry path: a mono input feeds every
 * output; otherwise channel o, wrapping when there are more outputs. */
static inline int dry_source(const es_processor *p, int o)
{
    return p->fmt.inputs == 1 ? 0 : o % p->fmt.inputs;
}

ES_RT void es_processor_process(es_processor *p, const float *const *in,
                                float *const *out, int frames)
{
    const size_t mask = p->dry_size - 1;
    const float wet = p->mix.wet * p->mix.gain, dry = p->mix.dry * p->mix.gain;
    for (int i = 0; i < p->fmt.inputs; i++)
        for (int t = 0; t < frames; t++)
            p->dry_ring[i][(p->dry_write + (size_t)t) & mask] = in[i][t];
    es_engine_process(p->engine, in, p->wet, frames);
    /* The dry sample that leaves with wet output t entered latency frames ago. */
    const size_t dry_read = (p->dry_write + p->dry_size - (size_t)p->latency) & mask;
    for (int o = 0; o < p->fmt.outputs; o++) {
        const float *ring = p->dry_ring[dry_source(p, o)];
        const float *w = p->wet[o];
        float *y = out[o];
        for (int t = 0; t < frames; t++)
            y[t] = wet * w[t] + dry * ring[(dry_read + (size_t)t) & mask];
    }
    p->dry_write = (p->dry_write + (size_t)frames) & mask;
}
