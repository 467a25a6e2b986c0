#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#include "core/clock.h"
#include "gpu_pipeline.h"
#include "core/rt_thread.h"

/* While audio runs the worker spins on the job counter instead of sleeping,
 * because waking a sleeping thread costs tens of microseconds, a large part
 * of a 64-frame block. After this long without a job it sleeps. */
#define SPIN_NS 20000000L

/* A job the worker finished and its time: `seq` is 0 while `ns` is being
 * written, so a reader that sees the same seq before and after has a pair. */
typedef struct {
    atomic_long seq;
    _Atomic long long ns;
} finished_job;

struct es_gpu_pipeline {
    es_gpu_backend b;
    int inputs, outputs, max_block, pipelined, offline;
    double rate;

    pthread_t thread;
    int thread_started;
    sem_t wake;
    atomic_int sleeping;       /* worker is (about to be) in sem_wait */
    atomic_int stop;
    atomic_long submitted;     /* seq of the last job handed over */
    atomic_long completed;     /* seq of the last job finished */
    atomic_int in_after;       /* the worker is in the backend's after() */
    int job_frames;            /* written before `submitted` is released */
    atomic_int failed;
    char message[256];         /* written before `failed` is released */
    _Atomic long long job_ns, job_max_ns; /* worker-side time of run() */
    atomic_long job_seq;       /* the job job_ns belongs to */
    finished_job recent[ES_DEVICE_RECENT]; /* the last jobs, by seq % ES_DEVICE_RECENT */
    atomic_long result_seq;    /* the job the last process() waited for */
    atomic_int realtime;       /* -1 until the worker has asked, then 0/1 */
    _Atomic long long cpu_ns;  /* the worker's CPU time, summed */
    char realtime_why[128];    /* written before `realtime` is released */

    /* Audio-thread state. */
    int freewheel;             /* es_gpu_pipeline_freewheel: waits have no deadline */
    long awaiting;             /* pipelined: seq whose result is still owed, 0 none */
    int awaiting_frames;
    long pending;              /* synchronous: this block's job, 0 dropped */
    long long block_start;     /* stream time at this block's begin */
    int block_failed;          /* the engine had failed at this block's begin */
    atomic_ulong late;         /* blocks that were silence because of the GPU */
    /* Pipelined output delay line: a power-of-two ring indexed by absolute
     * frame time; the result for [t, t+n) is written at t, read D later. */
    float **ring;
    size_t ring_size;
    long long time;            /* frames submitted so far (stream time) */
};

static void fail(es_gpu_pipeline *p, const char *why)
{
    snprintf(p->message, sizeof p->message, "%s", why);
    atomic_store_explicit(&p->failed, 1, memory_order_release);
}

/* Waits for a job: spinning while they keep coming, sleeping otherwise.
 * The sleeping flag and the re-check close the race with a submit that
 * lands between the last look and sem_wait. */
static void wait_for_job(es_gpu_pipeline *p, long done)
{
    long long since = es_now_ns();
    while (atomic_load_explicit(&p->submitted, memory_order_acquire) == done &&
           !atomic_load(&p->stop)) {
        if (es_now_ns() - since < SPIN_NS) {
            CPU_RELAX();
            continue;
        }
        atomic_store(&p->sleeping, 1);
        if (atomic_load(&p->submitted) == done && !atomic_load(&p->stop))
            while (sem_wait(&p->wake) != 0 && errno == EINTR)
                ;
        atomic_store(&p->sleeping, 0);
        since = es_now_ns();
    }
}

