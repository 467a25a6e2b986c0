/* The uniformly partitioned convolution both FFT engines run on the device
 * (gpu_uniform.cuh): its kernels, the worker's launches and the graphs
 * recorded with them. Its making and unmaking: gpu_uniform_create.cu. */
#include <cstring>

#include "gpu_uniform.cuh"

/* Partitions summed in float before the sum goes into double: double
 * throughout would convert every product, float throughout loses accuracy
 * over thousands of partitions. */
#define RUN_PARTS 16

/* ---- kernels ---- */

/* The launch's frames into the segment's current half, and into the input
 * history when there is one. */
__global__ void upc_insert_kernel(const es_gpu_header *h, es_gpu_header *kept, const float *in,
                                  float *segment, int part, int max_block, float *history,
                                  int history_mask)
{
    es_staging_keep_header(h, kept);
    const int i = blockIdx.y;
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < h->frames;
         t += gridDim.x * blockDim.x) {
        const float x = in[(size_t)i * max_block + h->offset + t];
        segment[(size_t)i * 2 * part + part + h->position + t] = x;
        if (history)
            history[(size_t)i * (history_mask + 1) + ((h->history + t) & history_mask)] = x;
    }
}

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

/* Both bins' sums over one lane's partitions of a split, real and
 * imaginary: floats over RUN_PARTS partitions, doubles beyond. */
struct pair_sums {
    double re0, im0, re1, im1;
};

/* Lane threadIdx.y's share of a split's partitions [first, last) (first +
 * lane, then every lanes-th) for bins bin and bin + 1 of one path: age 0
 * from `current`, age j from FDL slot (slot0 + j) % parts. Each thread
 * takes two neighbouring bins with 16-byte loads (rows are 32-byte
 * aligned, `stride` is a multiple of 4). */
__device__ __forceinline__ pair_sums sum_partitions(int bin, int path, int first, int last,
                                                    int slot0, const int *path_input,
                                                    const cufftComplex *current,
                                                    const cufftComplex *fdl,
                                                    const cufftComplex *filter, int parts,
                                                    int stride)
{
    const int lanes = blockDim.y;
    const size_t row = stride / 2; /* float4 (two bins) per spectrum row */
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0;
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
    int slot = (slot0 + j) % parts;
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
    return pair_sums{re0, im0, re1, im1};
}

/* Lane 0's totals t0 (bin) and t1 (bin + 1) of one path and split where
 * the mode sums them: see ES_UPC_* in gpu_uniform.cuh. */
__device__ __forceinline__ void store_pair(int bin, int path, int split, double2 t0, double2 t1,
                                           const int *path_output, double2 *sums,
                                           cufftComplex *acc, int mode, int bins, int stride,
                                           int paths)
{
    const int o = path_output[path];
    for (int k = 0; k < 2; k++) {
        const int b = bin + k;
        const double2 t = k ? t1 : t0;
        if (b >= bins)
            break;
        if (mode == ES_UPC_DIRECT) {
            acc[(size_t)o * stride + b] = make_float2((float)t.x, (float)t.y);
        } else if (mode == ES_UPC_PARTIAL) {
            sums[((size_t)split * paths + path) * stride + b] = t;
        } else {
            double *s = (double *)&sums[(size_t)o * stride + b];
            atomicAdd(s, t.x);
            atomicAdd(s + 1, t.y);
        }
    }
}

/* The sum over this split's partitions j of X_{age j}[bin] * H_j[bin] for
 * one path; age 0 is the block being filled. One tile (pair tile, path,
 * split) of upc_mac_kernel; block (tile pairs, lanes): lane l takes every
 * lanes-th partition of the split, so a narrow spectrum still gives each
 * thread block 256 threads of independent loads. */
