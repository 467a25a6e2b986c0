/* Falling back when an engine fails mid-stream (a GPU error): the control
 * side builds cpu-partitioned for the same room and swaps it in through the
 * normal crossfade. The stream never stops. */
#ifndef ES_FALLBACK_H
#define ES_FALLBACK_H

#include <stddef.h>

#include "processor.h"

/* Call from the control loop. If the active engine has failed, builds the
 * fallback engine for `ir` and queues the swap. Returns 1 when it did (and
 * `what` says what happened, in a sentence for the user), 0 when nothing
 * had failed, -1 when the fallback could not be built (`what` says why). */
int es_fallback_poll(es_processor *p, const es_ir *ir, char *what, size_t n);

#endif
