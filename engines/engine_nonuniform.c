/* cpu-nonuniform: non-uniformly partitioned convolution, zero latency.
 *
 * The IR is cut into levels. The head, taps [0, S1), is a uniformly
 * partitioned engine with the host's block as its partition, run inside
 * process(): it gives the zero latency. Each tail level k covers taps
 * [S_k, S_k + n_k P_k) with partitions P_k that grow by 2 or 4, and is a
 * uniformly partitioned engine of its own, fed whole blocks of P_k frames
 * by a worker thread. Because S_k >= 2 P_k + max_block, the worker's
 * result for input block j (frames [j P, (j+1) P)) is first needed
 * P_k - max_block frames after the block is complete: that is its deadline.
 * A result not ready when its first frame is due is a late result, counted
 * (the processor counts it as a miss) and left out; the worker goes on in
 * order, so the output is right again once it has caught up.
 *
 * The plan (ratio, largest partition, partitions per level) is the one the
 * cost model in nonuniform_plan.c finds cheapest per sample. Worker threads
 * are created in create(), at SCHED_FIFO just below the audio thread when
 * the system allows (deeper levels, with longer deadlines, lower), and say
 * so through status(). process() only copies, adds, posts a semaphore
 * (never waits on one), and runs the head. */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "classes.h"
#include "nonuniform.h"
#include "offline_plan.h"
#include "core/rt_thread.h"

typedef struct nonuniform nonuniform;

typedef struct {
    nonuniform *owner;
    int index;               /* 1.. (0 is the head) */
    int part, offset, count; /* P, S, n */
    int slots;               /* results kept: jobs j .. j + slots - 1 */
    es_engine *conv;         /* uniform engine on taps [S, S + n P), block P */
    float **in;              /* the worker's block of input */
    float **out;             /* [outputs]: where the current job's result goes */
    float **results;         /* [outputs][slots * P]: result of job j at slot j % slots */
    sem_t go;
    sem_t finished;          /* offline: posted after every job, process() sleeps on it */
    atomic_llong posted;     /* jobs posted so far (job j once frames >= (j+1) P) */
    atomic_llong done;       /* jobs finished so far */
    long long late_job;      /* the last job process() found late (audio thread) */
    pthread_t thread;
    int started, realtime;
#ifdef ES_TESTING
    atomic_int slow_jobs;    /* the next jobs each take slow_us longer */
    double slow_us;
#endif
} level;

struct nonuniform {
    es_engine base;
    es_format fmt;
    int offline;
    es_engine *head;
    int levels;              /* tail levels in use */
    level level[ES_NU_MAX_LEVELS];
    float **history;         /* [inputs][hist]: the input, for the workers */
    long long hist;          /* a power of two */
    long long frames;        /* input frames so far (audio thread) */
    atomic_llong published;  /* frames the workers may read */
    atomic_int stop;
    atomic_ullong late;
    char helpers[128];
    int helpers_realtime;
};

/* The worker: every job posted, in order. Input that the audio thread has
 * already overwritten (the worker fell a whole history behind) cannot be
 * convolved: the level starts again from the newest job, silent. */
