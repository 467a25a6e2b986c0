/* cuda-circular: time-domain convolution on the GPU with the dry input in a
 * device-side circular buffer (seed 000, LaChance), for small blocks.
 *
 * The seed ran one thread per output sample over 22528-frame chunks. At 32
 * to 1024 frames that would use a few hundred threads of a 132-SM GPU, so
 * here the taps are split as well: thread block (chunk c, path p) computes
 * the contribution of taps [cK, cK + K) of path p to every output of the
 * block. Its IR tile and the input window it needs are staged in shared
 * memory. Inside the block, thread (g, s) computes 4 consecutive outputs
 * (group g) over a sub-range s of the tile's taps, keeping the 4 input
 * samples in registers and sliding them one tap at a time: one
 * shared-memory load per 4 FMAs. Sums run in float over 128 taps and in
 * double beyond; the sub-ranges are added in shared memory, the chunks by a
 * second kernel, per output.
 *
 * Per launch: upload -> insert -> convolve -> reduce -> download, captured
 * once as a CUDA graph. The worker thread (gpu_pipeline.c) makes every CUDA
 * call; process() never does. */
#include <cstdlib>
#include <cstring>

#include "gpu_common.cuh"

extern "C" {
#include "classes.h"
#include "gpu_classes.h"
#include "gpu_device.h"
}

#define ES_ENGINE_NAME "cuda-circular"

#define THREADS 256   /* per convolution block */
#define OUTS 4        /* outputs per thread, in registers */
#define TILE_TAPS 1024 /* taps per thread block, about: see cucirc_create */
#define RUN_TAPS 128   /* taps summed in float before going into double */

struct cucirc {
    es_gpu_engine gpu;               /* first: see gpu_common.cuh */
    int inputs, outputs, paths, max_block, taps;
    int groups, subs, sub_taps, tile, chunks; /* thread layout, see conv_kernel */
    size_t ring;                     /* power of two */
    size_t write;                    /* worker-side: next ring position */
    float *history;                  /* [inputs][ring] */
    float *filter;                   /* [paths][chunks * tile], zero past taps */
    float *partial;                  /* [paths][max_block][chunks] */
};

__global__ void ring_insert_kernel(const es_gpu_header *h, es_gpu_header *kept, const float *in,
                                   float *history, size_t ring, int max_block)
{
    es_staging_keep_header(h, kept);
    const int i = blockIdx.y;
    const size_t mask = ring - 1;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < h->frames;
         t += gridDim.x * blockDim.x)
        history[(size_t)i * ring + ((h->position + (size_t)t) & mask)] =
            in[(size_t)i * max_block + t];
}

/* Block (chunk, path). Threads: `groups` groups of OUTS outputs x `subs`
 * sub-ranges of `sub_taps` taps; tile = subs * sub_taps taps. Output n (at
 * stream time write + n) takes tap k from x[write + n - k]. Blocks larger
 * than groups * OUTS frames take several passes; every thread runs every
 * pass so the barriers stay uniform. */
