/* The native JACK device: earshot as a client of its own in the graph,
 * through libjack (jackd, or PipeWire's JACK library), as jconvolver and
 * Ardour stand there.
 *
 * One client for the whole process, named `earshot` (--name), with ports
 * that live as long as it does, named as the first room names them (a
 * jconvolver configuration's /input/name and /output/name), else in_N,
 * out_N, or out_L and out_R: a device opened again (another block,
 * engine, room or source) is a new handle on the same client, so its
 * ports keep their names and whatever the user wired to them. Ports are
 * wired only when first registered: to --connect-in / --connect-out's
 * patterns, else the physical ports, or nowhere with --no-connect. A
 * stream of more channels registers more ports; one of fewer leaves the
 * rest silent, wired as they were.
 *
 * JACK calls back once a period, whatever block earshot runs. A period
 * that holds several blocks runs them in turn (no latency added); a block
 * longer than the period is gathered a period at a time and run when
 * whole, its output played from the period in which its last input came:
 * block - period frames more latency, counted in the output's figure.
 *
 * Latency: what a person hears is the capture ports' latency (at
 * earshot's inputs), earshot's own (the processor's, and the gathering's:
 * es_device_inside_latency) and the playback ports' (at its outputs), the
 * ports' read from the graph (jack_port_get_latency_range). earshot
 * publishes its own on its ports through JACK's latency callback, so that
 * a JACK-aware host downstream compensates for it.
 *
 * In freewheel mode (an export) every block carries ES_FREEWHEEL: the
 * engines wait for their results, and no block counts as a miss.
 *
 * A stream reconfigured (another block, or a source) hands over: the new
 * handle is started while the old one plays (`next`), and takes over in
 * the first period it can play, a handle that gathers in the period that
 * makes its first block whole, having gathered beside the old one until
 * then. Every period is played by one of them: no period is lost.
 *
 * A server that stops and starts again under its name is followed by
 * device_jack_keeper.c: the same ports, the wiring given back, the stream
 * called again. Stopping a handle waits only on earshot's own callback
 * (the class `stops_alone`), so a handle given up as stalled is still
 * stopped before its processor is freed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "jack_loaded.h"
#include "core/clock.h"
#include "device_class.h"
#include "engine.h"
#include "sound_server.h"

#include "device_jack_host.h"

#define DEFAULT_CLIENT "earshot"

es_jack_host es_jack = {.lock = PTHREAD_MUTEX_INITIALIZER};
#define host es_jack

/* ---- the client (control side, host.lock held) ---- */

/* libjack's own lines ("Cannot connect to the server", ...) are kept off
 * the terminal: what failed is said in earshot's one line. */
static void quiet(const char *line)
{
    (void)line;
}

/* 1 when a server answers (a client of another name connects). */
static int server_answers(void)
{
    char probe[64];
    snprintf(probe, sizeof probe, "earshot-probe-%ld", (long)getpid());
    jack_client_t *c = jack_client_open(probe, JackNoStartServer, NULL);
    if (c)
        jack_client_close(c);
    return c != NULL;
}

static int open_client(const es_jack_options *o, double rate, int block, char *err, size_t n)
{
    const char *name = o->client && o->client[0] ? o->client : DEFAULT_CLIENT;
    char why[320];
    if (!es_jack_load(why, sizeof why)) {
        snprintf(err, n, "device '%s': %s", ES_DEVICE_JACK, why);
        return -1;
    }
    jack_status_t status;
    jack_set_error_function(quiet);
    jack_set_info_function(quiet);
    /* On PipeWire the block is asked as the graph's quantum (a request: a
     * lower one, or one another client forces, wins). */
    if (es_jack_is_pipewire()) {
        char latency[32];
        snprintf(latency, sizeof latency, "%d/%.0f", block, rate);
        setenv("PIPEWIRE_LATENCY", latency, 1);
    }
    host.client = jack_client_open(name, JackNoStartServer | JackUseExactName, &status);
    if (!host.client) {
        if ((status & JackNameNotUnique) || server_answers())
            snprintf(err, n, "device '%s': a client named '%s' is already there (--name "
                     "picks another)", ES_DEVICE_JACK, name);
        else if (es_pipewire_answers(NULL, 0) && !es_jack_is_pipewire())
            snprintf(err, n, "device '%s': no JACK server answered; PipeWire does, but its "
                     "JACK library is not installed (package pipewire-jack): install it, or "
                     "use --device pipewire (its ALSA plugin)", ES_DEVICE_JACK);
        else
            snprintf(err, n, "device '%s': no JACK server answered (is jackd running, and "
                     "JACK_DEFAULT_SERVER right?)", ES_DEVICE_JACK);
        return -1;
    }
    if (jack_get_sample_rate(host.client) != (jack_nframes_t)rate) {
        snprintf(err, n, "device '%s': the server runs at %u Hz, not %g Hz (--rate %u)",
                 ES_DEVICE_JACK, jack_get_sample_rate(host.client), rate,
                 jack_get_sample_rate(host.client));
        jack_client_close(host.client);
        host.client = NULL;
        return -1;
    }
    snprintf(host.name, sizeof host.name, "%s", jack_get_client_name(host.client));
    host.rate = jack_get_sample_rate(host.client);
    if (es_jack_attach(host.client) != 0) {
        snprintf(err, n, "device '%s': the server would not activate client '%s'",
                 ES_DEVICE_JACK, name);
        jack_client_close(host.client);
        host.client = NULL;
        return -1;
    }
    return 0;
}

