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
};

/* ---- worker side ---- */

static int cupart_run(void *ctx, int frames, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    return es_upc_run(&c->u, &c->gpu, frames, NULL, NULL, ES_ENGINE_NAME, err, n);
}

static int cupart_device_reset(void *ctx, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_upc_clear(&c->u, c->gpu.stream));
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
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

static es_engine *cupart_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                char *err, size_t n)
{
    cupart *c = (cupart *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    c->gpu.device = opt->gpu.device;
    c->inputs = ir->inputs;
    c->outputs = ir->outputs;
    c->max_block = fmt->max_block;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_gpu_stream_create(&c->gpu, 0));
    if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err, n) ||
        es_gpu_paths_make(&c->gpu.pt, ir, c->gpu.stream, ES_ENGINE_NAME, err, n))
        goto fail;
    {
        /* About 32 thread blocks per SM (many waves, so the last one is a
         * small part of the time); every lane keeps at least 8 partitions
         * so the reduce stays short. */
        const int part = opt->partition > 0 ? opt->partition : es_default_partition(fmt->max_block);
        const es_upc_layout layout = {0, 0, 32L * es_gpu_multiprocessors(), 8, 0};
        if (es_upc_create(&c->u, &c->gpu.pt, c->inputs, c->outputs, part,
                          (ir->length + part - 1) / part, &layout, c->gpu.stream, ES_ENGINE_NAME,
                          err, n))
            goto fail;
        c->gpu.held = c->u.bytes;
    }
    {
        /* H_j for every path and partition, cut, padded and transformed on
         * the device; then the per-launch work, recorded once. */
        es_upc *all[1] = {&c->u};
        const int from[1] = {0};
        if (es_upc_build_spectra(all, from, 1, ir, &c->gpu.pt, SPECTRA_SCRATCH_BYTES,
                                 c->gpu.stream, ES_ENGINE_NAME, err, n) ||
            es_upc_capture_block(&c->u, &c->gpu, c->max_block, NULL, 0, NULL, ES_ENGINE_NAME, err,
                                 n))
            goto fail;
    }
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    if (es_gpu_engine_start(&c->gpu, c, cupart_run, cupart_device_reset, NULL,
                            &es_engine_cuda_partitioned, fmt, opt, err, n))
        goto fail;
    return &c->gpu.base;
fail:
    cupart_destroy(&c->gpu.base);
    return NULL;
}

extern "C" const es_engine_class es_engine_cuda_partitioned = {
    ES_CUDA_PARTITIONED_DESCRIPTOR, /* name, summary, caps: gpu_classes.h */
    es_gpu_engine_probe,
    cupart_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cupart_destroy,
    es_gpu_engine_status,
    ES_CUDA_PARTITIONED_FALLBACK,
    NULL, /* no offline plan: render runs the live default block */
    es_gpu_engine_freewheel,
    es_gpu_engine_process_views, /* the outputs read where the GPU wrote them */
};
