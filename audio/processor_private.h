/* What processor.c and processor_control.c share (internal to audio/):
 * the processor's state, the commands the control side queues for the
 * audio thread, and the engine slots. processor.c is the audio thread's
 * side and the processor's making; processor_control.c the control
 * side's calls (swaps, levels, the engines to collect, the statistics). */
#ifndef ES_PROCESSOR_PRIVATE_H
#define ES_PROCESSOR_PRIVATE_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/spsc_ring.h"
#include "limiter.h"
#include "processor.h"
#include "safety.h"

#define COMMANDS 64      /* queued commands; a UI sends a few per second */
#define RETIRED ES_PROCESSOR_SWAPS_MAX /* engines waiting to be destroyed */

enum { CMD_SWAP, CMD_MIX, CMD_RESET_STATS, CMD_MUTE, CMD_UNMUTE, CMD_HOLD };
/* An engine's output beyond this is broken (a room normalised to unit
 * energy turns ES_INPUT_MAX into far less): muted, and built again. */
#define ENGINE_OUT_MAX 1e9f
enum { G_TRIM, G_WET, G_DRY, G_GAIN, G_BYPASS, G_COUNT }; /* per-sample gain rows */

typedef struct {
    int kind;
    es_engine *engine;   /* CMD_SWAP */
    int ab, restart;     /* CMD_SWAP: its A/B slot (-1: the one playing) */
    int same_filter;     /* CMD_SWAP: a linear crossfade */
    float **ringing;     /* CMD_SWAP: primed (history.h), or NULL */
    int ringing_frames;
    uint64_t ticket;
    es_mix mix;          /* CMD_MIX */
    int panic;           /* CMD_MUTE */
    int hold;            /* CMD_HOLD */
} command;

/* An engine slot: the engine and the delay that brings its latency up to
 * the processor's. */
typedef struct {
    es_engine *engine;
    int comp;            /* frames of added delay */
    float **delay;       /* [outputs] ring of delay_size */
    size_t delay_write;
    uint64_t late_seen;  /* engine's late count already taken into stats */
    long long helpers_seen; /* its helpers' CPU time already taken, ns */
    float **wet_own;     /* [outputs] max_block: where the engine writes */
    float **wet;         /* [outputs] this block's output: wet_own, or
                          * what the engine lent (es_engine_process_views) */
    int ab;              /* the A/B slot whose statistics its blocks count in */
    int restart;         /* those statistics start again when it plays alone */
    int broken;          /* its output went non-finite: silence from it now */
    /* A primed engine: what the past still rings, added to its output
     * from its first frame on (history.h); NULL once played or none. */
    float **ringing;
    int ringing_frames, ringing_pos;
    uint64_t ticket;
    int freewheel;       /* what its engine was last told (es_engine_freewheel) */
} slot;

/* A gain that moves linearly to its target over `left` samples. */
typedef struct {
    float now, to, step;
    int left;
} ramp;

struct es_processor {
    /* The stall probe beside the stream, when the host runs one: a late
     * block while it was held up too is the machine's. */
    _Atomic(const es_stall_probe *) watch;
    es_format fmt;
    es_processor_config cfg;
    int latency;
    es_spsc_ring commands, retired;
    /* Swaps accepted and not yet collected: each is a queued engine, one
     * crossfading in, or an old engine in (or on its way to) the retired
     * ring. Kept at most RETIRED, so a retire always finds room. Written
     * by the control side only. */
    atomic_int uncollected;

    slot slots[2];
    int active;              /* index of the slot that plays */
    int fading;              /* slot 1 - active is fading in */
    int freewheel;           /* es_processor_freewheel: the host freewheels */
    int fade_pos, fade_len;  /* frames */
    float *fade;             /* fade_len + 1: sin(pi/2 * k / fade_len) */
    int fade_linear;         /* this crossfade is linear (the same filter) */
    /* The input kept for priming (history.h), and the incoming engine
     * held out of the mix until its ringing is there (at most hold_max
     * frames). */
    es_history *history;
    int held, held_frames, hold_max;
    size_t delay_size;       /* slot delay rings, power of two */

