/* A uniformly partitioned convolution made and unmade (gpu_uniform.cuh):
 * its layout over thread blocks, its device memory, its cuFFT plans; the
 * kernels and the work recorded with them are gpu_uniform.cu's. */
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu_uniform.cuh"

#undef ES_ENGINE_NAME
#define ES_ENGINE_NAME engine

int es_upc_plan_1d(cufftHandle *plan, int size, int in_dist, int out_dist, cufftType type,
                   int batch, cudaStream_t stream, size_t *bytes, const char *engine,
                   char *err, size_t n)
{
    int dims[1] = {size}, embed_in[1] = {in_dist}, embed_out[1] = {out_dist};
    size_t work = 0;
    char why[320];
    if (!es_cufft_load(why, sizeof why)) { /* every plan's first step: a create */
        snprintf(err, n, "%s: %s", engine, why);
        return -1;
    }
    ES_CUFFT_TRY(es_cufft.plan_many(plan, 1, dims, embed_in, 1, in_dist, embed_out, 1,
                                    out_dist, type, batch));
    ES_CUFFT_TRY(es_cufft.set_stream(*plan, stream));
    if (bytes && es_cufft.get_size(*plan, &work) == CUFFT_SUCCESS)
        *bytes += work;
    return 0;
fail:
    return -1;
}

/* Tiles of up to 256 bin pairs, as even as they go: P/2 + 1 pairs rounded
 * up to whole warps, or cut into tiles of 256, would leave a warp (or a
 * thread block) per row busy with the Nyquist bin alone. When a tile
 * leaves threads over, lanes share its partitions. The reduce and convert
 * kernels take single bins, in tiles of whole warps up to 256. */
static void size_tiles(es_upc *u)
{
    const int pairs = (u->bins + 1) / 2;
    u->bin_tiles = (pairs + 255) / 256;
    u->tile = (pairs + u->bin_tiles - 1) / u->bin_tiles;
    u->lanes = 256 / u->tile > 0 ? 256 / u->tile : 1;
    u->rtile = u->bins < 256 ? (u->bins + 31) / 32 * 32 : 256;
    u->rlanes = 256 / u->rtile > 0 ? 256 / u->rtile : 1;
    u->rtiles = (u->bins + u->rtile - 1) / u->rtile;
}

/* How the partitions are shared out: by output, lanes enough for every
 * (path, partition) of the busiest output; otherwise splits of the
 * partitions, as many as the layout wants thread blocks within its bounds
 * on the partitions a lane runs. */
static void choose_splits(es_upc *u, const es_gpu_paths *pt, const es_upc_layout *layout)
{
    const int parts = u->parts;
    if (layout->by_output) {
        /* Lanes for about 4 items each, up to 1024 threads a block. */
        int most = 1;
        for (int o = 0; o < u->outputs; o++) {
            const int items = (pt->out_first[o + 1] - pt->out_first[o]) * parts;
            most = items > most ? items : most;
        }
        const int lanes = (most + 3) / 4, room = 1024 / u->tile;
        u->lanes = lanes < 1 ? 1 : lanes > room ? room : lanes;
        u->splits = 1;
        return;
    }
    const long have = (long)u->bin_tiles * u->paths;
    const long per_lane = (long)layout->lane_parts * u->lanes;
    long splits = (layout->want_blocks + have - 1) / have;
    if (layout->atomic) {
        /* Enough splits that no lane runs more than lane_parts partitions. */
        const long fewest = (parts + per_lane - 1) / per_lane;
        splits = splits < fewest ? fewest : splits;
        splits = splits > parts ? parts : splits;
    } else {
        /* Every lane keeps lane_parts partitions, so the reduce stays short. */
        const long most = parts / per_lane;
        splits = splits > most ? most : splits;
    }
    u->splits = (int)(splits < 1 ? 1 : splits);
}

/* How the paths and splits are summed per output (ES_UPC_*). */
static int choose_mode(const es_upc *u, const es_gpu_paths *pt, const es_upc_layout *layout)
{
    int direct = u->splits == 1;
    for (int o = 0; o < u->outputs; o++)
        direct &= pt->out_first[o + 1] - pt->out_first[o] == 1;
    return layout->by_output ? ES_UPC_OUTPUT
           : direct          ? ES_UPC_DIRECT
           : layout->atomic  ? ES_UPC_ATOMIC
                             : ES_UPC_PARTIAL;
}

#define ALLOC(ptr, count)                                                        \
    do {                                                                         \
        const size_t size_ = sizeof(*(ptr)) * (size_t)(count);                   \
        ES_CUDA_TRY(cudaMalloc(&(ptr), size_));                                  \
        u->bytes += size_;                                                       \
    } while (0)

/* The device memory of every buffer the mode and the sets use. */
static int allocate(es_upc *u, const char *engine, char *err, size_t n)
{
    const int inputs = u->inputs, outputs = u->outputs, part = u->part, parts = u->parts;
    ALLOC(u->segment, (size_t)inputs * 2 * part);
    ALLOC(u->current, (size_t)inputs * u->stride);
    ALLOC(u->fdl, (size_t)inputs * parts * u->stride);
    ALLOC(u->filter, (size_t)u->sets * u->paths * parts * u->stride);
    if (u->mode == ES_UPC_PARTIAL)
        ALLOC(u->sums, (size_t)u->splits * u->paths * u->stride);
    else if (u->mode == ES_UPC_ATOMIC)
        ALLOC(u->sums, (size_t)outputs * u->stride);
    ALLOC(u->acc, (size_t)outputs * u->stride);
    ALLOC(u->time, (size_t)outputs * 2 * part);
    if (u->sets > 1) {
        ALLOC(u->time_old, (size_t)outputs * 2 * part);
        ALLOC(u->fade, part);
    }
    return 0;
fail:
    return -1;
}

