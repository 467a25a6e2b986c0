/* Split-complex multiply-accumulate for partitioned convolution (internal).
 *
 * Spectra are planar: a spectrum of `stride` bins is stride real parts then
 * stride imaginary parts (2 * stride floats). stride is a multiple of 16.
 *
 *   acc += sum_{q < count} x_q * h_q
 *
 * where x_q = x + q * 2 * stride and h_q = h + q * 2 * stride: both walk
 * forward through memory, so long filters stream through the cache. */
#ifndef ES_CMAC_KERNEL_H
#define ES_CMAC_KERNEL_H

#include "engine.h"

typedef ES_RT void (*es_cmac_fn)(float *acc, const float *x, const float *h,
                                 int count, int stride);

ES_RT void es_cmac_portable(float *acc, const float *x, const float *h, int count,
                            int stride);
#ifdef ES_HAVE_AVX2
ES_RT void es_cmac_avx2(float *acc, const float *x, const float *h, int count,
                        int stride);
#endif

/* The time-blocked MAC: one pass over a filter's partitions serves `outs`
 * blocks (outs >= 1), the current one and the
 * parts of the next ones that are known now:
 *
 *   acc[t] += sum_{q < count, q + t < hcount} x_q * h_{q+t}
 *
 * Each x_q is read once for all outs sums; for a filter too large for the
 * cache the pass costs about what one block's plain pass does, and serves
 * outs blocks (engine_partitioned.c says how the sums are used). */
typedef ES_RT void (*es_cmac_ahead_fn)(float *const *acc, int outs, const float *x,
                                       const float *h, int count, int hcount, int stride);

ES_RT void es_cmac_ahead_portable(float *const *acc, int outs, const float *x, const float *h,
                                  int count, int hcount, int stride);
#ifdef ES_HAVE_AVX2
ES_RT void es_cmac_ahead_avx2(float *const *acc, int outs, const float *x, const float *h,
                              int count, int hcount, int stride);
#endif
#ifdef ES_HAVE_AVX512
ES_RT void es_cmac_avx512(float *acc, const float *x, const float *h, int count, int stride);
ES_RT void es_cmac_ahead_avx512(float *const *acc, int outs, const float *x, const float *h,
                                int count, int hcount, int stride);
#endif

/* FFTW's fastest real transforms (SIMD codelets) write and read
 * interleaved complex (re, im pairs); its split-array transforms run about
 * half as fast at partition sizes. So the engine transforms interleaved and
 * converts: split takes `bins` interleaved bins to the planar layout above,
 * join does the reverse. Both are one streaming pass. */
typedef ES_RT void (*es_split_fn)(float *planar, const float *interleaved, int bins,
                                  int stride);
typedef ES_RT void (*es_join_fn)(float *interleaved, const float *planar, int bins,
                                 int stride);

ES_RT void es_split_portable(float *planar, const float *interleaved, int bins, int stride);
ES_RT void es_join_portable(float *interleaved, const float *planar, int bins, int stride);
#ifdef ES_HAVE_AVX2
ES_RT void es_split_avx2(float *planar, const float *interleaved, int bins, int stride);
ES_RT void es_join_avx2(float *interleaved, const float *planar, int bins, int stride);
#endif

typedef struct {
    es_cmac_fn cmac;
    es_cmac_ahead_fn cmac_ahead;
    es_split_fn split;
    es_join_fn join;
    const char *name;
} es_spectral_kernels;

/* Fastest for this CPU; EARSHOT_FORCE_PORTABLE=1 picks the portable ones. */
void es_spectral_select(es_spectral_kernels *k);

#endif