static void *worker(void *arg)
{
    level *l = arg;
    nonuniform *u = l->owner;
    char why[160];
    l->realtime = es_rt_thread_promote(es_rt_helper_priority() - l->index + 1, why,
                                       sizeof why);
    const int P = l->part;
    for (;;) {
        sem_wait(&l->go);
        if (atomic_load(&u->stop))
            break;
        long long j = atomic_load_explicit(&l->done, memory_order_relaxed);
        while (j < atomic_load_explicit(&l->posted, memory_order_acquire)) {
            const long long from = j * P;
            /* P frames from the ring: one run, or two where the block
             * wraps (P need not divide the power-of-two ring). */
            const size_t at = (size_t)(from & (u->hist - 1));
            const size_t first = (size_t)u->hist - at < (size_t)P ? (size_t)u->hist - at : (size_t)P;
            for (int i = 0; i < u->fmt.inputs; i++) {
                memcpy(l->in[i], u->history[i] + at, first * sizeof(float));
                memcpy(l->in[i] + first, u->history[i], ((size_t)P - first) * sizeof(float));
            }
            const long long newest = atomic_load_explicit(&u->published, memory_order_acquire);
            if (newest - from > u->hist - u->fmt.max_block) {
                /* Overwritten while (or before) copying. */
                es_engine_reset(l->conv);
                j = atomic_load(&l->posted) - 1;
                atomic_store_explicit(&l->done, j, memory_order_release);
                if (u->offline)
                    sem_post(&l->finished);
                continue;
            }
#ifdef ES_TESTING
            if (atomic_load_explicit(&l->slow_jobs, memory_order_relaxed) > 0) {
                atomic_fetch_sub(&l->slow_jobs, 1);
                const long long until = es_now_ns() + (long long)(l->slow_us * 1e3);
                while (es_now_ns() < until)
                    ;
            }
#endif
            /* Straight into job j's result slot: process() reads a slot only
             * once `done` says it is finished. */
            const size_t slot = (size_t)(j % l->slots) * (size_t)P;
            for (int o = 0; o < u->fmt.outputs; o++)
                l->out[o] = l->results[o] + slot;
            es_engine_process(l->conv, (const float *const *)l->in, l->out, P);
            atomic_store_explicit(&l->done, ++j, memory_order_release);
            /* Only offline does process() sleep on it; live, nobody would
             * take the count, which would only grow. */
            if (u->offline)
                sem_post(&l->finished);
        }
    }
    return NULL;
}

/* Adds level l's results for output frames [from, from + frames) into out. */
static ES_RT void add_level(nonuniform *u, level *l, float *const *out, long long from,
                            int frames)
{
    const long long end = from + frames;
    long long t = from > l->offset ? from : l->offset;
    while (t < end) {
        const long long j = (t - l->offset) / l->part;
        const long long job_end = l->offset + (j + 1) * l->part;
        const int run = (int)((job_end < end ? job_end : end) - t);
        /* Offline only: sleep until the worker has finished job j (every
         * job posts `finished`; counts left from jobs nobody waited for
         * are used up by the loop). */
        while (u->offline && atomic_load_explicit(&l->done, memory_order_acquire) <= j)
            sem_wait(&l->finished);
        if (atomic_load_explicit(&l->done, memory_order_acquire) > j) {
            const size_t at = (size_t)(j % l->slots) * (size_t)l->part +
                              (size_t)(t - l->offset - j * l->part);
            for (int o = 0; o < u->fmt.outputs; o++) {
                const float *r = l->results[o] + at;
                float *y = out[o] + (t - from);
                for (int k = 0; k < run; k++)
                    y[k] += r[k];
            }
        } else if (l->late_job != j) {
            l->late_job = j; /* counted once; its part is left out */
            atomic_fetch_add_explicit(&u->late, 1, memory_order_relaxed);
        }
        t += run;
    }
}

static ES_RT void nu_process(es_engine *e, const float *const *in, float *const *out,
                             int frames)
{
    nonuniform *u = (nonuniform *)e;
    const long long from = u->frames;
    for (int i = 0; i < u->fmt.inputs; i++) {
        float *h = u->history[i];
        for (int t = 0; t < frames; t++)
            h[(from + t) & (u->hist - 1)] = in[i][t];
    }
    u->frames += frames;
    atomic_store_explicit(&u->published, u->frames, memory_order_release);
    /* Post every job whose input block is now complete. */
    for (int k = 0; k < u->levels; k++) {
        level *l = &u->level[k];
        const long long ready = u->frames / l->part;
        if (atomic_load_explicit(&l->posted, memory_order_relaxed) < ready) {
            atomic_store_explicit(&l->posted, ready, memory_order_release);
            sem_post(&l->go);
        }
    }
    es_engine_process(u->head, in, out, frames);
    for (int k = 0; k < u->levels; k++)
        add_level(u, &u->level[k], out, from, frames);
}

