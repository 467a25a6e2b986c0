#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "player.h"
#include "stall_probe.h"

/* What one device handle calls back into: a processor, the source's
 * buffers and the configuration it plays. A stream reconfigured on a
 * device that hands over (es_device_hands_over) has two for a moment, the
 * one playing and the one taking over, each read only by its own handle's
 * callback. */
typedef struct {
    es_player *pl;
    es_processor *proc;
    float **source;          /* [inputs] block: the test signal or the file */
    int inputs, outputs;
    es_player_config cfg;
} stream;

struct es_player {
    es_device *device;
    stream *st;              /* what the device plays */
    es_signal signal;
    atomic_ullong xruns;
    es_stall_probe *stalls;  /* while the stream runs: the machine's wake-ups */
    es_stall_stats stalls_at_stop; /* what it had counted when the stream stopped */
    int stalls_kept;
    /* Measurements through the device (exchange.h): the round-trip probe's
     * clicks, a room's sweeps. Only the stream that was playing when one
     * started takes part (a stream left behind may still call back). */
    es_exchange *exchange;
    stream *_Atomic exchange_for;
    int probing;             /* the exchange under way is the probe's */
    int probe_len;
};

/* The audio callback: the source's block through the stream's processor. */
static ES_RT void callback(void *ctx, const float *const *in, float *const *out, int frames,
                           unsigned flags)
{
    stream *st = ctx;
    es_player *pl = st->pl;
    if (flags & ES_XRUNS)
        atomic_fetch_add_explicit(&pl->xruns, 1, memory_order_relaxed);
    /* A freewheeling host waits for every result, and for the file. */
    const int freewheel = (flags & ES_FREEWHEEL) != 0;
    es_processor_freewheel(st->proc, freewheel);
    const float *const *input = in;
    if (!st->cfg.live_input) {
        if (freewheel && st->cfg.source_wait)
            st->cfg.source_wait(st->cfg.source_ctx, st->source, st->inputs, frames);
        else if (st->cfg.source)
            st->cfg.source(st->cfg.source_ctx, st->source, st->inputs, frames);
        else
            es_signal_fill(&pl->signal, st->source, st->inputs, frames);
        input = (const float *const *)st->source;
    }
    if (st->cfg.input_tap)
        st->cfg.input_tap(st->cfg.input_tap_ctx, input, st->inputs, frames);
    es_processor_process(st->proc, input, out, frames);
    if (st->cfg.tap)
        st->cfg.tap(st->cfg.tap_ctx, (const float *const *)out, st->outputs, frames);
    if (st->cfg.live_input && atomic_load_explicit(&pl->exchange_for, memory_order_acquire) == st)
        es_exchange_block(pl->exchange, in, st->inputs, out, st->outputs, frames);
}

/* A stream of `take` as `cfg` says, or NULL (out of memory: take is left
 * with the caller). */
static stream *stream_make(es_player *pl, const es_player_config *cfg, es_processor *take)
{
    const es_format *fmt = es_processor_format(take);
    stream *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    *st = (stream){.pl = pl, .proc = take, .inputs = fmt->inputs, .outputs = fmt->outputs,
                   .cfg = *cfg};
    if (!(st->source = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block))) {
        free(st);
        return NULL;
    }
    return st;
}

/* Streams whose device was abandoned without a stop that holds (a host
 * API's stream that stopped answering and may yet call back): kept, and
 * reachable from here, until the process ends. */
#define LEFT_BEHIND_MAX 8
static stream *left_behind[LEFT_BEHIND_MAX];
static int left_behind_count;

/* Frees a stream no device calls any more, its processor with it unless
 * keep_proc (a processor the caller still owns). */
static void stream_free(stream *st, int keep_proc)
{
    if (!st)
        return;
    if (!keep_proc)
        es_processor_destroy(st->proc);
    es_free_channels(st->source, st->inputs);
    free(st);
}

