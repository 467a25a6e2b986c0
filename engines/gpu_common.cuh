/* What the CUDA engines share (internal; CUDA C++ only). */
#ifndef ES_GPU_COMMON_CUH
#define ES_GPU_COMMON_CUH

#include <cstdio>
#include <cuda_runtime.h>
#include <cufft.h>

#include "cufft_loaded.h"

extern "C" {
#include "engine.h"
#include "gpu_pipeline.h"
}

/* Every CUDA call goes through one of these; the first failure writes
 * "<engine>: <call>: <CUDA's words>" into err and jumps to `fail`. */
#define ES_CUDA_TRY(call)                                                       \
    do {                                                                        \
        cudaError_t rc_ = (call);                                               \
        if (rc_ != cudaSuccess) {                                               \
            snprintf(err, n, "%s: %s: %s", ES_ENGINE_NAME, #call,               \
                     cudaGetErrorString(rc_));                                  \
            goto fail;                                                          \
        }                                                                       \
    } while (0)

#define ES_CUFFT_TRY(call)                                                      \
    do {                                                                        \
        cufftResult rc_ = (call);                                               \
        if (rc_ != CUFFT_SUCCESS) {                                             \
            snprintf(err, n, "%s: %s: cuFFT error %d", ES_ENGINE_NAME, #call,   \
                     (int)rc_);                                                 \
            goto fail;                                                          \
        }                                                                       \
    } while (0)

/* A kernel launch's own error (bad configuration) shows up here. */
#define ES_CUDA_LAUNCHED() ES_CUDA_TRY(cudaGetLastError())

/* The block header that travels in front of the audio in one upload. */
struct es_gpu_header {
    int frames;    /* frames in this launch */
    int offset;    /* where they start in the staging block */
    int position;  /* engine-specific: fill (partitioned), write (circular) */
    int newest;    /* partitioned: FDL slot of the block being filled */
    int complete;  /* partitioned: this launch completes a block */
    int history;   /* nonuniform: input history index of the first frame */
    unsigned tag;  /* the job's number (the pipeline writes it) */
    int last;      /* the job's last launch: hand the outputs over */
    /* nonuniform, per tail level: ring index of the launch's first frame,
     * and the frames [lo, hi) of the launch whose tail result is ready */
    int level_at[8], level_lo[8], level_hi[8];
    /* partitioned over filter sets: the set this launch plays and, in a
     * block that switches (fading), the set it fades from */
    int set, set_old, fading;
    int unused_[13]; /* to 192 bytes */
};
/* A multiple of 64 bytes, so the audio after it stays aligned. */
static_assert(sizeof(es_gpu_header) % 64 == 0, "es_gpu_header keeps the audio aligned");

/* Pinned host staging: the header and inputs go up, the outputs come
 * down, once per launch. The device reads and writes it where it lies,
 * mapped into its address space: a copy node costs a block's graph several
 * microseconds of the GPU's time, and 512 KB of outputs reach the host
 * sooner from the kernel that makes them than from a copy after it. The
 * header is read by every kernel of a block, so the first kernel keeps a
 * device copy of it (es_staging_keep_header) for the ones after. */
struct es_gpu_staging {
    int inputs, outputs, max_block;
    unsigned char *host_up;           /* header, then inputs * max_block floats */
    float *host_down;                 /* outputs * max_block floats */
    const unsigned char *map_up;      /* host_up as the device sees it */
    float *map_down;                  /* host_down as the device sees it */
    es_gpu_header *dev_header;        /* the device's copy of the header */
    float **in, **out;                /* per-channel pointers into host_up/down */
    /* The outputs handed over in chunks as they land (gpu_pipeline.h):
     * ready[c] gets the job's tag once chunk c is in host_down; count[c]
     * counts the thread blocks done with it (device memory). */
    int chunk_outputs, chunks;
    unsigned *host_ready, *map_ready, *dev_count;
};

/* Whether a block's outputs are worth handing over in chunks: not when
 * they are one chunk (the flags' fences cost about 3 us of the GPU's time
 * at stereo, block 32, and gain nothing). EARSHOT_GPU_HAND_OVER=0 turns it
 * off, for measuring it. */
int es_staging_hands_over(const es_gpu_staging *s);

