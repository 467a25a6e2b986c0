/* cpu-nonuniform's tail scheduler: earliest deadline first over the tail
 * levels' jobs, in slices (see nonuniform_tails.h).
 *
 * Who may touch what: the audio thread writes the history and the levels'
 * `posted` counters and reads `done`; a thread that holds a level's `busy`
 * flag (a worker, or offline the caller) owns its engine, its input and
 * step state, and advances `done`. Claiming is a compare-and-swap on
 * `busy`, so workers and an offline caller never need a lock, and the
 * audio thread never waits on anything. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "nonuniform_tails.h"

/* Job j of level l is due when output frame offset + j P is. */
static inline long long due_of(const es_tail_level *l, long long job)
{
    return (long long)l->offset + job * l->part;
}

/* Claims the level whose next job is due first, among those with a job
 * posted and nobody holding them, if it is due before `before`. */
static es_tail_level *claim_earliest(es_tails *t, long long before)
{
    for (;;) {
        es_tail_level *best = NULL;
        long long best_due = before;
        for (int k = 0; k < t->levels; k++) {
            es_tail_level *l = &t->level[k];
            if (atomic_load_explicit(&l->busy, memory_order_relaxed))
                continue;
            const long long d = atomic_load_explicit(&l->done, memory_order_acquire);
            if (d >= atomic_load_explicit(&l->posted, memory_order_acquire))
                continue;
            const long long due = due_of(l, d);
            if (due < best_due) {
                best = l;
                best_due = due;
            }
        }
        if (!best)
            return NULL;
        int free_ = 0;
        if (atomic_compare_exchange_strong(&best->busy, &free_, 1))
            return best; /* `done` moves only under `busy`: the job is still there */
    }
}

/* Whether some posted job is not held by anyone. */
static int unclaimed_work(es_tails *t)
{
    for (int k = 0; k < t->levels; k++) {
        es_tail_level *l = &t->level[k];
        if (!atomic_load(&l->busy) && atomic_load(&l->done) < atomic_load(&l->posted))
            return 1;
    }
    return 0;
}

#ifdef ES_TESTING
static void slow_down(es_tail_level *l, int per_slice)
{
    /* slow_jobs first: it is stored after slow_us and slow_per_slice. */
    if (atomic_load(&l->slow_jobs) <= 0 || l->slow_per_slice != per_slice)
        return;
    const long long until = es_now_ns() + (long long)(l->slow_us * 1e3);
    while (es_now_ns() < until)
        ;
}
#endif

/* Copies job j's P input frames from the history ring (one run, or two
 * where the block wraps). 0 when the audio thread has already overwritten
 * them (the level fell a whole history behind). */
static int take_input(es_tails *t, es_tail_level *l, long long j)
{
    const long long from = j * l->part;
    const size_t at = (size_t)(from % t->hist);
    const size_t P = (size_t)l->part;
    const size_t first = (size_t)t->hist - at < P ? (size_t)t->hist - at : P;
    for (int i = 0; i < t->inputs; i++) {
        memcpy(l->in[i], t->history[i] + at, first * sizeof(float));
        memcpy(l->in[i] + first, t->history[i], (P - first) * sizeof(float));
    }
    const long long newest = atomic_load_explicit(&t->published, memory_order_acquire);
    return newest - from <= t->hist - t->max_block;
}

/* Runs the next job of level l, which the caller holds. With `preempt`,
 * every job due earlier runs between two of its slices. */
static void run_job(es_tails *t, es_tail_level *l, int preempt)
{
    const long long claimed = es_now_ns();
    const long long j = atomic_load_explicit(&l->done, memory_order_relaxed);
    if (!take_input(t, l, j)) {
        /* Its input is gone: the level starts again from the newest job,
         * and the jobs it skips are silence (their slots still hold older
         * results), written before `done` lets the audio thread read them. */
        es_engine_reset(l->conv);
        const long long newest = atomic_load(&l->posted) - 1;
        const long long skipped = newest - j < l->slots ? newest - j : l->slots;
        for (long long k = j; k < j + skipped; k++)
            for (int o = 0; o < t->outputs; o++)
                memset(l->results[o] + (size_t)(k % l->slots) * (size_t)l->part, 0,
                       (size_t)l->part * sizeof(float));
        atomic_store_explicit(&l->done, newest, memory_order_release);
    } else {
        /* Straight into job j's result slot: the audio thread reads a slot
         * only once `done` says it is finished. */
        const size_t slot = (size_t)(j % l->slots) * (size_t)l->part;
        for (int o = 0; o < t->outputs; o++)
            l->out[o] = l->results[o] + slot;
        es_partitioned_steps_begin(&l->steps);
        const long long due = due_of(l, j);
        while (!es_partitioned_step(l->conv, (const float *const *)l->in, l->out, &l->steps)) {
#ifdef ES_TESTING
            slow_down(l, 1);
#endif
            es_tail_level *urgent;
            while (preempt && (urgent = claim_earliest(t, due)))
                run_job(t, urgent, 1);
        }
#ifdef ES_TESTING
        slow_down(l, 0);
        if (atomic_load(&l->slow_jobs) > 0)
            atomic_fetch_sub(&l->slow_jobs, 1);
#endif
        /* The rescue's estimate: the shorter of the last two jobs, so one
         * job the machine held up does not stop the next rescue. */
        const long long took = es_now_ns() - claimed;
        atomic_store_explicit(&l->last_job_ns, took < l->prev_job_ns ? took : l->prev_job_ns,
                              memory_order_relaxed);
        l->prev_job_ns = took;
        atomic_store(&l->done, j + 1); /* before `freewheel` is read: see its comment */
    }
    atomic_store_explicit(&l->busy, 0, memory_order_release);
    /* Only offline or freewheeling does anyone sleep on it; live, nobody
     * would take the count, which would only grow. */
    if (t->offline || atomic_load(&t->freewheel))
        sem_post(&t->finished);
}