static void *worker(void *arg)
{
    es_gpu_pipeline *p = arg;
    char err[256] = "";
    long done = 0;
    /* The worker's job is on the audio deadline: below the audio thread,
     * above everything else. */
    int granted = p->offline ? 0
                             : es_rt_thread_promote(es_rt_helper_priority(), p->realtime_why,
                                                    sizeof p->realtime_why);
    if (p->offline)
        snprintf(p->realtime_why, sizeof p->realtime_why, "offline: normal priority");
    atomic_store_explicit(&p->realtime, granted, memory_order_release);
    if (p->b.thread_init && p->b.thread_init(p->b.ctx, err, sizeof err) != 0)
        fail(p, err);
    for (;;) {
        wait_for_job(p, done);
        if (atomic_load(&p->stop))
            break;
        long seq = atomic_load_explicit(&p->submitted, memory_order_acquire);
        const long long began = es_now_ns(), cpu_from = es_thread_cpu_ns();
        if (!atomic_load_explicit(&p->failed, memory_order_acquire) &&
            p->b.run(p->b.ctx, p->job_frames, err, sizeof err) != 0)
            fail(p, err);
        /* The GPU's own time when the backend measures it: a worker that
         * woke late or was descheduled is the machine's, not the GPU's. */
        const long long took = p->b.job_gpu_us ? (long long)(1e3 * *p->b.job_gpu_us)
                                               : es_now_ns() - began;
        atomic_fetch_add_explicit(&p->cpu_ns, es_thread_cpu_ns() - cpu_from,
                                  memory_order_relaxed);
        finished_job *slot = &p->recent[seq % ES_DEVICE_RECENT];
        atomic_store_explicit(&slot->seq, 0, memory_order_release);
        atomic_store_explicit(&slot->ns, took, memory_order_release);
        atomic_store_explicit(&slot->seq, seq, memory_order_release);
        atomic_store_explicit(&p->job_seq, 0, memory_order_release); /* the pair changes */
        atomic_store_explicit(&p->job_ns, took, memory_order_release);
        atomic_store_explicit(&p->job_seq, seq, memory_order_release);
        if (took > atomic_load_explicit(&p->job_max_ns, memory_order_relaxed))
            atomic_store_explicit(&p->job_max_ns, took, memory_order_relaxed);
        done = seq;
        /* Busy until after() returns: set before the job shows complete,
         * so reset() never finds the worker idle in between. */
        atomic_store(&p->in_after, p->b.after != NULL);
        atomic_store_explicit(&p->completed, seq, memory_order_release);
        if (p->b.after && !atomic_load_explicit(&p->failed, memory_order_acquire) &&
            p->b.after(p->b.ctx, err, sizeof err) != 0)
            fail(p, err);
        atomic_store(&p->in_after, 0);
    }
    return NULL;
}

ES_RT void es_gpu_pipeline_freewheel(es_gpu_pipeline *p, int on)
{
    p->freewheel = on;
}

es_gpu_pipeline *es_gpu_pipeline_create(const es_gpu_backend *backend, int inputs,
                                        int outputs, int max_block, double rate,
                                        const es_options *opt, char *err, size_t n)
{
    es_gpu_pipeline *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    p->b = *backend;
    p->inputs = inputs;
    p->outputs = outputs;
    p->max_block = max_block;
    p->rate = rate;
    p->pipelined = opt->gpu_pipelined != 0;
    p->offline = opt->offline != 0;
    atomic_init(&p->realtime, -1);
    if (p->pipelined) {
        p->ring_size = 1;
        while (p->ring_size < 2 * (size_t)max_block)
            p->ring_size <<= 1;
        if (!(p->ring = es_alloc_channels(outputs, p->ring_size)))
            goto nomem;
    }
    if (sem_init(&p->wake, 0, 0) != 0) {
        snprintf(err, n, "cannot create a semaphore: %s", strerror(errno));
        goto fail;
    }
    if (es_thread_start(&p->thread, "es-gpu-worker", worker, p) != 0) {
        snprintf(err, n, "cannot start the GPU worker thread");
        sem_destroy(&p->wake);
        goto fail;
    }
    p->thread_started = 1;
    return p;
nomem:
    snprintf(err, n, "out of memory for the pipelined delay line");
fail:
    es_gpu_pipeline_destroy(p);
    return NULL;
}

void es_gpu_pipeline_destroy(es_gpu_pipeline *p)
{
    if (!p)
        return;
    if (p->thread_started) {
        atomic_store(&p->stop, 1);
        sem_post(&p->wake);
        pthread_join(p->thread, NULL);
        sem_destroy(&p->wake);
    }
    es_free_channels(p->ring, p->outputs);
    free(p);
}