void es_jack_shut_gate(void)
{
    atomic_store(&host.gate, 1);
    const struct timespec nap = {0, 200000};
    while (atomic_load(&host.busy))
        nanosleep(&nap, NULL);
}

/* `abandoned`: the stream was given up as stalled, the server alive but
 * not answering (stopped, wedged): any call into it would wait for good,
 * so the client is left to it, its callback shut out of earshot. */
static void close_client(int abandoned)
{
    if (host.client) {
        /* libjack ends the callback's thread of a client it closes while
         * active (a dead server's): no cycle may be inside earshot then. */
        es_jack_shut_gate();
        if (!abandoned && !atomic_load(&host.dead))
            jack_deactivate(host.client);
        if (!abandoned)
            jack_client_close(host.client);
    }
    atomic_store(&host.busy, 0);
    atomic_store(&host.gate, 0);
    host.client = NULL;
    host.generation++; /* its keeper ends */
    atomic_store(&host.dead, 0);
    atomic_store(&host.ins, 0);
    atomic_store(&host.outs, 0);
    memset(host.in_wire, 0, sizeof host.in_wire);
    memset(host.out_wire, 0, sizeof host.out_wire);
}

/* ---- the device class ---- */

static void jack_close_device(es_device *base);

/* On PipeWire a stream of another block asks for it as the graph's
 * quantum, as the client did when it was made (PIPEWIRE_LATENCY):
 * jack_set_buffer_size asks that for earshot's own node there. On jackd
 * it would change every client's period, which is the user's to do, so
 * it is not called. The graph follows within a few cycles, or keeps its
 * quantum (a lower request, or one another client forces, wins): waited
 * for half a second. The period then. */
static int follow_quantum(int block)
{
    if (!es_jack_is_pipewire() || atomic_load(&host.period) == block)
        return atomic_load(&host.period);
    pthread_mutex_lock(&host.lock);
    const int asked = host.client && !atomic_load(&host.dead) &&
                      jack_set_buffer_size(host.client, (jack_nframes_t)block) == 0;
    pthread_mutex_unlock(&host.lock);
    const long long until = es_now_ns() + 500000000LL;
    const struct timespec nap = {0, 1000000};
    while (asked && atomic_load(&host.period) != block && es_now_ns() < until)
        nanosleep(&nap, NULL);
    return atomic_load(&host.period);
}

/* The frames a handle's gathering adds over a period: none where it runs
 * whole blocks (no gathering buffers), block - period where it gathers. */
static int gathered(const jack_device *d, int period)
{
    return d->gather_in && d->cfg.block > period ? d->cfg.block - period : 0;
}

