/* Time-domain FIR kernels for cpu-direct (internal to engines/).
 *
 * y[n] (+)= sum_{j < taps} hr[j] * x[n + j]   for n in [0, frames)
 *
 * hr is the impulse response reversed, x the input history starting at the
 * oldest sample the first output needs; x must be readable for
 * frames + taps - 1 floats. Sums are taken in float over chunks of
 * ES_FIR_CHUNK taps and the chunk sums in double: a 2 s IR keeps its
 * rounding error near -130 dB instead of the -100 dB a single float running
 * sum reaches at 96000 taps. 64 rather than 128: random filters of 129
 * taps reached -119.9 dB against float64 (one seed in many), 64 keeps them
 * at -129 (test_reference cpu-direct, four runs), at no measured cost. */
#ifndef ES_FIR_KERNEL_H
#define ES_FIR_KERNEL_H

#include "engine.h"

#define ES_FIR_CHUNK 64   /* taps per float partial sum */
#define ES_FIR_TILE 64    /* outputs per register tile: 8 AVX2 accumulators */

typedef ES_RT void (*es_fir_fn)(const float *hr, int taps, const float *x,
                                float *y, int frames, int accumulate);

/* One ISA's inner loops: a tile of ES_FIR_TILE outputs added into sum[] in
 * double, and one output's dot product. */
typedef ES_RT void (*es_fir_tile_fn)(const float *hr, int taps, const float *x,
                                     double *sum);
typedef ES_RT double (*es_fir_dot_fn)(const float *hr, int taps, const float *x);

/* The outer loop every kernel shares: tiles first, dot products for the
 * outputs left over. */
ES_RT void es_fir_run(es_fir_tile_fn tile, es_fir_dot_fn dot, const float *hr,
                      int taps, const float *x, float *y, int frames, int accumulate);

ES_RT void es_fir_portable(const float *hr, int taps, const float *x, float *y,
                           int frames, int accumulate);
#ifdef ES_HAVE_AVX2
ES_RT void es_fir_avx2(const float *hr, int taps, const float *x, float *y,
                       int frames, int accumulate);
#endif

/* The fastest kernel this CPU runs, and its name ("avx2+fma", "portable").
 * Setting EARSHOT_FORCE_PORTABLE=1 in the environment picks the portable one. */
es_fir_fn es_fir_select(const char **name);

#endif