__device__ void mac_tile(int bin_tile, int path, int split, int slot0,
                         const int *path_input, const int *path_output,
                         const cufftComplex *current, const cufftComplex *fdl,
                         const cufftComplex *filter, double2 *sums, cufftComplex *acc, int mode,
                         int parts, int bins, int stride, int splits, int paths,
                         double2 *lanes_sm)
{
    const int bin = 2 * (bin_tile * blockDim.x + threadIdx.x);
    const int per = (parts + splits - 1) / splits;
    const int first = split * per, last = min(parts, first + per);
    pair_sums s = {0, 0, 0, 0};
    if (bin < bins)
        s = sum_partitions(bin, path, first, last, slot0, path_input, current, fdl, filter,
                           parts, stride);
    const double2 t0 = sum_lanes(make_double2(s.re0, s.im0), lanes_sm);
    __syncthreads(); /* lane 0 has read lanes_sm before it is written again */
    const double2 t1 = sum_lanes(make_double2(s.re1, s.im1), lanes_sm);
    if (threadIdx.y != 0)
        return;
    store_pair(bin, path, split, t0, t1, path_output, sums, acc, mode, bins, stride, paths);
}

/* The tiles (bin_tiles x paths x splits, bin tile fastest), each thread
 * block taking every gridDim.x-th. Uncapped, a thread block is one tile.
 * A capped grid keeps a level's MAC to that many thread blocks however
 * much it reads: cuda-nonuniform's tails, so the head, on the same
 * multiprocessors and the same memory, is never queued behind thousands
 * of tail blocks nor starved of bandwidth by them. */
__global__ void upc_mac_kernel(const int *newest, const int *set, size_t set_stride,
                               const int *path_input, const int *path_output,
                               const cufftComplex *current, const cufftComplex *fdl,
                               const cufftComplex *filter, double2 *sums, cufftComplex *acc,
                               int mode, int parts, int bins, int stride, int splits, int paths,
                               int bin_tiles)
{
    extern __shared__ double2 lanes_sm[];
    const int slot0 = *newest;
    if (set)
        filter += (size_t)*set * set_stride;
    const long tiles = (long)bin_tiles * paths * splits;
    for (long v = blockIdx.x; v < tiles; v += gridDim.x) {
        const long rest = v / bin_tiles;
        mac_tile((int)(v % bin_tiles), (int)(rest % paths), (int)(rest / paths), slot0,
                 path_input, path_output, current, fdl, filter, sums, acc, mode, parts, bins,
                 stride, splits, paths, lanes_sm);
        __syncthreads(); /* lane 0 is done with lanes_sm before the next tile */
    }
}

/* ES_UPC_OUTPUT: acc[o][bin pair] = the sum over every path into o and
 * every partition. Grid (pair tiles, outputs); block (tile pairs, lanes):
 * lane l takes items l, l + lanes, ... of the output's (path, partition)
 * list, so a thread block has hundreds of independent loads whatever the
 * shape. */
