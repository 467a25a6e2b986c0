/* AVX2 + FMA split-complex MAC. Four partitions per pass over the bins: the
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