static void *worker(void *arg)
{
    es_tails *t = arg;
    char why[160];
    if (es_rt_thread_promote(es_rt_helper_priority(), why, sizeof why))
        atomic_fetch_add(&t->promoted, 1);
    atomic_fetch_add(&t->asked, 1);
    for (;;) {
        /* Idle first, then look once more: a job posted in between is
         * either seen here or finds this worker idle and posts `wake`. */
        atomic_fetch_add(&t->idle, 1);
        if (!unclaimed_work(t) && !atomic_load(&t->stop))
            sem_wait(&t->wake);
        atomic_fetch_sub(&t->idle, 1);
        if (atomic_load(&t->stop))
            break;
        es_tail_level *l;
        const long long cpu_from = es_thread_cpu_ns();
        while ((l = claim_earliest(t, LLONG_MAX))) {
            /* More than this worker can take at once: wake another. */
            if (atomic_load(&t->idle) > 0 && unclaimed_work(t))
                sem_post(&t->wake);
            run_job(t, l, 1);
        }
        /* What the engine costs beyond the audio thread (a host's load). */
        atomic_fetch_add_explicit(&t->cpu_ns, es_thread_cpu_ns() - cpu_from,
                                  memory_order_relaxed);
    }
    return NULL;
}

ES_RT void es_tails_post(es_tails *t, long long frames_now)
{
    atomic_store_explicit(&t->published, frames_now, memory_order_release);
    int posted = 0;
    for (int k = 0; k < t->levels; k++) {
        es_tail_level *l = &t->level[k];
        const long long ready = frames_now / l->part;
        if (atomic_load_explicit(&l->posted, memory_order_relaxed) < ready) {
            atomic_store(&l->posted, ready);
            posted = 1;
        }
    }
    /* One wakeup at most, and only for a worker that sleeps. */
    if (posted && atomic_load(&t->idle) > 0)
        sem_post(&t->wake);
}

ES_RT int es_tails_rescue(es_tails *t, es_tail_level *l, long long j, long long *allowance_ns)
{
    const long long measured = atomic_load_explicit(&l->last_job_ns, memory_order_relaxed);
    const long long cost = measured > l->model_job_ns ? measured : l->model_job_ns;
    int free_ = 0;
    if (cost > *allowance_ns || atomic_load(&l->done) != j || atomic_load(&l->posted) <= j ||
        !atomic_compare_exchange_strong(&l->busy, &free_, 1))
        return 0;
    const long long from = es_now_ns();
    run_job(t, l, 0);
    *allowance_ns -= es_now_ns() - from;
    return atomic_load_explicit(&l->done, memory_order_acquire) > j;
}

void es_tails_wait(es_tails *t, es_tail_level *l, long long j)
{
    while (atomic_load(&l->done) <= j) {
        int free_ = 0;
        if (atomic_load(&l->done) < atomic_load(&l->posted) &&
            atomic_compare_exchange_strong(&l->busy, &free_, 1)) {
            run_job(t, l, 0);
            continue;
        }
        /* A worker holds it: every job that finishes posts `finished`
         * (counts left from jobs nobody waited for are used up here). */
        sem_wait(&t->finished);
    }
}

void es_tails_quiesce(es_tails *t)
{
    const struct timespec nap = {0, 100000};
    for (int k = 0; k < t->levels; k++) {
        es_tail_level *l = &t->level[k];
        while (atomic_load(&l->done) < atomic_load(&l->posted) || atomic_load(&l->busy))
            nanosleep(&nap, NULL);
    }
}

int es_tails_start(es_tails *t, int workers, char *err, size_t n)
{
    if (t->levels == 0)
        return 0;
    if (sem_init(&t->wake, 0, 0) != 0 || sem_init(&t->finished, 0, 0) != 0) {
        snprintf(err, n, "cpu-nonuniform: cannot make the tail workers' semaphores");
        return -1;
    }
    t->sems = 1;
    if (workers < 0 && t->offline)
        return 0; /* the caller runs every job (es_tails_wait) */
    if (workers < 1) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cores > 2 ? (int)cores - 1 : 1;
    }
    workers = workers < t->levels ? workers : t->levels;
    t->workers = workers < ES_TAIL_MAX_WORKERS ? workers : ES_TAIL_MAX_WORKERS;
    for (; t->started < t->workers; t->started++)
        if (es_thread_start(&t->thread[t->started], "es-tail-worker", worker, t) != 0) {
            snprintf(err, n, "cpu-nonuniform: cannot start tail worker %d", t->started + 1);
            return -1;
        }
    return 0;
}

void es_tails_priority(es_tails *t, int *workers, int *realtime)
{
    const struct timespec nap = {0, 100000};
    for (int tries = 0; tries < 200 && atomic_load(&t->asked) < t->started; tries++)
        nanosleep(&nap, NULL);
    *workers = t->started;
    *realtime = atomic_load(&t->promoted);
}

void es_tails_stop(es_tails *t)
{
    atomic_store(&t->stop, 1);
    for (int w = 0; w < t->started; w++)
        sem_post(&t->wake);
    for (int w = 0; w < t->started; w++)
        pthread_join(t->thread[w], NULL);
    t->started = 0;
    if (t->sems) {
        sem_destroy(&t->wake);
        sem_destroy(&t->finished);
        t->sems = 0;
    }
}
