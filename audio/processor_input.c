/* The processor's input guard (processor_stages.h): the input as the
 * engines and the dry path may take it. Samples that are no signal are
 * silenced before any engine hears them, the trim applied (held at
 * silence while a room is measured), and the result kept in the history
 * a primed swap's builder reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "processor_stages.h"

int es_input_guard_init(es_input_guard *g, const es_format *fmt, int history_frames,
                        int wait_frames, char *err, size_t n)
{
    g->inputs = fmt->inputs;
    g->ramp_len = (int)(ES_MIX_RAMP_MS * 1e-3 * fmt->sample_rate);
    g->ramp_len = g->ramp_len < 1 ? 1 : g->ramp_len;
    g->trim.now = g->trim.to = 1;
    if (history_frames > 0 &&
        !(g->history = es_history_create(fmt->inputs, history_frames + wait_frames,
                                         fmt->max_block))) {
        snprintf(err, n, "out of memory for %.1f s of input history",
                 history_frames / fmt->sample_rate);
        return -1;
    }
    g->clean = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    g->trimmed = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    g->trim_gains = malloc((size_t)fmt->max_block * sizeof(float));
    if (!g->clean || !g->trimmed || !g->trim_gains) {
        snprintf(err, n, "out of memory for the processor");
        return -1;
    }
    return 0;
}

void es_input_guard_free(es_input_guard *g)
{
    es_free_channels(g->clean, g->inputs);
    es_free_channels(g->trimmed, g->inputs);
    free(g->trim_gains);
    if (g->history) { /* a priming under way finds the processor gone */
        es_history_writer_gone(g->history);
        es_history_unref(g->history);
    }
    *g = (es_input_guard){0};
}

ES_RT void es_input_guard_level(es_input_guard *g, double trim_db, int ramped)
{
    es_ramp_to(&g->trim, g->held ? 0.0f : (float)es_db_to_gain(trim_db),
               ramped ? g->ramp_len : 0);
}

ES_RT void es_input_guard_hold(es_input_guard *g, int hold, double trim_db)
{
    g->held = hold;
    es_input_guard_level(g, trim_db, 1);
}

/* Any channel holding a sample that is not finite or beyond ES_INPUT_MAX
 * is copied with those samples silenced (counted). Most blocks are passed
 * as they are, checked in one vectorised pass. */
static ES_RT const float *const *sanitised(es_input_guard *g, const float *const *in,
                                           int frames, es_stats *st)
{
    int all_good = 1;
    for (int i = 0; i < g->inputs; i++)
        all_good &= es_all_within(in[i], frames, ES_INPUT_MAX);
    if (all_good)
        return in;
    for (int i = 0; i < g->inputs; i++) {
        memcpy(g->clean[i], in[i], (size_t)frames * sizeof(float));
        st->bad_input += es_sanitize(g->clean[i], frames, ES_INPUT_MAX);
    }
    return (const float *const *)g->clean;
}

ES_RT const float *const *es_input_guard_run(es_input_guard *g, const float *const *in,
                                             int frames, es_stats *st)
{
    /* At unity (no ramp in this block) the input goes on as it is. */
    const int unity = es_ramp_at(&g->trim, 1.0f);
    if (!unity)
        es_ramp_run(&g->trim, g->trim_gains, frames);
    const float *const *x = sanitised(g, in, frames, st);
    if (!unity && (g->trim_gains[0] != 1.0f || g->trim_gains[frames - 1] != 1.0f)) {
        for (int i = 0; i < g->inputs; i++)
            for (int t = 0; t < frames; t++)
                g->trimmed[i][t] = x[i][t] * g->trim_gains[t];
        x = (const float *const *)g->trimmed;
    }
    if (g->history)
        es_history_write(g->history, x, frames);
    return x;
}

ES_RT void es_input_guard_forget(es_input_guard *g)
{
    if (g->history)
        es_history_forget(g->history);
}
