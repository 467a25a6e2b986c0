/* Which SIMD kernels this CPU may run (internal to engines/). */
#ifndef ES_CPU_FEATURES_H
#define ES_CPU_FEATURES_H

/* 1 when the AVX2+FMA kernels were built and this CPU runs them, unless
 * EARSHOT_FORCE_PORTABLE is set to something other than 0 (tests use it to
 * check the portable kernels on machines that have AVX2). */
int es_cpu_use_avx2_fma(void);

#endif
