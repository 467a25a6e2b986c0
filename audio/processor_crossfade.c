/* The processor's crossfade (processor_stages.h): the engine that plays
 * and, during a swap, the one coming in, in two slots (processor_slot.c).
 * What it is doing is one state that moves only through the table below;
 * the gains each state plays the two engines at are es_crossfade_wet's. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "history.h"
#include "processor_stages.h"

#define ES_HALF_PI 1.57079632679489661923

/* A cell holds the next state + 1; a cell left out (0) is an event that
 * cannot happen in that state. */
#define TO(state) ((state) + 1)

static const signed char next[ES_XFADE_STATES][ES_XFADE_EVENTS] = {
    [ES_XFADE_STEADY] = {[ES_XFADE_SWAP] = TO(ES_XFADE_FADING),
                         [ES_XFADE_SWAP_PRIMED] = TO(ES_XFADE_HELD)},
    [ES_XFADE_HELD] = {[ES_XFADE_RINGING] = TO(ES_XFADE_FADING),
                       [ES_XFADE_GAVE_UP] = TO(ES_XFADE_FADING)},
    [ES_XFADE_FADING] = {[ES_XFADE_FADED] = TO(ES_XFADE_STEADY)},
};

int es_xfade_allows(es_xfade_state s, es_xfade_event ev)
{
    return (int)s >= 0 && s < ES_XFADE_STATES && (int)ev >= 0 && ev < ES_XFADE_EVENTS &&
           next[s][ev] != 0;
}

es_xfade_state es_xfade_next(es_xfade_state s, es_xfade_event ev)
{
    return es_xfade_allows(s, ev) ? (es_xfade_state)(next[s][ev] - 1) : s;
}

const char *es_xfade_state_name(es_xfade_state s)
{
    static const char *const names[ES_XFADE_STATES] = {"STEADY", "HELD", "FADING"};
    return (int)s >= 0 && s < ES_XFADE_STATES ? names[s] : "?";
}

const char *es_xfade_event_name(es_xfade_event ev)
{
    static const char *const names[ES_XFADE_EVENTS] = {"SWAP", "SWAP_PRIMED", "RINGING",
                                                       "GAVE_UP", "FADED"};
    return (int)ev >= 0 && ev < ES_XFADE_EVENTS ? names[ev] : "?";
}

/* Every move of the state is one of the table's. */
static ES_RT void fire(es_crossfade *x, es_xfade_event ev)
{
    assert(es_xfade_allows(x->state, ev));
    x->state = es_xfade_next(x->state, ev);
}

static es_slot *playing(es_crossfade *x)
{
    return &x->slots[x->active];
}

static es_slot *incoming(es_crossfade *x)
{
    return &x->slots[1 - x->active];
}

int es_crossfade_init(es_crossfade *x, const es_format *fmt, int latency, int fade_len,
                      int hold_max, es_history *history, es_spsc_ring *retired, char *err,
                      size_t n)
{
    x->outputs = fmt->outputs;
    x->latency = latency;
    x->len = fade_len;
    x->hold_max = hold_max;
    x->history = history;
    x->retired = retired;
    x->delay_size = es_delay_frames(latency, fmt->max_block);
    x->fade = malloc(((size_t)fade_len + 1) * sizeof(float));
    x->scratch = es_alloc_channels(fmt->outputs, (size_t)fmt->max_block);
    int ok = x->fade && x->scratch;
    for (int s = 0; ok && s < 2; s++) {
        es_slot *slot = &x->slots[s];
        ok = (slot->delay = es_alloc_channels(fmt->outputs, x->delay_size)) &&
             (slot->wet_own = es_alloc_channels(fmt->outputs, (size_t)fmt->max_block)) &&
             (slot->wet = calloc((size_t)fmt->outputs, sizeof(float *)));
        for (int o = 0; ok && o < fmt->outputs; o++)
            slot->wet[o] = slot->wet_own[o];
    }
    if (!ok) {
        snprintf(err, n, "out of memory for the processor");
        return -1;
    }
    for (int k = 0; k <= fade_len; k++)
        x->fade[k] = (float)sin(ES_HALF_PI * k / fade_len);
    return 0;
}

void es_crossfade_free(es_crossfade *x)
{
    for (int s = 0; s < 2; s++) {
        es_engine_destroy(x->slots[s].engine);
        es_free_channels(x->slots[s].delay, x->outputs);
        es_free_channels(x->slots[s].wet_own, x->outputs);
        free(x->slots[s].wet);
    }
    es_free_channels(x->scratch, x->outputs);
    free(x->fade);
    *x = (es_crossfade){0};
}

void es_crossfade_load_first(es_crossfade *x, es_engine *e, int ab)
{
    es_slot_load(x, &x->slots[0], e);
    x->slots[0].ab = ab >= 0 && ab < ES_AB_SLOTS ? ab : 0;
}

ES_RT int es_crossfade_steady(const es_crossfade *x)
{
    return x->state == ES_XFADE_STEADY;
}

ES_RT void es_crossfade_start(es_crossfade *x, es_engine *e, const es_swap_how *how,
                              uint64_t ticket)
{
    es_slot *in = incoming(x);
    es_slot_load(x, in, e);
    in->ab = how->ab >= 0 ? how->ab : playing(x)->ab;
    in->restart = how->restart;
    x->pos = 0;
    x->linear = how->same_filter;
    /* A primed engine waits, out of the mix, until its ringing is there. */
    in->ringing = how->ringing && x->history ? how->ringing : NULL;
    in->ringing_frames = how->ringing_frames;
    in->ringing_pos = 0;
    in->ticket = ticket;
    x->held_frames = 0;
    fire(x, in->ringing ? ES_XFADE_SWAP_PRIMED : ES_XFADE_SWAP);
    if (!in->ringing)
        return;
    es_history_hold(x->history, 1 - x->active, ticket);
    es_history_adopted(x->history, ticket, es_history_heard(x->history));
}

