/* What the past still rings: the output a room owes, from a given moment
 * on, for the input it heard before it.
 *
 * An engine built while a stream plays starts with no history. Fed the
 * input from a moment M on, it plays h * x[M..], and the room's tail of
 * everything heard before M is missing: a hole the listener hears for the
 * length of the room. The true output is h * x = h * x[..M) + h * x[M..],
 * so a host that adds the first term to the new engine's output, which
 * needs only the input before M, plays the true convolution from M on.
 * That term is this: computed in one pass of large FFTs (each input's
 * past, each path's filter, once), off the audio thread, for any engine,
 * the GPU's included, without touching its insides.
 *
 * Frames are the stream's: the host's output trails its input by `latency`
 * frames (the processor's, which delays every engine to it), so output
 * frame M + m is the convolution at input time M + m - latency. Output
 * frames M .. M + ringing_frames - 1 are owed something; past that, the
 * past has rung out.
 *
 * Not real-time: create and run allocate, plan and take FFTW's planner
 * lock. */
#ifndef ES_RINGING_H
#define ES_RINGING_H

#include <stddef.h>

#include "engine.h"

typedef struct es_ringing es_ringing;

/* Plans the ringing of `ir` (not kept) for a stream of `latency` frames,
 * and transforms its filters. NULL with one line in err when the
 * transforms would take more than max_bytes of memory (a matrix of
 * thousands of long paths), or on no memory. */
es_ringing *es_ringing_create(const es_ir *ir, int latency, size_t max_bytes, char *err,
                              size_t n);
/* Frames of past input it reads, per input: the last frames before M. */
int es_ringing_past_frames(const es_ringing *r);
/* Frames of output it owes from M on, per output. */
int es_ringing_frames(const es_ringing *r);
/* Memory it holds and needs to run, bytes. */
size_t es_ringing_bytes(const es_ringing *r);
/* past[i]: input i's es_ringing_past_frames frames before M, oldest first.
 * Writes es_ringing_frames frames to each out[o]: what output o still
 * owes from M on. */
void es_ringing_run(es_ringing *r, const float *const *past, float *const *out);
/* NULL-safe. */
void es_ringing_destroy(es_ringing *r);

#endif
