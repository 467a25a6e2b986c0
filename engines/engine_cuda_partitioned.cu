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
 * captured once as a CUDA graph and replayed. The MAC kernel gives one
 * thread to each (bin, path, split): `splits` cuts the partitions into
 * ranges on separate thread blocks, so a stereo room still fills the GPU
 * instead of looping 15000 partitions in one thread, and lanes inside a
 * thread block share a split when the spectrum is narrow. Products are
 * summed in float over 16 partitions, in double beyond; the reduce kernel
 * adds the splits and the paths feeding each output.
 *
 * The worker thread (gpu_pipeline.c) makes every CUDA call; process() never
 * does. */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu_common.cuh"

extern "C" {
#include "classes.h"
#include "gpu_device.h"
#include "partition.h"
}

#define ES_ENGINE_NAME "cuda-partitioned"

/* Filter spectra are computed for this many bytes of padded partitions at a
 * time, so a 1024-path room needs no multi-gigabyte scratch buffer. */
#define SPECTRA_SCRATCH_BYTES (256u << 20)

struct cupart {
    es_gpu_engine gpu;          /* first: see gpu_common.cuh */
    int inputs, outputs, paths, max_block;
    int part, parts, bins;      /* P, partitions per filter, P + 1 */
    int stride;                 /* complex values per spectrum row: bins
                                   rounded up to 4, so rows start 32-byte
                                   aligned and warps load whole sectors */
    int splits, tile, lanes, bin_tiles; /* MAC layout (bin pairs), see mac_kernel */
    int rtile, rlanes, rtiles;  /* reduce layout (single bins) */
#ifdef ES_TESTING
    long fail_after, launches;  /* fault injection, see es_gpu_fail_after */
#endif
    /* Worker-side state: only the worker thread touches these after create. */
    int fill, newest;
    cufftHandle forward, inverse;
    int have_forward, have_inverse;
    int direct;                 /* MAC writes acc itself: see mac_kernel */
    /* Device buffers. */
    float *segment;             /* [inputs][2P]: previous block | current block */
    cufftComplex *current;      /* [inputs][stride]: spectrum of the segment */
    cufftComplex *fdl;          /* [inputs][parts][stride] */
    cufftComplex *filter;       /* [paths][parts][stride], scaled by 1/2P */
    double2 *partial;           /* [splits][paths][stride] */
    cufftComplex *acc;          /* [outputs][stride] */
    float *time;                /* [outputs][2P] */
};

/* ---- kernels ---- */

__global__ void insert_kernel(const es_gpu_header *h, const float *in, float *segment,
                              int part, int max_block)
{
    const int i = blockIdx.y;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < h->frames;
         t += gridDim.x * blockDim.x)
        segment[(size_t)i * 2 * part + part + h->position + t] =
            in[(size_t)i * max_block + h->offset + t];
}

/* Partitions summed in float before the sum goes into double: double
 * throughout would convert every product, float throughout loses accuracy
 * over thousands of partitions. */
#define RUN_PARTS 16

/* Adds the lanes of a thread block (threadIdx.y) into lane 0; sm holds
 * blockDim.x * blockDim.y values. Every thread must call it. */
__device__ double2 sum_lanes(double2 v, double2 *sm)
{
    const int x = threadIdx.x, y = threadIdx.y, w = blockDim.x;
    sm[y * w + x] = v;
    __syncthreads();
    if (y == 0)
        for (int l = 1; l < blockDim.y; l++) {
            const double2 o = sm[l * w + x];
            v.x += o.x;
            v.y += o.y;
        }
    return v;
}

/* partial[split][path][bin] = sum over this split's partitions j of
 * X_{age j}[bin] * H_j[bin]; age 0 is the block being filled.
 * Each thread takes two neighbouring bins with 16-byte loads (rows are
 * 32-byte aligned, `stride` is a multiple of 4). Grid (pair tiles, paths,
 * splits); block (tile pairs, lanes): lane l takes every lanes-th partition
 * of the split, so a narrow spectrum still gives each thread block 256
 * threads of independent loads. `direct`: one split and one path per
 * output, so the sum is final and goes straight to acc, and the graph has
 * no reduce node. */