__global__ void __launch_bounds__(THREADS) conv_kernel(
    const es_gpu_header *h, const int *path_input, const float *history, const float *filter,
    float *partial, size_t ring, int max_block, int groups, int subs, int sub_taps, int tile,
    int chunks)
{
    extern __shared__ double smem_doubles[];
    double *sums = smem_doubles;                     /* subs * groups * OUTS */
    float *taps = (float *)(sums + THREADS * OUTS);  /* tile */
    float *window = taps + tile;                     /* tile + max_block + OUTS */
    const int chunk = blockIdx.x, path = blockIdx.y;
    const int frames = h->frames;
    const size_t mask = ring - 1;
    const float *x = history + (size_t)path_input[path] * ring;
    const int k0 = chunk * tile;
    /* window[j] holds x at time write - k0 - tile + 1 + j. */
    const size_t base = (size_t)h->position - (size_t)k0 - (size_t)tile + 1;
    const int span = tile + frames - 1;
    for (int j = threadIdx.x; j < tile; j += blockDim.x)
        taps[j] = filter[(size_t)path * chunks * tile + k0 + j];
    for (int j = threadIdx.x; j < tile + max_block + OUTS; j += blockDim.x)
        window[j] = j < span ? x[(base + (size_t)j) & mask] : 0.0f;
    __syncthreads();

    const int g = threadIdx.x % groups, s = threadIdx.x / groups;
    const int working = s < subs;  /* threads past groups * subs only wait */
    for (int pass = 0; pass * groups * OUTS < frames; pass++) {
        const int n0 = (pass * groups + g) * OUTS;
        /* Float over runs of RUN_TAPS taps, double across runs: a single
         * float chain over a 1024-tap tile loses about 5 dB of accuracy. */
        double acc[OUTS] = {0.0};
        if (working && n0 < frames) {
            const int kk0 = s * sub_taps, kk_end = kk0 + sub_taps;
            /* Output n0 + r, tap kk reads window[n0 + r - kk + tile - 1]; one
             * tap later every index is one lower, so the registers slide and
             * one new sample comes in. */
            float w[OUTS];
#pragma unroll
            for (int r = 0; r < OUTS; r++)
                w[r] = window[n0 + r - kk0 + tile - 1];
            for (int run = kk0; run < kk_end; run += RUN_TAPS) {
                const int run_end = min(run + RUN_TAPS, kk_end);
                float part[OUTS] = {0.0f};
#pragma unroll 8
                for (int kk = run; kk < run_end; kk++) {
                    const float hk = taps[kk];
#pragma unroll
                    for (int r = 0; r < OUTS; r++)
                        part[r] = fmaf(hk, w[r], part[r]);
#pragma unroll
                    for (int r = OUTS - 1; r > 0; r--)
                        w[r] = w[r - 1];
                    /* Index >= -1; -1 (after the tile's last tap) lands on
                     * taps[tile - 1], inside the allocation, and is unused. */
                    w[0] = window[n0 - kk + tile - 2];
                }
#pragma unroll
                for (int r = 0; r < OUTS; r++)
                    acc[r] += part[r];
            }
        }
        if (working)
#pragma unroll
            for (int r = 0; r < OUTS; r++)
                sums[(s * groups + g) * OUTS + r] = acc[r];
        __syncthreads();
        if (working && s == 0)
            for (int r = 0; r < OUTS && n0 + r < frames; r++) {
                double total = 0.0;
                for (int q = 0; q < subs; q++)
                    total += sums[(q * groups + g) * OUTS + r];
                partial[((size_t)path * max_block + n0 + r) * chunks + chunk] = (float)total;
            }
        __syncthreads();
    }
}

/* out[o][n] = sum over the paths into o and all chunks, in double. */
__global__ void circ_reduce_kernel(const es_gpu_header *h, const float *partial,
                                   const int *out_first, const int *out_paths, float *out,
                                   int max_block, int chunks)
{
    const int n = blockIdx.x, o = blockIdx.y;
    if (n >= h->frames)
        return;
    double sum = 0;
    for (int k = out_first[o]; k < out_first[o + 1]; k++) {
        const float *p = partial + ((size_t)out_paths[k] * max_block + n) * chunks;
        for (int c = threadIdx.x; c < chunks; c += blockDim.x)
            sum += p[c];
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    __shared__ double warp_sums[32];
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        double total = 0;
        for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
            total += warp_sums[w];
        out[(size_t)o * max_block + n] = (float)total;
    }
}

/* ---- worker side ---- */

static int cucirc_run(void *ctx, int frames, char *err, size_t n)
{
    cucirc *c = (cucirc *)ctx;
    c->gpu.job_gpu_us = 0;
    es_gpu_header *h = es_staging_header(&c->gpu.st);
    if (es_gpu_engine_fault(&c->gpu, ES_ENGINE_NAME, err, n))
        return -1;
    h->frames = frames;
    h->offset = 0;
    h->position = (int)c->write;
    ES_CUDA_TRY(es_gpu_launch_timed(&c->gpu));
    c->write = (c->write + (size_t)frames) & (c->ring - 1);
    return 0;
fail:
    return -1;
}

