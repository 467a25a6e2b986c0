/* Sanitising samples and watching for a runaway (safety.h). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "safety.h"

ES_RT uint64_t es_sanitize(float *x, int frames, float limit)
{
    uint64_t replaced = 0;
    for (int t = 0; t < frames; t++)
        if (!(fabsf(x[t]) <= limit)) { /* NaN fails every comparison */
            x[t] = 0.0f;
            replaced++;
        }
    return replaced;
}

ES_RT int es_all_within(const float *x, int frames, float limit)
{
    /* One pass the compiler vectorises: a block is checked whole. */
    int bad = 0;
    for (int t = 0; t < frames; t++)
        bad |= !(fabsf(x[t]) <= limit);
    return !bad;
}

ES_RT int es_scan_within(const float *x, int frames, float limit, uint32_t *clipped)
{
    /* On the bits with the sign cleared, whose order is the magnitudes'
     * (infinity and NaN above every finite one): above 1.0f is past full
     * scale, above the limit's bits is beyond it. Vectorised, one pass. */
    uint32_t top;
    memcpy(&top, &limit, sizeof top);
    top &= 0x7fffffffu;
    uint32_t over = 0, bad = 0;
    for (int t = 0; t < frames; t++) {
        uint32_t b;
        memcpy(&b, x + t, sizeof b);
        b &= 0x7fffffffu;
        over += b > 0x3f800000u;
        bad |= b > top;
    }
    *clipped = over;
    return !bad;
}

ES_RT int es_scan_output(const float *x, int frames, uint32_t *clipped)
{
    return es_scan_within(x, frames, FLT_MAX, clipped);
}

void es_runaway_init(es_runaway *r, double rate)
{
    memset(r, 0, sizeof *r);
    r->rate = rate;
    r->last_db = -INFINITY;
}

void es_runaway_reset(es_runaway *r)
{
    es_runaway_init(r, r->rate);
}

/* Sustained overload: more than ES_RUNAWAY_OVER_S of the blocks of the last
 * ES_RUNAWAY_WINDOW_S peaked above full scale. */
static ES_RT int sustained(es_runaway *r)
{
    const int window = (int)(ES_RUNAWAY_WINDOW_S * r->rate);
    int seen = 0, over = 0;
    for (int k = 0; k < ES_RUNAWAY_BLOCKS && seen < window; k++) {
        const int i = (r->at - 1 - k + 2 * ES_RUNAWAY_BLOCKS) % ES_RUNAWAY_BLOCKS;
        seen += r->frames[i];
        over += r->over[i] ? r->frames[i] : 0;
    }
    return over > (int)(ES_RUNAWAY_OVER_S * r->rate);
}

/* The swell: each ES_RUNAWAY_STEP_S window's level against the one before. */
static ES_RT int swelling(es_runaway *r, double energy, int frames)
{
    r->energy += energy;
    r->energy_frames += frames;
    if (r->energy_frames < (int)(ES_RUNAWAY_STEP_S * r->rate))
        return 0;
    const double db = 10 * log10(r->energy / r->energy_frames + 1e-30);
    r->rises = db >= r->last_db + ES_RUNAWAY_RISE_DB ? r->rises + 1 : 0;
    r->last_db = db;
    r->energy = 0;
    r->energy_frames = 0;
    return r->rises >= ES_RUNAWAY_RISES && db > ES_RUNAWAY_LOUD_DB;
}

ES_RT int es_runaway_watch(es_runaway *r, const float *const *out, int channels, int frames)
{
    if (r->tripped)
        return 0;
    float peak = 0;
    double energy = 0;
    for (int c = 0; c < channels; c++)
        for (int t = 0; t < frames; t++) {
            const float v = out[c][t], a = fabsf(v);
            if (!(a <= peak)) /* louder, or NaN (which compares false) */
                peak = a == a ? a : INFINITY;
            energy += (double)v * v;
        }
    r->frames[r->at] = frames;
    r->over[r->at] = peak > 1.0f;
    r->at = (r->at + 1) % ES_RUNAWAY_BLOCKS;
    const int swell = swelling(r, channels ? energy / channels : 0, frames);
    r->hard = !(peak <= ES_RUNAWAY_HARD);
    if (!sustained(r) && !swell && !r->hard)
        return 0;
    r->tripped = 1;
    r->swelled = swell && !r->hard && isfinite(peak);
    r->peak = peak;
    r->why = !isfinite(peak) ? "the output went non-finite"
             : r->hard       ? "the output went beyond +6 dBFS"
             : swell         ? "the output swelled by more than 8 dB in 0.4 s and went on rising"
                             : "the output stayed above full scale for 0.25 s";
    return 1;
}
