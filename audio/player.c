#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "player.h"
#include "stall_probe.h"

struct es_player {
    es_device *device;
    es_player_config cfg;   /* as opened; cfg.block follows reopen */
    es_processor *proc;
    es_signal signal;
    float **source;          /* [inputs] block: the test signal */
    int inputs, outputs;
    atomic_ullong xruns;
    es_stall_probe *stalls;  /* while the stream runs: the machine's wake-ups */
    es_stall_stats stalls_at_stop; /* what it had counted when the stream stopped */
    int stalls_kept;
    /* The round-trip probe: idle, armed (the next block clicks), capturing,
     * done. The control side owns `probe` except while capturing. */
    atomic_int probe_state;
    float *probe;
    int probe_len, probe_got;
};

enum { PROBE_IDLE, PROBE_ARMED, PROBE_CAPTURING, PROBE_DONE };

/* The probe's share of a block: the click out, the input kept. */
static ES_RT void probe_block(es_player *pl, const float *in, float *const *out, int frames)
{
    int st = atomic_load_explicit(&pl->probe_state, memory_order_acquire);
    if (st == PROBE_IDLE || st == PROBE_DONE)
        return;
    /* While it measures the output is the click and silence: the processor's
     * output would come round the loop and bury the click. */
    for (int c = 0; c < pl->outputs; c++)
        memset(out[c], 0, sizeof(float) * (size_t)frames);
    if (st == PROBE_ARMED) {
        pl->probe_got = 0;
        st = PROBE_CAPTURING;
        atomic_store_explicit(&pl->probe_state, st, memory_order_release);
    }
    if (st != PROBE_CAPTURING)
        return;
    int take = pl->probe_len - pl->probe_got;
    if (take > frames)
        take = frames;
    /* A click at the start of each of the probe's windows. */
    const int window = pl->probe_len / ES_PROBE_CLICKS;
    for (int i = 0; i < take; i++) {
        if ((pl->probe_got + i) % window == 0)
            out[0][i] = 0.9f;
        pl->probe[pl->probe_got + i] = in[i];
    }
    pl->probe_got += take;
    if (pl->probe_got == pl->probe_len)
        atomic_store_explicit(&pl->probe_state, PROBE_DONE, memory_order_release);
}

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
    if (pl->cfg.live_input && pl->outputs > 0)
        probe_block(pl, in[0], out, frames);
}

static es_device *open_device(es_player *pl, const es_processor *proc, int block, char *err,
                              size_t n)
{
    const es_format *fmt = es_processor_format(proc);
    const int own_latency = es_processor_latency(proc);
    es_device_config dc = {.name = pl->cfg.device, .sample_rate = fmt->sample_rate,
                           .block = block, .inputs = fmt->inputs, .outputs = fmt->outputs,
                           .live_input = pl->cfg.live_input,
                           .input_name = pl->cfg.input_device, .jack = pl->cfg.jack,
                           .own_latency = own_latency};
    return es_device_open(&dc, callback, pl, err, n);
}

