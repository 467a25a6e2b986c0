/* cuda-nonuniform: non-uniformly partitioned convolution on the GPU, zero
 * latency, for IR matrices of thousands of long paths.
 *
 * cuda-partitioned reads every filter spectrum every block: 1024 paths of
 * 10 s at block 128 stream 4 GB per block. Here, as in cpu-nonuniform, the
 * IR is cut into levels (gpu_nu_plan.c chooses them): partitions that grow
 * with their distance from the head are read once per their own period.
 *
 *   head   partitions of the block size, every block, in the callback's own
 *          job: one CUDA graph on the highest-priority stream,
 *            upload -> insert (segment and input history) -> R2C -> MAC
 *            -> sums -> C2R -> finish (+ the tail rings) -> download
 *   tails  level k, partitions P_k growing x4 or x8, once per P_k frames,
 *          each a CUDA graph on its own stream below the head's priority
 *          (deeper levels lower still), launched by the worker after the
 *          head's result is handed over:
 *            gather (block j-1 | j from the input history) -> R2C -> MAC
 *            -> sums -> C2R -> emit (into the level's output ring)
 *
 * Every level is a gpu_uniform.cu convolution: one forward transform per
 * input and one inverse per output per job, whatever the paths; NULL paths
 * cost nothing; the filter spectra are cut, padded and transformed on the
 * device. A tail MAC runs on a grid of half as many thread blocks as the
 * GPU has SMs, each looping over short tiles (at most 8 partitions a lane):
 * the head, on a higher-priority stream, finds SMs and memory bandwidth
 * free. Stream priority alone does not give that when the other work fills
 * every SM, and a full grid of short blocks still takes the whole bus.
 *
 * Deadlines: level k starts at offset S_k >= 2 P_k + B, so job j, launched
 * once frame (j + 1) P_k is in, is first needed at frame S_k + j P_k, at
 * least P_k + B frames later. Before each head launch the worker looks up
 * whether the jobs the launch needs have finished (their events): a job
 * that has not is late, counted once (late_levels, and in late_results),
 * and its frames are left out; the head never waits for it. When a level
 * has ES_GNU_SLOTS jobs in flight, or its input has left the history, the
 * next job is dropped (late when needed) and the first job after it zeroes
 * the dropped blocks' delay-line slots, so the level is right again count_k
 * jobs later. Offline (render, tests) the worker waits instead.
 *
 * This file is the engine: the head, create and destroy, the class. The
 * tail levels (their kernels, graphs, jobs launched, dropped and looked
 * up) are gpu_nu_tails.cu's; both share the instance (gpu_nonuniform.cuh).
 *
 * The worker thread (gpu_pipeline.c) makes every CUDA call after create;
 * process() never does. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "gpu_nonuniform.cuh"

extern "C" {
#include "classes.h"
#include "gpu_classes.h"
#include "gpu_device.h"
}

/* Filter spectra are built for this many bytes of taps, and of padded
 * partitions, at a time. */
#define SPECTRA_SCRATCH_BYTES (512ull << 20)
/* Left free on the device beyond what an instance needs (cuFFT's work
 * areas, the graphs, other instances' growth). */
#define MEMORY_RESERVE (768ull << 20)

/* ---- the head on the worker ---- */

/* Before each head launch: where its frames go in the input history, and
 * which frames of each tail level are ready to add. */
static int before_launch(void *ctx, es_gpu_header *h, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    h->history = (int)(c->time & (c->history_frames - 1));
    for (int k = 0; k < c->tails; k++)
        if (es_gnu_level_window(c, &c->level[k], c->time, h->frames, &h->level_at[k],
                                &h->level_lo[k], &h->level_hi[k], err, n))
            return -1;
    c->time += h->frames;
    return 0;
}

static int cunu_run(void *ctx, int frames, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    return es_upc_run(&c->head, &c->gpu, frames, before_launch, c, ES_ENGINE_NAME, err, n);
}

static int cunu_device_reset(void *ctx, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    for (int k = 0; k < c->tails; k++)
        ES_CUDA_TRY(cudaStreamSynchronize(c->level[k].stream));
    ES_CUDA_TRY(es_upc_clear(&c->head, c->gpu.stream));
    ES_CUDA_TRY(cudaMemsetAsync(c->history, 0,
                                sizeof(float) * (size_t)c->inputs * c->history_frames,
                                c->gpu.stream));
    for (int k = 0; k < c->tails; k++)
        if (es_gnu_level_clear(c, &c->level[k], err, n))
            return -1;
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    c->time = 0;
    return 0;
fail:
    return -1;
}

/* ---- create / destroy ---- */

