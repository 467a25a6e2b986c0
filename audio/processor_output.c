/* The processor's output guard (processor_stages.h): what keeps the sound
 * that leaves safe. The output is watched for a runaway before the
 * limiter (the limiter hides a loop in what leaves, not in what feeds
 * it), ramped down while muted, limited when asked, and scanned last:
 * nothing that is not a number leaves, whatever came before. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor_stages.h"

int es_output_guard_init(es_output_guard *og, const es_format *fmt, int offline, char *err,
                         size_t n)
{
    og->inputs = fmt->inputs;
    og->outputs = fmt->outputs;
    /* Live only: a file has no loop to run away in, and is rendered whole. */
    og->watch = !offline;
    og->mute_len = (int)(ES_MUTE_RAMP_MS * 1e-3 * fmt->sample_rate);
    og->unmute_len = (int)(ES_MIX_RAMP_MS * 1e-3 * fmt->sample_rate);
    og->unmute_len = og->unmute_len < 1 ? 1 : og->unmute_len;
    og->mute.now = og->mute.to = 1;
    es_runaway_init(&og->runaway, fmt->sample_rate);
    es_limiter_init(&og->limiter, fmt->sample_rate);
    og->mute_gains = malloc((size_t)fmt->max_block * sizeof(float));
    if (!og->mute_gains) {
        snprintf(err, n, "out of memory for the processor");
        return -1;
    }
    return 0;
}

void es_output_guard_free(es_output_guard *og)
{
    free(og->mute_gains);
    *og = (es_output_guard){0};
}

ES_RT void es_output_guard_level(es_output_guard *og, const es_mix *mix)
{
    og->limit = mix->limiter;
    og->limiter.ceiling = mix->limiter ? (float)es_db_to_gain(mix->ceiling_db) : INFINITY;
}

ES_RT void es_output_guard_mute(es_output_guard *og, es_mute_why why, const char *words)
{
    og->muted = why;
    og->why = words;
    es_ramp_to(&og->mute, 0.0f, og->mute_len);
}

ES_RT void es_output_guard_unmute(es_output_guard *og)
{
    og->muted = ES_MUTE_NONE;
    og->why = NULL;
    es_ramp_to(&og->mute, 1.0f, og->unmute_len);
    es_runaway_reset(&og->runaway);
}

ES_RT int es_output_guard_transparent(const es_output_guard *og)
{
    return !og->limit && og->limiter.cut == 0.0f && es_ramp_at(&og->mute, 1.0f);
}

/* A runaway this block mutes the output, counted with what it saw; 1 when
 * it was beyond +6 dBFS: the block is silenced whole, no ramp. */
static ES_RT int runaway(es_output_guard *og, const float *const *in, float *const *out,
                         int frames, es_stats *st)
{
    if (og->muted || !og->watch ||
        !es_runaway_watch(&og->runaway, (const float *const *)out, og->outputs, frames))
        return 0;
    es_output_guard_mute(og, ES_MUTE_MUTED, og->runaway.why);
    st->runaways++;
    st->runaway_peak = og->runaway.peak;
    st->runaway_swelled = og->runaway.swelled;
    float in_peak = 0;
    for (int i = 0; i < og->inputs; i++)
        for (int t = 0; t < frames; t++)
            in_peak = fmaxf(in_peak, fabsf(in[i][t]));
    st->runaway_in_peak = in_peak;
    if (!og->runaway.hard)
        return 0;
    og->mute = (es_ramp){.now = 0.0f, .to = 0.0f}; /* silent from this block on */
    for (int o = 0; o < og->outputs; o++)
        memset(out[o], 0, (size_t)frames * sizeof(float));
    return 1;
}

/* Ramps the output down while muted (and up again after). */
static ES_RT void ramp_mute(es_output_guard *og, float *const *out, int frames)
{
    if (es_ramp_at(&og->mute, 1.0f))
        return;
    es_ramp_run(&og->mute, og->mute_gains, frames);
    for (int o = 0; o < og->outputs; o++)
        for (int t = 0; t < frames; t++)
            out[o][t] *= og->mute_gains[t];
}

ES_RT uint64_t es_output_guard_run(es_output_guard *og, const float *const *in,
                                   float *const *out, int frames, es_stats *st)
{
    if (!runaway(og, in, out, frames, st))
        ramp_mute(og, out, frames);
    return es_limiter_run(&og->limiter, og->limit, out, og->outputs, frames);
}

ES_RT int es_output_guard_scan(es_output_guard *og, float *const *out, int frames,
                               int engine_check, uint64_t *clipped, es_stats *st)
{
    *clipped = 0;
    for (int o = 0; o < og->outputs; o++) {
        uint32_t over;
        if (engine_check) {
            if (!es_scan_within(out[o], frames, ES_ENGINE_OUT_MAX, &over)) {
                *clipped = 0;
                return 0;
            }
        } else if (!es_scan_output(out[o], frames, &over)) {
            st->bad_output += es_sanitize(out[o], frames, FLT_MAX);
            over = es_count_clipped(out[o], frames);
        }
        *clipped += over;
    }
    return 1;
}

ES_RT void es_output_guard_report(const es_output_guard *og, es_stats *st)
{
    st->muted = og->muted;
    st->mute_why = og->why;
}
