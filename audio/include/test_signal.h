/* The built-in test signal, so there is always something to hear: a cycle
 * of clicks, noise bursts and a logarithmic sine sweep, each with silence
 * after it so the room's tail can be heard. Real-time safe to generate. */
#ifndef ES_TEST_SIGNAL_H
#define ES_TEST_SIGNAL_H

#include <stdint.h>

typedef struct {
    double rate;
    uint64_t t;        /* frames generated so far */
    uint32_t noise;    /* noise generator state */
    double phase;      /* sweep phase, radians */
} es_signal;

void es_signal_init(es_signal *s, double sample_rate);
/* Writes frames of the signal into every channel. */
void es_signal_fill(es_signal *s, float *const *out, int channels, int frames);

#endif