static void cunu_destroy(es_engine *e)
{
    cunu *c = (cunu *)e;
    if (!c)
        return;
    es_gpu_pipeline_destroy(c->gpu.pipe); /* no more launches */
    c->gpu.pipe = NULL;
    cudaSetDevice(c->gpu.device);
    for (int k = 0; k < c->tails; k++)
        es_gnu_level_free(&c->level[k]);
    es_gpu_engine_release(&c->gpu);
    es_upc_free(&c->head);
    cudaFree(c->history);
    free(c);
}

/* EARSHOT_GPU_CREATE_TIMES=1: where an instance's build time goes, one
 * line on stderr (for measuring, as `scripts/gpu-check create` does). */
static double create_stamp_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

struct create_times {
    double start, alloc, spectra, capture; /* create_stamp_ms at each step's end */
};

static void say_create_times(const create_times *at)
{
    if (const char *say = getenv("EARSHOT_GPU_CREATE_TIMES"))
        if (*say == '1') {
            const double t1 = create_stamp_ms();
            fprintf(stderr,
                    "%s create: %.1f ms: plan and allocation %.1f, spectra %.1f, "
                    "graphs %.1f, worker %.1f\n",
                    ES_ENGINE_NAME, t1 - at->start, at->alloc - at->start,
                    at->spectra - at->alloc, at->capture - at->spectra, t1 - at->capture);
        }
}

/* The instance's sizes and options, and its levels' plan; returns its own
 * shape. A shard of a split plans as the whole matrix: the same levels
 * give its outputs the same samples, bit for bit. */
static es_gnu_shape cunu_plan(cunu *c, const es_format *fmt, const es_ir *ir,
                              const es_options *opt)
{
    c->gpu.device = opt->gpu.device;
    c->inputs = ir->inputs;
    c->outputs = ir->outputs;
    c->max_block = fmt->max_block;
    c->offline = opt->offline != 0;
#ifdef ES_TESTING
    if (const char *drop = getenv("EARSHOT_GPU_DROP_TAIL"))
        if (sscanf(drop, "%lld,%d", &c->drop_first, &c->drop_count) != 2)
            c->drop_count = 0;
#endif
    const es_gnu_shape shape = {ir->inputs, ir->outputs, es_ir_path_count(ir), ir->length,
                                fmt->max_block, opt->partition};
    es_gnu_shape plan_shape = shape;
    if (opt->gpu.plan_outputs > 0) {
        plan_shape.outputs = opt->gpu.plan_outputs;
        plan_shape.paths = opt->gpu.plan_paths;
    }
    es_gnu_plan_choose(&plan_shape, &c->plan);
#ifdef ES_TESTING
    /* EARSHOT_GPU_NU_PLAN=RATIO,MAX_PART: that plan instead of the
     * cheapest, so the tests reach tail levels with short IRs. */
    int ratio = 0, max_part = 0;
    if (const char *forced = getenv("EARSHOT_GPU_NU_PLAN"))
        if (sscanf(forced, "%d,%d", &ratio, &max_part) == 2)
            es_gnu_plan_make(&plan_shape, ratio, max_part, &c->plan);
#endif
    return shape;
}

/* Refuses, in one line, what cannot fit in the device's free memory,
 * before allocating any of it. */
static int refuse_what_cannot_fit(const es_gnu_shape *shape, const es_gnu_plan *plan,
                                  size_t free_bytes, char *err, size_t n)
{
    char why[160];
    const uint64_t need = es_gnu_plan_device_bytes(shape, plan) + 2 * SPECTRA_SCRATCH_BYTES;
    if (!es_gnu_memory_check(need, free_bytes, MEMORY_RESERVE, why, sizeof why))
        return 0;
    snprintf(err, n, "%s: %d x %d paths of %d taps at block %d %s", ES_ENGINE_NAME,
             shape->inputs, shape->outputs, shape->length, shape->max_block, why);
    return -1;
}

/* The head's stream, at `priority`, its staging and the matrix's paths. */
static int make_head_stream(cunu *c, const es_ir *ir, int priority, char *err, size_t n)
{
    ES_CUDA_TRY(es_gpu_stream_create(&c->gpu, priority));
    if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err,
                         n) ||
        es_gpu_paths_make(&c->gpu.pt, ir, c->gpu.stream, ES_ENGINE_NAME, err, n))
        return -1;
    return 0;
fail:
    return -1;
}

