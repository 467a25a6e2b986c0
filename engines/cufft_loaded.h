/* cuFFT, loaded when a GPU engine is first probed (internal to engines/;
 * CUDA builds). Linked, it is mapped into every process, a CPU render
 * too: about 8 MB of memory before anything happens. Loaded here with
 * dlopen, a program that never asks for a GPU engine never maps it (the
 * CUDA runtime is linked statically, and it loads the driver only at the
 * first CUDA call). The six calls earshot makes go through es_cufft. */
#ifndef ES_CUFFT_LOADED_H
#define ES_CUFFT_LOADED_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cufft.h>

typedef struct {
    cufftResult (*plan_many)(cufftHandle *plan, int rank, int *n, int *inembed, int istride,
                             int idist, int *onembed, int ostride, int odist, cufftType type,
                             int batch);
    cufftResult (*set_stream)(cufftHandle plan, cudaStream_t stream);
    cufftResult (*exec_r2c)(cufftHandle plan, cufftReal *in, cufftComplex *out);
    cufftResult (*exec_c2r)(cufftHandle plan, cufftComplex *in, cufftReal *out);
    cufftResult (*get_size)(cufftHandle plan, size_t *bytes);
    cufftResult (*destroy)(cufftHandle plan);
} es_cufft_api;

#ifdef __cplusplus
extern "C" {
#endif
/* Loads cuFFT once (any thread, any number of times): 1, or 0 with why in
 * `why` (the library's name and the loader's words). */
int es_cufft_load(char *why, size_t n);
/* The calls, once es_cufft_load has said 1. */
extern es_cufft_api es_cufft;
#ifdef __cplusplus
}
#endif

#endif
