/* AVX2 + FMA split-complex MACs (cmac_simd.h on 8 floats a vector), and
 * the layout conversions. */
#include <immintrin.h>

#include "cmac_kernel.h"

#define V __m256
#define W 8
#define LOAD _mm256_load_ps
#define STORE _mm256_store_ps
#define FMADD _mm256_fmadd_ps
#define FNMADD _mm256_fnmadd_ps
#define CMAC es_cmac_avx2
#define CMAC_AHEAD es_cmac_ahead_avx2
#include "cmac_simd.h"

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