/* What the last kernel of a block needs to raise the ready flags. */
struct es_gpu_ready {
    unsigned *flags;   /* map_ready */
    unsigned *count;   /* dev_count */
    int chunk_outputs;
};

static inline es_gpu_ready es_staging_ready(const es_gpu_staging *s)
{
    es_gpu_ready r = {s->map_ready, s->dev_count, s->chunk_outputs};
    return r;
}

/* In the last kernel of a job's last launch, by every thread of a thread
 * block that wrote `blocks_per_row` blocks' share of output `row` (grid.x
 * blocks per row): the last block done with a chunk raises its flag. The
 * system fence in every thread puts its samples in host memory before the
 * block counts itself; the last block's fence puts them all before the
 * flag. Block-uniform: every thread of the block must call it. */
static __device__ __forceinline__ void es_staging_hand_over(const es_gpu_ready &r,
                                                            unsigned tag, int row, int outputs)
{
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x != 0 || threadIdx.y != 0)
        return;
    const int c = row / r.chunk_outputs, first = c * r.chunk_outputs;
    const int rows = outputs - first < r.chunk_outputs ? outputs - first : r.chunk_outputs;
    const unsigned blocks = (unsigned)rows * gridDim.x;
    if (atomicAdd(&r.count[c], 1u) == blocks - 1) {
        r.count[c] = 0; /* the next job's kernel starts after this one ends */
        __threadfence_system();
        *(volatile unsigned *)&r.flags[c] = tag;
    }
}

static inline es_gpu_header *es_staging_header(es_gpu_staging *s)
{
    return (es_gpu_header *)s->host_up;
}

/* The header the block's first kernel reads: the staging's own. */
static inline const es_gpu_header *es_staging_first_header(const es_gpu_staging *s)
{
    return (const es_gpu_header *)s->map_up;
}

/* The device copy the first kernel keeps, for the kernels after it. */
static inline es_gpu_header *es_staging_dev_header(const es_gpu_staging *s)
{
    return s->dev_header;
}

static inline const float *es_staging_dev_in(const es_gpu_staging *s)
{
    return (const float *)(s->map_up + sizeof(es_gpu_header));
}

static inline float *es_staging_dev_out(const es_gpu_staging *s)
{
    return s->map_down;
}

/* In the block's first kernel: thread block (0, 0) copies the header to
 * where the later kernels read it. Needs blockDim.x >= 48 (its words). */
static __device__ __forceinline__ void es_staging_keep_header(const es_gpu_header *first,
                                                              es_gpu_header *kept)
{
    if (blockIdx.x == 0 && blockIdx.y == 0 &&
        threadIdx.x < sizeof(es_gpu_header) / sizeof(int))
        ((int *)kept)[threadIdx.x] = ((const int *)first)[threadIdx.x];
}

/* Allocate / free; alloc returns 0 or -1 with a message. */
int es_staging_alloc(es_gpu_staging *s, int inputs, int outputs, int max_block,
                     const char *engine, char *err, size_t n);
void es_staging_free(es_gpu_staging *s);



/* The IR matrix's paths in row order (the paths of one input are then
 * consecutive), which output each feeds, and per output the paths into it
 * (CSR: out_paths[out_first[o] .. out_first[o + 1])). Host arrays, and the
 * device copies the kernels read. */
struct es_gpu_paths {
    int count, outputs;
    int *row, *input, *output, *out_first, *out_paths;
    int *dev_input, *dev_output, *dev_out_first, *dev_out_paths;
};

/* 0, or -1 with "<engine>: ..." in err. Copies go on `stream`. */
int es_gpu_paths_make(es_gpu_paths *p, const es_ir *ir, cudaStream_t stream,
                      const char *engine, char *err, size_t n);
void es_gpu_paths_free(es_gpu_paths *p);

/* What every GPU engine instance starts with: the class functions that only
 * forward to the pipeline, and the teardown of what both engines own, are
 * written once (es_gpu_engine_*). */
