/* AVX2 + FMA split-complex MAC, and the layout conversions. Four partitions per pass over the bins: the
 * accumulator is loaded and stored once per four products, which brings the
 * loop close to 2 loads per 8 complex MACs, the load ports' rate. */
#include <immintrin.h>

#include "cmac_kernel.h"

#define MAC(ar, ai, xr, xi, hr, hi)              \
    do {                                         \
        ar = _mm256_fmadd_ps(xr, hr, ar);        \
        ar = _mm256_fnmadd_ps(xi, hi, ar);       \
        ai = _mm256_fmadd_ps(xr, hi, ai);        \
        ai = _mm256_fmadd_ps(xi, hr, ai);        \
    } while (0)

ES_RT void es_cmac_avx2(float *acc, const float *x, const float *h, int count,
                        int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count; q += 4) {
        const float *x0 = x + q * step, *x1 = x0 + step, *x2 = x1 + step, *x3 = x2 + step;
        const float *h0 = h + q * step, *h1 = h0 + step, *h2 = h1 + step, *h3 = h2 + step;
        for (int b = 0; b < stride; b += 8) {
            __m256 ar = _mm256_load_ps(acc + b), ai = _mm256_load_ps(acc + stride + b);
            MAC(ar, ai, _mm256_load_ps(x0 + b), _mm256_load_ps(x0 + stride + b),
                _mm256_load_ps(h0 + b), _mm256_load_ps(h0 + stride + b));
            MAC(ar, ai, _mm256_load_ps(x1 + b), _mm256_load_ps(x1 + stride + b),
                _mm256_load_ps(h1 + b), _mm256_load_ps(h1 + stride + b));
            MAC(ar, ai, _mm256_load_ps(x2 + b), _mm256_load_ps(x2 + stride + b),
                _mm256_load_ps(h2 + b), _mm256_load_ps(h2 + stride + b));
            MAC(ar, ai, _mm256_load_ps(x3 + b), _mm256_load_ps(x3 + stride + b),
                _mm256_load_ps(h3 + b), _mm256_load_ps(h3 + stride + b));
            _mm256_store_ps(acc + b, ar);
            _mm256_store_ps(acc + stride + b, ai);
        }
    }
    for (; q < count; q++) {
        const float *x0 = x + q * step, *h0 = h + q * step;
        for (int b = 0; b < stride; b += 8) {
            __m256 ar = _mm256_load_ps(acc + b), ai = _mm256_load_ps(acc + stride + b);
            MAC(ar, ai, _mm256_load_ps(x0 + b), _mm256_load_ps(x0 + stride + b),
                _mm256_load_ps(h0 + b), _mm256_load_ps(h0 + stride + b));
            _mm256_store_ps(acc + b, ar);
            _mm256_store_ps(acc + stride + b, ai);
        }
    }
}

/* The time-blocked pass (cmac_kernel.h): four ages a group, their x in
 * registers while each sum takes its four products, so x is read from
 * memory once for all `outs` sums; h_{q+t} for t >= 1 was read a group
 * earlier and comes from the cache. The rest goes one age at a time
 * through es_cmac_avx2, whose products round alike. */
ES_RT void es_cmac_ahead_avx2(float *const *acc, int outs, const float *x, const float *h,
                              int count, int hcount, int stride)
{
    const size_t step = (size_t)2 * stride;
    int q = 0;
    for (; q + 4 <= count && q + 3 + outs - 1 < hcount; q += 4) {
        const float *xq = x + q * step;
        for (int b = 0; b < stride; b += 8) {
            __m256 xr[4], xi[4];
            for (int g = 0; g < 4; g++) {
                xr[g] = _mm256_load_ps(xq + g * step + b);
                xi[g] = _mm256_load_ps(xq + g * step + stride + b);
            }
            for (int t = 0; t < outs; t++) {
                float *a = acc[t];
                const float *hq = h + (q + t) * step;
                __m256 ar = _mm256_load_ps(a + b), ai = _mm256_load_ps(a + stride + b);
                for (int g = 0; g < 4; g++)
                    MAC(ar, ai, xr[g], xi[g], _mm256_load_ps(hq + g * step + b),
                        _mm256_load_ps(hq + g * step + stride + b));
                _mm256_store_ps(a + b, ar);
                _mm256_store_ps(a + stride + b, ai);
            }
        }
    }
    for (; q < count; q++)
        for (int t = 0; t < outs && q + t < hcount; t++)
            es_cmac_avx2(acc[t], x + q * step, h + (q + t) * step, 1, stride);
}

/* Eight bins at a time. shuffle_ps picks the even (real) or odd (imaginary)
 * floats of two registers lane by lane, which leaves them in the order
 * 0 1 4 5 | 2 3 6 7; permute4x64 puts the 64-bit pairs back in order. */
ES_RT void es_split_avx2(float *planar, const float *interleaved, int bins, int stride)
{
    int b = 0;
    for (; b + 8 <= bins; b += 8) {
        const __m256 a = _mm256_loadu_ps(interleaved + 2 * b);
        const __m256 c = _mm256_loadu_ps(interleaved + 2 * b + 8);
        const __m256 re = _mm256_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0));
        const __m256 im = _mm256_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1));
        _mm256_storeu_ps(planar + b, _mm256_castpd_ps(_mm256_permute4x64_pd(
                                         _mm256_castps_pd(re), _MM_SHUFFLE(3, 1, 2, 0))));
        _mm256_storeu_ps(planar + stride + b,
                         _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(im),
                                                                _MM_SHUFFLE(3, 1, 2, 0))));
    }
    es_split_portable(planar + b, interleaved + 2 * b, bins - b, stride);
}

/* unpacklo/hi pair bins 0 1 | 4 5 and 2 3 | 6 7 within lanes;
 * permute2f128 joins the lanes in order. */
ES_RT void es_join_avx2(float *interleaved, const float *planar, int bins, int stride)
{
    int b = 0;
    for (; b + 8 <= bins; b += 8) {
        const __m256 re = _mm256_loadu_ps(planar + b), im = _mm256_loadu_ps(planar + stride + b);
        const __m256 lo = _mm256_unpacklo_ps(re, im), hi = _mm256_unpackhi_ps(re, im);
        _mm256_storeu_ps(interleaved + 2 * b, _mm256_permute2f128_ps(lo, hi, 0x20));
        _mm256_storeu_ps(interleaved + 2 * b + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
    es_join_portable(interleaved + 2 * b, planar + b, bins - b, stride);
}
