/* The stall probe (stall_probe.h). One writer: the probe's own thread
 * keeps the counts; readers take relaxed copies, and a reset is a request
 * the thread carries out at its next wake. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "stall_probe.h"

struct es_stall_probe {
    pthread_t thread;
    long long period_ns;
    atomic_int stop, reset_asked, realtime;
    atomic_ullong wakes, late;
    atomic_llong worst_ns, since_ns;
    atomic_llong late_at_ns[ES_STALL_RECENT]; /* since since_ns; late % ES_STALL_RECENT */
    atomic_llong due_ns;                      /* the wake it sleeps for now */
    atomic_llong held_from_ns, held_to_ns;    /* its last wake over a quarter period late */
};

static void *watch(void *arg)
{
    es_stall_probe *p = arg;
    char why[160];
    /* Just above the helpers (tail and GPU workers), below the audio
     * thread: earshot's own workers never hold it up, the machine can. */
    atomic_store(&p->realtime,
                 es_rt_thread_promote(es_rt_helper_priority() + 1, why, sizeof why));
    long long next = es_now_ns();
    atomic_store(&p->since_ns, next);
    while (!atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        next += p->period_ns;
        atomic_store_explicit(&p->due_ns, next, memory_order_release);
        const struct timespec at = {.tv_sec = next / 1000000000LL,
                                    .tv_nsec = next % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
            ;
        const long long now = es_now_ns();
        if (atomic_exchange_explicit(&p->reset_asked, 0, memory_order_acq_rel)) {
            atomic_store_explicit(&p->wakes, 0, memory_order_relaxed);
            atomic_store_explicit(&p->late, 0, memory_order_relaxed);
            atomic_store_explicit(&p->worst_ns, 0, memory_order_relaxed);
            atomic_store_explicit(&p->since_ns, now, memory_order_relaxed);
        }
        const long long lateness = now - next;
        if (lateness > p->period_ns / 4) {
            atomic_store_explicit(&p->held_to_ns, now, memory_order_relaxed);
            atomic_store_explicit(&p->held_from_ns, next, memory_order_release);
        }
        atomic_fetch_add_explicit(&p->wakes, 1, memory_order_relaxed);
        if (lateness > atomic_load_explicit(&p->worst_ns, memory_order_relaxed))
            atomic_store_explicit(&p->worst_ns, lateness, memory_order_relaxed);
        if (lateness > p->period_ns) {
            /* A whole period lost: count it once, and go on from now
             * rather than wake back to back for the periods that passed. */
            const unsigned long long k = atomic_load_explicit(&p->late, memory_order_relaxed);
            atomic_store_explicit(&p->late_at_ns[k % ES_STALL_RECENT],
                                  next - atomic_load_explicit(&p->since_ns, memory_order_relaxed),
                                  memory_order_relaxed);
            atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
            next = now;
        }
    }
    return NULL;
}

es_stall_probe *es_stall_probe_start(double period_s)
{
    if (!(period_s > 0) || period_s > 10)
        return NULL;
    es_stall_probe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->period_ns = (long long)(period_s * 1e9);
    if (es_thread_start(&p->thread, "es-stall-probe", watch, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

void es_stall_probe_read(const es_stall_probe *p, es_stall_stats *out)
{
    es_stall_probe *q = (es_stall_probe *)p;
    out->wakes = atomic_load_explicit(&q->wakes, memory_order_relaxed);
    out->late = atomic_load_explicit(&q->late, memory_order_relaxed);
    out->worst_us = 1e-3 * (double)atomic_load_explicit(&q->worst_ns, memory_order_relaxed);
    out->period_us = 1e-3 * (double)p->period_ns;
    const long long since = atomic_load_explicit(&q->since_ns, memory_order_relaxed);
    out->seconds = since ? 1e-9 * (double)(es_now_ns() - since) : 0;
    out->realtime = atomic_load_explicit(&q->realtime, memory_order_relaxed);
    const uint64_t kept = out->late < ES_STALL_RECENT ? out->late : ES_STALL_RECENT;
    for (uint64_t k = 0; k < ES_STALL_RECENT; k++)
        out->late_at_s[k] = k < kept ? 1e-9 * (double)atomic_load_explicit(
                                                  &q->late_at_ns[(out->late - kept + k) %
                                                                 ES_STALL_RECENT],
                                                  memory_order_relaxed)
                                     : 0;
}

ES_RT int es_stall_probe_held_during(const es_stall_probe *p, long long from_ns, long long to_ns)
{
    es_stall_probe *q = (es_stall_probe *)p;
    const long long due = atomic_load_explicit(&q->due_ns, memory_order_acquire);
    if (due && es_now_ns() - due > p->period_ns / 4)
        return 1; /* it should have woken by now and has not */
    const long long held_from = atomic_load_explicit(&q->held_from_ns, memory_order_acquire);
    const long long held_to = atomic_load_explicit(&q->held_to_ns, memory_order_relaxed);
    return held_from && held_from <= to_ns && held_to >= from_ns;
}

void es_stall_probe_reset(es_stall_probe *p)
{
    atomic_store(&p->reset_asked, 1);
}

void es_stall_probe_stop(es_stall_probe *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
    free(p);
}
