/* Portable FIR kernel and the run-time choice between kernels. Written so
 * that the compiler vectorises the inner loop over the output tile with
 * whatever the baseline ISA has (SSE2 on x86-64, NEON on arm64). */
#include "fir_kernel.h"
#include "cpu_features.h"

static ES_RT void tile(const float *hr, int taps, const float *x, double *sum)
{
    for (int c0 = 0; c0 < taps; c0 += ES_FIR_CHUNK) {
        int c1 = c0 + ES_FIR_CHUNK < taps ? c0 + ES_FIR_CHUNK : taps;
        float part[ES_FIR_TILE] = {0};
        for (int j = c0; j < c1; j++) {
            const float h = hr[j];
            const float *xj = x + j;
            for (int k = 0; k < ES_FIR_TILE; k++)
                part[k] += h * xj[k];
        }
        for (int k = 0; k < ES_FIR_TILE; k++)
            sum[k] += part[k];
    }
}

static ES_RT double dot(const float *hr, int taps, const float *x)
{
    double sum = 0;
    for (int c0 = 0; c0 < taps; c0 += ES_FIR_CHUNK) {
        int c1 = c0 + ES_FIR_CHUNK < taps ? c0 + ES_FIR_CHUNK : taps;
        float lane[8] = {0};
        int j = c0;
        for (; j + 8 <= c1; j += 8)
            for (int k = 0; k < 8; k++)
                lane[k] += hr[j + k] * x[j + k];
        for (; j < c1; j++)
            lane[0] += hr[j] * x[j];
        sum += (double)((lane[0] + lane[4]) + (lane[1] + lane[5])) +
               (double)((lane[2] + lane[6]) + (lane[3] + lane[7]));
    }
    return sum;
}

ES_RT void es_fir_run(es_fir_tile_fn tile, es_fir_dot_fn dot, const float *hr,
                      int taps, const float *x, float *y, int frames, int accumulate)
{
    int n = 0;
    for (; n + ES_FIR_TILE <= frames; n += ES_FIR_TILE) {
        double sum[ES_FIR_TILE] = {0};
        tile(hr, taps, x + n, sum);
        for (int k = 0; k < ES_FIR_TILE; k++)
            y[n + k] = (float)(sum[k] + (accumulate ? y[n + k] : 0.0));
    }
    for (; n < frames; n++) {
        double s = dot(hr, taps, x + n);
        y[n] = (float)(s + (accumulate ? y[n] : 0.0));
    }
}

ES_RT void es_fir_portable(const float *hr, int taps, const float *x, float *y,
                           int frames, int accumulate)
{
    es_fir_run(tile, dot, hr, taps, x, y, frames, accumulate);
}

es_fir_fn es_fir_select(const char **name)
{
#ifdef ES_HAVE_AVX2
    if (es_cpu_use_avx2_fma()) {
        if (name)
            *name = "avx2+fma";
        return es_fir_avx2;
    }
#endif
    if (name)
        *name = "portable";
    return es_fir_portable;
}
