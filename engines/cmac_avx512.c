/* AVX-512F split-complex MACs: cmac_simd.h on 16 floats a vector. Built
 * when the compiler takes -mavx512f and chosen at run time on CPUs that
 * have it (cpu_features.c). The layout conversions stay AVX2's. */
#include <immintrin.h>

#include "cmac_kernel.h"

#define V __m512
#define W 16
#define LOAD _mm512_load_ps
#define STORE _mm512_store_ps
#define FMADD _mm512_fmadd_ps
#define FNMADD _mm512_fnmadd_ps
#define CMAC es_cmac_avx512
#define CMAC_AHEAD es_cmac_ahead_avx512
#include "cmac_simd.h"
