/* The safety limiter (limiter.h). */
#include <math.h>

#include "limiter.h"
#include "processor.h"

void es_limiter_init(es_limiter *l, double rate)
{
    l->env = 1;
    l->release = (float)exp(-1e3 / (ES_LIMITER_RELEASE_MS * rate));
    l->ceiling = INFINITY;
}

ES_RT uint64_t es_limiter_run(es_limiter *l, int on, float *const *out, int outputs, int frames)
{
    if (!on && l->env >= 1.0f)
        return 0;
    const float ceiling = l->ceiling, rel = l->release;
    float env = l->env;
    uint64_t turned = 0;
    for (int t = 0; t < frames; t++) {
        float pk = 0;
        for (int o = 0; o < outputs; o++) {
            const float v = fabsf(out[o][t]);
            pk = v > pk ? v : pk;
        }
        env = 1.0f - (1.0f - env) * rel;
        env = env > 0.999999f ? 1.0f : env; /* else it would stall just under 1 */
        if (pk * env > ceiling)
            env = ceiling / pk;
        if (env >= 1.0f)
            continue;
        for (int o = 0; o < outputs; o++) {
            /* ceiling / pk * pk can round a hair above the ceiling. */
            const float v = out[o][t] * env;
            out[o][t] = v > ceiling ? ceiling : v < -ceiling ? -ceiling : v;
        }
        turned += (uint64_t)outputs;
    }
    l->env = env;
    return turned;
}
