/* Which SIMD kernels this CPU may run (internal to engines/). */
#ifndef ES_CPU_FEATURES_H
#define ES_CPU_FEATURES_H

/* 1 when the AVX2+FMA kernels were built and this CPU runs them, unless
 * EARSHOT_FORCE_PORTABLE is set to something other than 0 (tests use it to
 * check the portable kernels on machines that have AVX2). */
int es_cpu_use_avx2_fma(void);

/* 1 when the AVX-512F kernels were built and this CPU runs them, unless
 * either EARSHOT_FORCE_PORTABLE or EARSHOT_FORCE_AVX2 is set to something
 * other than 0 (tests check the AVX2 kernels on AVX-512 machines). */
int es_cpu_use_avx512(void);

#endif