static inline ES_RT int worker_idle(const es_gpu_pipeline *p)
{
    return atomic_load_explicit(&p->completed, memory_order_acquire) ==
           atomic_load_explicit(&p->submitted, memory_order_relaxed);
}

enum { RESULT_READY = 1, RESULT_LATE = 0, RESULT_FAILED = -1 };

/* Polls until job `seq` is complete or the deadline passes (never, when
 * offline). Busy-waiting is the only bounded wait the audio thread has. */
static ES_RT int wait_done(es_gpu_pipeline *p, long seq, long long deadline)
{
    while (atomic_load_explicit(&p->completed, memory_order_acquire) < seq) {
        if (atomic_load_explicit(&p->failed, memory_order_acquire))
            return RESULT_FAILED;
        if (!p->offline && !p->freewheel && es_now_ns() > deadline)
            return RESULT_LATE;
        CPU_RELAX();
    }
    return atomic_load_explicit(&p->failed, memory_order_acquire) ? RESULT_FAILED
                                                                  : RESULT_READY;
}

/* Hands frames of input to the worker; 0 when the GPU is still busy with a
 * late job, so the block is dropped. */
static ES_RT long submit(es_gpu_pipeline *p, const float *const *in, int frames)
{
    if (!worker_idle(p))
        return 0;
    for (int i = 0; i < p->inputs; i++)
        memcpy(p->b.in[i], in[i], (size_t)frames * sizeof(float));
    p->job_frames = frames;
    long seq = atomic_load_explicit(&p->submitted, memory_order_relaxed) + 1;
    if (p->b.tag)
        *p->b.tag = (unsigned)seq;
    if (p->b.word_into)
        *p->b.word_into = *p->b.word_from;
    atomic_store_explicit(&p->submitted, seq, memory_order_release);
    if (atomic_load(&p->sleeping))
        sem_post(&p->wake);
    return seq;
}

/* out == NULL: the result stays in the staging (views). */
static ES_RT void copy_outputs(const es_gpu_pipeline *p, float *const *out, int from, int to,
                               int frames)
{
    for (int o = from; out && o < to; o++)
        memcpy(out[o], p->b.out[o], (size_t)frames * sizeof(float));
}

/* Synchronous, with ready flags: copies each chunk of outputs as the
 * backend hands it over, so the copy of the first runs beside the GPU's
 * writing of the last (1024 outputs are 512 KB at block 128); out == NULL
 * only waits for the last flag. A job that completes without a flag (no
 * launch, or a backend path without them) is taken whole once complete. */
static ES_RT int collect(es_gpu_pipeline *p, long seq, float *const *out, int frames,
                         long long deadline)
{
    const unsigned tag = (unsigned)seq;
    const int step = p->b.chunk_outputs;
    for (int c = 0, first = 0; first < p->outputs; c++, first += step) {
        while (__atomic_load_n(&p->b.ready[c], __ATOMIC_ACQUIRE) != tag) {
            if (atomic_load_explicit(&p->failed, memory_order_acquire))
                return RESULT_FAILED;
            if (atomic_load_explicit(&p->completed, memory_order_acquire) >= seq) {
                copy_outputs(p, out, first, p->outputs, frames);
                return RESULT_READY;
            }
            if (!p->offline && !p->freewheel && es_now_ns() > deadline)
                return RESULT_LATE;
            CPU_RELAX();
        }
        copy_outputs(p, out, first, first + step < p->outputs ? first + step : p->outputs,
                     frames);
    }
    return RESULT_READY;
}

static ES_RT void silence(float *const *out, int outputs, int frames)
{
    for (int o = 0; o < outputs; o++)
        memset(out[o], 0, (size_t)frames * sizeof(float));
}

/* Pipelined: writes [t, t+frames) of the delay line from the staging
 * buffer, or zeros when the result is missing. */
static ES_RT void ring_write(es_gpu_pipeline *p, long long t, int frames, int have)
{
    const size_t mask = p->ring_size - 1;
    for (int o = 0; o < p->outputs; o++)
        for (int k = 0; k < frames; k++)
            p->ring[o][(size_t)(t + k) & mask] = have ? p->b.out[o][k] : 0.0f;
}

