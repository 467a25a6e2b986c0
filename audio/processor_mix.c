/* The processor's mixer (processor_stages.h): the trimmed input delayed by
 * the processor's latency (the dry path), mixed with the wet signal at
 * the wet and dry gains, the output gain after, and bypass crossfading to
 * the dry signal alone. Every gain ramps when it moves, so none clicks. */
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "processor_stages.h"

int es_mixer_init(es_mixer *m, const es_format *fmt, int latency, int bypass_len, char *err,
                  size_t n)
{
    m->inputs = fmt->inputs;
    m->outputs = fmt->outputs;
    m->latency = latency;
    m->ramp_len = (int)(ES_MIX_RAMP_MS * 1e-3 * fmt->sample_rate);
    m->ramp_len = m->ramp_len < 1 ? 1 : m->ramp_len;
    m->bypass_len = bypass_len;
    /* With no latency the ring is not read (the dry path is the input):
     * one sample. */
    m->dry_size = es_delay_frames(latency, fmt->max_block);
    m->dry_ring = es_alloc_channels(fmt->inputs, m->dry_size);
    m->g = es_alloc_channels(ES_G_COUNT, (size_t)fmt->max_block);
    if (!m->dry_ring || !m->g) {
        snprintf(err, n, "out of memory for the processor");
        return -1;
    }
    return 0;
}

void es_mixer_free(es_mixer *m)
{
    es_free_channels(m->dry_ring, m->inputs);
    es_free_channels(m->g, ES_G_COUNT);
    *m = (es_mixer){0};
}

ES_RT void es_mixer_level(es_mixer *m, const es_mix *mix, int ramped)
{
    m->asked = *mix;
    const int len = ramped ? m->ramp_len : 0;
    es_ramp_to(&m->wet, mix->wet, len);
    es_ramp_to(&m->dry, mix->dry, len);
    es_ramp_to(&m->gain, mix->gain, len);
    es_ramp_to(&m->bypass, (float)mix->bypass, ramped ? m->bypass_len : 0);
}

ES_RT int es_mixer_settled(const es_mixer *m)
{
    return m->wet.left == 0 && m->dry.left == 0 && m->gain.left == 0 &&
           es_ramp_at(&m->bypass, 0.0f);
}

ES_RT int es_mixer_unity(const es_mixer *m)
{
    return m->dry.now == 0.0f && m->wet.now == 1.0f && m->gain.now == 1.0f;
}

/* The input channel whose dry signal output o carries. */
static int dry_channel(const es_mixer *m, int o)
{
    return m->inputs == 1 ? 0 : o % m->inputs;
}

/* No level moving, no bypass, one engine: the same sums with the gains as
 * constants, in loops the compiler vectorises (most blocks, and a
 * render's every block). */
static ES_RT void mix_constant(es_mixer *m, const float *const *x, const float *const *wet,
                               float *const *out, int frames, size_t dry_read)
{
    const size_t mask = m->dry_size - 1;
    const float gw = m->wet.now, gd = m->dry.now, gg = m->gain.now;
    for (int o = 0; o < m->outputs; o++) {
        const float *wa = wet[o];
        const int di = dry_channel(m, o);
        const float *dry = m->dry_ring[di], *xd = x[di];
        float *y = out[o];
        if (gd == 0.0f)
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t]);
        else if (m->latency == 0)
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t] + gd * xd[t]);
        else
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t] + gd * dry[(dry_read + (size_t)t) & mask]);
    }
}

/* A level moving, bypass on or on its way, or a crossfade: each gain per
 * sample. */
static ES_RT void mix_ramped(es_mixer *m, const float *const *x, const float *const *wet,
                             float *const *out, int frames, size_t dry_read)
{
    const size_t mask = m->dry_size - 1;
    float *const *g = m->g;
    es_ramp_run(&m->wet, g[ES_G_WET], frames);
    es_ramp_run(&m->dry, g[ES_G_DRY], frames);
    es_ramp_run(&m->gain, g[ES_G_GAIN], frames);
    es_ramp_run(&m->bypass, g[ES_G_BYPASS], frames);
    for (int o = 0; o < m->outputs; o++) {
        const int di = dry_channel(m, o);
        const float *dry = m->dry_ring[di], *xd = x[di], *w = wet[o];
        float *y = out[o];
        for (int t = 0; t < frames; t++) {
            const float d = m->latency == 0 ? xd[t] : dry[(dry_read + (size_t)t) & mask];
            const float v = g[ES_G_GAIN][t] * (g[ES_G_WET][t] * w[t] + g[ES_G_DRY][t] * d);
            /* Bypass crossfades linearly (both sides carry the same dry
             * signal, so equal power would swell); at its ends the output
             * is exactly one side. */
            const float by = g[ES_G_BYPASS][t];
            y[t] = by == 0.0f ? v : by == 1.0f ? d : v + by * (d - v);
        }
    }
}

typedef void (*mix_pass)(es_mixer *m, const float *const *x, const float *const *wet,
                         float *const *out, int frames, size_t dry_read);

static const mix_pass passes[] = {
    [ES_MIXER_NONE] = NULL,
    [ES_MIXER_CONSTANT] = mix_constant,
    [ES_MIXER_RAMPED] = mix_ramped,
};

ES_RT void es_mixer_run(es_mixer *m, const float *const *x, const float *const *wet,
                        float *const *out, int frames, es_mixer_pass pass)
{
    /* With no latency the dry sample that leaves with wet output t is
     * input t itself: the mix reads x, and the ring is not kept. */
    const size_t mask = m->dry_size - 1;
    for (int i = 0; m->latency && i < m->inputs; i++)
        for (int t = 0; t < frames; t++)
            m->dry_ring[i][(m->dry_write + (size_t)t) & mask] = x[i][t];
    /* The dry sample that leaves with wet output t entered latency frames ago. */
    const size_t dry_read = (m->dry_write + m->dry_size - (size_t)m->latency) & mask;
    if (passes[pass])
        passes[pass](m, x, wet, out, frames, dry_read);
    m->dry_write = (m->dry_write + (size_t)frames) & mask;
}

ES_RT void es_mixer_forget(es_mixer *m)
{
    for (int i = 0; i < m->inputs; i++)
        memset(m->dry_ring[i], 0, m->dry_size * sizeof(float));
}
