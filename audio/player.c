#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "player.h"

struct es_player {
    es_device *device;
    es_player_config cfg;   /* as opened; cfg.block follows reopen */
    es_processor *proc;
    es_signal signal;
    float **source;          /* [inputs] block: the test signal */
    int inputs, outputs;
    atomic_ullong xruns;
};

/* The audio callback: the source's block through the processor. */
static ES_RT void callback(void *ctx, const float *const *in, float *const *out, int frames,
                           unsigned flags)
{
    es_player *pl = ctx;
    if (flags)
        atomic_fetch_add_explicit(&pl->xruns, 1, memory_order_relaxed);
    const float *const *input = in;
    if (!pl->cfg.live_input) {
        if (pl->cfg.source)
            pl->cfg.source(pl->cfg.source_ctx, pl->source, pl->inputs, frames);
        else
            es_signal_fill(&pl->signal, pl->source, pl->inputs, frames);
        input = (const float *const *)pl->source;
    }
    if (pl->cfg.input_tap)
        pl->cfg.input_tap(pl->cfg.input_tap_ctx, input, pl->inputs, frames);
    es_processor_process(pl->proc, input, out, frames);
    if (pl->cfg.tap)
        pl->cfg.tap(pl->cfg.tap_ctx, (const float *const *)out, pl->outputs, frames);
}

static es_device *open_device(es_player *pl, const es_format *fmt, int block, char *err,
                              size_t n)
{
    es_device_config dc = {.name = pl->cfg.device, .sample_rate = fmt->sample_rate,
                           .block = block, .inputs = fmt->inputs, .outputs = fmt->outputs,
                           .live_input = pl->cfg.live_input,
                           .input_name = pl->cfg.input_device};
    return es_device_open(&dc, callback, pl, err, n);
}

es_player *es_player_open(const es_player_config *cfg, es_processor *take, char *err,
                          size_t n)
{
    const es_format *fmt = es_processor_format(take);
    es_player *pl = calloc(1, sizeof *pl);
    if (!pl) {
        es_processor_destroy(take);
        snprintf(err, n, "out of memory");
        return NULL;
    }
    pl->proc = take;
    pl->cfg = *cfg;
    pl->inputs = fmt->inputs;
    pl->outputs = fmt->outputs;
    es_signal_init(&pl->signal, fmt->sample_rate);
    pl->source = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    if (!pl->source) {
        snprintf(err, n, "out of memory");
        es_player_close(pl);
        return NULL;
    }
    if (!(pl->device = open_device(pl, fmt, cfg->block, err, n))) {
        es_player_close(pl);
        return NULL;
    }
    return pl;
}

int es_player_reconfigure(es_player *pl, const es_player_config *cfg, es_processor *take,
                          char *err, size_t n)
{
    const es_format *fmt = es_processor_format(take);
    float **source = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    if (!source) {
        snprintf(err, n, "out of memory");
        es_processor_destroy(take);
        return -1;
    }
    es_device_stop(pl->device);
    const es_player_config old = pl->cfg;
    pl->cfg = *cfg; /* what open_device reads */
    es_device *next = open_device(pl, fmt, cfg->block, err, n);
    if (!next) {
        /* The old stream goes on as it was. */
        pl->cfg = old;
        es_free_channels(source, fmt->inputs);
        es_processor_destroy(take);
        char ignore[256];
        es_device_start(pl->device, ignore, sizeof ignore);
        return -1;
    }
    es_device_close(pl->device);
    es_processor_destroy(pl->proc);
    es_free_channels(pl->source, pl->inputs);
    pl->device = next;
    pl->proc = take;
    pl->source = source;
    pl->inputs = fmt->inputs;
    pl->outputs = fmt->outputs;
    return es_device_start(pl->device, err, n);
}

int es_player_reopen(es_player *pl, int block, es_processor *take, char *err, size_t n)
{
    const es_format *fmt = es_processor_format(take);
    if (fmt->inputs != pl->inputs) {
        snprintf(err, n, "the new processor has %d inputs, the stream %d", fmt->inputs,
                 pl->inputs);
        es_processor_destroy(take);
        return -1;
    }
    es_player_config cfg = pl->cfg;
    cfg.block = block;
    return es_player_reconfigure(pl, &cfg, take, err, n);
}

int es_player_start(es_player *pl, char *err, size_t n)
{
    return es_device_start(pl->device, err, n);
}

void es_player_stop(es_player *pl)
{
    es_device_stop(pl->device);
}

void es_player_close(es_player *pl)
{
    if (!pl)
        return;
    es_device_close(pl->device);
    es_processor_destroy(pl->proc);
    es_free_channels(pl->source, pl->inputs);
    free(pl);
}

void es_player_abandon_device(es_player *pl)
{
    es_device_abandon(pl->device);
}

es_processor *es_player_processor(es_player *pl)
{
    return pl->proc;
}

uint64_t es_player_xruns(const es_player *pl)
{
    return atomic_load(&((es_player *)pl)->xruns);
}

void es_player_latency_parts(const es_player *pl, es_latency_parts *p)
{
    *p = (es_latency_parts){.engine = es_processor_latency(pl->proc),
                            .input_counts = pl->cfg.live_input, .block = pl->cfg.block};
    es_device_latency(pl->device, &p->input, &p->output);
    es_device_reported(pl->device, &p->reported_input, &p->reported_output, &p->period);
    /* Without a live input the source is made in the callback: nothing
     * waits in an input buffer. */
    p->total = p->engine + p->output + (p->input_counts ? p->input : 0);
}

int es_player_latency(const es_player *pl)
{
    es_latency_parts p;
    es_player_latency_parts(pl, &p);
    return p.total;
}

int es_player_device_active(const es_player *pl)
{
    return es_device_active(pl->device);
}

const es_player_config *es_player_config_now(const es_player *pl)
{
    return &pl->cfg;
}

const char *es_player_device(const es_player *pl)
{
    return es_device_name(pl->device);
}