ES_RT long long es_gpu_pipeline_deadline(const es_gpu_pipeline *p, int frames)
{
    return es_now_ns() + (long long)(1e9 * ES_GPU_WAIT_FRACTION * frames / p->rate);
}

ES_RT int es_gpu_pipeline_prepare(es_gpu_pipeline *p, long long deadline)
{
    if (atomic_load_explicit(&p->failed, memory_order_acquire))
        return 0;
    if (!p->pipelined) {
        /* Handed over in chunks, the last job's result came before the
         * job was complete: wait for the worker to finish it (the GPU's
         * last microseconds) instead of finding it busy. */
        if (p->b.ready)
            (void)wait_done(p, atomic_load_explicit(&p->submitted, memory_order_relaxed),
                            deadline);
        return worker_idle(p);
    }
    /* Pipelined: the previous block's result into the delay line. */
    atomic_store_explicit(&p->result_seq, p->awaiting, memory_order_relaxed);
    if (p->awaiting) {
        const long long t = p->time - p->awaiting_frames;
        const int result = wait_done(p, p->awaiting, deadline);
        ring_write(p, t, p->awaiting_frames, result == RESULT_READY);
        if (result == RESULT_LATE)
            atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
        p->awaiting = 0;
    }
    return worker_idle(p);
}

ES_RT void es_gpu_pipeline_begin(es_gpu_pipeline *p, const float *const *in, int frames, int go)
{
    p->block_start = p->time;
    p->block_failed = atomic_load_explicit(&p->failed, memory_order_acquire);
    if (p->block_failed)
        return;
    const long seq = go ? submit(p, in, frames) : 0;
    if (!p->pipelined) {
        p->pending = seq;
        atomic_store_explicit(&p->result_seq, seq, memory_order_relaxed);
        return;
    }
    if (seq) {
        p->awaiting = seq;
        p->awaiting_frames = frames;
    } else {
        ring_write(p, p->time, frames, 0);
        atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
    }
    p->time += frames;
}

/* Synchronous: waits for this block's job until the deadline; its result
 * copied into out[] (out == NULL: left in the staging). RESULT_READY, or
 * RESULT_LATE (counted) / RESULT_FAILED with nothing written. */
static ES_RT int finish_sync(es_gpu_pipeline *p, float *const *out, int frames,
                             long long deadline)
{
    const long seq = p->pending;
    const int result = !seq        ? RESULT_LATE
                       : p->b.ready ? collect(p, seq, out, frames, deadline)
                                    : wait_done(p, seq, deadline);
    if (result == RESULT_READY && !p->b.ready)
        copy_outputs(p, out, 0, p->outputs, frames);
    if (result == RESULT_LATE)
        atomic_fetch_add_explicit(&p->late, 1, memory_order_relaxed);
    return result;
}

ES_RT void es_gpu_pipeline_finish_views(es_gpu_pipeline *p, float *const *own, float **views,
                                        int frames, long long deadline)
{
    if (!p->block_failed && !p->pipelined) {
        const int ready = finish_sync(p, NULL, frames, deadline) == RESULT_READY;
        if (!ready)
            silence(own, p->outputs, frames);
        for (int o = 0; o < p->outputs; o++)
            views[o] = ready ? p->b.out[o] : own[o];
        return;
    }
    es_gpu_pipeline_finish(p, own, frames, deadline);
    for (int o = 0; o < p->outputs; o++)
        views[o] = own[o];
}

ES_RT void es_gpu_pipeline_finish(es_gpu_pipeline *p, float *const *out, int frames,
                                  long long deadline)
{
    if (p->block_failed) {
        silence(out, p->outputs, frames);
        return;
    }
    if (!p->pipelined) {
        if (finish_sync(p, out, frames, deadline) != RESULT_READY)
            silence(out, p->outputs, frames);
        return;
    }
    /* Output is delayed by exactly max_block frames. A failure after begin
     * leaves the delay line as it was: what it holds was computed. */
    const size_t mask = p->ring_size - 1;
    const long long from = p->block_start - p->max_block;
    for (int o = 0; o < p->outputs; o++)
        for (int k = 0; k < frames; k++)
            out[o][k] = from + k < 0 ? 0.0f : p->ring[o][(size_t)(from + k) & mask];
}

