/* The diffuse tail of a synthesised room (internal to rooms/synth*.c). */
#ifndef ES_SYNTH_TAIL_H
#define ES_SYNTH_TAIL_H

#include <stddef.h>

#include "synth.h"

/* Weight of the tail at time t after the direct sound: 0 before mix/2,
 * a raised cosine up to 1 at mix. The image sources get 1 minus it. */
double es_room_tail_weight(double t, double mix);

/* Adds the tail for a microphone whose direct sound arrives at `direct`
 * seconds into out[0..frames). 0, or -1 with a message. */
int es_room_tail(const es_room_spec *s, double direct, double mix, unsigned seed, float *out,
                 int frames, char *err, size_t n);

#endif
