/* AVX2 + FMA FIR kernel. Compiled with -mavx2 -mfma and only called after
 * es_fir_select() has seen both features on this CPU.
 *
 * A tile of 64 outputs lives in 8 ymm accumulators; each tap costs one
 * broadcast, 8 unaligned loads and 8 FMAs, so the loop runs at the load
 * ports' rate (about 14 MACs a cycle). Outputs left over after the tiles
 * are single dot products with 4 accumulators. */
#include <immintrin.h>

#include "fir_kernel.h"

/* Adds the 8 float lanes of v to sum[0..8) in double. */
static inline ES_RT void add_to_double(double *sum, __m256 v)
{
    __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
    __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
    _mm256_storeu_pd(sum, _mm256_add_pd(_mm256_loadu_pd(sum), lo));
    _mm256_storeu_pd(sum + 4, _mm256_add_pd(_mm256_loadu_pd(sum + 4), hi));
}

static ES_RT void tile(const float *hr, int taps, const float *x, double *sum)
{
    for (int c0 = 0; c0 < taps; c0 += ES_FIR_CHUNK) {
        const int c1 = c0 + ES_FIR_CHUNK < taps ? c0 + ES_FIR_CHUNK : taps;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m256 a4 = a0, a5 = a0, a6 = a0, a7 = a0;
        for (int j = c0; j < c1; j++) {
            const __m256 h = _mm256_broadcast_ss(hr + j);
            const float *p = x + j;
            a0 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p), a0);
            a1 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 8), a1);
            a2 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 16), a2);
            a3 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 24), a3);
            a4 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 32), a4);
            a5 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 40), a5);
            a6 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 48), a6);
            a7 = _mm256_fmadd_ps(h, _mm256_loadu_ps(p + 56), a7);
        }
        add_to_double(sum, a0);
        add_to_double(sum + 8, a1);
        add_to_double(sum + 16, a2);
        add_to_double(sum + 24, a3);
        add_to_double(sum + 32, a4);
        add_to_double(sum + 40, a5);
        add_to_double(sum + 48, a6);
        add_to_double(sum + 56, a7);
    }
}

static ES_RT double hsum_double(__m256 v)
{
    __m256d d = _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                              _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(d), _mm256_extractf128_pd(d, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

static ES_RT double dot(const float *hr, int taps, const float *x)
{
    double sum = 0;
    for (int c0 = 0; c0 < taps; c0 += ES_FIR_CHUNK) {
        const int c1 = c0 + ES_FIR_CHUNK < taps ? c0 + ES_FIR_CHUNK : taps;
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        int j = c0;
        for (; j + 32 <= c1; j += 32) {
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(hr + j), _mm256_loadu_ps(x + j), s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(hr + j + 8), _mm256_loadu_ps(x + j + 8), s1);
            s2 = _mm256_fmadd_ps(_mm256_loadu_ps(hr + j + 16), _mm256_loadu_ps(x + j + 16), s2);
            s3 = _mm256_fmadd_ps(_mm256_loadu_ps(hr + j + 24), _mm256_loadu_ps(x + j + 24), s3);
        }
        for (; j + 8 <= c1; j += 8)
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(hr + j), _mm256_loadu_ps(x + j), s0);
        float rest = 0;
        for (; j < c1; j++)
            rest += hr[j] * x[j];
        sum += hsum_double(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3))) +
               (double)rest;
    }
    return sum;
}

ES_RT void es_fir_avx2(const float *hr, int taps, const float *x, float *y,
                       int frames, int accumulate)
{
    es_fir_run(tile, dot, hr, taps, x, y, frames, accumulate);
}
