/* A/B: two fixed slots, each holding a room, an engine with its options,
 * and a block, so that rooms can be compared as readily as engines. The
 * slot playing takes every change; switching plays the other one through
 * the same preparer and crossfade as any change.
 *
 * Statistics: the processor counts each slot's blocks apart (only those
 * its engine played alone, see es_ab_stats) and starts a slot's count
 * again when a swap asks it to. A stream that reopens (another block, a
 * source) is a new processor: what the old one counted is carried here. */
#include <stdio.h>
#include <string.h>

#include "session_private.h"

static const char slot_letter[ES_AB_SLOTS] = {'A', 'B'};

void es_session_slots_init(es_session *s)
{
    s->ab[ES_SLOT_A].set = 1;
    snprintf(s->ab[ES_SLOT_A].room, sizeof s->ab[ES_SLOT_A].room, "%s", s->room);
    s->ab[ES_SLOT_A].engine = s->cfg.engine;
    s->ab[ES_SLOT_A].options = s->cfg.options;
    s->ab[ES_SLOT_A].block = s->cfg.block;
    s->ab[ES_SLOT_A].latency = es_player_latency(s->player);
    s->ab_active = ES_SLOT_A;
    s->target.ab = ES_SLOT_A;
    s->xruns_base = es_player_xruns(s->player);
}

/* 1 when the change makes slot q->ab hold something else. */
static int restarts(const es_session *s, const es_prep_request *q)
{
    const es_slot_state *a = &s->ab[q->ab];
    return !a->set || strcmp(a->room, q->room) != 0 || a->engine != q->engine ||
           memcmp(&a->options, &q->options, sizeof a->options) != 0 || a->block != q->block;
}

int es_session_slot_restarts(const es_session *s, const es_prep_request *q)
{
    return restarts(s, q);
}

void es_session_slot_played(es_session *s, const es_prep_request *q, int restart)
{
    es_slot_state *a = &s->ab[q->ab];
    if (restart) { /* said with the change (say_done) */
        memset(&a->carried, 0, sizeof a->carried);
        a->generation++;
    }
    a->set = 1;
    snprintf(a->room, sizeof a->room, "%s", q->room);
    a->engine = q->engine;
    a->options = q->options;
    a->block = q->block;
    a->latency = es_player_latency(s->player);
    s->ab_active = q->ab;
}

void es_session_slots_carry(es_session *s, const es_stats *old, int restart_ab)
{
    for (int k = 0; k < ES_AB_SLOTS; k++)
        if (k != restart_ab)
            es_ab_stats_add(&s->ab[k].carried, &old->ab[k]);
}

void es_session_slots_reset(es_session *s)
{
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        memset(&s->ab[k].carried, 0, sizeof s->ab[k].carried);
        s->ab[k].generation++;
    }
    s->xruns_base = es_player_xruns(s->player);
    es_player_stalls_reset(s->player);
}

int es_session_switch_slot(es_session *s, int slot)
{
    if (slot < 0 || slot >= ES_AB_SLOTS) {
        es_session_sayf(s, 1, "slot %d: there are slots A and B", slot);
        return -1;
    }
    char what[64];
    snprintf(what, sizeof what, "slot %c", slot_letter[slot]);
    if (!s->preparer) {
        es_session_sayf(s, 1, "%s: the session has stopped", what);
        return -1;
    }
    if (slot == s->target.ab) {
        es_session_sayf(s, 0, "slot %c is playing already", slot_letter[slot]);
        return 0;
    }
    es_prep_request *t = &s->target;
    const es_slot_state *a = &s->ab[slot];
    if (a->set) {
        snprintf(t->room, sizeof t->room, "%s", a->room);
        t->engine = a->engine;
        t->options = a->options;
        t->block = a->block;
    } else {
        /* An empty slot starts as what the other one holds. */
        es_session_sayf(s, 0, "slot %c was empty: it starts as a copy of %c (%s on %s); "
                        "change its room or engine to compare", slot_letter[slot],
                        slot_letter[t->ab], t->engine->name, t->room);
    }
    t->ab = slot;
    es_session_submit(s, what, 0);
    return 0;
}

int es_session_active_slot(const es_session *s)
{
    return s->target.ab;
}

void es_session_slot_info(es_session *s, int slot, const es_stats *now, es_session_slot *out)
{
    memset(out, 0, sizeof *out);
    if (slot < 0 || slot >= ES_AB_SLOTS)
        return;
    const es_slot_state *a = &s->ab[slot];
    if (slot == s->ab_active && s->player)
        s->ab[slot].latency = es_player_latency(s->player);
    *out = (es_session_slot){.set = a->set, .room = a->room, .engine = a->engine,
                             .options = a->options, .block = a->block, .latency = a->latency,
                             .generation = a->generation, .stats = a->carried};
    es_stats taken;
    if (!now) {
        es_processor_stats(es_player_processor(s->player), &taken);
        now = &taken;
    }
    es_ab_stats_add(&out->stats, &now->ab[slot]);
    out->stats.restarts = now->ab[slot].restarts;
}

int es_session_stalls(const es_session *s, es_stall_stats *out)
{
    return es_player_stalls(s->player, out);
}

uint64_t es_session_xruns(const es_session *s)
{
    const uint64_t now = es_player_xruns(s->player);
    return now >= s->xruns_base ? now - s->xruns_base : now;
}