__global__ void upc_mac_output_kernel(const int *newest, const int *set, size_t set_stride,
                                      const int *path_input, const int *out_first,
                                      const int *out_paths, const cufftComplex *current,
                                      const cufftComplex *fdl, const cufftComplex *filter,
                                      cufftComplex *acc, int parts, int bins, int stride)
{
    extern __shared__ double2 lanes_sm[];
    if (set)
        filter += (size_t)*set * set_stride;
    const int bin = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int o = blockIdx.y, lanes = blockDim.y;
    const int first = out_first[o], items = (out_first[o + 1] - first) * parts;
    double re0 = 0, im0 = 0, re1 = 0, im1 = 0;
    if (bin < bins) {
        const int slot0 = *newest;
        float a0 = 0.0f, b0 = 0.0f, a1 = 0.0f, b1 = 0.0f;
        int run = 0;
#pragma unroll 4
        for (int q = threadIdx.y; q < items; q += lanes) {
            const int path = out_paths[first + q / parts], j = q % parts;
            const int input = path_input[path];
            const int slot = slot0 + j < parts ? slot0 + j : slot0 + j - parts;
            const float4 x = j == 0 ? *(const float4 *)(current + (size_t)input * stride + bin)
                                    : *(const float4 *)(fdl + ((size_t)input * parts + slot) *
                                                                  stride + bin);
            const float4 f = *(const float4 *)(filter + ((size_t)path * parts + j) * stride + bin);
            a0 = fmaf(x.x, f.x, fmaf(-x.y, f.y, a0));
            b0 = fmaf(x.x, f.y, fmaf(x.y, f.x, b0));
            a1 = fmaf(x.z, f.z, fmaf(-x.w, f.w, a1));
            b1 = fmaf(x.z, f.w, fmaf(x.w, f.z, b1));
            if (++run == RUN_PARTS) {
                re0 += a0;
                im0 += b0;
                re1 += a1;
                im1 += b1;
                a0 = b0 = a1 = b1 = 0.0f;
                run = 0;
            }
        }
        re0 += a0;
        im0 += b0;
        re1 += a1;
        im1 += b1;
    }
    const double2 t0 = sum_lanes(make_double2(re0, im0), lanes_sm);
    __syncthreads();
    const double2 t1 = sum_lanes(make_double2(re1, im1), lanes_sm);
    if (threadIdx.y != 0)
        return;
    if (bin < bins)
        acc[(size_t)o * stride + bin] = make_float2((float)t0.x, (float)t0.y);
    if (bin + 1 < bins)
        acc[(size_t)o * stride + bin + 1] = make_float2((float)t1.x, (float)t1.y);
}

/* acc[o][bin] = sum over the paths into o and all splits; lanes split the
 * splits as in upc_mac_kernel. */
__global__ void upc_reduce_kernel(const double2 *partial, const int *out_first,
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

/* ATOMIC: the accumulated sums into acc, and the sums back to zero for the
 * next launch. */
__global__ void upc_convert_kernel(double2 *sums, cufftComplex *acc, int bins, int stride)
{
    const int o = blockIdx.y;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < bins; k += gridDim.x * blockDim.x) {
        const size_t at = (size_t)o * stride + k;
        const double2 v = sums[at];
        acc[at] = make_float2((float)v.x, (float)v.y);
        sums[at] = make_double2(0.0, 0.0);
    }
}

/* Output samples P + position .. of the inverse transform (in a block that
 * switches filter sets, faded from the old set's, time_old) plus the tail
 * rings' frames (grid.y: one row per output), then, when the block is
 * complete, its spectrum goes into the FDL and the segment moves on (rows
 * past the outputs: one per input). One kernel for both saves a graph node
 * on every block. */
/* __grid_constant__: the rings' arrays are indexed at run time, which
 * would otherwise copy the parameter to every thread's stack (104 bytes a
 * thread, 10 us a block with 1024 outputs). */
__global__ void upc_finish_kernel(const es_gpu_header *h, const __grid_constant__ es_upc u,
                                  float *out, int max_block,
                                  const __grid_constant__ es_upc_rings rings,
                                  const __grid_constant__ es_gpu_ready ready)
{
    const int row = blockIdx.y;
    const int step = gridDim.x * blockDim.x;
    if (row < u.outputs) {
        for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < h->frames; t += step) {
            const size_t at = (size_t)row * 2 * u.part + u.part + h->position + t;
            float y = u.time[at];
            if (h->fading && u.time_old) {
                const float old = u.time_old[at];
                y = old + u.fade[h->position + t] * (y - old);
            }
            for (int k = 0; k < rings.count; k++)
                if (t >= h->level_lo[k] && t < h->level_hi[k])
                    y += rings.ring[k][(size_t)row * (rings.mask[k] + 1) +
                                       ((h->level_at[k] + t) & rings.mask[k])];
            out[(size_t)row * max_block + h->offset + t] = y;
        }
        if (h->last && ready.flags)
            es_staging_hand_over(ready, h->tag, row, u.outputs);
        return;
    }
    if (h->complete)
        es_upc_commit(u, row - u.outputs, h->newest, blockIdx.x * blockDim.x + threadIdx.x, step);
}