/* Lets go of the stream of a device that was just closed: freed, unless
 * that device may still call into it (stopped: es_device_stopped_for_good
 * of the device, asked before it was closed). */
static void stream_release(int stopped, stream *st)
{
    if (stopped) {
        stream_free(st, 0);
        return;
    }
    if (left_behind_count < LEFT_BEHIND_MAX)
        left_behind[left_behind_count++] = st;
}

static es_device *open_device(stream *st, int block, char *err, size_t n)
{
    const es_format *fmt = es_processor_format(st->proc);
    es_device_config dc = {.name = st->cfg.device, .sample_rate = fmt->sample_rate,
                           .block = block, .inputs = fmt->inputs, .outputs = fmt->outputs,
                           .live_input = st->cfg.live_input,
                           .input_name = st->cfg.input_device, .jack = st->cfg.jack,
                           .own_latency = es_processor_latency(st->proc)};
    return es_device_open(&dc, callback, st, err, n);
}

/* The stall probe wakes at the stream's period (the block, at its rate):
 * started again from zero with every stream that starts, the last one's
 * counts kept. */
static void watch_stalls(es_player *pl, int running)
{
    if (pl->stalls) {
        es_stall_probe_read(pl->stalls, &pl->stalls_at_stop);
        pl->stalls_kept = 1;
    }
    es_stall_probe_stop(pl->stalls);
    pl->stalls = NULL;
    if (running) {
        const es_format *fmt = es_processor_format(pl->st->proc);
        pl->stalls = es_stall_probe_start(pl->st->cfg.block / fmt->sample_rate);
        pl->stalls_kept = 0;
    }
    es_processor_watch(pl->st->proc, pl->stalls);
}

es_player *es_player_open(const es_player_config *cfg, es_processor *take, char *err,
                          size_t n)
{
    const es_format *fmt = es_processor_format(take);
    es_player *pl = calloc(1, sizeof *pl);
    if (!pl || !(pl->exchange = es_exchange_create()) || !(pl->st = stream_make(pl, cfg, take))) {
        snprintf(err, n, "out of memory");
        if (pl)
            es_exchange_destroy(pl->exchange);
        free(pl);
        return NULL;
    }
    es_signal_init(&pl->signal, fmt->sample_rate);
    if (!(pl->device = open_device(pl->st, cfg->block, err, n))) {
        stream_free(pl->st, 1); /* the processor is still the caller's */
        es_exchange_destroy(pl->exchange);
        free(pl);
        return NULL;
    }
    return pl;
}

/* The new stream takes over from the old at a period's boundary while the
 * old plays (es_device_hands_over): opened and started first, the old
 * stopped once it no longer plays. No period is lost, and when the new
 * one does not open the old one never stopped. */
static int hand_over(es_player *pl, stream *next, char *err, size_t n)
{
    es_device *dev = open_device(next, next->cfg.block, err, n);
    if (!dev) {
        stream_free(next, 0);
        return -1;
    }
    if (es_device_start(dev, err, n) != 0) {
        es_device_close(dev);
        stream_free(next, 0);
        return -1;
    }
    es_device_stop(pl->device); /* returns once the new one plays */
    es_processor_watch(pl->st->proc, NULL);
    es_device_close(pl->device);
    stream_free(pl->st, 0);
    pl->device = dev;
    pl->st = next;
    watch_stalls(pl, 1);
    return 0;
}

