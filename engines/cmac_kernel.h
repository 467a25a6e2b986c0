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

/* Fastest for this CPU; ES_FORCE_PORTABLE=1 picks the portable one. */
es_cmac_fn es_cmac_select(const char **name);

#endif
