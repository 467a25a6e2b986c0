/* The native JACK device's side of each cycle (device_jack.c's client):
 * the process callback on JACK's real-time thread, which runs the handle
 * that plays (whole blocks in a period, or a block gathered over
 * periods) and hands over to the one taking over; and the server's other
 * callbacks (xruns, freewheeling, the period, latency, shutdown), which
 * only store atomics. es_jack_attach sets them on a client. */
#include <stdatomic.h>
#include <string.h>

#include "jack_loaded.h"
#include "core/rt.h"
#include "device_jack_host.h"
#include "sound_server.h"

#define host es_jack

/* A block longer than the period: this period's input into the block
 * being gathered. */
static ES_RT void gather(jack_device *d, float *const *in, int frames)
{
    if (d->in_at + frames > d->cfg.block) {
        d->in_at = 0; /* the period changed under the gathering: start again */
        d->out_at = frames;
        return;
    }
    for (int c = 0; c < d->ins; c++)
        memcpy(d->gather_in[c] + d->in_at, in[c], sizeof(float) * (size_t)frames);
    d->in_at += frames;
}

static ES_RT void run_gathered(jack_device *d, float *const *in, float *const *out, int frames,
                               unsigned flags)
{
    const int block = d->cfg.block;
    gather(d, in, frames);
    if (d->in_at >= block) {
        d->cb(d->ctx, (const float *const *)d->gather_in, d->gather_out, block, flags);
        d->in_at = 0;
        d->out_at = 0;
    }
    if (d->out_at + frames > block)
        return; /* silence until the first block is whole */
    for (int c = 0; c < d->outs; c++)
        memcpy(out[c], d->gather_out[c] + d->out_at, sizeof(float) * (size_t)frames);
    d->out_at += frames;
}

static ES_RT int gathers(const jack_device *d, int frames)
{
    return d->cfg.block > frames && d->gather_in;
}

/* A handle taking over from the one playing: 1 when it plays from this
 * period on (one that runs whole blocks at once, or one that gathers, in
 * the period that makes its first block whole), else it gathers this
 * period's input beside the one that plays, which plays on. */
static ES_RT int takes_over(jack_device *d, float *const *in, int frames)
{
    if (!gathers(d, frames) || d->in_at + frames >= d->cfg.block)
        return 1;
    gather(d, in, frames);
    return 0;
}

static ES_RT void run_blocks(jack_device *d, float *const *in, float *const *out, int frames,
                             unsigned flags)
{
    for (int at = 0; at < frames; at += d->cfg.block) {
        const int n = frames - at < d->cfg.block ? frames - at : d->cfg.block;
        for (int c = 0; c < d->ins; c++)
            d->in_ptr[c] = in[c] + at;
        for (int c = 0; c < d->outs; c++)
            d->out_ptr[c] = out[c] + at;
        d->cb(d->ctx, d->in_ptr, d->out_ptr, n, flags);
        flags &= ~(unsigned)ES_XRUNS; /* an xrun is counted once; freewheeling is every call's */
    }
}

static ES_RT int process(jack_nframes_t nframes, void *arg)
{
    (void)arg;
    /* busy before the handle is read: a stop that cleared `playing` and
     * then sees busy 0 knows no cycle uses the old handle. A closing
     * client shuts the gate first, so that no cycle is inside earshot when
     * libjack ends the thread. */
    atomic_store(&host.busy, 1);
    if (atomic_load(&host.gate)) {
        atomic_store(&host.busy, 0);
        return 0;
    }
    jack_device *d = atomic_load(&host.playing), *next = atomic_load(&host.next);
    /* The counts after the handles: their ports were registered before
     * they were published. */
    const int frames = (int)nframes, ins = atomic_load(&host.ins), outs = atomic_load(&host.outs);
    float *in[PORTS_MAX], *out[PORTS_MAX];
    for (int c = 0; c < ins; c++)
        in[c] = jack_port_get_buffer(host.in[c], nframes);
    for (int c = 0; c < outs; c++) {
        out[c] = jack_port_get_buffer(host.out[c], nframes);
        memset(out[c], 0, sizeof(float) * nframes);
    }
    if (next && next->ins <= ins && next->outs <= outs && takes_over(next, in, frames)) {
        jack_device *expected = next; /* unless a stop took it back meanwhile */
        if (atomic_compare_exchange_strong(&host.next, &expected, NULL)) {
            atomic_store(&host.playing, next);
            d = next;
        }
    }
    if (d && (d->ins > ins || d->outs > outs))
        d = NULL;
    if (d) {
        const unsigned flags = (atomic_exchange(&host.xruns, 0) ? ES_XRUN_OUTPUT : 0) |
                               (atomic_load(&host.freewheel) ? ES_FREEWHEEL : 0);
        atomic_store_explicit(&d->base.timed_period, frames, memory_order_relaxed);
        if (gathers(d, frames))
            run_gathered(d, in, out, frames, flags);
        else
            run_blocks(d, in, out, frames, flags);
    }
    atomic_store(&host.busy, 0);
    return 0;
}