/* A matrix of the same paths as `ir`, taps [from, from + length). */
static es_ir *ir_segment(const es_ir *ir, int from, int length)
{
    es_ir *s = es_ir_create(ir->inputs, ir->outputs, length, ir->sample_rate);
    for (int r = 0; s && r < ir->inputs * ir->outputs; r++) {
        if (!ir->taps[r])
            continue;
        float *row = es_ir_path(s, r / ir->outputs, r % ir->outputs);
        if (!row) {
            es_ir_destroy(s);
            return NULL;
        }
        const int have = ir->length - from < length ? ir->length - from : length;
        if (have > 0)
            memcpy(row, ir->taps[r] + from, (size_t)have * sizeof(float));
    }
    return s;
}

static void nu_destroy(es_engine *e)
{
    nonuniform *u = (nonuniform *)e;
    if (!u)
        return;
    atomic_store(&u->stop, 1);
    for (int k = 0; k < u->levels; k++) {
        level *l = &u->level[k];
        if (l->started) {
            sem_post(&l->go);
            pthread_join(l->thread, NULL);
            sem_destroy(&l->go);
            sem_destroy(&l->finished);
        }
        if (l->conv) /* built by the class, not es_engine_create: not counted */
            l->conv->klass->destroy(l->conv);
        es_free_channels(l->in, u->fmt.inputs);
        free(l->out);
        es_free_channels(l->results, u->fmt.outputs);
    }
    if (u->head)
        u->head->klass->destroy(u->head);
    es_free_channels(u->history, u->fmt.inputs);
    free(u);
}

static es_engine *make_part(const es_ir *ir, const es_format *fmt, int from, int length,
                            int part, int fft_measure, char *err, size_t n)
{
    es_ir *seg = ir_segment(ir, from, length);
    if (!seg) {
        snprintf(err, n, "cpu-nonuniform: out of memory");
        return NULL;
    }
    es_format f = *fmt;
    f.max_block = part;
    es_options opt = {.partition = part, .fft_measure = fft_measure};
    es_engine *e = es_engine_cpu_partitioned.create(&f, seg, &opt, err, n);
    es_ir_destroy(seg);
    return e;
}

static es_engine *nu_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                            char *err, size_t n)
{
    es_nu_plan plan;
    es_nu_plan_choose(fmt, ir, opt->partition, &plan);
    nonuniform *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, n, "cpu-nonuniform: out of memory");
        return NULL;
    }
    u->base.klass = &es_engine_cpu_nonuniform;
    u->fmt = *fmt;
    u->offline = opt->offline;
    const int head_len = plan.levels > 1 ? plan.level[1].offset : ir->length;
    if (!(u->head = make_part(ir, fmt, 0, head_len, plan.level[0].part, opt->fft_measure, err,
                              n)))
        goto fail;
    int largest = plan.level[0].part;
    for (int k = 1; k < plan.levels; k++)
        largest = plan.level[k].part > largest ? plan.level[k].part : largest;
    u->hist = 1;
    while (u->hist < 8LL * largest + 2LL * fmt->max_block)
        u->hist <<= 1;
    if (!(u->history = es_alloc_channels(fmt->inputs, (size_t)u->hist)))
        goto nomem;
    u->helpers_realtime = plan.levels > 1 ? 1 : -1;
    for (int k = 1; k < plan.levels; k++) {
        level *l = &u->level[u->levels];
        l->owner = u;
        l->index = k;
        l->part = plan.level[k].part;
        l->offset = plan.level[k].offset;
        l->count = plan.level[k].count;
        l->slots = l->offset / l->part + 3;
        l->late_job = -1;
        if (!(l->conv = make_part(ir, fmt, l->offset, l->count * l->part, l->part,
                                  opt->fft_measure, err, n)))
            goto fail;
        l->in = es_alloc_channels(fmt->inputs, (size_t)l->part);
        l->out = calloc((size_t)fmt->outputs, sizeof *l->out);
        l->results = es_alloc_channels(fmt->outputs, (size_t)l->slots * l->part);
        if (!l->in || !l->out || !l->results)
            goto nomem;
        u->levels++;
        if (sem_init(&l->go, 0, 0) != 0 || sem_init(&l->finished, 0, 0) != 0 ||
            es_thread_start(&l->thread, worker, l) != 0) {
            snprintf(err, n, "cpu-nonuniform: cannot start the worker for level %d", k);
            goto fail;
        }
        l->started = 1;
    }
    /* Wait until the workers have asked for their priority, to report it. */
    for (int k = 0; k < u->levels; k++) {
        const struct timespec nap = {0, 100000};
        for (int tries = 0; tries < 200 && !u->level[k].realtime; tries++)
            nanosleep(&nap, NULL);
        u->helpers_realtime &= u->level[k].realtime;
    }
    snprintf(u->helpers, sizeof u->helpers, "%d tail worker%s, %s", u->levels,
             u->levels == 1 ? "" : "s",
             u->levels == 0 ? "none needed"
             : u->helpers_realtime ? "SCHED_FIFO" : "normal priority (real-time refused)");
    return &u->base;