struct es_gpu_engine {
    es_engine base;
    es_gpu_pipeline *pipe;
    int device;
    cudaStream_t stream;       /* the one stream all work goes on */
    cudaGraphExec_t exec;      /* the per-launch work */
    cudaGraphExec_t exec_alt;  /* NULL, or another graph of it that the
                                  worker picks per launch (launch_alt):
                                  cuda-partitioned's block that switches
                                  filter sets */
    int launch_alt;
    /* A word the audio thread sets between blocks (job_word_next) and each
     * job carries to the worker (job_word, copied when the job is handed
     * over, so a later change waits for the next job): cuda-partitioned's
     * filter set. */
    int job_word_next, job_word;
    cudaEvent_t began, ended;  /* around each launch: the GPU's own time */
    double job_gpu_us;         /* worker: the GPU's time for the job so far */
    int hands_over;            /* its last kernel raises the staging's ready
                                  flags (es_staging_hand_over) */
    size_t held;               /* device memory the engine allocated beyond
                                  the staging and path tables */
#ifdef ES_TESTING
    long fail_after, launches; /* fault injection, see es_gpu_fail_after */
#endif
    es_gpu_staging st;
    es_gpu_paths pt;
};

/* Stops the worker, then frees the graph, stream, path tables and staging;
 * the engine frees its own buffers after. NULL-safe, copes with a half-built
 * instance. */
void es_gpu_engine_release(es_gpu_engine *g);

/* The last step of every GPU engine's create: the worker pipeline over the
 * staging (its channel counts and block), with the engine's run/reset/after (after may be NULL), and the
 * instance's class. 0, or -1 with a message. */
int es_gpu_engine_start(es_gpu_engine *g, void *ctx, int (*run)(void *, int, char *, size_t),
                        int (*reset)(void *, char *, size_t),
                        int (*after)(void *, char *, size_t), const es_engine_class *klass,
                        const es_format *fmt, const es_options *opt, char *err, size_t n);

int es_gpu_engine_probe(char *why, size_t n);
void es_gpu_engine_process(es_engine *e, const float *const *in, float *const *out,
                           int frames);
/* The result left in the mapped staging, where the GPU wrote it. */
void es_gpu_engine_process_views(es_engine *e, const float *const *in, float *const *own,
                                 float **views, int frames);
int es_gpu_engine_latency(const es_engine *e);
void es_gpu_engine_reset(es_engine *e);
/* The pipeline waits for every result while the host freewheels. */
void es_gpu_engine_freewheel(es_engine *e, int on);
void es_gpu_engine_status(const es_engine *e, es_engine_status *st);
/* es_gpu_backend.thread_init for a ctx that starts with es_gpu_engine. */
int es_gpu_engine_thread_init(void *ctx, char *err, size_t n);

/* Ends the capture on `stream` and instantiates it into *exec. */
cudaError_t es_gpu_capture_finish(cudaStream_t stream, cudaGraphExec_t *exec);
/* After a failure during capture: end it and drop what was recorded. */
void es_gpu_capture_abandon(cudaStream_t stream);

/* The engine's stream and the two events that time its launches.
 * priority: CUDA's stream priority (0 the default, lower numbers first;
 * es_gpu_priorities gives the range). */
cudaError_t es_gpu_stream_create(es_gpu_engine *g, int priority);
/* The device's stream priorities: *least (0) and *greatest (negative). */
void es_gpu_priorities(int *least, int *greatest);
/* Worker: launches the graph (exec_alt when launch_alt) between the two events, waits for it, and
 * adds the GPU's time for it (not the worker's: a worker that woke late
 * or was descheduled does not count) to g->job_gpu_us. */
cudaError_t es_gpu_launch_timed(es_gpu_engine *g);

/* Worker, before each launch: 0; in test builds, once EARSHOT_GPU_FAIL_AFTER
 * launches have gone, -1 with a simulated device error in err (the path a
 * CUDA error takes). */
int es_gpu_engine_fault(es_gpu_engine *g, const char *engine, char *err, size_t n);

/* Waits for everything on `stream` by polling: the worker thread owns a
 * core while audio runs, and polling answers a few microseconds sooner
 * than the driver's blocking synchronisation. */
cudaError_t es_gpu_wait(cudaStream_t stream);

/* Multiprocessors on the current device (for grid sizing). */
int es_gpu_multiprocessors(void);

#ifdef ES_TESTING
/* Test builds only (earshot_engines_testing): parses EARSHOT_GPU_FAIL_AFTER,
 * and a GPU engine reports a device error after that many launches, to
 * exercise the fallback path without a broken GPU. 0 off. */
long es_gpu_fail_after(void);
#endif

#endif
