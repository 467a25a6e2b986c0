/* cuda-partitioned: uniformly partitioned overlap-save on the GPU (seed 001,
 * Belloch), cuFFT, all paths of the IR matrix in every launch.
 *
 * The algorithm is cpu-partitioned's (engine_partitioned.c): P-frame
 * partitions, 2P-point transforms, a frequency-domain delay line (FDL) of
 * each input's past block spectra, zero latency at any call size because
 * the partly filled block is transformed on every call. Everything lives on
 * the device; per launch only the header and the new samples go up and the
 * output comes down:
 *
 *   upload -> insert -> R2C (batched over inputs) -> MAC -> reduce
 *          -> C2R (batched over outputs) -> finish (output + FDL commit)
 *          -> download
 *
 * captured once as a CUDA graph and replayed. The transforms, the MAC and
 * the sums are gpu_uniform.cu's, shared with cuda-nonuniform's levels; here
 * the partitions are split for about 32 thread blocks per SM, each lane
 * keeping at least 8 partitions, and a reduce kernel adds the splits and
 * the paths feeding each output.
 *
 * Over filter sets (es_engine_create_sets: a head-tracked room's set per
 * orientation), every set's spectra stay on the device, so a switch costs
 * no upload; the MAC reads the set the header names. As on the CPU
 * (partitioned_sets.c) the sets share the input's FDL, so the block a
 * switch begins in is summed over both sets (a second graph, exec_alt)
 * and faded frame by frame from the old set's output to the new one's;
 * from the next block on the new set alone plays, as if it always had.
 * The set travels with each job (es_gpu_engine's job word): a switch asked
 * between two process() calls begins with the next block to start.
 *
 * The worker thread (gpu_pipeline.c) makes every CUDA call; process() never
 * does. */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu_uniform.cuh"

extern "C" {
#include "classes.h"
#include "gpu_classes.h"
#include "gpu_device.h"
#include "partition.h"
}

#define ES_ENGINE_NAME "cuda-partitioned"

/* Filter spectra are computed for this many bytes of padded partitions at a
 * time, so a 1024-path room needs no multi-gigabyte scratch buffer. */
#define SPECTRA_SCRATCH_BYTES (256u << 20)

struct cupart {
    es_gpu_engine gpu;          /* first: see gpu_common.cuh */
    int inputs, outputs, max_block;
    es_upc u;                   /* the convolution on the device */
    /* Filter sets, worker-side: the set playing, the one a switching block
     * fades from, whether the current block switches. set_now and switches
     * are read by status() on the audio thread. */
    int set_old, fading;
    int set_now;
    int heard;                  /* a block has begun since create or reset: a set
                                 * asked for before then is taken with no fade */
    unsigned long long switches;
};

/* ---- worker side ---- */

/* Before each launch: at a block's start, the set the job carries begins
 * (a block that switches takes the second graph); the rest of the block
 * goes on as it began. */
static int cupart_before(void *ctx, es_gpu_header *h, char *err, size_t n)
{
    (void)err, (void)n;
    cupart *c = (cupart *)ctx;
    if (h->position == 0) {
        const int want = c->gpu.job_word;
        c->fading = c->heard && want != c->set_now;
        if (!c->heard) /* nothing played yet: as if made with that set */
            __atomic_store_n(&c->set_now, want, __ATOMIC_RELAXED);
        c->heard = 1;
        if (c->fading) {
            c->set_old = c->set_now;
            __atomic_store_n(&c->set_now, want, __ATOMIC_RELAXED);
            __atomic_store_n(&c->switches, c->switches + 1, __ATOMIC_RELAXED);
        }
    }
    h->set = c->set_now;
    h->set_old = c->set_old;
    h->fading = c->fading;
    c->gpu.launch_alt = c->fading;
    return 0;
}

static int cupart_run(void *ctx, int frames, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    return es_upc_run(&c->u, &c->gpu, frames, c->u.sets > 1 ? cupart_before : NULL, c,
                      ES_ENGINE_NAME, err, n);
}

static int cupart_device_reset(void *ctx, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_upc_clear(&c->u, c->gpu.stream));
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    c->heard = 0;
    return 0;
fail:
    return -1;
}

/* ---- create / destroy ---- */

static void cupart_destroy(es_engine *e)
{
    cupart *c = (cupart *)e;
    if (!c)
        return;
    es_gpu_engine_release(&c->gpu);
    es_upc_free(&c->u);
    free(c);
}

/* The matrix every set fits: each path some set has, the longest length.
 * Its taps are borrowed from the sets (only which rows exist is read). */
