/* The real-time processor: what runs inside the audio callback, and what
 * `earshot render` drives block by block from a file, so that a render
 * equals what live playback plays.
 *
 * Per block: run the engine on the inputs (wet), delay the dry inputs by
 * the engine's latency so both stay aligned, mix wet/dry, apply output
 * gain. The processor owns its engine instance. */
#ifndef ES_PROCESSOR_H
#define ES_PROCESSOR_H

#include "engine.h"

typedef struct es_processor es_processor;

typedef struct {
    float wet;   /* linear gain of the convolved signal */
    float dry;   /* linear gain of the input, routed to the outputs */
    float gain;  /* linear output gain after the mix */
} es_mix;

/* Takes ownership of `engine` (destroyed with the processor, also when
 * create fails). fmt is the engine's format. */
es_processor *es_processor_create(const es_format *fmt, es_engine *engine,
                                  const es_mix *mix, char *err, size_t n);
void es_processor_destroy(es_processor *p);

/* Frames of delay from input to output: the engine's latency. */
int es_processor_latency(const es_processor *p);
const es_engine *es_processor_engine(const es_processor *p);

/* Real-time safe; frames in 1..max_block. in has fmt.inputs channels, out
 * fmt.outputs; they may not alias. */
ES_RT void es_processor_process(es_processor *p, const float *const *in,
                                float *const *out, int frames);

#endif
