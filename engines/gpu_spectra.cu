/* The filter spectra of an es_upc, made on the device: the taps go up
 * once, are cut into partitions, padded and transformed there
 * (gpu_uniform.cuh). */
#include "gpu_uniform.cuh"

/* Filter partitions, zero-padded to 2P and scaled: pad[q][0..P) =
 * taps[path][from + j P ...] for path q / parts, partition j = q % parts. */
__global__ void upc_pad_kernel(const float *taps, float *pad, int length, int from, int part,
                               int parts, int count, float scale)
{
    const size_t total = (size_t)count * parts * 2 * part;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < total;
         k += (size_t)gridDim.x * blockDim.x) {
        const size_t q = k / (2 * part);
        const int t = (int)(k % (2 * part));
        const int path = (int)(q / parts), j = (int)(q % parts);
        const long src = (long)from + (long)j * part + t;
        pad[k] = t < part && src < length ? taps[(size_t)path * length + src] * scale : 0.0f;
    }
}

#undef ES_ENGINE_NAME
#define ES_ENGINE_NAME engine

int es_upc_spectra_paths(const es_upc *u, size_t bytes)
{
    const size_t per_path = (size_t)u->parts * 2 * u->part * sizeof(float);
    const size_t fit = bytes / per_path;
    return fit < 1 ? 1 : fit > (size_t)u->paths ? u->paths : (int)fit;
}

int es_upc_spectra(es_upc *u, const float *taps, int length, int from, int set, int first,
                   int count, float *scratch, cudaStream_t stream, const char *engine,
                   char *err, size_t n)
{
    const int size = 2 * u->part;
    upc_pad_kernel<<<1024, 256, 0, stream>>>(taps, scratch, length, from, u->part, u->parts,
                                             count, 1.0f / (float)size);
    ES_CUDA_LAUNCHED();
    if (u->spectra_batch != count * u->parts) {
        es_upc_spectra_done(u);
        if (es_upc_plan_1d(&u->spectra, size, size, u->stride, CUFFT_R2C, count * u->parts,
                           stream, NULL, engine, err, n))
            return -1;
        u->spectra_batch = count * u->parts;
    }
    ES_CUFFT_TRY(es_cufft.set_stream(u->spectra, stream));
    ES_CUFFT_TRY(es_cufft.exec_r2c(u->spectra, scratch,
                                   u->filter + (size_t)set * u->set_stride +
                                       (size_t)first * u->parts * u->stride));
    return 0;
fail:
    return -1;
}

void es_upc_spectra_done(es_upc *u)
{
    if (u->spectra_batch)
        es_cufft.destroy(u->spectra);
    u->spectra_batch = 0;
}

int es_upc_build_spectra(es_upc *const *u, const int *from, int count, const es_ir *ir, int set,
                         const es_gpu_paths *pt, size_t scratch_bytes, cudaStream_t stream,
                         const char *engine, char *err, size_t n)
{
    const size_t path_taps = sizeof(float) * (size_t)ir->length;
    const int paths = u[0]->paths;
    int chunk = (int)(scratch_bytes / path_taps);
    chunk = chunk < 1 ? 1 : chunk;
    for (int k = 0; k < count; k++) {
        const int fit = es_upc_spectra_paths(u[k], scratch_bytes);
        chunk = fit < chunk ? fit : chunk;
    }
    size_t pad_bytes = 0;
    for (int k = 0; k < count; k++) {
        const size_t need = sizeof(float) * (size_t)u[k]->parts * 2 * u[k]->part * chunk;
        pad_bytes = need > pad_bytes ? need : pad_bytes;
    }
    float *taps = NULL, *pad = NULL;
    ES_CUDA_TRY(cudaMalloc(&taps, path_taps * chunk));
    ES_CUDA_TRY(cudaMalloc(&pad, pad_bytes));
    for (int first = 0; first < paths; first += chunk) {
        const int group = paths - first < chunk ? paths - first : chunk;
        for (int k = 0; k < group; k++) {
            const float *path = ir->taps[pt->row[first + k]];
            if (path)
                ES_CUDA_TRY(cudaMemcpyAsync(taps + (size_t)k * ir->length, path, path_taps,
                                            cudaMemcpyHostToDevice, stream));
            else
                ES_CUDA_TRY(cudaMemsetAsync(taps + (size_t)k * ir->length, 0, path_taps, stream));
        }
        for (int k = 0; k < count; k++)
            if (es_upc_spectra(u[k], taps, ir->length, from[k], set, first, group, pad, stream,
                               engine, err, n))
                goto fail;
    }
    ES_CUDA_TRY(cudaStreamSynchronize(stream));
    for (int k = 0; k < count; k++)
        es_upc_spectra_done(u[k]);
    cudaFree(taps);
    cudaFree(pad);
    return 0;
fail:
    cudaStreamSynchronize(stream);
    cudaFree(taps);
    cudaFree(pad);
    return -1;
}
