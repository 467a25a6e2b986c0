/* The crossfade's engine slots (processor_stages.h): an engine put in a
 * slot, run into the slot's output (lent by the engine, or delayed up to
 * the processor's latency), checked, its lateness and helpers' time taken,
 * and a primed engine's ringing added and let go. All on the audio
 * thread, real-time safe. */
#include <string.h>

#include "history.h"
#include "processor_stages.h"

/* Puts an engine in a slot, with a silent delay line. Real-time safe. */
ES_RT void es_slot_load(es_crossfade *x, es_slot *s, es_engine *e)
{
    s->engine = e;
    s->comp = x->latency - es_engine_latency(e);
    s->delay_write = 0;
    for (int o = 0; o < x->outputs; o++)
        memset(s->delay[o], 0, x->delay_size * sizeof(float));
    es_engine_status st;
    es_engine_get_status(e, &st);
    s->late_seen = st.late_results;
    s->helpers_seen = st.helpers_cpu_ns;
    s->broken = 0;
    s->freewheel = 0; /* an engine starts live */
}

/* The slot lets go of its ringing: the builder may free it. */
ES_RT void es_slot_release_ringing(es_crossfade *x, es_slot *s)
{
    if (!s->ringing)
        return;
    s->ringing = NULL;
    es_history_hold(x->history, (int)(s - x->slots), 0);
}

/* Adds the slot's ringing to its output, while there is some; its
 * position moves from its first block on, also while it is held. */
ES_RT void es_slot_ring(es_crossfade *x, es_slot *s, int frames)
{
    if (!s->ringing)
        return;
    const int held = x->state == ES_XFADE_HELD && s == &x->slots[1 - x->active];
    const int from = s->ringing_pos;
    const int count = from + frames <= s->ringing_frames ? frames : s->ringing_frames - from;
    for (int o = 0; !held && o < x->outputs; o++)
        for (int t = 0; t < count; t++)
            s->wet[o][t] += s->ringing[o][from + t];
    s->ringing_pos += frames;
    if (s->ringing_pos >= s->ringing_frames && !held)
        es_slot_release_ringing(x, s);
}

/* An engine whose output is not finite (or absurd) is silenced from then
 * on: its history holds the fault for as long as its room. The active
 * one's state goes to the control side, which builds it again. */
ES_RT void es_slot_check(es_crossfade *x, es_slot *s, int frames, es_stats *st)
{
    for (int o = 0; o < x->outputs && !s->broken; o++)
        s->broken = !es_all_within(s->wet[o], frames, ES_ENGINE_OUT_MAX);
    if (!s->broken)
        return;
    for (int o = 0; o < x->outputs; o++)
        memset(s->wet[o], 0, (size_t)frames * sizeof(float));
    st->engine_bad++;
}

/* The engine runs as the host does: freewheeling (waiting for every
 * result) or live. */
static ES_RT void follow_freewheel(es_slot *s, int freewheel)
{
    if (s->freewheel != freewheel) {
        es_engine_freewheel(s->engine, freewheel);
        s->freewheel = freewheel;
    }
}

ES_RT void es_slot_run_into(es_crossfade *x, es_slot *s, const float *const *in,
                            float *const *out, int frames, int freewheel)
{
    follow_freewheel(s, freewheel);
    es_engine_process(s->engine, in, out, frames);
    for (int o = 0; o < x->outputs; o++)
        s->wet[o] = out[o];
}

/* With no delay to add, the engine may lend its own memory (a GPU
 * engine's mapped staging): the mix reads the outputs where they were
 * made, with no copy between. */
ES_RT void es_slot_run(es_crossfade *x, es_slot *s, const float *const *in, int frames,
                       int freewheel)
{
    follow_freewheel(s, freewheel);
    if (!s->comp) {
        es_engine_process_views(s->engine, in, s->wet_own, s->wet, x->outputs, frames);
        return;
    }
    es_engine_process(s->engine, in, x->scratch, frames);
    const size_t mask = x->delay_size - 1;
    for (int o = 0; o < x->outputs; o++) {
        float *ring = s->delay[o];
        for (int t = 0; t < frames; t++)
            ring[(s->delay_write + (size_t)t) & mask] = x->scratch[o][t];
        const size_t from = s->delay_write + x->delay_size - (size_t)s->comp;
        s->wet[o] = s->wet_own[o];
        for (int t = 0; t < frames; t++)
            s->wet[o][t] = ring[(from + (size_t)t) & mask];
    }
    s->delay_write = (s->delay_write + (size_t)frames) & mask;
}

/* The slot's engine's late results since the last block; its helpers'
 * CPU time since then is added to *helpers_us, its GPU time put in
 * *device_us. */
ES_RT uint64_t es_slot_new_late(es_crossfade *x, es_slot *s, double *device_us,
                                double *helpers_us, es_stats *st)
{
    es_engine_status e;
    es_engine_get_status(s->engine, &e);
    /* The active engine's failure goes to the control side, which falls
     * back; its message is copied once, when it first shows. */
    if (s == &x->slots[x->active] && e.failed && !st->engine_failed) {
        st->engine_failed = 1;
        memcpy(st->engine_error, e.message, sizeof st->engine_error);
    }
    if (s == &x->slots[x->active]) {
        st->field_order = e.field_order;
        if (e.field_order >= 0) {
            st->field_yaw = e.field_yaw, st->field_pitch = e.field_pitch;
            st->field_roll = e.field_roll, st->field_turns = e.field_turns;
            st->field_us_last = e.field_us;
            st->field_us_max = e.field_us > st->field_us_max ? e.field_us : st->field_us_max;
            st->field_us_sum += e.field_us;
            st->field_blocks++;
        }
        st->shards = e.gpu.shards;
        memcpy(st->shard, e.gpu.shard, sizeof(es_shard_status) * (size_t)e.gpu.shards);
    }
    uint64_t late = e.late_results - s->late_seen;
    s->late_seen = e.late_results;
    *helpers_us += 1e-3 * (double)(e.helpers_cpu_ns - s->helpers_seen);
    s->helpers_seen = e.helpers_cpu_ns;
    if (e.gpu.us > 0)
        *device_us = e.gpu.us;
    return late;
}