nomem:
    snprintf(err, n, "cpu-nonuniform: out of memory for %d taps x %d paths", ir->length,
             es_ir_path_count(ir));
fail:
    nu_destroy(&u->base);
    return NULL;
}

static int nu_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

static void nu_reset(es_engine *e)
{
    nonuniform *u = (nonuniform *)e;
    /* Let the workers finish what is posted, then start from silence. */
    for (int k = 0; k < u->levels; k++) {
        level *l = &u->level[k];
        const struct timespec nap = {0, 100000};
        while (atomic_load(&l->done) < atomic_load(&l->posted))
            nanosleep(&nap, NULL);
    }
    es_engine_reset(u->head);
    for (int i = 0; i < u->fmt.inputs; i++)
        memset(u->history[i], 0, (size_t)u->hist * sizeof(float));
    for (int k = 0; k < u->levels; k++) {
        level *l = &u->level[k];
        es_engine_reset(l->conv);
        for (int o = 0; o < u->fmt.outputs; o++)
            memset(l->results[o], 0, (size_t)l->slots * l->part * sizeof(float));
        /* The clock continues: jobs before now are done, with silence. */
        atomic_store(&l->posted, u->frames / l->part);
        atomic_store(&l->done, u->frames / l->part);
        l->late_job = -1;
    }
}

static ES_RT void nu_status(const es_engine *e, es_engine_status *st)
{
    const nonuniform *u = (const nonuniform *)e;
    st->late_results = atomic_load_explicit(&((nonuniform *)u)->late, memory_order_relaxed);
    st->late_levels = st->late_results; /* every late result here is a tail's */
    st->helpers_realtime = u->helpers_realtime;
    memcpy(st->helpers, u->helpers, sizeof st->helpers);
}

static int nu_probe(char *why, size_t n)
{
    snprintf(why, n, "head in the callback, growing tail partitions on worker threads");
    return 1;
}

#ifdef ES_TESTING
void es_nonuniform_slow_tail(es_engine *e, int level_index, int jobs, double us)
{
    nonuniform *u = (nonuniform *)e;
    for (int k = 0; k < u->levels; k++)
        if (u->level[k].index == level_index) {
            u->level[k].slow_us = us;
            atomic_store(&u->level[k].slow_jobs, jobs);
        }
}
#endif

int es_nonuniform_describe(const es_engine *e, char *out, size_t n)
{
    const nonuniform *u = (const nonuniform *)e;
    int used = 0;
    out[0] = 0;
    for (int k = 0; k < u->levels && (size_t)used < n; k++)
        used += snprintf(out + used, n - (size_t)used, "%s%dx%d@%d", k ? " " : "",
                         u->level[k].count, u->level[k].part, u->level[k].offset);
    return u->levels;
}

const es_engine_class es_engine_cpu_nonuniform = {
    .name = "cpu-nonuniform",
    .summary = "non-uniformly partitioned, zero latency, tail levels on worker threads",
    .caps = ES_CAP_PARTITION | ES_CAP_HELPERS,
    .probe = nu_probe,
    .create = nu_create,
    .process = nu_process,
    .latency = nu_latency,
    .reset = nu_reset,
    .destroy = nu_destroy,
    .offline_block = es_nonuniform_offline_block,
    .status = nu_status,
};