static int cucirc_device_reset(void *ctx, char *err, size_t n)
{
    cucirc *c = (cucirc *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(cudaMemset(c->history, 0, sizeof(float) * (size_t)c->inputs * c->ring));
    c->gpu.held = sizeof(float) * ((size_t)c->inputs * c->ring +
                                   (size_t)c->paths * c->chunks * c->tile +
                                   (size_t)c->paths * c->max_block * c->chunks);
    ES_CUDA_TRY(cudaDeviceSynchronize());
    c->write = 0;
    return 0;
fail:
    return -1;
}

static void cucirc_destroy(es_engine *e)
{
    cucirc *c = (cucirc *)e;
    if (!c)
        return;
    es_gpu_engine_release(&c->gpu);
    cudaFree(c->history);
    cudaFree(c->filter);
    cudaFree(c->partial);
    free(c);
}

static size_t shared_bytes(const cucirc *c)
{
    return sizeof(double) * THREADS * OUTS +
           sizeof(float) * ((size_t)c->tile + ((size_t)c->tile + c->max_block + OUTS));
}

static int capture(cucirc *c, char *err, size_t n)
{
    const es_gpu_header *h = es_staging_dev_header(&c->gpu.st);
    const int io_blocks = (c->max_block + 255) / 256;
    ES_CUDA_TRY(cudaStreamBeginCapture(c->gpu.stream, cudaStreamCaptureModeThreadLocal));
    ring_insert_kernel<<<dim3(io_blocks, c->inputs), 256, 0, c->gpu.stream>>>(
        es_staging_first_header(&c->gpu.st), es_staging_dev_header(&c->gpu.st),
        es_staging_dev_in(&c->gpu.st), c->history, c->ring, c->max_block);
    conv_kernel<<<dim3(c->chunks, c->paths), THREADS, shared_bytes(c), c->gpu.stream>>>(
        h, c->gpu.pt.dev_input, c->history, c->filter, c->partial, c->ring, c->max_block, c->groups,
        c->subs, c->sub_taps, c->tile, c->chunks);
    circ_reduce_kernel<<<dim3(c->max_block, c->outputs), 128, 0, c->gpu.stream>>>(
        h, c->partial, c->gpu.pt.dev_out_first, c->gpu.pt.dev_out_paths,
        es_staging_dev_out(&c->gpu.st), c->max_block, c->chunks);
    ES_CUDA_TRY(es_gpu_capture_finish(c->gpu.stream, &c->gpu.exec));
    return 0;
fail:
    es_gpu_capture_abandon(c->gpu.stream);
    return -1;
}

static es_engine *cucirc_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                char *err, size_t n)
{
    cucirc *c = (cucirc *)calloc(1, sizeof *c);
    float *padded = NULL;
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    c->gpu.device = opt->gpu.device;
    c->inputs = ir->inputs;
    c->outputs = ir->outputs;
    c->paths = es_ir_path_count(ir);
    c->max_block = fmt->max_block;
    c->taps = ir->length;
    /* Thread layout: enough output groups to cover the block (up to all 256
     * threads), the rest of the threads split the tile's taps. */
    c->groups = (c->max_block + OUTS - 1) / OUTS;
    if (c->groups > THREADS)
        c->groups = THREADS;
    c->subs = THREADS / c->groups;
    /* About TILE_TAPS taps per block whatever the split: fewer, longer
     * chunks keep the partial sums (paths x block x chunks) small. */
    c->sub_taps = (TILE_TAPS + c->subs - 1) / c->subs;
    c->tile = c->subs * c->sub_taps;
    c->chunks = (c->taps + c->tile - 1) / c->tile;
    c->ring = 1;
    while (c->ring < (size_t)c->chunks * c->tile + (size_t)c->max_block)
        c->ring <<= 1;

    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_gpu_stream_create(&c->gpu, 0));
    if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err, n))
        goto fail;
    if (shared_bytes(c) > 48 * 1024)
        ES_CUDA_TRY(cudaFuncSetAttribute(conv_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)shared_bytes(c)));

    if (es_gpu_paths_make(&c->gpu.pt, ir, c->gpu.stream, ES_ENGINE_NAME, err, n))
        goto fail;
    padded = (float *)calloc((size_t)c->chunks * c->tile, sizeof(float));
    if (!padded) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        goto fail;
    }
    ES_CUDA_TRY(cudaMalloc(&c->history, sizeof(float) * (size_t)c->inputs * c->ring));
    ES_CUDA_TRY(cudaMalloc(&c->filter, sizeof(float) * (size_t)c->paths * c->chunks * c->tile));
    ES_CUDA_TRY(cudaMalloc(&c->partial,
                           sizeof(float) * (size_t)c->paths * c->max_block * c->chunks));
    ES_CUDA_TRY(cudaMemset(c->history, 0, sizeof(float) * (size_t)c->inputs * c->ring));
    for (int p = 0; p < c->paths; p++) {
        memcpy(padded, ir->taps[c->gpu.pt.row[p]], sizeof(float) * c->taps);
        ES_CUDA_TRY(cudaMemcpy(c->filter + (size_t)p * c->chunks * c->tile, padded,
                               sizeof(float) * (size_t)c->chunks * c->tile,
                               cudaMemcpyHostToDevice));
    }
    if (capture(c, err, n))
        goto fail;
    if (es_gpu_engine_start(&c->gpu, c, cucirc_run, cucirc_device_reset, NULL,
                            &es_engine_cuda_circular, fmt, opt, err, n))
        goto fail;
    free(padded);
    return &c->gpu.base;
fail:
    free(padded);
    cucirc_destroy(&c->gpu.base);
    return NULL;
}

extern "C" const es_engine_class es_engine_cuda_circular = {
    ES_CUDA_CIRCULAR_DESCRIPTOR, /* name, summary, caps: gpu_classes.h */
    es_gpu_engine_probe,
    cucirc_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cucirc_destroy,
    es_gpu_engine_status,
    ES_CUDA_CIRCULAR_FALLBACK,
    NULL, /* no offline plan: render runs the live default block */
    es_gpu_engine_freewheel,
    es_gpu_engine_process_views, /* the outputs read where the GPU wrote them */
};