static es_ir *union_of(const es_ir *const *sets, int count)
{
    es_ir *all = (es_ir *)malloc(sizeof *all);
    const int rows = sets[0]->inputs * sets[0]->outputs;
    if (!all || !(all->taps = (float **)calloc((size_t)rows, sizeof *all->taps))) {
        free(all);
        return NULL;
    }
    all->inputs = sets[0]->inputs;
    all->outputs = sets[0]->outputs;
    all->sample_rate = sets[0]->sample_rate;
    all->length = 0;
    for (int s = 0; s < count; s++) {
        all->length = sets[s]->length > all->length ? sets[s]->length : all->length;
        for (int r = 0; r < rows; r++)
            all->taps[r] = all->taps[r] ? all->taps[r] : sets[s]->taps[r];
    }
    return all;
}

static void union_free(es_ir *all)
{
    if (all)
        free(all->taps);
    free(all);
}

static es_engine *create_sets(const es_format *fmt, const es_ir *const *sets, int count,
                              const es_options *opt, char *err, size_t n)
{
    es_ir *ir = count > 1 ? union_of(sets, count) : NULL;
    if (count > 1 && !ir) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    const es_ir *shape = count > 1 ? ir : sets[0];
    cupart *c = (cupart *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        union_free(ir);
        return NULL;
    }
    c->gpu.device = opt->gpu.device;
    c->inputs = shape->inputs;
    c->outputs = shape->outputs;
    c->max_block = fmt->max_block;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_gpu_stream_create(&c->gpu, 0));
    if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err, n) ||
        es_gpu_paths_make(&c->gpu.pt, shape, c->gpu.stream, ES_ENGINE_NAME, err, n))
        goto fail;
    {
        /* About 32 thread blocks per SM (many waves, so the last one is a
         * small part of the time); every lane keeps at least 8 partitions
         * so the reduce stays short. */
        const int part = opt->partition > 0 ? opt->partition : es_default_partition(fmt->max_block);
        const es_upc_layout layout = {0, 0, 32L * es_gpu_multiprocessors(), 8, 0, count};
        if (es_upc_create(&c->u, &c->gpu.pt, c->inputs, c->outputs, part,
                          (shape->length + part - 1) / part, &layout, c->gpu.stream,
                          ES_ENGINE_NAME, err, n))
            goto fail;
        c->gpu.held = c->u.bytes;
    }
    {
        /* H_j for every set, path and partition, cut, padded and
         * transformed on the device; then the per-launch work, recorded
         * once (and the switching block's, with sets). */
        es_upc *all[1] = {&c->u};
        const int from[1] = {0};
        for (int set = 0; set < count; set++)
            if (es_upc_build_spectra(all, from, 1, sets[set], set, &c->gpu.pt,
                                     SPECTRA_SCRATCH_BYTES, c->gpu.stream, ES_ENGINE_NAME, err,
                                     n))
                goto fail;
        if (es_upc_capture_block(&c->u, &c->gpu, c->max_block, NULL, 0, NULL, ES_ENGINE_NAME,
                                 err, n) ||
            (count > 1 &&
             es_upc_capture_switch_block(&c->u, &c->gpu, c->max_block, ES_ENGINE_NAME, err, n)))
            goto fail;
    }
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    if (es_gpu_engine_start(&c->gpu, c, cupart_run, cupart_device_reset, NULL,
                            &es_engine_cuda_partitioned, fmt, opt, err, n))
        goto fail;
    union_free(ir);
    return &c->gpu.base;
fail:
    union_free(ir);
    cupart_destroy(&c->gpu.base);
    return NULL;
}

static es_engine *cupart_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                char *err, size_t n)
{
    return create_sets(fmt, &ir, 1, opt, err, n);
}

/* Audio thread, between two blocks: the next job carries the set. */
static ES_RT void cupart_select_set(es_engine *e, int set)
{
    cupart *c = (cupart *)e;
    if (set >= 0 && set < c->u.sets)
        c->gpu.job_word_next = set;
}

static void cupart_status(const es_engine *e, es_engine_status *st)
{
    const cupart *c = (const cupart *)e;
    es_gpu_engine_status(e, st);
    st->set = __atomic_load_n(&c->set_now, __ATOMIC_RELAXED);
    st->set_switches = __atomic_load_n(&c->switches, __ATOMIC_RELAXED);
}

extern "C" const es_engine_class es_engine_cuda_partitioned = {
    ES_CUDA_PARTITIONED_DESCRIPTOR, /* name, summary, caps: gpu_classes.h */
    es_gpu_engine_probe,
    cupart_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cupart_destroy,
    cupart_status,
    ES_CUDA_PARTITIONED_FALLBACK,
    NULL, /* no offline plan: render runs the live default block */
    es_gpu_engine_freewheel,
    es_gpu_engine_process_views, /* the outputs read where the GPU wrote them */
    create_sets,
    cupart_select_set,
};