int es_player_reconfigure(es_player *pl, const es_player_config *cfg, es_processor *take,
                          char *err, size_t n)
{
    /* A measurement does not survive its stream: the new one may have
     * another block, device or rate. */
    es_exchange_abort(pl->exchange);
    stream *next = stream_make(pl, cfg, take);
    if (!next) {
        snprintf(err, n, "out of memory");
        es_processor_destroy(take);
        return -1;
    }
    if (es_device_hands_over(pl->device))
        return hand_over(pl, next, err, n);
    es_player_stop(pl);
    /* A host whose new stream only takes its settings once the old one is
     * closed (es_device_close_first) is closed first; if the new one then
     * fails, the old settings are opened again, and failing that the null
     * device keeps the player whole (the session says the device is lost). */
    const int close_first = es_device_close_first(pl->device);
    if (close_first) {
        es_device_close(pl->device);
        pl->device = NULL;
    }
    es_device *dev = open_device(next, cfg->block, err, n);
    if (!dev) {
        /* The old stream goes on as it was. */
        stream_free(next, 0);
        char ignore[256];
        if (close_first &&
            !(pl->device = open_device(pl->st, pl->st->cfg.block, ignore, sizeof ignore))) {
            pl->st->cfg.device = ES_DEVICE_NULL;
            pl->device = open_device(pl->st, pl->st->cfg.block, ignore, sizeof ignore);
        }
        if (pl->device)
            es_player_start(pl, ignore, sizeof ignore);
        return -1;
    }
    const int stopped = es_device_stopped_for_good(pl->device); /* NULL: closed, stopped */
    es_device_close(pl->device);
    stream_release(stopped, pl->st);
    pl->device = dev;
    pl->st = next;
    return es_player_start(pl, err, n);
}

int es_player_reopen(es_player *pl, int block, es_processor *take, char *err, size_t n)
{
    const es_format *fmt = es_processor_format(take);
    if (fmt->inputs != pl->st->inputs) {
        snprintf(err, n, "the new processor has %d inputs, the stream %d", fmt->inputs,
                 pl->st->inputs);
        es_processor_destroy(take);
        return -1;
    }
    es_player_config cfg = pl->st->cfg;
    cfg.block = block;
    return es_player_reconfigure(pl, &cfg, take, err, n);
}

int es_player_start(es_player *pl, char *err, size_t n)
{
    const int rc = es_device_start(pl->device, err, n);
    watch_stalls(pl, rc == 0);
    return rc;
}

void es_player_stop(es_player *pl)
{
    es_device_stop(pl->device);
    watch_stalls(pl, 0);
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
    const int stopped = es_device_stopped_for_good(pl->device);
    es_device_close(pl->device);
    if (!stopped) {
        stream_release(0, pl->st);
        return; /* the player too: the stream's callback reads it */
    }
    stream_free(pl->st, 0);
    es_exchange_destroy(pl->exchange);
    free(pl);
}

int es_player_exchange_start(es_player *pl, const float *play, size_t frames,
                             uint64_t outputs, int inputs, char *err, size_t n)
{
    if (!pl->st->cfg.live_input) {
        snprintf(err, n, "it needs the microphone as the source, with the output looped "
                 "back to the input");
        return -1;
    }
    atomic_store_explicit(&pl->exchange_for, pl->st, memory_order_release);
    return es_exchange_start(pl->exchange, play, frames, outputs, inputs, err, n);
}

es_exchange *es_player_exchange(es_player *pl)
{
    return pl->exchange;
}