__global__ void mac_kernel(const es_gpu_header *h, const int *path_input,
                           const int *path_output, const cufftComplex *current,
                           const cufftComplex *fdl, const cufftComplex *filter, double2 *partial,
                           cufftComplex *acc, int direct, int parts, int bins, int stride,
                           int splits, int paths)
{
    extern __shared__ double2 lanes_sm[];
    const int bin = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int path = blockIdx.y, split = blockIdx.z, lanes = blockDim.y;
    const int per = (parts + splits - 1) / splits;
    const int first = split * per, last = min(parts, first + per);
    const size_t row = stride / 2; /* float4 (two bins) per spectrum row */
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0;
    if (bin < bins) {
        const int input = path_input[path];
        const float4 *hp = (const float4 *)(filter + (size_t)path * parts * stride + bin);
        const float4 *xin = (const float4 *)(fdl + (size_t)input * parts * stride + bin);
        float a0 = 0.0f, b0 = 0.0f, a1 = 0.0f, b1 = 0.0f; /* re/im of both bins */
#define MAC2(xv, fv)                                              \
    do {                                                          \
        a0 = fmaf((xv).x, (fv).x, fmaf(-(xv).y, (fv).y, a0));     \
        b0 = fmaf((xv).x, (fv).y, fmaf((xv).y, (fv).x, b0));      \
        a1 = fmaf((xv).z, (fv).z, fmaf(-(xv).w, (fv).w, a1));     \
        b1 = fmaf((xv).z, (fv).w, fmaf((xv).w, (fv).z, b1));      \
    } while (0)
        int j = first + threadIdx.y;
        if (j == 0 && j < last) { /* age 0: the block being filled */
            const float4 x = *(const float4 *)(current + (size_t)input * stride + bin);
            MAC2(x, hp[0]);
            j += lanes;
        }
        /* Age j lives in slot (newest + j) % parts; step it without a modulo. */
        int slot = (h->newest + j) % parts;
#define NEXT(s) ((s) + lanes >= parts ? (s) + lanes - parts : (s) + lanes)
        /* Four partitions a step: eight 16-byte loads in flight per thread,
         * which is what keeps HBM busy when there are many paths. */
        int step = 0;
        for (; j + 3 * lanes < last; j += 4 * lanes, step++) {
            const int s1 = NEXT(slot), s2 = NEXT(s1), s3 = NEXT(s2);
            const float4 x0 = xin[slot * row], x1 = xin[s1 * row];
            const float4 x2 = xin[s2 * row], x3 = xin[s3 * row];
            const float4 f0 = hp[j * row], f1 = hp[(j + lanes) * row];
            const float4 f2 = hp[(j + 2 * lanes) * row], f3 = hp[(j + 3 * lanes) * row];
            MAC2(x0, f0);
            MAC2(x1, f1);
            MAC2(x2, f2);
            MAC2(x3, f3);
            slot = NEXT(s3);
            if ((step & (RUN_PARTS / 4 - 1)) == RUN_PARTS / 4 - 1) {
                re0 += a0;
                im0 += b0;
                re1 += a1;
                im1 += b1;
                a0 = b0 = a1 = b1 = 0.0f;
            }
        }
        for (; j < last; j += lanes) {
            MAC2(xin[slot * row], hp[j * row]);
            slot = NEXT(slot);
        }
#undef NEXT
#undef MAC2
        re0 += a0;
        im0 += b0;
        re1 += a1;
        im1 += b1;
    }
    const double2 t0 = sum_lanes(make_double2(re0, im0), lanes_sm);
    __syncthreads(); /* lane 0 has read lanes_sm before it is written again */
    const double2 t1 = sum_lanes(make_double2(re1, im1), lanes_sm);
    if (threadIdx.y != 0)
        return;
    for (int k = 0; k < 2; k++) {
        const int b = bin + k;
        const double2 t = k ? t1 : t0;
        if (b >= bins)
            break;
        if (direct)
            acc[(size_t)path_output[path] * stride + b] = make_float2((float)t.x, (float)t.y);
        else
            partial[((size_t)split * paths + path) * stride + b] = t;
    }
}

