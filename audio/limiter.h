/* The processor's safety limiter (internal to audio/). */
#ifndef ES_LIMITER_H
#define ES_LIMITER_H

#include <stdint.h>

#include "engine.h"

typedef struct {
    float env;     /* the gain now, <= 1 */
    float release; /* its recovery per sample */
    float ceiling; /* linear; +inf while the limiter is off */
} es_limiter;

/* Gain 1, releasing over ES_LIMITER_RELEASE_MS at `rate`, off. */
void es_limiter_init(es_limiter *l, double rate);

/* Channel-linked, per sample: the gain drops at once to what keeps the
 * loudest channel at the ceiling (so no sample passes it) and recovers
 * over the release. Switched off (on = 0), it only recovers, so turning it
 * off mid-reduction does not step. Returns the samples it turned down. */
ES_RT uint64_t es_limiter_run(es_limiter *l, int on, float *const *out, int outputs, int frames);

#endif