es_player *es_player_open(const es_player_config *cfg, es_processor *take, char *err,
                          size_t n)
{
    const es_format *fmt = es_processor_format(take);
    es_player *pl = calloc(1, sizeof *pl);
    if (!pl) {
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
        pl->proc = NULL; /* the caller's still */
        es_player_close(pl);
        return NULL;
    }
    if (!(pl->device = open_device(pl, take, cfg->block, err, n))) {
        pl->proc = NULL;
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
    es_player_stop(pl);
    const es_player_config old = pl->cfg;
    pl->cfg = *cfg; /* what open_device reads */
    /* A host whose new stream only takes its settings once the old one is
     * closed (es_device_close_first) is closed first; if the new one then
     * fails, the old settings are opened again, and failing that the null
     * device keeps the player whole (the session says the device is lost). */
    const int close_first = es_device_close_first(pl->device);
    if (close_first) {
        es_device_close(pl->device);
        pl->device = NULL;
    }
    es_device *next = open_device(pl, take, cfg->block, err, n);
    if (!next) {
        /* The old stream goes on as it was. */
        pl->cfg = old;
        es_free_channels(source, fmt->inputs);
        es_processor_destroy(take);
        char ignore[256];
        if (close_first) {
            if (!(pl->device = open_device(pl, pl->proc, old.block, ignore, sizeof ignore))) {
                pl->cfg.device = "null";
                pl->device = open_device(pl, pl->proc, old.block, ignore, sizeof ignore);
            }
        }
        es_player_start(pl, ignore, sizeof ignore);
        return -1;
    }
    es_device_close(pl->device); /* NULL when already closed */
    es_processor_destroy(pl->proc);
    es_free_channels(pl->source, pl->inputs);
    pl->device = next;
    pl->proc = take;
    pl->source = source;
    pl->inputs = fmt->inputs;
    pl->outputs = fmt->outputs;
    return es_player_start(pl, err, n);
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
    const int rc = es_device_start(pl->device, err, n);
    /* The probe wakes at the stream's period: the block, at its rate. */
    es_stall_probe_stop(pl->stalls);
    const es_format *fmt = es_processor_format(pl->proc);
    pl->stalls = rc == 0 ? es_stall_probe_start(pl->cfg.block / fmt->sample_rate) : NULL;
    pl->stalls_kept = 0;
    es_processor_watch(pl->proc, pl->stalls);
    return rc;
}

void es_player_stop(es_player *pl)
{
    es_device_stop(pl->device);
    if (pl->proc)
        es_processor_watch(pl->proc, NULL);
    if (pl->stalls) {
        es_stall_probe_read(pl->stalls, &pl->stalls_at_stop);
        pl->stalls_kept = 1;
    }
    es_stall_probe_stop(pl->stalls);
    pl->stalls = NULL;
}

int es_player_stalls(const es_player *pl, es_stall_stats *out)
{
    if (pl->stalls)
        es_stall_probe_read(pl->stalls, out);
    else if (pl->stalls_kept)
        *out = pl->stalls_at_stop;
    return pl->stalls || pl->stalls_kept;
}

void es_player_stalls_reset(es_player *pl)
{
    if (pl->stalls)
        es_stall_probe_reset(pl->stalls);
}

void es_player_close(es_player *pl)
{
    if (!pl)
        return;
    es_player_stop(pl);
    es_device_close(pl->device);
    es_processor_destroy(pl->proc);
    es_free_channels(pl->source, pl->inputs);
    free(pl->probe);
    free(pl);
}

int es_player_probe_start(es_player *pl, double seconds, char *err, size_t n)
{
    if (!pl->cfg.live_input) {
        snprintf(err, n, "it needs the microphone as the source, with the output looped "
                 "back to the input");
        return -1;
    }
    if (atomic_load(&pl->probe_state) != PROBE_IDLE) {
        snprintf(err, n, "a measurement is under way");
        return -1;
    }
    const es_format *fmt = es_processor_format(pl->proc);
    const int len = (int)(seconds * fmt->sample_rate);
    free(pl->probe);
    pl->probe = calloc((size_t)len, sizeof *pl->probe);
    if (!pl->probe) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    pl->probe_len = len;
    atomic_store_explicit(&pl->probe_state, PROBE_ARMED, memory_order_release);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int es_player_probe_poll(es_player *pl, es_probe_result *r)
{
    if (atomic_load_explicit(&pl->probe_state, memory_order_acquire) != PROBE_DONE)
        return 0;
    /* Each click is one sample: its cross-correlation with the input is the
     * input itself, so its delay is where the input peaks in its window;
     * the first sample within half that peak (the output was silent but
     * for the clicks, so anything else is the loop's own noise), and a
     * peak below a tenth of the click is noise, not the click. */
    const int window = pl->probe_len / ES_PROBE_CLICKS;
    int delay[ES_PROBE_CLICKS];
    *r = (es_probe_result){.frames = -1, .clicks = ES_PROBE_CLICKS, .window = window};
    for (int k = 0; k < ES_PROBE_CLICKS; k++) {
        const float *w = pl->probe + (size_t)k * (size_t)window;
        float peak = 0;
        for (int i = 0; i < window; i++)
            peak = fmaxf(peak, fabsf(w[i]));
        for (int i = 0; peak > 0.09f && i < window; i++)
            if (fabsf(w[i]) >= 0.5f * peak) {
                delay[r->heard++] = i;
                break;
            }
    }
    if (r->heard > 0) {
        qsort(delay, (size_t)r->heard, sizeof *delay, by_value);
        r->low = delay[0];
        r->high = delay[r->heard - 1];
        /* Every click back, all within a frame of each other: a loop that
         * drops clicks, or one whose clicks disagree, gives no figure. */
        if (r->heard == ES_PROBE_CLICKS && r->high - r->low <= 1)
            r->frames = delay[r->heard / 2];
    }
    atomic_store(&pl->probe_state, PROBE_IDLE);
    return 1;
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

double es_player_skipped_seconds(const es_player *pl)
{
    return es_device_skipped_seconds(pl->device);
}

void es_player_latency_parts(const es_player *pl, es_latency_parts *p)
{
    *p = (es_latency_parts){.engine = es_processor_latency(pl->proc),
                            .input_counts = pl->cfg.live_input, .block = pl->cfg.block};
    es_device_latency(pl->device, &p->input, &p->output);
    es_device_reported(pl->device, &p->reported_input, &p->reported_output, &p->period);
    int in_known, out_known;
    es_device_latency_known(pl->device, &in_known, &out_known);
    snprintf(p->note, sizeof p->note, "%s", es_device_latency_note(pl->device));
    p->pending = es_device_latency_pending(pl->device);
    /* Without a live input the source is made in the callback: nothing
     * waits in an input buffer. */
    const long long heard = (long long)p->output + (p->input_counts ? p->input : 0);
    p->known = out_known && (in_known || !p->input_counts);
    if (p->known && heard >= (long long)(ES_LATENCY_MAX_S * es_processor_format(pl->proc)->sample_rate)) {
        p->known = 0;
        snprintf(p->note, sizeof p->note, "unknown (the device's buffers add up to %lld "
                 "frames, over %g s)", heard, ES_LATENCY_MAX_S);
    }
    p->total = p->known ? p->engine + (int)heard : 0;
}

int es_player_latency(const es_player *pl)
{
    es_latency_parts p;
    es_player_latency_parts(pl, &p);
    return p.known ? p.total : -1;
}

void es_latency_text(const es_latency_parts *p, double rate, char *out, size_t n)
{
    if (p->known && p->pending)
        snprintf(out, n, "%.2f ms (%d fr; the host's report until the stream's timestamps "
                 "come)", 1e3 * p->total / rate, p->total);
    else if (p->known)
        snprintf(out, n, "%.2f ms (%d fr)", 1e3 * p->total / rate, p->total);
    else
        snprintf(out, n, "%s", p->note[0] ? p->note : "unknown");
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