static es_device *jack_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                            char *err, size_t n)
{
    if (cfg->inputs > PORTS_MAX || cfg->outputs > PORTS_MAX) {
        snprintf(err, n, "device '%s': %d inputs and %d outputs (at most %d each)",
                 ES_DEVICE_JACK, cfg->inputs, cfg->outputs, PORTS_MAX);
        return NULL;
    }
    jack_device *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    d->cfg = *cfg;
    d->cb = cb;
    d->ctx = ctx;
    d->ins = cfg->inputs;
    d->outs = cfg->outputs;
    pthread_mutex_lock(&host.lock);
    const int fresh = !host.client && !host.handles;
    int rc = fresh ? open_client(&cfg->jack, cfg->sample_rate, cfg->block, err, n) : 0;
    if (rc == 0 && fresh)
        es_jack_keeper_start();
    if (rc == 0 && !host.client) {
        snprintf(err, n, "device '%s': the JACK server went away; earshot waits for it to "
                 "come back", ES_DEVICE_JACK);
        rc = -1;
    }
    if (rc == 0) {
        host.handles++;
        d->counted = 1;
        if ((rc = es_jack_register_ports(d->ins, d->outs, &cfg->jack, err, n)) == 0)
            jack_recompute_total_latencies(host.client);
    }
    pthread_mutex_unlock(&host.lock);
    const int period = rc == 0 && !fresh ? follow_quantum(cfg->block) : atomic_load(&host.period);
    /* A block gathered over periods must hold a whole number of them. */
    if (rc == 0 && cfg->block > period && cfg->block % period != 0) {
        snprintf(err, n, "device '%s': block %d is not a multiple of the server's period %d",
                 ES_DEVICE_JACK, cfg->block, period);
        rc = -1;
    }
    d->in_ptr = calloc((size_t)(d->ins ? d->ins : 1), sizeof *d->in_ptr);
    d->out_ptr = calloc((size_t)(d->outs ? d->outs : 1), sizeof *d->out_ptr);
    if (rc == 0 && cfg->block > period) {
        d->gather_in = es_alloc_channels(d->ins, (size_t)cfg->block);
        d->gather_out = es_alloc_channels(d->outs, (size_t)cfg->block);
        /* Output is read a period behind the input's gathering: the first
         * block's output plays from the period its last input came. */
        d->out_at = period;
    }
    if (rc == 0 && (!d->in_ptr || !d->out_ptr ||
                    (cfg->block > period && (!d->gather_in || !d->gather_out)))) {
        snprintf(err, n, "out of memory");
        rc = -1;
    }
    if (rc != 0) {
        jack_close_device(&d->base);
        return NULL;
    }
    const int gather = gathered(d, period);
    pthread_mutex_lock(&host.lock);
    d->base.input_latency = es_jack_port_latency(host.in, d->ins, JackCaptureLatency);
    d->base.output_latency = es_jack_port_latency(host.out, d->outs, JackPlaybackLatency);
    pthread_mutex_unlock(&host.lock);
    d->base.reported_input = d->base.input_latency;
    d->base.reported_output = d->base.output_latency;
    d->base.period = period;
    d->base.input_known = d->base.output_known = 1;
    atomic_init(&d->base.timed_period, -1);
    snprintf(d->base.name, sizeof d->base.name, "%s: %s",
             es_jack_is_pipewire() ? "PipeWire (JACK API)" : "JACK", host.name);
    if (gather)
        snprintf(d->base.latency_note, sizeof d->base.latency_note,
                 "block %d over a period of %d: %d frames gathered", cfg->block, period,
                 gather);
    return &d->base;
}

/* A handle started while another plays takes over from it (`next`):
 * the one playing goes on until then. */
static int jack_start(es_device *base, char *err, size_t n)
{
    (void)err, (void)n;
    jack_device *d = (jack_device *)base, *none = NULL;
    atomic_store(&host.own_engine, d->cfg.own_latency);
    atomic_store(&host.own_block, d->gather_in ? d->cfg.block : 0);
    atomic_store(&host.own, d->cfg.own_latency + gathered(d, atomic_load(&host.period)));
    if (!atomic_compare_exchange_strong(&host.playing, &none, d) && none != d)
        atomic_store(&host.next, d);
    pthread_mutex_lock(&host.lock);
    if (host.client && !atomic_load(&host.dead))
        jack_recompute_total_latencies(host.client);
    pthread_mutex_unlock(&host.lock);
    return 0;
}

/* A handle that plays while another takes over from it: waits until the
 * other plays, which is within the other's block when the server runs.
 * A server that stopped calling (gone, or stalled) gets a second more;
 * then the other is put in its place here, to play when the cycles come
 * again. */
static void wait_for_hand_over(jack_device *d)
{
    const jack_device *next = atomic_load(&host.next);
    if (!next || atomic_load(&host.playing) != d)
        return;
    const double rate = d->cfg.sample_rate > 0 ? d->cfg.sample_rate : 48000;
    const long long until = es_now_ns() + (long long)(2e9 * next->cfg.block / rate) + 1000000000LL;
    const struct timespec nap = {0, 200000};
    while (atomic_load(&host.playing) == d && atomic_load(&host.next) && es_now_ns() < until)
        nanosleep(&nap, NULL);
    jack_device *expected = d, *taking = atomic_exchange(&host.next, NULL);
    if (taking)
        atomic_compare_exchange_strong(&host.playing, &expected, taking);
}

static void jack_stop(es_device *base)
{
    jack_device *d = (jack_device *)base;
    wait_for_hand_over(d);
    /* Whether this handle played last, another replaced it, or it was
     * still to take over, a cycle may still be inside it: waited for
     * either way. The cycle that may be inside this handle ends as its
     * callback returns: waited for however long that takes (a slow engine
     * under a sanitizer takes seconds), since the processor is freed
     * after this. The callback runs on the client's own thread, which
     * finishes its cycle even when the server has died. A cycle that was
     * making this handle the one playing as it was taken back finishes
     * that first: looked at again after the wait. */
    const struct timespec nap = {0, 200000};
    do {
        jack_device *expected = d;
        atomic_compare_exchange_strong(&host.playing, &expected, NULL);
        expected = d;
        atomic_compare_exchange_strong(&host.next, &expected, NULL);
        while (atomic_load(&host.busy))
            nanosleep(&nap, NULL);
    } while (atomic_load(&host.playing) == d || atomic_load(&host.next) == d);
}

