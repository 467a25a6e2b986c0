#include <math.h>

#include "test_signal.h"

/* One cycle, in seconds: clicks at 0, 0.5, 1.0; a noise burst at 2 s
 * (100 ms); a 2 s sweep 50 Hz -> 10 kHz from 4 s; silence to 8 s. */
#define CYCLE 8.0
/* -18 dBFS, the usual alignment level: a sweep through an energy-normalised
 * room rises by up to about 12 dB at the room's strongest resonances, and
 * the default sound should not clip. */
#define LEVEL 0.125f

void es_signal_init(es_signal *s, double sample_rate)
{
    s->rate = sample_rate;
    s->t = 0;
    s->noise = 22222u;
    s->phase = 0;
}

static float sample(es_signal *s)
{
    const double at = fmod((double)s->t / s->rate, CYCLE);
    const uint64_t frame = (uint64_t)(at * s->rate + 0.5);
    s->t++;
    if (at < 1.01) /* clicks: one sample each */
        return frame % (uint64_t)(0.5 * s->rate) == 0 ? LEVEL : 0.0f;
    if (at >= 2.0 && at < 2.1) {
        s->noise = s->noise * 1664525u + 1013904223u;
        return LEVEL * (float)((double)s->noise / 4294967296.0 * 2.0 - 1.0);
    }
    if (at >= 4.0 && at < 6.0) {
        /* Exponential sweep: f(u) = f0 * (f1/f0)^(u/T); phase advances by
         * 2 pi f / rate per sample. */
        const double u = at - 4.0, f = 50.0 * pow(10000.0 / 50.0, u / 2.0);
        s->phase = fmod(s->phase + 2 * 3.14159265358979 * f / s->rate, 2 * 3.14159265358979);
        const double fade = u < 0.01 ? u / 0.01 : (u > 1.99 ? (2.0 - u) / 0.01 : 1.0);
        return LEVEL * (float)(fade * sin(s->phase));
    }
    s->phase = 0;
    return 0.0f;
}

void es_signal_fill(es_signal *s, float *const *out, int channels, int frames)
{
    for (int t = 0; t < frames; t++) {
        const float v = sample(s);
        for (int c = 0; c < channels; c++)
            out[c][t] = v;
    }
}
