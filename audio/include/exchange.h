/* A measurement through the device: the audio thread plays a prepared
 * signal on chosen outputs and records every live input from the same
 * block on, frame for frame, into buffers prepared on the control side.
 * The round-trip probe's clicks and a room's sweeps both go this way
 * (player.h).
 *
 * While it runs the outputs are the signal and silence: the processor
 * still runs (its engine keeps its history) but what it makes is not
 * heard, as it would come round the loop and bury the signal.
 *
 * States, each moved by one side with a compare-and-swap: IDLE -> ARMED
 * (control: start) -> RUNNING (audio: the next block) -> DONE (audio: the
 * last frame recorded); ARMED or RUNNING -> ABORTED (control: the stream
 * changed under it, or the caller gave up); DONE or ABORTED -> IDLE
 * (control: finish). The buffers are the control side's except while
 * ARMED or RUNNING, and the audio thread marks the block it works in, so
 * that nothing is freed under it. */
#ifndef ES_EXCHANGE_H
#define ES_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "core/rt.h"

typedef enum {
    ES_EXCHANGE_IDLE,
    ES_EXCHANGE_ARMED,
    ES_EXCHANGE_RUNNING,
    ES_EXCHANGE_DONE,
    ES_EXCHANGE_ABORTED,
} es_exchange_state;

#define ES_EXCHANGE_OUTPUTS_MAX 64 /* outputs are named by the bits of a uint64_t */

typedef struct es_exchange es_exchange;

es_exchange *es_exchange_create(void);
void es_exchange_destroy(es_exchange *x); /* NULL is fine; control side */

/* Arms one: `play` (frames values, copied) on each output whose bit is set
 * in `outputs`, `inputs` channels recorded for as many frames. 0, or -1
 * with a message (one under way, out of memory). */
int es_exchange_start(es_exchange *x, const float *play, size_t frames, uint64_t outputs,
                      int inputs, char *err, size_t n);

/* The audio thread's share of one block, after the processor: 1 when it
 * took the outputs (armed or running), 0 when it left them alone. Inputs
 * the device does not have are recorded as silence. */
ES_RT int es_exchange_block(es_exchange *x, const float *const *in, int inputs,
                            float *const *out, int outputs, int frames);

es_exchange_state es_exchange_state_now(const es_exchange *x);
/* Frames played and recorded so far. */
size_t es_exchange_position(const es_exchange *x);
/* Input c's recording (es_exchange_start's frames values) once DONE, else
 * NULL. It stays until the next start. */
const float *es_exchange_recording(const es_exchange *x, int c);
/* Drops one that is armed or running (its recording is not kept). */
void es_exchange_abort(es_exchange *x);
/* DONE or ABORTED -> IDLE, ready for the next. */
void es_exchange_finish(es_exchange *x);

#endif