ES_RT void es_crossfade_await(es_crossfade *x, int frames, es_stats *st)
{
    if (x->state != ES_XFADE_HELD)
        return;
    es_slot *in = incoming(x);
    const int primed = es_history_primed(x->history, in->ticket);
    if (primed == 0 && (x->held_frames += frames) < x->hold_max)
        return;
    if (primed == 1) {
        st->primed++;
        fire(x, ES_XFADE_RINGING);
        return;
    }
    st->prime_late += primed == 0;
    x->linear = 0; /* an empty engine against a full one: equal power */
    es_slot_release_ringing(x, in);
    fire(x, ES_XFADE_GAVE_UP);
}

ES_RT void es_crossfade_run(es_crossfade *x, const float *const *in, float *const *direct_out,
                            int frames, int check_playing, int freewheel, es_engines_ran *ran,
                            es_stats *st)
{
    es_slot *a = playing(x), *b = incoming(x);
    if (direct_out)
        es_slot_run_into(x, a, in, direct_out, frames, freewheel);
    else
        es_slot_run(x, a, in, frames, freewheel);
    es_slot_ring(x, a, frames);
    if (check_playing)
        es_slot_check(x, a, frames, st);
    ran->late += es_slot_new_late(x, a, &ran->gpu_us, &ran->helpers_us, st);
    if (ran->gpu_us > 0)
        st->device_us = ran->gpu_us;
    if (x->state == ES_XFADE_STEADY)
        return;
    es_slot_run(x, b, in, frames, freewheel);
    es_slot_ring(x, b, frames);
    es_slot_check(x, b, frames, st);
    ran->late += es_slot_new_late(x, b, &st->device_us, &ran->helpers_us, st);
}

ES_RT const float *const *es_crossfade_wet(es_crossfade *x, float *const *out, int frames)
{
    const es_slot *a = playing(x), *b = incoming(x);
    if (x->state == ES_XFADE_STEADY)
        return (const float *const *)a->wet;
    for (int o = 0; o < x->outputs; o++) {
        const float *wa = a->wet[o], *wb = b->wet[o];
        float *w = out[o];
        for (int t = 0; t < frames; t++) {
            /* A held engine runs beside the mix, at 0. */
            int k = x->state == ES_XFADE_HELD ? 0 : x->pos + t;
            k = k < x->len ? k : x->len;
            const float in_gain = x->linear ? (float)k / (float)x->len : x->fade[k];
            const float out_gain = x->linear ? 1.0f - in_gain : x->fade[x->len - k];
            w[t] = wa[t] * out_gain + wb[t] * in_gain;
        }
    }
    return (const float *const *)out;
}

ES_RT void es_crossfade_check_playing(es_crossfade *x, int frames, es_stats *st)
{
    es_slot_check(x, playing(x), frames, st);
}

/* The fade's end: the old engine to the retired ring, the new one plays
 * alone (its A/B slot's statistics started again when its swap asked). */
static ES_RT int finish(es_crossfade *x, es_stats *st)
{
    es_slot *old = playing(x);
    if (!es_spsc_push(x->retired, &old->engine)) {
        /* Unreachable: es_processor_swap keeps the uncollected swaps, and
         * so the retired engines, within the ring. Were it full, the fade
         * would stay at its end (the old engine running, silent in the
         * mix) and the push be tried again next block: nothing is dropped
         * or freed here. */
        x->pos = x->len;
        return 0;
    }
    old->engine = NULL;
    es_slot_release_ringing(x, old);
    x->active = 1 - x->active;
    fire(x, ES_XFADE_FADED);
    es_slot *now = playing(x);
    if (now->restart) {
        es_ab_stats *a = &st->ab[now->ab];
        const uint64_t restarts = a->restarts + 1;
        memset(a, 0, sizeof *a);
        a->restarts = restarts;
        now->restart = 0;
    }
    st->swaps++;
    st->engine = now->engine->klass->name;
    st->engine_failed = 0;
    return 1;
}

ES_RT int es_crossfade_advance(es_crossfade *x, int frames, es_stats *st)
{
    if (x->state != ES_XFADE_FADING || (x->pos += frames) < x->len)
        return 0;
    return finish(x, st);
}

ES_RT void es_crossfade_report(const es_crossfade *x, es_stats *st)
{
    const es_slot *a = &x->slots[x->active];
    st->ab_playing = x->state == ES_XFADE_STEADY ? a->ab : -1;
    st->crossfading = x->state != ES_XFADE_STEADY;
    st->engine_broken = a->broken;
}

ES_RT es_engine *es_crossfade_playing(const es_crossfade *x)
{
    return x->slots[x->active].engine;
}

ES_RT es_engine *es_crossfade_incoming(const es_crossfade *x)
{
    return x->state == ES_XFADE_STEADY ? NULL : x->slots[1 - x->active].engine;
}

ES_RT int es_crossfade_playing_ab(const es_crossfade *x)
{
    return x->slots[x->active].ab;
}

ES_RT int es_crossfade_can_write_output(const es_crossfade *x)
{
    const es_slot *a = &x->slots[x->active];
    return !a->comp && !a->ringing;
}

ES_RT int es_crossfade_playing_sound(const es_crossfade *x)
{
    return !x->slots[x->active].broken;
}
