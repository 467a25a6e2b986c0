/* AVX-512F split-complex MACs: the AVX2 kernels' loops on 16 bins a
 * vector. Built when the compiler takes -mavx512f and chosen at run time
 * on CPUs that have it (cpu_features.c). */
#include <immintrin.h>

#include "cmac_kernel.h"

#define MAC(ar, ai, xr, xi, hr, hi)              \
    do {                                         \
        ar = _mm512_fmadd_ps(xr, hr, ar);        \
        ar = _mm512_fnmadd_ps(xi, hi, ar);       \
        ai = _mm512_fmadd_ps(xr, hi, ai);        \
        ai = _mm512_fmadd_ps(xi, hr, ai);        \
    } while (0)

/* acc += x * h for one partition, `count` times: each product's two
 * roundings in the same order as every other kernel of this file. */
ES_RT void es_cmac_avx512(float *acc, const float *x, const float *h, int count, int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count; q += 4) {
        const float *x0 = x + q * step, *h0 = h + q * step;
        for (int b = 0; b < stride; b += 16) {
            __m512 ar = _mm512_load_ps(acc + b), ai = _mm512_load_ps(acc + stride + b);
            for (int g = 0; g < 4; g++) {
                const float *xg = x0 + g * step, *hg = h0 + g * step;
                MAC(ar, ai, _mm512_load_ps(xg + b), _mm512_load_ps(xg + stride + b),
                    _mm512_load_ps(hg + b), _mm512_load_ps(hg + stride + b));
            }
            _mm512_store_ps(acc + b, ar);
            _mm512_store_ps(acc + stride + b, ai);
        }
    }
    for (; q < count; q++) {
        const float *x0 = x + q * step, *h0 = h + q * step;
        for (int b = 0; b < stride; b += 16) {
            __m512 ar = _mm512_load_ps(acc + b), ai = _mm512_load_ps(acc + stride + b);
            MAC(ar, ai, _mm512_load_ps(x0 + b), _mm512_load_ps(x0 + stride + b),
                _mm512_load_ps(h0 + b), _mm512_load_ps(h0 + stride + b));
            _mm512_store_ps(acc + b, ar);
            _mm512_store_ps(acc + stride + b, ai);
        }
    }
}

/* Four ages a group: their eight vectors of x stay in registers while each
 * sum takes its four products, so every x is read from memory once for
 * all `outs` sums (the point of the time-blocked pass), and h_{q+t} for
 * t >= 1 was read a group earlier and comes from the cache. */
ES_RT void es_cmac_ahead_avx512(float *const *acc, int outs, const float *x, const float *h,
                                int count, int hcount, int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count && q + 3 + outs - 1 < hcount; q += 4) {
        const float *xq = x + q * step;
        for (int b = 0; b < stride; b += 16) {
            __m512 xr[4], xi[4];
            for (int g = 0; g < 4; g++) {
                xr[g] = _mm512_load_ps(xq + g * step + b);
                xi[g] = _mm512_load_ps(xq + g * step + stride + b);
            }
            for (int t = 0; t < outs; t++) {
                float *a = acc[t];
                const float *hq = h + (q + t) * step;
                __m512 ar = _mm512_load_ps(a + b), ai = _mm512_load_ps(a + stride + b);
                for (int g = 0; g < 4; g++)
                    MAC(ar, ai, xr[g], xi[g], _mm512_load_ps(hq + g * step + b),
                        _mm512_load_ps(hq + g * step + stride + b));
                _mm512_store_ps(a + b, ar);
                _mm512_store_ps(a + stride + b, ai);
            }
        }
    }
    for (; q < count; q++)
        for (int t = 0; t < outs && q + t < hcount; t++)
            es_cmac_avx512(acc[t], x + q * step, h + (q + t) * step, 1, stride);
}
