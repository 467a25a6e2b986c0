/* The host side every GPU engine shares (internal to engines/): a worker
 * thread that owns all GPU calls, and the real-time rules around it.
 *
 * The audio thread never calls CUDA: CUDA's runtime takes locks and can
 * block inside the driver. process() copies the block into pinned memory,
 * hands it to the worker through an atomic sequence number, and polls a
 * completion number until the block's deadline:
 *
 *   synchronous  submit block k, wait for k; latency 0. A backend that
 *                hands its result over in pieces (ready flags, below) has
 *                each piece copied out as it lands, while the GPU is still
 *                writing the next.
 *   pipelined    wait for block k-1 (it had a whole period), submit k, play
 *                k-1's result through a delay of exactly max_block frames.
 *
 * A result that is not ready in time is counted late and the block is
 * silence; a block that cannot be submitted because the GPU is still busy
 * with a late one is dropped, counted late, and is silence too. An error on
 * the worker marks the engine failed (silence, with the message in status)
 * so the host can fall back. Offline mode waits as long as results take.
 *
 * This file has no CUDA in it: a backend supplies the GPU work. */
#ifndef ES_GPU_PIPELINE_H
#define ES_GPU_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

typedef struct {
    void *ctx;
    /* Pinned (page-locked) staging, [inputs][max_block] and
     * [outputs][max_block]; the backend owns them. */
    float **in, **out;
    /* On the worker thread, once, before any job (e.g. cudaSetDevice). */
    int (*thread_init)(void *ctx, char *err, size_t n);
    /* On the worker: convolve `frames` frames from in[] into out[] and
     * return when the result is in out[]. 0, or -1 with a message. */
    int (*run)(void *ctx, int frames, char *err, size_t n);
    /* On the worker: silence all history on the device. */
    int (*reset)(void *ctx, char *err, size_t n);
    /* Optional, on the worker, after each job's result is handed over:
     * work that is not on this block's deadline (cuda-nonuniform launches
     * its tail levels here). 0, or -1 with a message. */
    int (*after)(void *ctx, char *err, size_t n);
    /* The GPU's own time for the last run() (CUDA events), which the
     * status reports as device_us; NULL: the worker's time for run(). */
    const double *job_gpu_us;
    /* Optional (NULL: none), a result handed over in pieces: before each
     * job the audio thread writes the job's number into *tag; once
     * out[c * chunk_outputs ...] (chunk_outputs outputs, fewer in the last
     * chunk) hold the job's result, the backend writes the same number into
     * ready[c] (after the samples, with release ordering). A job that
     * returns without raising every flag has its result taken whole. */
    unsigned *tag;
    const unsigned *ready;
    int chunk_outputs;
    /* Optional (NULL: none): a word of the engine's that the audio thread
     * sets between blocks; *word_from is copied into *word_into as each job
     * is handed over, so the worker reads the value the job was submitted
     * with, not one set while it runs (cuda-partitioned's filter set). */
    const int *word_from;
    int *word_into;
} es_gpu_backend;

typedef struct es_gpu_pipeline es_gpu_pipeline;

es_gpu_pipeline *es_gpu_pipeline_create(const es_gpu_backend *backend, int inputs,
                                        int outputs, int max_block, double rate,
                                        const es_options *opt, char *err, size_t n);
/* Stops the worker (waits for a job in flight) and frees the host side; the
 * backend is the caller's to free afterwards. NULL-safe. */
void es_gpu_pipeline_destroy(es_gpu_pipeline *p);

ES_RT void es_gpu_pipeline_process(es_gpu_pipeline *p, const float *const *in,
                                   float *const *out, int frames);
/* process() in three steps, for a host that runs several pipelines in one
 * block and keeps their jobs in step (a matrix split over GPUs,
 * gpu_split.c); process() is the three in a row. With one deadline for
 * the block (es_gpu_pipeline_deadline):
 *   prepare  waits, until the deadline at most, for what the last block
 *            left: the rest of a job whose result came in pieces, or,
 *            pipelined, the last block's result into the delay line. 1 when
 *            the worker is free for this block's job, 0 when it is still
 *            busy with a late one (or the engine failed);
 *   begin    go = 1: hands the block to the worker; go = 0: drops it (late,
 *            silence). A host of several drops the block on all of them
 *            when any is busy, so that their job numbers stay equal;
 *   finish   the result into out[]: waited for until the deadline
 *            (synchronous) or read from the delay line (pipelined). */
ES_RT long long es_gpu_pipeline_deadline(const es_gpu_pipeline *p, int frames);
ES_RT int es_gpu_pipeline_prepare(es_gpu_pipeline *p, long long deadline);
ES_RT void es_gpu_pipeline_begin(es_gpu_pipeline *p, const float *const *in, int frames, int go);
ES_RT void es_gpu_pipeline_finish(es_gpu_pipeline *p, float *const *out, int frames,
                                  long long deadline);
/* process() and finish() leaving a synchronous result in the staging:
 * views[o] = out[o] of the backend (no copy), valid until the next
 * process or prepare. Pipelined, late or failed, the block is written
 * into own[] and the views point there. */
ES_RT void es_gpu_pipeline_process_views(es_gpu_pipeline *p, const float *const *in,
                                         float *const *own, float **views, int frames);
ES_RT void es_gpu_pipeline_finish_views(es_gpu_pipeline *p, float *const *own, float **views,
                                        int frames, long long deadline);
/* Blocks that were silence because of the GPU so far (status's
 * late_results before the engine adds its own). */
ES_RT uint64_t es_gpu_pipeline_late(const es_gpu_pipeline *p);
/* 1 once the worker has failed (for good). */
ES_RT int es_gpu_pipeline_failed(const es_gpu_pipeline *p);

/* While the host freewheels (1), every wait for a result has no deadline,
 * as offline; 0: live again. Audio thread, between two blocks. */
ES_RT void es_gpu_pipeline_freewheel(es_gpu_pipeline *p, int on);
int es_gpu_pipeline_latency(const es_gpu_pipeline *p);
void es_gpu_pipeline_reset(es_gpu_pipeline *p);
ES_RT void es_gpu_pipeline_status(const es_gpu_pipeline *p, es_engine_status *st);

/* Fraction of a block's duration process() may spend waiting for the GPU;
 * the rest is left for the host's own work in the same callback. */
#define ES_GPU_WAIT_FRACTION 0.8

#endif
