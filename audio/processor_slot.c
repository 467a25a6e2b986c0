/* The processor's engine slots (processor_private.h): an engine put in a
 * slot, run into the slot's output (lent by the engine, or delayed up to
 * the processor's latency), checked, its lateness and helpers' time taken,
 * and a primed engine's ringing: adopted, awaited, added, let go. All on
 * the audio thread, real-time safe. */
#include <string.h>

#include "history.h"
#include "processor_private.h"

/* Puts an engine in a slot, with a silent delay line. Real-time safe. */
ES_RT void es_slot_load(es_processor *p, slot *s, es_engine *e)
{
    s->engine = e;
    s->comp = p->latency - es_engine_latency(e);
    s->delay_write = 0;
    for (int o = 0; o < p->fmt.outputs; o++)
        memset(s->delay[o], 0, p->delay_size * sizeof(float));
    es_engine_status st;
    es_engine_get_status(e, &st);
    s->late_seen = st.late_results;
    s->helpers_seen = st.helpers_cpu_ns;
    s->broken = 0;
    s->freewheel = 0; /* an engine starts live */
}

/* The slot lets go of its ringing: the builder may free it. */
ES_RT void es_slot_release_ringing(es_processor *p, slot *s)
{
    if (!s->ringing)
        return;
    s->ringing = NULL;
    es_history_hold(p->history, (int)(s - p->slots), 0);
}

/* A primed engine starts hearing the input with this block: held out of
 * the mix until its ringing is there. */
ES_RT void es_slot_adopt(es_processor *p, slot *in, const command *c)
{
    in->ringing = c->ringing && p->history ? c->ringing : NULL;
    in->ringing_frames = c->ringing_frames;
    in->ringing_pos = 0;
    in->ticket = c->ticket;
    p->held = in->ringing != NULL;
    p->held_frames = 0;
    if (!in->ringing)
        return;
    es_history_hold(p->history, (int)(in - p->slots), c->ticket);
    es_history_adopted(p->history, c->ticket, es_history_heard(p->history));
}

/* A held engine plays once its ringing is there, or without it when the
 * builder could not, or did not within hold_max (counted). */
ES_RT void es_slot_await_ringing(es_processor *p, int frames)
{
    if (!p->held)
        return;
    slot *in = &p->slots[1 - p->active];
    const int primed = in->ringing ? es_history_primed(p->history, in->ticket) : -1;
    if (primed == 0 && (p->held_frames += frames) < p->hold_max)
        return;
    p->held = 0;
    if (primed == 1) {
        p->acc.primed++;
        return;
    }
    p->acc.prime_late += primed == 0;
    p->fade_linear = 0; /* an empty engine against a full one: equal power */
    es_slot_release_ringing(p, in);
}

/* Adds the slot's ringing to its output, while there is some; its
 * position moves from its first block on, also while it is held. */
ES_RT void es_slot_ring(es_processor *p, slot *s, int frames)
{
    if (!s->ringing)
        return;
    const int held = p->held && s == &p->slots[1 - p->active];
    const int from = s->ringing_pos;
    const int count = from + frames <= s->ringing_frames ? frames : s->ringing_frames - from;
    for (int o = 0; !held && o < p->fmt.outputs; o++)
        for (int t = 0; t < count; t++)
            s->wet[o][t] += s->ringing[o][from + t];
    s->ringing_pos += frames;
    if (s->ringing_pos >= s->ringing_frames && !held)
        es_slot_release_ringing(p, s);
}

/* An engine whose output is not finite (or absurd) is silenced from then
 * on: its history holds the fault for as long as its room. The active
 * one's state goes to the control side, which builds it again. */
ES_RT void es_slot_check(es_processor *p, slot *s, int frames)
{
    for (int o = 0; o < p->fmt.outputs && !s->broken; o++)
        s->broken = !es_all_within(s->wet[o], frames, ENGINE_OUT_MAX);
    if (!s->broken)
        return;
    for (int o = 0; o < p->fmt.outputs; o++)
        memset(s->wet[o], 0, (size_t)frames * sizeof(float));
    p->acc.engine_bad++;
}

/* Runs a slot's engine into slot->wet, delayed by slot->comp. With no
 * delay to add, the engine may lend its own memory (a GPU engine's mapped
 * staging): the mix reads the outputs where they were made, with no copy
 * between. */
static ES_RT void follow_freewheel(es_processor *p, slot *s)
{
    if (s->freewheel != p->freewheel) {
        es_engine_freewheel(s->engine, p->freewheel);
        s->freewheel = p->freewheel;
    }
}

ES_RT void es_slot_run_into(es_processor *p, slot *s, const float *const *in,
                            float *const *out, int frames)
{
    follow_freewheel(p, s);
    es_engine_process(s->engine, in, out, frames);
    for (int o = 0; o < p->fmt.outputs; o++)
        s->wet[o] = out[o];
}

ES_RT void es_slot_run(es_processor *p, slot *s, const float *const *in, int frames)
{
    follow_freewheel(p, s);
    if (!s->comp) {
        es_engine_process_views(s->engine, in, s->wet_own, s->wet, p->fmt.outputs, frames);
        return;
    }
    es_engine_process(s->engine, in, p->scratch, frames);
    const size_t mask = p->delay_size - 1;
    for (int o = 0; o < p->fmt.outputs; o++) {
        float *ring = s->delay[o];
        for (int t = 0; t < frames; t++)
            ring[(s->delay_write + (size_t)t) & mask] = p->scratch[o][t];
        const size_t from = s->delay_write + p->delay_size - (size_t)s->comp;
        s->wet[o] = s->wet_own[o];
        for (int t = 0; t < frames; t++)
            s->wet[o][t] = ring[(from + (size_t)t) & mask];
    }
    s->delay_write = (s->delay_write + (size_t)frames) & mask;
}

/* The slot's engine's late results since the last block; its helpers'
 * CPU time since then is added to *helpers_us, its GPU time put in
 * *device_us. */
ES_RT uint64_t es_slot_new_late(es_processor *p, slot *s, double *device_us, double *helpers_us)
{
    es_engine_status st;
    es_engine_get_status(s->engine, &st);
    /* The active engine's failure goes to the control side, which falls
     * back; its message is copied once, when it first shows. */
    if (s == &p->slots[p->active] && st.failed && !p->acc.engine_failed) {
        p->acc.engine_failed = 1;
        memcpy(p->acc.engine_error, st.message, sizeof p->acc.engine_error);
    }
    if (s == &p->slots[p->active]) {
        p->acc.shards = st.gpu.shards;
        memcpy(p->acc.shard, st.gpu.shard, sizeof(es_shard_status) * (size_t)st.gpu.shards);
    }
    uint64_t late = st.late_results - s->late_seen;
    s->late_seen = st.late_results;
    *helpers_us += 1e-3 * (double)(st.helpers_cpu_ns - s->helpers_seen);
    s->helpers_seen = st.helpers_cpu_ns;
    if (st.gpu.us > 0)
        *device_us = st.gpu.us;
    return late;
}
