/* Portable split-complex MAC, and the run-time choice of kernel. */
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

es_cmac_fn es_cmac_select(const char **name)
{
#ifdef ES_HAVE_AVX2
    if (es_cpu_use_avx2_fma()) {
        if (name)
            *name = "avx2+fma";
        return es_cmac_avx2;
    }
#endif
    if (name)
        *name = "portable";
    return es_cmac_portable;
}