/* acc[o][bin] = sum over the paths into o and all splits; lanes split the
 * splits as in mac_kernel. */
__global__ void reduce_kernel(const double2 *partial, const int *out_first,
                              const int *out_paths, cufftComplex *acc, int bins, int stride,
                              int splits, int paths)
{
    extern __shared__ double2 lanes_sm[];
    const int bin = blockIdx.x * blockDim.x + threadIdx.x, o = blockIdx.y;
    double re = 0, im = 0;
    if (bin < bins)
        for (int k = out_first[o]; k < out_first[o + 1]; k++)
            for (int s = threadIdx.y; s < splits; s += blockDim.y) {
                const double2 v = partial[((size_t)s * paths + out_paths[k]) * stride + bin];
                re += v.x;
                im += v.y;
            }
    const double2 total = sum_lanes(make_double2(re, im), lanes_sm);
    if (threadIdx.y == 0 && bin < bins)
        acc[(size_t)o * stride + bin] = make_float2((float)total.x, (float)total.y);
}

/* Output samples P + fill .. of the inverse transform (grid.y: one row per
 * output), then, when the block is complete, its spectrum goes into the
 * FDL and the segment moves on (rows past the outputs: one per input). One
 * kernel for both saves a graph node on every block. */
__global__ void finish_kernel(const es_gpu_header *h, const float *time, float *out,
                              const cufftComplex *current, cufftComplex *fdl, float *segment,
                              int part, int parts, int bins, int stride, int outputs,
                              int max_block)
{
    const int row = blockIdx.y;
    const int step = gridDim.x * blockDim.x;
    if (row < outputs) {
        for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < h->frames; t += step)
            out[(size_t)row * max_block + h->offset + t] =
                time[(size_t)row * 2 * part + part + h->position + t];
        return;
    }
    if (!h->complete)
        return;
    const int i = row - outputs;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < bins; k += step) {
        fdl[((size_t)i * parts + h->newest) * stride + k] = current[(size_t)i * stride + k];
        if (k < part) {
            float *s = segment + (size_t)i * 2 * part;
            s[k] = s[part + k];
            s[part + k] = 0.0f;
        }
    }
}

/* Filter partitions, zero-padded to 2P and scaled: pad[q][0..P) =
 * h[(first_part + q % parts) ...] for path first_path + q / parts. */
__global__ void pad_kernel(const float *taps, float *pad, int length, int part, int parts,
                           int count, float scale)
{
    const size_t total = (size_t)count * parts * 2 * part;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x) {
        const size_t q = k / (2 * part);
        const int t = (int)(k % (2 * part));
        const int path = (int)(q / parts), j = (int)(q % parts);
        const long src = (long)j * part + t;
        pad[k] = t < part && src < length ? taps[(size_t)path * length + src] * scale : 0.0f;
    }
}

/* ---- worker side ---- */

static int cupart_run(void *ctx, int frames, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    c->gpu.job_gpu_us = 0;
    es_gpu_header *h = es_staging_header(&c->gpu.st);
    for (int done = 0; done < frames;) {
        const int chunk = frames - done < c->part - c->fill ? frames - done : c->part - c->fill;
#ifdef ES_TESTING
        if (c->fail_after && ++c->launches > c->fail_after) {
            snprintf(err, n,
                     "%s: simulated device error after %ld launches (EARSHOT_GPU_FAIL_AFTER)",
                     ES_ENGINE_NAME, c->fail_after);
            return -1;
        }
#endif
        h->frames = chunk;
        h->offset = done;
        h->position = c->fill;
        h->newest = c->newest;
        h->complete = c->fill + chunk == c->part;
        ES_CUDA_TRY(es_gpu_launch_timed(&c->gpu));
        c->fill += chunk;
        if (c->fill == c->part) {
            c->fill = 0;
            c->newest = (c->newest + c->parts - 1) % c->parts;
        }
        done += chunk;
    }
    return 0;
fail:
    return -1;
}

