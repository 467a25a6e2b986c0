/* The processor's safety limiter (internal to audio/). */
#ifndef ES_LIMITER_H
#define ES_LIMITER_H

#include <stdint.h>

#include "engine.h"

typedef struct {
    float cut;     /* the gain reduction now: the gain is 1 - cut, cut in [0, 1) */
    float release; /* how much of the cut is left after a sample */
    float ceiling; /* linear; +inf while the limiter is off */
} es_limiter;

/* A sample counts as limited (es_limiter_run's count, the screen's LIM)
 * while the limiter turns it down by more than this much: 0.1 dB, a change
 * no one hears, so LIM goes out once the release is inaudible rather than
 * when the last millionth of the reduction has gone. */
#define ES_LIMITER_COUNTS_CUT 0.0114469f

/* Gain 1, releasing over ES_LIMITER_RELEASE_MS at `rate`, off. */
void es_limiter_init(es_limiter *l, double rate);

/* Channel-linked, per sample: the gain drops at once to what keeps the
 * loudest channel at the ceiling (so no sample passes it) and recovers
 * over the release. Switched off (on = 0), it only recovers, so turning it
 * off mid-reduction does not step. Returns the samples it turned down by
 * more than ES_LIMITER_COUNTS_CUT. */
ES_RT uint64_t es_limiter_run(es_limiter *l, int on, float *const *out, int outputs, int frames);

#endif
