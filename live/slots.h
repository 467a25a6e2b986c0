/* A/B (internal to live/): two fixed slots, each holding a play spec (a
 * room, an engine with its options, a block), so that rooms can be
 * compared as readily as engines. The slot playing takes every change;
 * switching plays the other one through the same preparer and crossfade as
 * any change.
 *
 * Statistics: the processor counts each slot's blocks apart (only those
 * its engine played alone, see es_ab_stats) and starts a slot's count
 * again when a swap asks it to. A stream that reopens (another block, a
 * source) is a new processor: what the old one counted is carried here. */
#ifndef ES_SLOTS_H
#define ES_SLOTS_H

#include <stdint.h>

#include "play_spec.h"
#include "snapshot.h"

typedef struct {
    int set;                   /* B is empty until it is given something */
    int played;                /* it has played in this session */
    es_play_spec spec;         /* its source is the stream's, not its own */
    int latency;               /* frames heard when it last played; -1 unknown */
    uint64_t generation;       /* counts restarts of its statistics */
    es_ab_stats carried;       /* counted by processors since let go of */
} es_slot;

typedef struct {
    es_slot ab[ES_AB_SLOTS];
    int playing;               /* the slot whose spec plays */
} es_slots;

/* A holds `a`; B holds `b` when not NULL (kept until it plays); slot
 * `playing` plays, with `latency` frames heard. */
void es_slots_init(es_slots *sl, const es_play_spec *a, const es_play_spec *b, int playing,
                   int latency);
/* 1 when `spec` in slot `slot` would hold another room, engine, options or
 * block than it does: its statistics start again. */
int es_slots_restarts(const es_slots *sl, int slot, const es_play_spec *spec);
/* A change for slot `slot` plays: it holds `spec` and is the one playing. */
void es_slots_played(es_slots *sl, int slot, const es_play_spec *spec, int restart,
                     int latency);
/* Slot `slot` (not the one playing) holds `spec` until it plays: a
 * listening test's stimulus, loaded beside the one heard. */
void es_slots_hold(es_slots *sl, int slot, const es_play_spec *spec);
/* The stream reopened: `old` is what its last processor counted, kept for
 * every slot but restart_slot (-1: none). */
void es_slots_carry(es_slots *sl, const es_stats *old, int restart_slot);
/* The meters were reset: every slot counts from zero. */
void es_slots_reset(es_slots *sl);
/* Slot `slot` as the snapshot shows it: its spec, and its statistics with
 * what the processor counts now (`now`). */
void es_slots_view(const es_slots *sl, int slot, const es_stats *now, es_live_slot *out);

#endif
