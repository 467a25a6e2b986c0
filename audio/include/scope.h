/* What the spectrum view looks at: the audio callback writes the dry input
 * and the wet output, each summed to mono, into two overwrite-only rings;
 * the UI copies out the latest samples whenever it redraws. The writer
 * never waits and never learns whether anyone reads; a reader that was
 * overtaken while copying sees it and tries again. */
#ifndef ES_SCOPE_H
#define ES_SCOPE_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine.h"

#define ES_SCOPE_FRAMES 32768 /* per ring; a power of two */

enum { ES_SCOPE_DRY = 0, ES_SCOPE_WET = 1 };

typedef struct {
    /* Relaxed atomics: the reader may run while the writer stores. */
    _Atomic float ring[2][ES_SCOPE_FRAMES];
    _Atomic uint64_t written[2];
} es_scope;

void es_scope_init(es_scope *s);
/* Real-time safe: appends the mean of `channels` channels. */
ES_RT void es_scope_write(es_scope *s, int which, const float *const *x, int channels,
                          int frames);
/* The latest `frames` samples (<= ES_SCOPE_FRAMES / 2) of ring `which`, oldest
 * first. Returns how many of them were ever written (the rest are zeros). */
int es_scope_read(const es_scope *s, int which, float *out, int frames);
/* Samples written so far to ring `which`. */
uint64_t es_scope_written(const es_scope *s, int which);

#endif
