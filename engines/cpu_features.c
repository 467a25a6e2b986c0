#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"

int es_cpu_use_avx2_fma(void)
{
    const char *force = getenv("EARSHOT_FORCE_PORTABLE");
    if (force && strcmp(force, "0") != 0)
        return 0;
#ifdef ES_HAVE_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

int es_cpu_use_avx512(void)
{
#ifdef ES_HAVE_AVX512
    if (!es_cpu_use_avx2_fma()) /* EARSHOT_FORCE_PORTABLE, or no AVX2 */
        return 0;
    const char *force = getenv("EARSHOT_FORCE_AVX2");
    if (force && strcmp(force, "0") != 0)
        return 0;
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}
