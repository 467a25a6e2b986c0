/* The null device: one callback per period on a real-time clock, no sound
 * card. Absolute sleeps (clock_nanosleep TIMER_ABSTIME) keep the rate exact
 * however long each callback takes. A callback that runs past the end of
 * its period is what a sound card would report as an underrun: the next
 * callback carries ES_XRUN_OUTPUT, and the clock skips the periods that
 * were missed rather than rushing to catch up. The input is silence. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rt_thread.h"
#include "device_class.h"
#include "engine.h"

typedef struct {
    es_device base;
    es_device_config cfg;
    es_audio_callback cb;
    void *ctx;
    pthread_t thread;
    int running;
    atomic_int stop;
    float **in, **out;
} null_device;

static long long ns_of(const struct timespec *ts)
{
    return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static struct timespec ts_of(long long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
    return ts;
}

static void *clock_thread(void *arg)
{
    null_device *d = arg;
    /* Like an audio server's thread: real-time priority when allowed. It
     * sleeps every period, so it cannot starve the machine. */
    struct sched_param sp = {.sched_priority = sched_get_priority_max(SCHED_FIFO) / 2};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    const long long period = (long long)(1e9 * d->cfg.block / d->cfg.sample_rate);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long next = ns_of(&now);
    unsigned flags = 0;
    while (!atomic_load(&d->stop)) {
        next += period;
        struct timespec at = ts_of(next);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
            ;
        d->cb(d->ctx, (const float *const *)d->in, d->out, d->cfg.block, flags);
        clock_gettime(CLOCK_MONOTONIC, &now);
        flags = 0;
        if (ns_of(&now) > next + period) {
            flags = ES_XRUN_OUTPUT;
            atomic_fetch_add(&d->base.skipped_ns, ns_of(&now) - period - next);
            next = ns_of(&now) - period; /* the next period starts now */
        }
    }
    return NULL;
}

static void null_close(es_device *base);

static es_device *null_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                            char *err, size_t n)
{
    if (cfg->live_input) {
        snprintf(err, n, "device 'null': it has no microphone; use --input signal or a file");
        return NULL;
    }
    if (cfg->block < 1 || cfg->block > 65536 || !(cfg->sample_rate >= 1000)) {
        snprintf(err, n, "device 'null': block %d at %g Hz is not possible", cfg->block,
                 cfg->sample_rate);
        return NULL;
    }
    null_device *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    d->cfg = *cfg;
    d->cb = cb;
    d->ctx = ctx;
    d->in = es_alloc_channels(cfg->inputs, (size_t)cfg->block);
    d->out = es_alloc_channels(cfg->outputs, (size_t)cfg->block);
    if (!d->in || !d->out) {
        null_close(&d->base);
        snprintf(err, n, "out of memory");
        return NULL;
    }
    /* A null "card" hands each block over at the period boundary: one
     * block of buffering each way, as a two-period sound card would have. */
    d->base.input_latency = d->base.output_latency = cfg->block;
    d->base.reported_input = d->base.reported_output = cfg->block;
    d->base.input_known = d->base.output_known = 1;
    snprintf(d->base.name, sizeof d->base.name, "null");
    return &d->base;
}

static int null_start(es_device *base, char *err, size_t n)
{
    null_device *d = (null_device *)base;
    atomic_store(&d->stop, 0);
    if (es_thread_start(&d->thread, "es-audio-null", clock_thread, d) != 0) {
        snprintf(err, n, "device 'null': cannot start its clock thread");
        return -1;
    }
    d->running = 1;
    return 0;
}

static void null_stop(es_device *base)
{
    null_device *d = (null_device *)base;
    if (!d->running)
        return;
    atomic_store(&d->stop, 1);
    pthread_join(d->thread, NULL);
    d->running = 0;
}

static void null_close(es_device *base)
{
    null_device *d = (null_device *)base;
    null_stop(base);
    es_free_channels(d->in, d->cfg.inputs);
    es_free_channels(d->out, d->cfg.outputs);
    free(d);
}

static int null_matches(const char *name)
{
    return !strcmp(name, ES_DEVICE_NULL);
}

static int null_list(FILE *to, int json, char *err, size_t n)
{
    (void)err, (void)n;
    if (json)
        fprintf(to, "{\"name\":\"null\",\"host_api\":\"earshot\",\"inputs\":0,"
                "\"outputs\":64,\"default_rate\":48000}\n");
    else
        fprintf(to, "%-32s %-26s %3d in %3d out  %6s\n", ES_DEVICE_NULL,
                "earshot (no sound card)", 0, 64, "any");
    return 0;
}

static const es_device_usage null_names[] = {
    {ES_DEVICE_NULL, "a real-time clock with no sound card"},
    {NULL, NULL},
};

const es_device_class es_device_null = {
    .name = "null",
    .names = null_names,
    .matches = null_matches,
    .can_capture = 0,
    .list = null_list,
    .open = null_open,
    .start = null_start,
    .stop = null_stop,
    .close = null_close,
};