int es_player_probe_start(es_player *pl, double seconds, char *err, size_t n)
{
    const es_format *fmt = es_processor_format(pl->st->proc);
    const int len = (int)(seconds * fmt->sample_rate);
    const int window = len / ES_PROBE_CLICKS;
    float *clicks = calloc((size_t)len, sizeof *clicks);
    if (!clicks) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    /* A click at the start of each of the probe's windows, on the first
     * output. */
    for (int k = 0; k < ES_PROBE_CLICKS; k++)
        clicks[k * window] = 0.9f;
    const int rc = es_player_exchange_start(pl, clicks, (size_t)len, 1, 1, err, n);
    free(clicks);
    if (rc == 0) {
        pl->probing = 1;
        pl->probe_len = len;
    }
    return rc;
}

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int es_player_probe_poll(es_player *pl, es_probe_result *r)
{
    const es_exchange_state state = es_exchange_state_now(pl->exchange);
    if (!pl->probing || (state != ES_EXCHANGE_DONE && state != ES_EXCHANGE_ABORTED))
        return 0;
    /* Each click is one sample: its cross-correlation with the input is the
     * input itself, so its delay is where the input peaks in its window;
     * the first sample within half that peak (the output was silent but
     * for the clicks, so anything else is the loop's own noise), and a
     * peak below a tenth of the click is noise, not the click. A probe
     * whose stream changed under it heard nothing. */
    const int window = pl->probe_len / ES_PROBE_CLICKS;
    const float *heard = es_exchange_recording(pl->exchange, 0);
    int delay[ES_PROBE_CLICKS];
    *r = (es_probe_result){.frames = -1, .clicks = ES_PROBE_CLICKS, .window = window};
    for (int k = 0; heard && k < ES_PROBE_CLICKS; k++) {
        const float *w = heard + (size_t)k * (size_t)window;
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
    es_exchange_finish(pl->exchange);
    pl->probing = 0;
    return 1;
}

void es_player_abandon_device(es_player *pl)
{
    es_device_abandon(pl->device);
}

es_processor *es_player_processor(es_player *pl)
{
    return pl->st->proc;
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
    *p = (es_latency_parts){.engine = es_processor_latency(pl->st->proc),
                            .inside = es_device_inside_latency(pl->device),
                            .input_counts = pl->st->cfg.live_input, .block = pl->st->cfg.block};
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
    if (p->known && heard >= (long long)(ES_LATENCY_MAX_S * es_processor_format(pl->st->proc)->sample_rate)) {
        p->known = 0;
        snprintf(p->note, sizeof p->note, "unknown (the device's buffers add up to %lld "
                 "frames, over %g s)", heard, ES_LATENCY_MAX_S);
    }
    p->total = p->known ? p->engine + p->inside + (int)heard : 0;
    /* A loop from the output back to the input that passes no buffer is
     * one cycle of the host's graph: earshot's output wired straight to
     * its input, or through ports that declare no latency at all (a
     * PipeWire null sink's monitor into its virtual source). */
    p->looped = es_device_looped_inside(pl->device) ? 1
                : p->period > 0 && p->input == 0 && p->output == 0 ? 2
                                                                    : 0;
    p->round_trip = p->looped ? p->inside + p->period : p->input + p->inside + p->output;
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

void es_latency_parts_text(const es_latency_parts *p, char *out, size_t n)
{
    char in[32] = "";
    if (p->input_counts)
        snprintf(in, sizeof in, "%d in + ", p->input);
    if (p->known && !p->pending)
        snprintf(out, n, "%s%d earshot + %d out", in, p->engine + p->inside, p->output);
    else
        out[0] = 0;
}

void es_latency_full_text(const es_latency_parts *p, double rate, char *out, size_t n)
{
    char parts[96];
    es_latency_parts_text(p, parts, sizeof parts);
    if (parts[0])
        snprintf(out, n, "%.2f ms (%d fr = %s)", 1e3 * p->total / rate, p->total, parts);
    else
        es_latency_text(p, rate, out, n);
}

void es_round_trip_text(const es_latency_parts *p, char *out, size_t n)
{
    char inside[48] = "";
    if (p->inside)
        snprintf(inside, sizeof inside, " + gathered %d", p->inside);
    if (p->looped == 1)
        snprintf(out, n, "the output wired straight to the input inside the graph: one "
                 "period %d%s", p->period, inside);
    else if (p->looped == 2)
        snprintf(out, n, "ports that declare no latency, a loop inside the graph: one "
                 "period %d%s", p->period, inside);
    else
        snprintf(out, n, "the device's input %d%s + output %d", p->input, inside, p->output);
}

int es_player_device_active(const es_player *pl)
{
    return es_device_active(pl->device);
}

int es_player_device_paused(const es_player *pl)
{
    return es_device_paused(pl->device);
}

const es_player_config *es_player_config_now(const es_player *pl)
{
    return &pl->st->cfg;
}

const char *es_player_device(const es_player *pl)
{
    return es_device_name(pl->device);
}
