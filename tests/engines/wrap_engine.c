#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/memory.h"
#include "wrap_engine.h"

#define POOL 8192

/* Both doubles start as this: the engine they wrap answers for them. */
typedef struct {
    es_engine base;
    es_engine *inner;
} around;

typedef struct {
    around a;
    const uint64_t *delay_calls;
    int delay_count, next_delay;
    double delay_us;
    int off_cpu;           /* the delay sleeps instead of spinning */
    uint64_t calls;
    atomic_int destroyed; /* times destroy() was called */
} wrap;

static wrap pool[POOL];
static atomic_long used;

static int wrap_probe(char *why, size_t n)
{
    snprintf(why, n, "a test double around a real engine");
    return 1;
}

static es_engine *wrap_class_create(const es_format *fmt, const es_ir *ir,
                                    const es_options *opt, char *err, size_t n)
{
    (void)fmt;
    (void)ir;
    (void)opt;
    snprintf(err, n, "test-wrap: made with es_test_wrap(), around another engine");
    return NULL;
}

static ES_RT void wrap_process(es_engine *e, const float *const *in, float *const *out,
                               int frames)
{
    wrap *w = (wrap *)e;
    es_engine_process(w->a.inner, in, out, frames);
    if (w->next_delay < w->delay_count && w->delay_calls[w->next_delay] == w->calls) {
        if (w->off_cpu) {
            /* Asleep, as a descheduled thread would be. */
            const long long ns = (long long)(w->delay_us * 1e3);
            const struct timespec nap = {ns / 1000000000LL, ns % 1000000000LL};
            nanosleep(&nap, NULL);
        } else {
            /* Busy for this long of the thread's own CPU time, not the
             * clock's: on a loaded machine a wall-clock spin can be mostly
             * descheduled, and the block would read as a machine stall
             * rather than the engine's own work. */
            const long long until = es_thread_cpu_ns() + (long long)(w->delay_us * 1e3);
            while (es_thread_cpu_ns() < until)
                ;
        }
        w->next_delay++;
    }
    w->calls++;
}

static int around_latency(const es_engine *e)
{
    return es_engine_latency(((const around *)e)->inner);
}

static void around_reset(es_engine *e)
{
    es_engine_reset(((around *)e)->inner);
}

static ES_RT void around_status(const es_engine *e, es_engine_status *st)
{
    es_engine_get_status(((const around *)e)->inner, st);
}

static void wrap_destroy(es_engine *e)
{
    wrap *w = (wrap *)e;
    if (atomic_fetch_add(&w->destroyed, 1) == 0) {
        es_engine_destroy(w->a.inner);
        w->a.inner = NULL;
    }
}

const es_engine_class es_test_wrap_class = {
    .name = "test-wrap",
    .summary = "test double: a real engine, counted, with chosen blocks delayed",
    .probe = wrap_probe,
    .create = wrap_class_create,
    .process = wrap_process,
    .latency = around_latency,
    .reset = around_reset,
    .destroy = wrap_destroy,
    .status = around_status,
};

es_engine *es_test_wrap(es_engine *inner, const uint64_t *delay_calls, int delay_count,
                        double delay_us)
{
    if (!inner)
        return NULL;
    const long k = atomic_fetch_add(&used, 1);
    if (k >= POOL) {
        atomic_fetch_sub(&used, 1);
        es_engine_destroy(inner);
        return NULL;
    }
    wrap *w = &pool[k];
    w->a.base.klass = &es_test_wrap_class;
    w->a.inner = inner;
    w->delay_calls = delay_calls;
    w->delay_count = delay_calls ? delay_count : 0;
    w->next_delay = 0;
    w->delay_us = delay_us;
    w->off_cpu = 0;
    w->calls = 0;
    atomic_store(&w->destroyed, 0);
    return &w->a.base;
}

es_engine *es_test_wrap_create(const es_engine_class *k, const es_format *fmt, const es_ir *ir,
                               char *err, size_t n)
{
    es_options opt = {0};
    es_engine *inner = es_engine_create(k, fmt, ir, &opt, err, n);
    es_engine *e = es_test_wrap(inner, NULL, 0, 0);
    if (inner && !e)
        snprintf(err, n, "test-wrap: more than %d engines", POOL);
    return e;
}

typedef struct {
    around a;
    int outputs;
    float **lent;
} lender;

static ES_RT void lender_process(es_engine *e, const float *const *in, float *const *out,
                                 int frames)
{
    es_engine_process(((lender *)e)->a.inner, in, out, frames);
}

static ES_RT void lender_views(es_engine *e, const float *const *in, float *const *own,
                               float **views, int frames)
{
    lender *l = (lender *)e;
    es_engine_process(l->a.inner, in, l->lent, frames);
    for (int o = 0; o < l->outputs; o++) {
        views[o] = l->lent[o];
        for (int t = 0; t < frames; t++)
            own[o][t] = NAN;
    }
}

static void lender_destroy(es_engine *e)
{
    lender *l = (lender *)e;
    es_engine_destroy(l->a.inner);
    es_free_channels(l->lent, l->outputs);
    free(l);
}

static const es_engine_class lender_class = {
    .name = "test-lender",
    .summary = "test double: a real engine whose outputs are lent, not copied",
    .probe = wrap_probe,
    .create = wrap_class_create,
    .process = lender_process,
    .latency = around_latency,
    .reset = around_reset,
    .destroy = lender_destroy,
    .status = around_status,
    .process_views = lender_views,
};

es_engine *es_test_lender(es_engine *inner, int outputs, int max_block)
{
    lender *l = inner ? calloc(1, sizeof *l) : NULL;
    float **lent = l ? es_alloc_channels(outputs, (size_t)max_block) : NULL;
    if (!lent) {
        free(l);
        es_engine_destroy(inner);
        return NULL;
    }
    *l = (lender){.a = {.base.klass = &lender_class, .inner = inner}, .outputs = outputs,
                  .lent = lent};
    return &l->a.base;
}

void es_test_wrap_census(es_test_census *c)
{
    const long n = atomic_load(&used);
    *c = (es_test_census){.created = n};
    for (long k = 0; k < n; k++) {
        const int d = atomic_load(&pool[k].destroyed);
        c->destroyed += d > 0;
        c->alive += d == 0;
        c->destroyed_twice += d > 1;
    }
}

int es_test_wrap_all_gone(const char *when)
{
    es_test_census c;
    es_test_wrap_census(&c);
    const int ok = c.alive == 0 && c.destroyed_twice == 0;
    printf("%s %s: %ld engines created, %ld destroyed, %ld never destroyed, %ld destroyed "
           "twice\n", ok ? "ok  " : "FAIL", when, c.created, c.destroyed, c.alive,
           c.destroyed_twice);
    return ok;
}

void es_test_wrap_forget(void)
{
    atomic_store(&used, 0);
}

void es_test_wrap_off_cpu(es_engine *e)
{
    ((wrap *)e)->off_cpu = 1;
}