/* Freewheeling (an export): the callback runs as fast as the graph does,
 * on a thread JACK does not hold to a deadline, and is told so with every
 * block (ES_FREEWHEEL): the engines wait for their results, and no block
 * is a miss. */
static void on_freewheel(int starting, void *arg)
{
    (void)arg;
    atomic_store(&host.freewheel, starting != 0);
}

static int on_xrun(void *arg)
{
    (void)arg;
    atomic_fetch_add(&host.xruns, 1);
    return 0;
}

static int on_buffer_size(jack_nframes_t nframes, void *arg)
{
    (void)arg;
    atomic_store(&host.period, (int)nframes);
    /* A block gathered over periods adds block - period to what earshot
     * publishes as its own latency; at a period of the block, nothing. */
    const int block = atomic_load(&host.own_block);
    atomic_store(&host.own, atomic_load(&host.own_engine) +
                                (block > (int)nframes ? block - (int)nframes : 0));
    return 0;
}

/* Each port's latency as the graph has it, plus earshot's own on the way
 * through: inputs to outputs for capture, outputs to inputs for playback. */
void es_jack_apply_latency(jack_latency_callback_mode_t mode)
{
    const int own = atomic_load(&host.own);
    jack_latency_range_t r, most = {0, 0};
    jack_port_t **from = mode == JackCaptureLatency ? host.in : host.out;
    jack_port_t **to = mode == JackCaptureLatency ? host.out : host.in;
    const int nfrom = mode == JackCaptureLatency ? host.ins : host.outs;
    const int nto = mode == JackCaptureLatency ? host.outs : host.ins;
    for (int c = 0; c < nfrom; c++) {
        jack_port_get_latency_range(from[c], mode, &r);
        most.min = c == 0 || r.min < most.min ? r.min : most.min;
        most.max = r.max > most.max ? r.max : most.max;
    }
    most.min += (jack_nframes_t)own;
    most.max += (jack_nframes_t)own;
    const int m = mode == JackCaptureLatency ? 0 : 1;
    if (host.on_pipewire && host.latency_known[m] && host.latency_set[m].min == most.min &&
        host.latency_set[m].max == most.max)
        return; /* as set: setting it again would only call back again */
    host.latency_set[m] = most;
    host.latency_known[m] = 1;
    for (int c = 0; c < nto; c++)
        jack_port_set_latency_range(to[c], mode, &most);
}

static void on_latency(jack_latency_callback_mode_t mode, void *arg)
{
    (void)arg;
    if (host.on_pipewire)
        atomic_fetch_or(&host.latency_due, 1 << (mode == JackCaptureLatency ? 0 : 1));
    else
        es_jack_apply_latency(mode);
}

static void on_shutdown(jack_status_t code, const char *reason, void *arg)
{
    (void)code, (void)reason, (void)arg;
    atomic_store(&host.dead, 1); /* the keeper makes the client again */
}

int es_jack_attach(jack_client_t *client)
{
    host.on_pipewire = es_jack_is_pipewire();
    host.latency_known[0] = host.latency_known[1] = 0;
    atomic_store(&host.latency_due, 3); /* the keeper sets both once on PipeWire */
    jack_set_process_callback(client, process, NULL);
    jack_set_xrun_callback(client, on_xrun, NULL);
    jack_set_freewheel_callback(client, on_freewheel, NULL);
    jack_set_buffer_size_callback(client, on_buffer_size, NULL);
    jack_set_latency_callback(client, on_latency, NULL);
    jack_on_info_shutdown(client, on_shutdown, NULL);
    atomic_store(&host.period, (int)jack_get_buffer_size(client));
    for (int c = 0; c < host.ins; c++)
        if (!(host.in[c] = jack_port_register(client, host.in_name[c], JACK_DEFAULT_AUDIO_TYPE,
                                              JackPortIsInput, 0)))
            return -1;
    for (int c = 0; c < host.outs; c++)
        if (!(host.out[c] = jack_port_register(client, host.out_name[c],
                                               JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0)))
            return -1;
    return jack_activate(client);
}