/* ---- host side ---- */

#undef ES_ENGINE_NAME
#define ES_ENGINE_NAME engine

int es_upc_run(es_upc *u, es_gpu_engine *g, int frames, es_upc_before_launch before, void *ctx,
               const char *engine, char *err, size_t n)
{
    g->job_gpu_us = 0;
    es_gpu_header *h = es_staging_header(&g->st);
    for (int done = 0; done < frames;) {
        const int room = u->part - u->fill;
        const int chunk = frames - done < room ? frames - done : room;
        if (es_gpu_engine_fault(g, engine, err, n))
            return -1;
        h->frames = chunk;
        h->offset = done;
        h->position = u->fill;
        h->newest = u->newest;
        h->complete = u->fill + chunk == u->part;
        h->last = done + chunk == frames;
        if (before && before(ctx, h, err, n))
            return -1;
        ES_CUDA_TRY(es_gpu_launch_timed(g));
        u->fill += chunk;
        if (u->fill == u->part) {
            u->fill = 0;
            u->newest = (u->newest + u->parts - 1) % u->parts;
        }
        done += chunk;
    }
    return 0;
fail:
    return -1;
}

/* Thread blocks of the MAC: one a tile, or the layout's cap. */
static dim3 es_upc_mac_grid(const es_upc *u)
{
    const long tiles = (long)u->bin_tiles * u->paths * u->splits;
    return dim3((unsigned)(u->grid_cap > 0 && u->grid_cap < tiles ? u->grid_cap : tiles));
}

/* The segment's spectrum (R2C, batched over inputs) into current. */
static int record_forward(es_upc *u, cudaStream_t stream, const char *engine, char *err, size_t n)
{
    /* The plans run where the work is recorded: a tail level's graph is
     * captured on its own stream, not on the one the plans were made on. */
    ES_CUFFT_TRY(es_cufft.set_stream(u->forward, stream));
    ES_CUFFT_TRY(es_cufft.exec_r2c(u->forward, u->segment, u->current));
    return 0;
fail:
    return -1;
}

int es_upc_record(es_upc *u, const es_gpu_paths *pt, const int *newest, cudaStream_t stream,
                  const char *engine, char *err, size_t n)
{
    return record_forward(u, stream, engine, err, n) ||
           es_upc_record_sum(u, pt, newest, NULL, u->time, stream, engine, err, n) ? -1 : 0;
}

int es_upc_record_sum(es_upc *u, const es_gpu_paths *pt, const int *newest, const int *set,
                      float *time, cudaStream_t stream, const char *engine, char *err, size_t n)
{
    ES_CUFFT_TRY(es_cufft.set_stream(u->inverse, stream));
    {
        const dim3 block(u->tile, u->lanes), rblock(u->rtile, u->rlanes);
        const size_t lanes_sm = sizeof(double2) * u->tile * u->lanes;
        const size_t rlanes_sm = sizeof(double2) * u->rtile * u->rlanes;
        if (u->mode == ES_UPC_OUTPUT)
            upc_mac_output_kernel<<<dim3(u->bin_tiles, u->outputs), block, lanes_sm, stream>>>(
                newest, set, u->set_stride, pt->dev_input, pt->dev_out_first, pt->dev_out_paths,
                u->current, u->fdl, u->filter, u->acc, u->parts, u->bins, u->stride);
        else
            upc_mac_kernel<<<es_upc_mac_grid(u), block, lanes_sm, stream>>>(
                newest, set, u->set_stride, pt->dev_input, pt->dev_output, u->current, u->fdl, u->filter, u->sums,
                u->acc, u->mode, u->parts, u->bins, u->stride, u->splits, u->paths, u->bin_tiles);
        ES_CUDA_LAUNCHED();
        if (u->mode == ES_UPC_PARTIAL)
            upc_reduce_kernel<<<dim3(u->rtiles, u->outputs), rblock, rlanes_sm, stream>>>(
                u->sums, pt->dev_out_first, pt->dev_out_paths, u->acc, u->bins, u->stride,
                u->splits, u->paths);
        else if (u->mode == ES_UPC_ATOMIC)
            upc_convert_kernel<<<dim3(u->rtiles, u->outputs), u->rtile, 0, stream>>>(
                u->sums, u->acc, u->bins, u->stride);
        ES_CUDA_LAUNCHED();
    }
    ES_CUFFT_TRY(es_cufft.exec_c2r(u->inverse, u->acc, time));
    return 0;
fail:
    return -1;
}