ES_RT void es_gpu_pipeline_process(es_gpu_pipeline *p, const float *const *in,
                                   float *const *out, int frames)
{
    const long long deadline = es_gpu_pipeline_deadline(p, frames);
    const int go = es_gpu_pipeline_prepare(p, deadline);
    es_gpu_pipeline_begin(p, in, frames, go);
    es_gpu_pipeline_finish(p, out, frames, deadline);
}

ES_RT void es_gpu_pipeline_process_views(es_gpu_pipeline *p, const float *const *in,
                                         float *const *own, float **views, int frames)
{
    const long long deadline = es_gpu_pipeline_deadline(p, frames);
    const int go = es_gpu_pipeline_prepare(p, deadline);
    es_gpu_pipeline_begin(p, in, frames, go);
    es_gpu_pipeline_finish_views(p, own, views, frames, deadline);
}

ES_RT uint64_t es_gpu_pipeline_late(const es_gpu_pipeline *p)
{
    return atomic_load_explicit(&p->late, memory_order_relaxed);
}

ES_RT int es_gpu_pipeline_failed(const es_gpu_pipeline *p)
{
    return atomic_load_explicit(&p->failed, memory_order_acquire);
}

int es_gpu_pipeline_latency(const es_gpu_pipeline *p)
{
    return p->pipelined ? p->max_block : 0;
}

void es_gpu_pipeline_reset(es_gpu_pipeline *p)
{
    /* Not real-time: wait for the worker, then clear the device through the
     * backend from this thread (CUDA calls are fine off the audio thread). */
    while (!worker_idle(p) || atomic_load(&p->in_after))
        CPU_RELAX();
    char err[256];
    if (p->b.reset && p->b.reset(p->b.ctx, err, sizeof err) != 0)
        fail(p, err);
    for (int o = 0; p->ring && o < p->outputs; o++)
        memset(p->ring[o], 0, p->ring_size * sizeof(float));
    p->time = 0;
    p->awaiting = 0;
    p->pending = 0;
}

ES_RT void es_gpu_pipeline_status(const es_gpu_pipeline *p, es_engine_status *st)
{
    st->late_results = atomic_load_explicit(&p->late, memory_order_relaxed);
    /* The time and its job are stored one after the other: read the job
     * around the time, so the pair belongs together (a few tries at most). */
    for (int k = 0; k < 4; k++) {
        const long seq = atomic_load_explicit(&p->job_seq, memory_order_acquire);
        st->gpu.us = 1e-3 * (double)atomic_load_explicit(&p->job_ns, memory_order_acquire);
        st->gpu.seq = (uint64_t)seq;
        if (atomic_load_explicit(&p->job_seq, memory_order_acquire) == seq)
            break;
        st->gpu.seq = 0; /* still changing: no pair this time */
    }
    st->gpu.result_seq = (uint64_t)atomic_load_explicit(&p->result_seq, memory_order_relaxed);
    for (int k = 0; k < ES_DEVICE_RECENT; k++) {
        const long seq = atomic_load_explicit(&p->recent[k].seq, memory_order_acquire);
        const long long ns = atomic_load_explicit(&p->recent[k].ns, memory_order_acquire);
        const int whole = atomic_load_explicit(&p->recent[k].seq, memory_order_acquire) == seq;
        st->gpu.recent_seq[k] = whole ? (uint64_t)seq : 0;
        st->gpu.recent_us[k] = whole ? 1e-3 * (double)ns : 0;
    }
    st->gpu.max_us = 1e-3 * (double)atomic_load_explicit(&p->job_max_ns, memory_order_relaxed);
    st->helpers_cpu_ns = atomic_load_explicit(&p->cpu_ns, memory_order_relaxed);
    st->helpers_realtime = atomic_load_explicit(&p->realtime, memory_order_acquire);
    if (st->helpers_realtime >= 0)
        memcpy(st->helpers, p->realtime_why, sizeof st->helpers);
    st->failed = atomic_load_explicit(&p->failed, memory_order_acquire);
    if (st->failed)
        memcpy(st->message, p->message, sizeof st->message);
}
