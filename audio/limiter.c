/* The safety limiter (limiter.h). The state is the gain's reduction, not
 * the gain: a reduction decays towards 0 exactly in float, where a gain
 * recovering towards 1 stalls a few ulps short of it (1 - (1 - g) * r
 * rounds back to g once (1 - g)(1 - r) is under half an ulp of 1, about
 * 1.4e-4 below 1 at a 150 ms release and 48 kHz), and so would count every
 * sample as limited for good. A sample that is not a number is taken as
 * the loudest there is: the gain drops to 0 for it (it leaves as 0) and
 * recovers over the release. */
#include <math.h>

#include "limiter.h"
#include "processor.h"

/* A reduction this small is none: the gain is 1 again. */
#define CUT_GONE 1e-6f

void es_limiter_init(es_limiter *l, double rate)
{
    l->cut = 0;
    l->release = (float)exp(-1e3 / (ES_LIMITER_RELEASE_MS * rate));
    l->ceiling = INFINITY;
}

ES_RT uint64_t es_limiter_run(es_limiter *l, int on, float *const *out, int outputs, int frames)
{
    if (!on && l->cut == 0.0f)
        return 0;
    const float ceiling = l->ceiling, rel = l->release;
    float cut = l->cut;
    uint64_t turned = 0;
    for (int t = 0; t < frames; t++) {
        float pk = 0;
        for (int o = 0; o < outputs; o++) {
            const float v = fabsf(out[o][t]);
            if (!(v <= pk)) /* louder, or NaN: as loud as can be */
                pk = v == v ? v : INFINITY;
        }
        cut *= rel;
        cut = cut < CUT_GONE ? 0.0f : cut;
        if (pk * (1.0f - cut) > ceiling)
            cut = 1.0f - ceiling / pk;
        if (cut == 0.0f)
            continue;
        const float gain = 1.0f - cut;
        for (int o = 0; o < outputs; o++) {
            /* ceiling / pk * pk can round a hair above the ceiling. */
            const float v = out[o][t] * gain;
            out[o][t] = v > ceiling ? ceiling : v < -ceiling ? -ceiling : v == v ? v : 0.0f;
        }
        turned += cut > ES_LIMITER_COUNTS_CUT ? (uint64_t)outputs : 0;
    }
    l->cut = cut;
    return turned;
}