int es_upc_record_insert(es_upc *u, const es_gpu_header *h, es_gpu_header *kept, const float *in,
                         int max_block, float *history, int history_mask, cudaStream_t stream,
                         const char *engine, char *err, size_t n)
{
    upc_insert_kernel<<<dim3((max_block + 255) / 256, u->inputs), 256, 0, stream>>>(
        h, kept, in, u->segment, u->part, max_block, history, history_mask);
    ES_CUDA_LAUNCHED();
    return 0;
fail:
    return -1;
}

int es_upc_record_finish(es_upc *u, const es_gpu_header *h, float *out, int max_block,
                         const es_upc_rings *rings, const es_gpu_ready *ready,
                         cudaStream_t stream, const char *engine, char *err, size_t n)
{
    es_upc_rings none;
    memset(&none, 0, sizeof none);
    const es_gpu_ready no_flags = {NULL, NULL, 1};
    upc_finish_kernel<<<dim3((u->bins + 255) / 256, u->outputs + u->inputs), 256, 0, stream>>>(
        h, *u, out, max_block, rings ? *rings : none, ready ? *ready : no_flags);
    ES_CUDA_LAUNCHED();
    return 0;
fail:
    return -1;
}

/* The block's graph into *into: with `switching`, the segment's spectrum
 * summed over the old set too (es_upc_capture_switch_block). */
static int capture(es_upc *u, es_gpu_engine *g, int max_block, float *history, int history_mask,
                   const es_upc_rings *rings, int switching, cudaGraphExec_t *into,
                   const char *engine, char *err, size_t n)
{
    const es_gpu_header *h = es_staging_dev_header(&g->st);
    const es_gpu_ready ready = es_staging_ready(&g->st);
    ES_CUDA_TRY(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
    if (es_upc_record_insert(u, es_staging_first_header(&g->st), es_staging_dev_header(&g->st),
                             es_staging_dev_in(&g->st), max_block, history, history_mask,
                             g->stream, engine, err, n) ||
        record_forward(u, g->stream, engine, err, n) ||
        (switching && es_upc_record_sum(u, &g->pt, &h->newest, &h->set_old, u->time_old,
                                        g->stream, engine, err, n)) ||
        es_upc_record_sum(u, &g->pt, &h->newest, u->sets > 1 ? &h->set : NULL, u->time,
                          g->stream, engine, err, n) ||
        es_upc_record_finish(u, h, es_staging_dev_out(&g->st), max_block, rings,
                             g->hands_over ? &ready : NULL, g->stream, engine, err, n))
        goto fail;
    ES_CUDA_TRY(es_gpu_capture_finish(g->stream, into));
    return 0;
fail:
    es_gpu_capture_abandon(g->stream);
    return -1;
}

int es_upc_capture_block(es_upc *u, es_gpu_engine *g, int max_block, float *history,
                         int history_mask, const es_upc_rings *rings, const char *engine,
                         char *err, size_t n)
{
    g->hands_over = es_staging_hands_over(&g->st);
    return capture(u, g, max_block, history, history_mask, rings, 0, &g->exec, engine, err, n);
}

int es_upc_capture_switch_block(es_upc *u, es_gpu_engine *g, int max_block, const char *engine,
                                char *err, size_t n)
{
    return capture(u, g, max_block, NULL, 0, NULL, 1, &g->exec_alt, engine, err, n);
}