    es_mix mix;              /* the latest asked for */
    ramp r_trim, r_wet, r_dry, r_gain, r_bypass; /* linear gains on their way to `mix` */
    int ramp_len;            /* frames of a level ramp */
    float **g;               /* [G_COUNT] max_block: each gain, per sample */
    float **trimmed;         /* [inputs] max_block: the input after the trim */
    float **clean;           /* [inputs] max_block: the input made safe (safety.h) */
    ramp r_mute;             /* 1, or on its way to 0 while muted */
    int muted;               /* es_stats.muted: 0, 1 runaway, 2 panic */
    int input_held;          /* the input held at silence (es_processor_hold_input) */
    const char *mute_why;
    es_runaway runaway;      /* the feedback detector on the output */
    es_limiter limiter;      /* the safety limiter (limiter.c) */
    float **dry;             /* [inputs] ring of dry_size */
    size_t dry_size, dry_write;
    float **scratch;         /* [outputs] max_block: raw engine output */

    es_stats acc;            /* audio thread's own copy */
    long long cpu_at;        /* the thread's CPU time as the last block began, ns */
    int last_ab;             /* the A/B slot the last block counted in (-1 none) */
    atomic_uint seq;         /* seqlock around `shared`: odd while writing */
    es_stats shared;
    atomic_int pending_swaps;
    /* Filter sets (processor_sets.c): where requests come in; on the
     * audio thread, the one waiting for its switch. */
    es_set_requests own_requests;
    es_set_requests *requests; /* own_requests or the host's (es_processor_config) */
    uint64_t sent_before;      /* requests made before this processor */
    int set_waiting, set_wanted;
    uint64_t set_since_us;   /* arrival of the oldest request not yet heard */
    uint64_t set_switches_before;
    const es_engine *set_engine; /* the engine the waiting request went to */
};

/* ---- filter sets (processor_sets.c), audio thread ---- */

/* Before the slots run: the newest request, if any, to the engines. */
ES_RT void es_sets_take(es_processor *p);
/* After the block: whether the switch asked for is in it, and its
 * latency to `end_ns`. */
ES_RT void es_sets_heard(es_processor *p, long long end_ns);

/* 1 when engine e (made for format f) can play in this processor: the
 * same rate and channels, a block it takes, no more latency than the
 * processor has; else 0 and why in err. */
int es_processor_fits(const es_processor *p, const es_engine *e, const es_format *f, char *err,
                      size_t n);

/* ---- the slots (processor_slot.c), audio thread ---- */

/* Puts an engine in a slot, with a silent delay line. */
ES_RT void es_slot_load(es_processor *p, slot *s, es_engine *e);
/* A swap's engine starts hearing the input with this block, held out of
 * the mix until the ringing the command brings is there. */
ES_RT void es_slot_adopt(es_processor *p, slot *in, const command *c);
/* The held engine plays once its ringing is there (or late, counted). */
ES_RT void es_slot_await_ringing(es_processor *p, int frames);
/* The slot lets go of its ringing: the builder may free it. */
ES_RT void es_slot_release_ringing(es_processor *p, slot *s);
/* The slot's engine into s->wet: lent, or delayed by s->comp. */
ES_RT void es_slot_run(es_processor *p, slot *s, const float *const *in, int frames);
/* The slot's engine straight into `out` (s->wet then points there): for
 * a slot with no delay to add whose output is the block's output. */
ES_RT void es_slot_run_into(es_processor *p, slot *s, const float *const *in,
                            float *const *out, int frames);
/* Adds the slot's ringing to its output while there is some. */
ES_RT void es_slot_ring(es_processor *p, slot *s, int frames);
/* Silences a slot whose output went non-finite or absurd, for good. */
ES_RT void es_slot_check(es_processor *p, slot *s, int frames);
/* Late results since the last block; its helpers' CPU time added to
 * *helpers_us, its GPU time put in *device_us. */
ES_RT uint64_t es_slot_new_late(es_processor *p, slot *s, double *device_us,
                                double *helpers_us);

#endif
