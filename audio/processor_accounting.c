/* The processor's accounting (processor_stages.h): each block's time,
 * sorted when late into the engine's miss or the machine's stall, its
 * levels, and the statistics the stages counted, published to the
 * control side under a seqlock: the audio thread never waits for a
 * reader, and a reader takes a copy again when it raced a publish. */
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "processor_stages.h"

void es_accounting_init(es_accounting *a, const es_format *fmt, int latency, int offline,
                        const char *engine, int ab)
{
    a->rate = fmt->sample_rate;
    a->offline = offline;
    a->now.ab_playing = ab;
    a->now.latency = latency;
    a->now.inputs = fmt->inputs;
    a->now.outputs = fmt->outputs;
    a->now.engine = engine;
    a->shared = a->now;
}

ES_RT void es_accounting_begin(es_accounting *a)
{
    a->started = es_now_ns();
    a->cpu_started = es_thread_cpu_ns();
}

/* Only a late block needs sorting: the engine's (a miss) when the thread
 * was busy in it, the machine's (a stall) when it was off the CPU, or
 * when a real-time thread beside it was held up at the same time (a
 * virtual machine's stolen time counts as the thread's CPU). The
 * thread's CPU time in the block, or 0 for the machine's. */
static ES_RT double cpu_in_late_block(const es_accounting *a, double took, double budget)
{
    if (took <= budget)
        return 0;
    const es_stall_probe *w = atomic_load_explicit(&a->watch, memory_order_acquire);
    return w && es_stall_probe_held_during(w, a->started, es_now_ns())
               ? 0
               : 1e-3 * (double)(es_thread_cpu_ns() - a->cpu_started);
}

ES_RT void es_accounting_count(es_accounting *a, const es_block_done *b)
{
    const double took = 1e-3 * (double)(es_now_ns() - a->started);
    const double budget = 1e6 * b->frames / a->rate;
    const double cpu = cpu_in_late_block(a, took, budget);
    /* Only an engine playing alone counts in its A/B slot. A render's
     * levels (its gain through the room among them) are nobody's. */
    const int ab_levels = b->ab >= 0 && !a->offline;
    /* The thread's CPU over the last period belongs to the last block's
     * slot; the time it was gone (a stall) costs no CPU. */
    const double period_cpu = a->cpu_at ? 1e-3 * (double)(a->cpu_started - a->cpu_at) : 0;
    const int period_ab = a->last_ab;
    a->cpu_at = a->cpu_started;
    a->last_ab = b->ab;
    const es_block_count count = {
        .period_cpu_us = period_cpu, .period_ab = period_ab,
        .took_us = took, .cpu_us = cpu, .budget_us = budget,
        .helpers_us = b->engines.helpers_us, .gpu_us = b->engines.gpu_us,
        .frames = b->frames, .late = b->engines.late, .freewheel = b->freewheel,
        .clipped = b->clipped, .limited = b->limited, .ab = b->ab,
        .in_energy = ab_levels ? es_energy(b->in, a->now.inputs, b->frames) : 0,
        .out_energy = ab_levels ? es_energy(b->out, a->now.outputs, b->frames) : 0};
    es_stats_count_block(&a->now, &count);
    if (!a->offline)
        es_stats_measure_levels(&a->now, b->in, a->now.inputs, b->out, a->now.outputs,
                                b->frames, a->rate);
}

ES_RT void es_accounting_publish(es_accounting *a)
{
    unsigned s = atomic_load_explicit(&a->seq, memory_order_relaxed);
    atomic_store_explicit(&a->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    memcpy(&a->shared, &a->now, sizeof a->now);
    atomic_store_explicit(&a->seq, s + 2, memory_order_release);
}

ES_RT void es_accounting_reset(es_accounting *a)
{
    es_stats *s = &a->now;
    const char *engine = s->engine;
    const int latency = s->latency, inputs = s->inputs, outputs = s->outputs;
    memset(s, 0, sizeof *s);
    s->engine = engine;
    s->latency = latency;
    s->inputs = inputs;
    s->outputs = outputs;
}

void es_accounting_read(const es_accounting *a, es_stats *out)
{
    es_accounting *q = (es_accounting *)a;
    /* A copy that raced the audio thread's is taken again; after a few,
     * the reader sleeps a moment rather than spin: an audio thread that is
     * not real-time (a freewheeling server's, or one the machine refuses
     * real-time) can be descheduled mid-publish, and a reader spinning on
     * the same CPU would keep it from finishing (seconds on a loaded
     * machine, which the session took for a dead device). */
    const struct timespec nap = {0, 50000};
    for (int tries = 0;; tries++) {
        if (tries >= 3)
            nanosleep(&nap, NULL);
        unsigned before = atomic_load_explicit(&q->seq, memory_order_acquire);
        if (before & 1)
            continue;
        memcpy(out, &q->shared, sizeof *out);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&q->seq, memory_order_relaxed) == before)
            break;
    }
}
