/* Portable split-complex MAC and layout conversions, and the run-time
 * choice of kernels. */
#include "cmac_kernel.h"
#include "cpu_features.h"

ES_RT void es_cmac_portable(float *acc, const float *x, const float *h, int count,
                            int stride)
{
    float *restrict ar = acc, *restrict ai = acc + stride;
    for (int q = 0; q < count; q++) {
        const float *xr = x + (size_t)q * 2 * stride, *xi = xr + stride;
        const float *hr = h + (size_t)q * 2 * stride, *hi = hr + stride;
        for (int b = 0; b < stride; b++) {
            ar[b] += xr[b] * hr[b] - xi[b] * hi[b];
            ai[b] += xr[b] * hi[b] + xi[b] * hr[b];
        }
    }
}

ES_RT void es_cmac_ahead_portable(float *const *acc, int outs, const float *x, const float *h,
                                  int count, int hcount, int stride)
{
    const size_t step = (size_t)2 * stride;
    for (int q = 0; q < count; q++)
        for (int t = 0; t < outs && q + t < hcount; t++)
            es_cmac_portable(acc[t], x + q * step, h + (q + t) * step, 1, stride);
}

ES_RT void es_split_portable(float *planar, const float *interleaved, int bins, int stride)
{
    for (int b = 0; b < bins; b++) {
        planar[b] = interleaved[2 * b];
        planar[stride + b] = interleaved[2 * b + 1];
    }
}

ES_RT void es_join_portable(float *interleaved, const float *planar, int bins, int stride)
{
    for (int b = 0; b < bins; b++) {
        interleaved[2 * b] = planar[b];
        interleaved[2 * b + 1] = planar[stride + b];
    }
}

void es_spectral_select(es_spectral_kernels *k)
{
#ifdef ES_HAVE_AVX512
    /* The layout conversions stay AVX2: they are a streaming copy. */
    if (es_cpu_use_avx512()) {
        *k = (es_spectral_kernels){es_cmac_avx512, es_cmac_ahead_avx512, es_split_avx2,
                                   es_join_avx2, "avx512f"};
        return;
    }
#endif
#ifdef ES_HAVE_AVX2
    if (es_cpu_use_avx2_fma()) {
        *k = (es_spectral_kernels){es_cmac_avx2, es_cmac_ahead_avx2, es_split_avx2,
                                   es_join_avx2, "avx2+fma"};
        return;
    }
#endif
    *k = (es_spectral_kernels){es_cmac_portable, es_cmac_ahead_portable, es_split_portable,
                               es_join_portable, "portable"};
}