/* The head, on the device's most urgent stream, and the tail levels. */
static int make_levels(cunu *c, const es_ir *ir, char *err, size_t n)
{
    int least = 0, greatest = 0;
    es_gpu_priorities(&least, &greatest);
    if (make_head_stream(c, ir, greatest, err, n))
        return -1;
    const int sms = es_gpu_multiprocessors();
    /* The head: one pass, a thread block per output; the tails: short
     * tiles, on a grid of a few thread blocks that loop over them. */
    const es_upc_layout head = {1, 0, 0, 0, 0}, tail = {0, 1, 4L * sms, 8, es_gnu_tail_grid(sms)};
    const es_nu_level *l0 = &c->plan.level[0];
    if (es_upc_create(&c->head, &c->gpu.pt, c->inputs, c->outputs, l0->part, l0->count, &head,
                      c->gpu.stream, ES_ENGINE_NAME, err, n))
        return -1;
    c->gpu.held += c->head.bytes;
    /* Each tail level below the one before it: a deep level's job reads
     * gigabytes, and a shallow level, whose deadline is much nearer,
     * must not wait behind it. Past the device's range they share the
     * least priority. */
    for (int k = 1; k < c->plan.levels; k++)
        if (es_gnu_level_make(c, k, greatest + k < least ? greatest + k : least, &tail, err, n))
            return -1;
    return 0;
}

/* The device's input history, zeroed, which the head writes and the tail
 * levels gather their windows from. */
static int make_history(cunu *c, char *err, size_t n)
{
    const size_t bytes = sizeof(float) * (size_t)c->inputs * c->history_frames;
    ES_CUDA_TRY(cudaMalloc(&c->history, bytes));
    ES_CUDA_TRY(cudaMemsetAsync(c->history, 0, bytes, c->gpu.stream));
    c->gpu.held += bytes;
    return 0;
fail:
    return -1;
}

/* Every level's filter spectra from one upload of the taps. */
static int build_spectra(cunu *c, const es_ir *ir, char *err, size_t n)
{
    es_upc *all[ES_GNU_MAX_LEVELS] = {&c->head};
    int from[ES_GNU_MAX_LEVELS] = {0};
    for (int k = 0; k < c->tails; k++) {
        all[k + 1] = &c->level[k].u;
        from[k + 1] = c->level[k].offset;
    }
    return es_upc_build_spectra(all, from, c->tails + 1, ir, 0, &c->gpu.pt, SPECTRA_SCRATCH_BYTES,
                                c->gpu.stream, ES_ENGINE_NAME, err, n);
}

/* The head's per-launch work and each tail level's job, recorded once;
 * returns when the device has done what create queued. */
static int record_graphs(cunu *c, char *err, size_t n)
{
    if (es_upc_capture_block(&c->head, &c->gpu, c->max_block, c->history,
                             (int)(c->history_frames - 1), &c->rings, ES_ENGINE_NAME, err, n))
        return -1;
    for (int k = 0; k < c->tails; k++)
        if (es_gnu_level_capture(c, &c->level[k], err, n))
            return -1;
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    return 0;
fail:
    return -1;
}

static es_engine *cunu_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                              char *err, size_t n)
{
    create_times at = {create_stamp_ms(), 0, 0, 0};
    cunu *c = (cunu *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    const es_gnu_shape shape = cunu_plan(c, fmt, ir, opt);
    size_t free_bytes = 0, total = 0;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
    if (refuse_what_cannot_fit(&shape, &c->plan, free_bytes, err, n)) {
        free(c);
        return NULL;
    }
    if (make_levels(c, ir, err, n))
        goto fail;
    c->history_frames = es_gnu_history_frames(&c->plan, c->max_block);
    at.alloc = create_stamp_ms();
    if (make_history(c, err, n) || build_spectra(c, ir, err, n))
        goto fail;
    at.spectra = create_stamp_ms();
    if (record_graphs(c, err, n))
        goto fail;
    at.capture = create_stamp_ms();
    if (es_gpu_engine_start(&c->gpu, c, cunu_run, cunu_device_reset, es_gnu_after_head,
                            &es_engine_cuda_nonuniform, fmt, opt, err, n))
        goto fail;
    say_create_times(&at);
    return &c->gpu.base;
fail:
    cunu_destroy(&c->gpu.base);
    return NULL;
}

static void cunu_status(const es_engine *e, es_engine_status *st)
{
    const cunu *c = (const cunu *)e;
    es_gpu_engine_status(e, st);
    const unsigned long long late = __atomic_load_n(&c->late_tail, __ATOMIC_RELAXED);
    st->late_results += late;
    st->late_levels = late;
}

/* A freewheeling host: the head's result and every tail job waited for. */
static void cunu_freewheel(es_engine *e, int on)
{
    __atomic_store_n(&((cunu *)e)->freewheel, on, __ATOMIC_RELAXED);
    es_gpu_engine_freewheel(e, on);
}

extern "C" const es_engine_class es_engine_cuda_nonuniform = {
    ES_CUDA_NONUNIFORM_DESCRIPTOR, /* name, summary, caps: gpu_classes.h */
    es_gpu_engine_probe,
    cunu_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cunu_destroy,
    cunu_status,
    ES_CUDA_NONUNIFORM_FALLBACK,
    NULL, /* no offline plan: render runs the live default block */
    cunu_freewheel,
    es_gpu_engine_process_views, /* the outputs read where the GPU wrote them */
};
