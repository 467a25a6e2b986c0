/* What a stream has heard: the recent input, kept so that an engine built
 * while it plays can be primed (engines/include/ringing.h), and the
 * hand-over of a primed engine between the builder and the audio thread.
 *
 * The processor writes it on the audio thread; a builder reads it on its
 * own thread. It is shared, counted: the processor holds a reference, and
 * so does each priming under way, so that neither waits for the other and
 * the last to let go frees it (never the audio thread: the processor lets
 * go when it is destroyed).
 *
 * A primed switch, for a swap given a ticket by the processor:
 *   1. the audio thread adopts the engine at a block boundary: from frame
 *      `start` on it feeds it the live input, and says so (adopted);
 *   2. the builder reads the input before `start` (es_history_read),
 *      computes what the past still rings into the swap's buffer, and says
 *      it is there (es_history_set_primed);
 *   3. the audio thread adds that buffer to the engine's output and starts
 *      the crossfade; it lets go of the buffer once played (or given up,
 *      or the processor is gone), and es_history_holds says 0: the
 *      builder may free it. */
#ifndef ES_HISTORY_H
#define ES_HISTORY_H

#include <stdint.h>

#include "core/rt.h"

typedef struct es_history es_history;

/* At least `frames` frames of each of `inputs` channels, written in blocks
 * of up to max_block. NULL on no memory. The caller holds the one
 * reference. */
es_history *es_history_create(int inputs, int frames, int max_block);
es_history *es_history_ref(es_history *h);
/* NULL-safe; the last reference frees. Not on the audio thread. */
void es_history_unref(es_history *h);
/* Frames it holds (at least what was asked for). */
int es_history_capacity(const es_history *h);
int es_history_inputs(const es_history *h);

/* ---- the audio thread ---- */

/* Appends a block. */
ES_RT void es_history_write(es_history *h, const float *const *x, int frames);
/* Everything heard so far reads as silence from now on (a panic). */
ES_RT void es_history_forget(es_history *h);
/* Swap `ticket`'s engine hears the input from frame `start` on (the frame
 * of the block it first plays in). */
ES_RT void es_history_adopted(es_history *h, uint64_t ticket, uint64_t start);
/* 1: the ringing of swap `ticket` is in its buffer; -1: it will not be
 * (the builder could not); 0: not yet. */
ES_RT int es_history_primed(const es_history *h, uint64_t ticket);
/* The processor's slot `slot` (0 or 1) reads swap `ticket`'s buffer from
 * now on (0: none). */
ES_RT void es_history_hold(es_history *h, int slot, uint64_t ticket);

/* ---- any one other thread ---- */

/* Frames heard so far. */
uint64_t es_history_heard(const es_history *h);
/* Copies frames from..from+frames-1 into out[inputs]: frames before the
 * stream began, or forgotten, read as silence. 0; -1 when some of them
 * were written over (the reader came too late) or are not heard yet. */
int es_history_read(const es_history *h, int64_t from, int frames, float *const *out);
/* 1 and the frame when swap `ticket`'s engine was adopted; else 0. */
int es_history_started(const es_history *h, uint64_t ticket, uint64_t *start);
void es_history_set_primed(es_history *h, uint64_t ticket, int ok);
/* 1 while the processor may still read swap `ticket`'s buffer: the swap is
 * queued, or a slot holds it. 0 once it let go, or the processor is gone. */
int es_history_holds(const es_history *h, uint64_t ticket);
/* The processor is gone (it calls this as it is destroyed). */
void es_history_writer_gone(es_history *h);

#endif