static int cupart_device_reset(void *ctx, char *err, size_t n)
{
    cupart *c = (cupart *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(cudaMemset(c->segment, 0, sizeof(float) * (size_t)c->inputs * 2 * c->part));
    ES_CUDA_TRY(cudaMemset(c->fdl, 0, sizeof(cufftComplex) * (size_t)c->inputs * c->parts * c->stride));
    ES_CUDA_TRY(cudaDeviceSynchronize());
    c->fill = 0;
    c->newest = 0;
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
    if (c->have_forward)
        cufftDestroy(c->forward);
    if (c->have_inverse)
        cufftDestroy(c->inverse);
    cudaFree(c->segment);
    cudaFree(c->current);
    cudaFree(c->fdl);
    cudaFree(c->filter);
    cudaFree(c->partial);
    cudaFree(c->acc);
    cudaFree(c->time);
    free(c);
}

/* H_j for every path and partition: the taps go up once, a kernel cuts and
 * pads them, one batched R2C per chunk of paths transforms them all. */
static int make_spectra(cupart *c, const es_ir *ir, char *err, size_t n)
{
    const size_t per_path = (size_t)c->parts * 2 * c->part * sizeof(float);
    int chunk = (int)(SPECTRA_SCRATCH_BYTES / per_path);
    chunk = chunk < 1 ? 1 : chunk > c->paths ? c->paths : chunk;
    float *taps = NULL, *pad = NULL;
    cufftHandle plan = 0;
    int have_plan = 0, plan_count = 0;
    const int size = 2 * c->part;
    ES_CUDA_TRY(cudaMalloc(&taps, sizeof(float) * (size_t)ir->length * chunk));
    ES_CUDA_TRY(cudaMalloc(&pad, per_path * chunk));
    for (int first = 0; first < c->paths; first += chunk) {
        const int count = c->paths - first < chunk ? c->paths - first : chunk;
        for (int k = 0; k < count; k++)
            ES_CUDA_TRY(cudaMemcpyAsync(taps + (size_t)k * ir->length,
                                        ir->taps[c->gpu.pt.row[first + k]],
                                        sizeof(float) * ir->length, cudaMemcpyHostToDevice,
                                        c->gpu.stream));
        pad_kernel<<<1024, 256, 0, c->gpu.stream>>>(taps, pad, ir->length, c->part, c->parts, count,
                                                1.0f / (float)size);
        ES_CUDA_LAUNCHED();
        if (plan_count != count) {
            if (have_plan)
                cufftDestroy(plan);
            have_plan = 0;
            int dims[1] = {size};
            int embed_in[1] = {size}, embed_out[1] = {c->stride};
            ES_CUFFT_TRY(cufftPlanMany(&plan, 1, dims, embed_in, 1, size, embed_out, 1, c->stride,
                                       CUFFT_R2C, count * c->parts));
            have_plan = 1;
            plan_count = count;
            ES_CUFFT_TRY(cufftSetStream(plan, c->gpu.stream));
        }
        ES_CUFFT_TRY(cufftExecR2C(plan, pad, c->filter + (size_t)first * c->parts * c->stride));
    }
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    cufftDestroy(plan);
    cudaFree(taps);
    cudaFree(pad);
    return 0;
fail:
    if (have_plan)
        cufftDestroy(plan);
    cudaFree(taps);
    cudaFree(pad);
    return -1;
}

/* The per-launch work, recorded once. */
static int capture(cupart *c, char *err, size_t n)
{
    const es_gpu_header *h = es_staging_dev_header(&c->gpu.st);
    const dim3 io_grid((c->max_block + 255) / 256, 1);
    ES_CUDA_TRY(cudaStreamBeginCapture(c->gpu.stream, cudaStreamCaptureModeThreadLocal));
    ES_CUDA_TRY(es_staging_upload(&c->gpu.st, c->gpu.stream));
    insert_kernel<<<dim3(io_grid.x, c->inputs), 256, 0, c->gpu.stream>>>(
        h, es_staging_dev_in(&c->gpu.st), c->segment, c->part, c->max_block);
    ES_CUFFT_TRY(cufftExecR2C(c->forward, c->segment, c->current));
    {
        const dim3 block(c->tile, c->lanes), rblock(c->rtile, c->rlanes);
        const size_t lanes_sm = sizeof(double2) * c->tile * c->lanes;
        const size_t rlanes_sm = sizeof(double2) * c->rtile * c->rlanes;
        mac_kernel<<<dim3(c->bin_tiles, c->paths, c->splits), block, lanes_sm, c->gpu.stream>>>(
            h, c->gpu.pt.dev_input, c->gpu.pt.dev_output, c->current, c->fdl, c->filter, c->partial, c->acc,
            c->direct, c->parts, c->bins, c->stride, c->splits, c->paths);
        if (!c->direct)
            reduce_kernel<<<dim3(c->rtiles, c->outputs), rblock, rlanes_sm, c->gpu.stream>>>(
                c->partial, c->gpu.pt.dev_out_first, c->gpu.pt.dev_out_paths, c->acc, c->bins, c->stride,
                c->splits,
                c->paths);
    }
    ES_CUFFT_TRY(cufftExecC2R(c->inverse, c->acc, c->time));
    finish_kernel<<<dim3((c->bins + 255) / 256, c->outputs + c->inputs), 256, 0, c->gpu.stream>>>(
        h, c->time, c->gpu.st.dev_down, c->current, c->fdl, c->segment, c->part, c->parts, c->bins,
        c->stride, c->outputs, c->max_block);
    ES_CUDA_TRY(es_staging_download(&c->gpu.st, c->gpu.stream));
    ES_CUDA_TRY(es_gpu_capture_finish(c->gpu.stream, &c->gpu.exec));
    return 0;
fail:
    es_gpu_capture_abandon(c->gpu.stream);
    return -1;
}

static es_engine *cupart_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                char *err, size_t n)
{
    cupart *c = (cupart *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    c->gpu.device = opt->gpu_device;
    c->inputs = ir->inputs;
    c->outputs = ir->outputs;
    c->paths = es_ir_path_count(ir);
    c->max_block = fmt->max_block;
    c->part = opt->partition > 0 ? opt->partition : es_default_partition(fmt->max_block);
    c->parts = (ir->length + c->part - 1) / c->part;
    c->bins = c->part + 1;
    c->stride = (c->bins + 3) & ~3;
#ifdef ES_TESTING
    c->fail_after = es_gpu_fail_after();
#endif
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    ES_CUDA_TRY(es_gpu_stream_create(&c->gpu));
    if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err, n))
        goto fail;

    if (es_gpu_paths_make(&c->gpu.pt, ir, c->gpu.stream, ES_ENGINE_NAME, err, n))
        goto fail;

    /* A tile of up to 256 bin pairs (whole warps); when that leaves threads over,
     * lanes that share a tile's partitions. Then enough splits of the
     * partitions for about 32 thread blocks per SM (many waves, so the last
     * one is a small part of the time), but every lane keeps at least 8
     * partitions so the reduce stays short. */
    c->tile = (c->bins + 1) / 2 < 256 ? ((c->bins + 1) / 2 + 31) / 32 * 32 : 256;
    c->lanes = 256 / c->tile > 0 ? 256 / c->tile : 1;
    c->bin_tiles = ((c->bins + 1) / 2 + c->tile - 1) / c->tile;
    c->rtile = c->bins < 256 ? (c->bins + 31) / 32 * 32 : 256;
    c->rlanes = 256 / c->rtile > 0 ? 256 / c->rtile : 1;
    c->rtiles = (c->bins + c->rtile - 1) / c->rtile;
    {
        const long want = 32L * es_gpu_multiprocessors();
        const long have = (long)c->bin_tiles * c->paths;
        const long most = c->parts / (8L * c->lanes);
        long splits = (want + have - 1) / have;
        splits = splits > most ? most : splits;
        c->splits = (int)(splits < 1 ? 1 : splits);
    }
    c->direct = c->splits == 1;
    for (int o = 0; o < c->outputs; o++)
        c->direct &= c->gpu.pt.out_first[o + 1] - c->gpu.pt.out_first[o] == 1;

    ES_CUDA_TRY(cudaMalloc(&c->segment, sizeof(float) * (size_t)c->inputs * 2 * c->part));
    ES_CUDA_TRY(cudaMalloc(&c->current, sizeof(cufftComplex) * (size_t)c->inputs * c->stride));
    ES_CUDA_TRY(cudaMalloc(&c->fdl, sizeof(cufftComplex) * (size_t)c->inputs * c->parts * c->stride));
    ES_CUDA_TRY(cudaMalloc(&c->filter, sizeof(cufftComplex) * (size_t)c->paths * c->parts * c->stride));
    ES_CUDA_TRY(cudaMalloc(&c->partial, sizeof(double2) * (size_t)c->splits * c->paths * c->stride));
    ES_CUDA_TRY(cudaMalloc(&c->acc, sizeof(cufftComplex) * (size_t)c->outputs * c->stride));
    ES_CUDA_TRY(cudaMalloc(&c->time, sizeof(float) * (size_t)c->outputs * 2 * c->part));
    ES_CUDA_TRY(cudaMemsetAsync(c->segment, 0, sizeof(float) * (size_t)c->inputs * 2 * c->part,
                                c->gpu.stream));
    ES_CUDA_TRY(cudaMemsetAsync(c->fdl, 0,
                                sizeof(cufftComplex) * (size_t)c->inputs * c->parts * c->stride,
                                c->gpu.stream));
    {
        int dims[1] = {2 * c->part}, real[1] = {2 * c->part}, spectrum[1] = {c->stride};
        ES_CUFFT_TRY(cufftPlanMany(&c->forward, 1, dims, real, 1, 2 * c->part, spectrum, 1,
                                   c->stride, CUFFT_R2C, c->inputs));
        c->have_forward = 1;
        ES_CUFFT_TRY(cufftPlanMany(&c->inverse, 1, dims, spectrum, 1, c->stride, real, 1,
                                   2 * c->part, CUFFT_C2R, c->outputs));
        c->have_inverse = 1;
        ES_CUFFT_TRY(cufftSetStream(c->forward, c->gpu.stream));
        ES_CUFFT_TRY(cufftSetStream(c->inverse, c->gpu.stream));
    }
    /* The pair loads read one value past `bins` in each row: keep the
     * padding zero. */
    ES_CUDA_TRY(cudaMemsetAsync(c->filter, 0,
                                sizeof(cufftComplex) * (size_t)c->paths * c->parts * c->stride,
                                c->gpu.stream));
    ES_CUDA_TRY(cudaMemsetAsync(c->current, 0, sizeof(cufftComplex) * (size_t)c->inputs * c->stride,
                                c->gpu.stream));
    if (make_spectra(c, ir, err, n) || capture(c, err, n))
        goto fail;
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    {
        es_gpu_backend b = {c, c->gpu.st.in, c->gpu.st.out, es_gpu_engine_thread_init, cupart_run,
                            cupart_device_reset, &c->gpu.job_gpu_us};
        if (!(c->gpu.pipe = es_gpu_pipeline_create(&b, c->inputs, c->outputs, c->max_block,
                                               fmt->sample_rate, opt, err, n)))
            goto fail;
    }
    c->gpu.base.klass = &es_engine_cuda_partitioned;
    return &c->gpu.base;
fail:
    cupart_destroy(&c->gpu.base);
    return NULL;
}

extern "C" const es_engine_class es_engine_cuda_partitioned = {
    "cuda-partitioned",
    "uniformly partitioned overlap-save on the GPU with cuFFT, CUDA graph per block",
    ES_CAP_PARTITION | ES_CAP_PIPELINED | ES_CAP_GPU | ES_CAP_HELPERS,
    es_gpu_engine_probe,
    cupart_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cupart_destroy,
    es_gpu_engine_status,
};