static void jack_close_device(es_device *base)
{
    jack_device *d = (jack_device *)base;
    jack_stop(base);
    pthread_mutex_lock(&host.lock);
    if (d->counted && --host.handles == 0)
        close_client(d->base.abandoned);
    pthread_mutex_unlock(&host.lock);
    es_free_channels(d->gather_in, d->ins);
    es_free_channels(d->gather_out, d->outs);
    free(d->in_ptr);
    free(d->out_ptr);
    free(d);
}

/* The figures as the graph has them now: the ports' latencies settle
 * once the server has worked them out after the wiring. */
static void jack_now(const es_device *base, int *input, int *output, int *period)
{
    const jack_device *d = (const jack_device *)base;
    pthread_mutex_lock(&host.lock);
    if (host.client && !atomic_load(&host.dead)) {
        *period = atomic_load(&host.period);
        *input = es_jack_port_latency(host.in, d->ins, JackCaptureLatency);
        *output = es_jack_port_latency(host.out, d->outs, JackPlaybackLatency);
    }
    pthread_mutex_unlock(&host.lock);
}

/* What gathering adds inside earshot, at the period the server runs. */
static int jack_inside(const es_device *base)
{
    return gathered((const jack_device *)base, atomic_load(&host.period));
}

static int jack_looped(const es_device *base)
{
    (void)base;
    pthread_mutex_lock(&host.lock);
    const int looped = es_jack_looped();
    pthread_mutex_unlock(&host.lock);
    return looped;
}

/* "jack", and "pipewire" when this process runs on PipeWire's JACK
 * library (es_sound_server_route put it there). */
static int jack_matches(const char *name)
{
    return !strcasecmp(name, ES_DEVICE_JACK) ||
           (!strcasecmp(name, "pipewire") && es_jack_is_pipewire());
}

/* A server that stopped calling but never shut earshot's client down is
 * paused (SIGSTOP, a debugger): its graph still holds the ports, and it
 * calls the same client again when it resumes. A dead server's shutdown
 * callback sets `dead`, and the keeper makes the client again. PipeWire's
 * JACK library calls no shutdown when PipeWire is killed (app/pipewire),
 * so there a long stall cannot be told from a loss. */
static int jack_paused(const es_device *d)
{
    (void)d;
    return host.client && !atomic_load(&host.dead) && !host.on_pipewire;
}

static int jack_list(FILE *to, int json, char *err, size_t n)
{
    (void)err, (void)n;
    if (!es_jack_load(NULL, 0))
        return 0; /* no libjack, no JACK to list */
    jack_status_t status;
    jack_set_error_function(quiet);
    jack_set_info_function(quiet);
    jack_client_t *c = jack_client_open("earshot-list", JackNoStartServer, &status);
    if (!c)
        return 0;
    const unsigned rate = jack_get_sample_rate(c);
    if (json)
        fprintf(to, "{\"name\":\"%s\",\"host_api\":\"JACK (earshot's own client)\","
                "\"inputs\":%d,\"outputs\":%d,\"default_rate\":%u}\n",
                ES_DEVICE_JACK, PORTS_MAX, PORTS_MAX, rate);
    else
        fprintf(to, "%-32s %-26s %3d in %3d out  %6u\n", ES_DEVICE_JACK,
                "JACK (a client of its own)", PORTS_MAX, PORTS_MAX, rate);
    jack_client_close(c);
    return 0;
}

static const es_device_usage jack_names[] = {
    {ES_DEVICE_JACK, "earshot's own JACK client (named by --name, its ports\n"
                     "kept through every change with what is wired to them,\n"
                     "its latency published on them)"},
    {"pipewire", "the same client on PipeWire's JACK library (package\n"
                 "pipewire-jack; earshot starts itself on it as pw-jack\n"
                 "would, and asks the graph for quantum = block), else\n"
                 "PipeWire's ALSA plugin"},
    {NULL, NULL},
};

const es_device_class es_device_jack = {
    .name = ES_DEVICE_JACK,
    .names = jack_names,
    .matches = jack_matches,
    .can_capture = 1,
    .stops_alone = 1, /* stop waits on earshot's own callback, never the server */
    .hands_over = 1,  /* handles share one client: a new one takes over at a period */
    .list = jack_list,
    .open = jack_open,
    .start = jack_start,
    .stop = jack_stop,
    .close = jack_close_device,
    .now = jack_now,
    .paused = jack_paused,
    .inside = jack_inside,
    .looped = jack_looped,
};