/* The new set's gain over a block that switches: sin^2 from 0 to 1, the
 * old one's its complement, as cpu-partitioned fades. */
static int upload_fade(es_upc *u, const char *engine, char *err, size_t n)
{
    const int part = u->part;
    float *fade = (float *)malloc(sizeof(float) * part);
    if (!fade) {
        snprintf(err, n, "%s: out of memory", engine);
        return -1;
    }
    for (int t = 0; t < part; t++) {
        const double x = sin(1.5707963267948966 * (t + 0.5) / part);
        fade[t] = (float)(x * x);
    }
    const cudaError_t rc = cudaMemcpy(u->fade, fade, sizeof(float) * part,
                                      cudaMemcpyHostToDevice);
    free(fade);
    ES_CUDA_TRY(rc);
    return 0;
fail:
    return -1;
}

/* The state, the filters' padding and the atomic sums start at zero. */
static int zero_state(es_upc *u, cudaStream_t stream, const char *engine, char *err, size_t n)
{
    const int inputs = u->inputs, outputs = u->outputs, parts = u->parts;
    ES_CUDA_TRY(es_upc_clear(u, stream));
    /* The pair loads read one value past `bins` in each row: keep the
     * padding zero. */
    ES_CUDA_TRY(cudaMemsetAsync(u->filter, 0,
                                sizeof(cufftComplex) * (size_t)u->sets * u->paths * parts *
                                    u->stride,
                                stream));
    ES_CUDA_TRY(cudaMemsetAsync(u->current, 0, sizeof(cufftComplex) * (size_t)inputs * u->stride,
                                stream));
    if (u->mode == ES_UPC_ATOMIC)
        ES_CUDA_TRY(cudaMemsetAsync(u->sums, 0, sizeof(double2) * (size_t)outputs * u->stride,
                                    stream));
    return 0;
fail:
    return -1;
}

/* The segment's transform, batched over the inputs, and the sums'
 * inverse, batched over the outputs. */
static int make_plans(es_upc *u, cudaStream_t stream, const char *engine, char *err, size_t n)
{
    const int part = u->part;
    if (es_upc_plan_1d(&u->forward, 2 * part, 2 * part, u->stride, CUFFT_R2C, u->inputs, stream,
                       &u->bytes, engine, err, n))
        return -1;
    u->have_forward = 1;
    if (es_upc_plan_1d(&u->inverse, 2 * part, u->stride, 2 * part, CUFFT_C2R, u->outputs, stream,
                       &u->bytes, engine, err, n))
        return -1;
    u->have_inverse = 1;
    return 0;
}

int es_upc_create(es_upc *u, const es_gpu_paths *pt, int inputs, int outputs, int part,
                  int parts, const es_upc_layout *layout, cudaStream_t stream,
                  const char *engine, char *err, size_t n)
{
    memset(u, 0, sizeof *u);
    u->inputs = inputs;
    u->outputs = outputs;
    u->paths = pt->count;
    u->part = part;
    u->parts = parts;
    u->bins = part + 1;
    u->stride = (u->bins + 3) & ~3;
    size_tiles(u);
    u->grid_cap = layout->grid_cap;
    u->sets = layout->sets > 1 ? layout->sets : 1;
    u->set_stride = u->sets > 1 ? (size_t)u->paths * parts * u->stride : 0;
    choose_splits(u, pt, layout);
    u->mode = choose_mode(u, pt, layout);
    if (allocate(u, engine, err, n) || (u->sets > 1 && upload_fade(u, engine, err, n)) ||
        zero_state(u, stream, engine, err, n))
        return -1;
    return make_plans(u, stream, engine, err, n);
}

void es_upc_free(es_upc *u)
{
    es_upc_spectra_done(u);
    if (u->have_forward)
        es_cufft.destroy(u->forward);
    if (u->have_inverse)
        es_cufft.destroy(u->inverse);
    cudaFree(u->segment);
    cudaFree(u->current);
    cudaFree(u->fdl);
    cudaFree(u->filter);
    cudaFree(u->sums);
    cudaFree(u->acc);
    cudaFree(u->time);
    cudaFree(u->time_old);
    cudaFree(u->fade);
    memset(u, 0, sizeof *u);
}

cudaError_t es_upc_clear(es_upc *u, cudaStream_t stream)
{
    u->fill = 0;
    u->newest = 0;
    cudaError_t rc = cudaMemsetAsync(u->segment, 0, sizeof(float) * (size_t)u->inputs * 2 * u->part,
                                     stream);
    if (rc == cudaSuccess)
        rc = cudaMemsetAsync(u->fdl, 0,
                             sizeof(cufftComplex) * (size_t)u->inputs * u->parts * u->stride,
                             stream);
    return rc;
}
