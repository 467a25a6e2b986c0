/* The real-time processor: what runs inside the audio callback, and what
 * `earshot render` drives block by block from a file, so that a render
 * equals what live playback plays.
 *
 * Per block: apply queued commands, trim the input, run the active engine
 * (and, during a swap, the incoming one too, crossfaded with equal power),
 * delay the trimmed input by the processor's latency, mix wet/dry, apply gain,
 * crossfade to the dry input alone when bypassed, limit (when asked),
 * count clipped and limited samples, measure levels and time, publish
 * stats.
 *
 * Threads: es_processor_process() runs on the audio thread; everything else
 * on the control side, one thread at a time. They talk through two SPSC
 * rings: commands in, retired engines out (to be destroyed off the audio
 * thread, by es_processor_collect()).
 *
 * Back-pressure: the processor counts the engines it holds for swaps that
 * the control side has not collected yet (queued, crossfading in, or
 * retired and waiting). A swap that could overflow the retired ring is
 * refused, so the audio thread never has to keep, drop or free one. */
#ifndef ES_PROCESSOR_H
#define ES_PROCESSOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "history.h"
#include "stall_probe.h"
#include "stats.h"

typedef struct es_processor es_processor;

/* Uncollected swaps a processor holds at most (the retired ring's size):
 * one more is refused until es_processor_collect() makes room. */
#define ES_PROCESSOR_SWAPS_MAX 16

/* What a mix may hold: every value finite and within these. A mix outside
 * them is refused (es_processor_set_mix, es_processor_create). The levels a
 * person sets in dB (trim, wet, dry, gain, ceiling) have the dB limits; a
 * level of "off" (wet, dry, gain) is a gain of 0. */
#define ES_MIX_WET_MAX 4.0f    /* +12 dB */
#define ES_MIX_DRY_MAX 4.0f    /* +12 dB */
#define ES_MIX_GAIN_MAX 16.0f  /* about +24 dB */
#define ES_LEVEL_DB_MIN -60.0  /* wet, dry, gain in dB: below this, say off */
#define ES_WET_DB_MAX 12.0
#define ES_DRY_DB_MAX 12.0
#define ES_GAIN_DB_MAX 24.0
#define ES_TRIM_DB_MIN -24.0
#define ES_TRIM_DB_MAX 24.0
#define ES_CEILING_DB_MIN -24.0 /* the limiter's ceiling, dBFS */
#define ES_CEILING_DB_MAX 0.0
/* Level changes ramp linearly over this long, so none clicks; bypass
 * crossfades over the processor's crossfade time instead. */
#define ES_MIX_RAMP_MS 20.0
/* Where the limiter sits when a person listens live (play, the
 * workstation), unless asked otherwise: a render is left as it is. Written
 * as play's --limiter shows its default, so an integer: in arithmetic,
 * (double)ES_LIMITER_DEFAULT_DB. */
#define ES_LIMITER_DEFAULT_DB -1
/* The limiter's gain recovers with this time constant once a peak passed. */
#define ES_LIMITER_RELEASE_MS 150.0

/* The gain staging, in signal order: the input trim (what the engine and
 * the dry path see), wet and dry, the output gain, bypass, the limiter.
 * wet, dry and gain are linear (so `mix W D G` stays as it was); trim and
 * the ceiling are in dB, so that a zeroed struct is unity trim, no bypass
 * and no limiter. */
typedef struct {
    float wet;        /* linear gain of the convolved signal */
    float dry;        /* linear gain of the (trimmed, delayed) input */
    float gain;       /* linear output gain after the mix */
    float trim_db;    /* input trim, dB; 0 is unity */
    int bypass;       /* 1: the trimmed, delayed input alone (no wet, dry or gain) */
    int limiter;      /* 1: the safety limiter holds the output at ceiling_db */
    float ceiling_db; /* dBFS; checked even while the limiter is off */
} es_mix;

/* Where filter-set requests arrive (a head tracker's): one word that a
 * writer on any thread replaces, and the processor takes at each
 * callback; only the newest request counts. A host whose streams come and
 * go (a reopen) keeps one of these for all of them, so a tracker's thread
 * never holds a processor. */
typedef struct {
    atomic_uint_fast64_t word; /* set + 1 in the top 16 bits, arrival (us) below; 0 none */
    atomic_uint_fast64_t moved; /* the newest request's motion (us), written before word */
    atomic_uint_fast64_t sent; /* requests made */
    /* The head's orientation (es_orientation_pack; 0 none), for a field
     * room (ambisonic.h), which turns with it every block. */
    atomic_uint_fast64_t orientation;
} es_set_requests;

/* The head now at yaw, pitch and roll (degrees): a field room playing
 * turns to it from its next block. Lock-free; any thread. */
void es_set_request_orientation(es_set_requests *r, float yaw, float pitch, float roll);

/* Asks for filter set `set` (0..65534; others are ignored), which came in
 * at arrival_ns (es_now_ns): from it the filter-exchange latency runs,
 * and the motion-to-sound latency too (es_stats). Lock-free; any thread. */
void es_set_request(es_set_requests *r, int set, long long arrival_ns);
/* The same for a request asked at asked_ns (the filter exchange runs from
 * there) that answers a motion at moved_ns (es_now_ns's clock: a head
 * tracker's packet as the kernel stamped it, or a key; the
 * motion-to-sound latency runs from there). */
void es_set_request_moved(es_set_requests *r, int set, long long asked_ns, long long moved_ns);

typedef struct {
    es_mix mix;
    double crossfade_ms;  /* equal-power swap time; 0 means 50 ms */
    /* The largest engine latency a swap may bring; it is the processor's
     * latency, and an engine with less is delayed to match, so swapping
     * never moves the sound in time. Below the first engine's latency it
     * is raised to that. */
    int max_latency;
    int ab;  /* the A/B slot (0..ES_AB_SLOTS-1) the first engine plays for */
    int offline; /* 1: a render; no level meters are measured (nobody
                    reads them), the output is the same */
    /* Frames of input kept for priming the engines swaps bring
     * (history.h); 0: none, every swap starts its engine empty. A room
     * longer than this less the latency cannot be primed. */
    int history_frames;
    /* Filter-set requests from outside (NULL: the processor's own, for
     * es_processor_select_set); it must outlive the processor. */
    es_set_requests *set_requests;
} es_processor_config;

/* How long a primed swap's engine waits for its ringing (history.h),
 * running beside the one that plays, before it plays without it. */
#define ES_PRIME_WAIT_MS 2000.0

/* 1 when every value of `mix` is finite and within its limits above; else
 * 0, with what is wrong in err (one line) when err is not NULL. */
int es_mix_check(const es_mix *mix, char *err, size_t n);
/* A linear gain as a level: "off" for 0, else "%+.1f dB" (digits: decimals). */
void es_level_text(double linear, int digits, char *out, size_t n);
/* dB to a linear gain; -inf gives 0. */
double es_db_to_gain(double db);

/* Takes `take_engine` (destroyed with the processor, also when create
 * fails). fmt is the engine's format. Fails when cfg's mix does not
 * pass es_mix_check. */
es_processor *es_processor_create(const es_format *fmt, es_engine *take_engine,
                                  const es_processor_config *cfg, char *err, size_t n);
/* Destroys the engines it holds and any retired ones. Not while process()
 * may run. */
void es_processor_destroy(es_processor *p);

/* The stall probe running beside the stream (NULL: none): a block over
 * its budget while the probe was held up too counts as a machine stall.
 * Set before the probe may be stopped to NULL, while process() may run. */
void es_processor_watch(es_processor *p, const es_stall_probe *probe);

int es_processor_latency(const es_processor *p);
const es_format *es_processor_format(const es_processor *p);

/* Real-time safe; frames in 1..max_block. in has fmt.inputs channels, out
 * fmt.outputs; they may not alias. */
ES_RT void es_processor_process(es_processor *p, const float *const *in,
                                float *const *out, int frames);

/* The host freewheels (1: ES_FREEWHEEL) or runs live again (0). From the
 * audio thread, before es_processor_process: while it freewheels every
 * engine waits for its results (es_engine_freewheel), as a render does,
 * and a block over its budget is neither a miss nor a stall. */
ES_RT void es_processor_freewheel(es_processor *p, int on);

/* ---- control side ---- */

/* Queues a crossfade to `take_engine`, which was created for `fmt`.
 * 0: queued, the processor owns it. Else -1 with the reason in err, and
 * the caller still owns it. The two reasons are told apart beforehand,
 * not by the return: it does not fit (fmt's inputs, outputs or sample
 * rate differ from the processor's, fmt's max_block is below the
 * processor's, or its latency is above the processor's), or too many
 * changes are under way (es_processor_can_swap() says 0: collect and try
 * again in a moment). */
int es_processor_swap(es_processor *p, es_engine *take_engine, const es_format *fmt, char *err,
                      size_t n);
/* The same, for A/B slot `ab` (0..ES_AB_SLOTS-1): from the end of the
 * crossfade the engine's blocks count in that slot's statistics; with
 * `restart` they start again from zero then (the slot now holds another
 * room, engine or block). es_processor_swap keeps the playing slot and
 * its statistics. */
int es_processor_swap_ab(es_processor *p, es_engine *take_engine, const es_format *fmt, int ab,
                         int restart, char *err, size_t n);
/* How a swap plays in (es_processor_swap_with). */
typedef struct {
    int ab;              /* its A/B slot; -1: the one playing */
    int restart;         /* that slot's statistics start again */
    /* 1: the engine plays the same filter as the one it replaces (another
     * engine, block or option): the crossfade is linear, so that two equal
     * signals sum to the same signal, not 3 dB over it. 0: equal power,
     * for two rooms, which do not add up in phase. */
    int same_filter;
    /* A primed swap: [outputs] buffers of ringing_frames, which the builder
     * fills with what the past still rings once the engine is adopted
     * (history.h) and which the processor adds to the engine's output,
     * from its first frame on, before it crossfades it in. Borrowed: the
     * caller frees them once es_history_holds says 0. NULL: unprimed. */
    float **ringing;
    int ringing_frames;
} es_swap_how;

/* A swap as `how` says. 0 with the swap's ticket in *ticket (for the
 * history's hand-over); else as es_processor_swap_ab. A primed swap needs
 * a history (es_processor_config.history_frames). */
int es_processor_swap_with(es_processor *p, es_engine *take_engine, const es_format *fmt,
                           const es_swap_how *how, uint64_t *ticket, char *err, size_t n);
/* The processor's history (history.h), a new reference the caller lets go
 * of with es_history_unref; NULL when it keeps none. */
es_history *es_processor_history(es_processor *p);
/* Frames of input it keeps for priming (es_processor_config.history_frames;
 * 0: none). */
int es_processor_history_frames(const es_processor *p);
/* 1 when a swap (of an engine that fits) would be accepted now; 0 while
 * the processor holds as many uncollected swaps as it can: wait for the
 * crossfade, es_processor_collect(), and ask again. */
int es_processor_can_swap(const es_processor *p);
/* Mutes the output (ramped over ES_MUTE_RAMP_MS) and forgets the dry
 * path's history, as a panic does (`panic`: 1; the engines' histories are
 * the builder's to clear: it builds them again), or plays again after a
 * panic or a runaway (0: the runaway detector starts afresh). 0, or
 * -1 when the command queue is full. */
#define ES_MUTE_RAMP_MS 10.0
int es_processor_mute(es_processor *p, int panic);
int es_processor_unmute(es_processor *p);
/* Holds the input at silence (1), ramped over ES_MIX_RAMP_MS as the trim
 * is, or lets it in again (0): nothing reaches the engines or the dry
 * path while held, so a room being measured is not convolved into the
 * loop it is measured through (the sweep goes out dry, beside it). 0,
 * or -1 when the command queue is full. */
int es_processor_hold_input(es_processor *p, int hold);

/* Queues a mix change (levels ramped over ES_MIX_RAMP_MS, bypass
 * crossfaded over the crossfade time). 0; -1 when the mix does not pass
 * es_mix_check (nothing is queued) or the queue is full. */
int es_processor_set_mix(es_processor *p, const es_mix *mix);
/* Queues a reset of the stats. 0, or -1 if the queue is full. */
int es_processor_reset_stats(es_processor *p);
/* Destroys engines the audio thread has retired. Returns how many. */
int es_processor_collect(es_processor *p);
/* The same, but hands each retired engine to `take` (which owns it from
 * then on): a host that destroys engines on a thread of its own. */
int es_processor_collect_with(es_processor *p, void (*take)(void *ctx, es_engine *e),
                              void *ctx);
/* 1 while a queued swap has not finished its crossfade. */
int es_processor_swap_pending(const es_processor *p);
/* A consistent copy of the latest stats. */
void es_processor_stats(const es_processor *p, es_stats *out);

/* Asks the playing engine (and one crossfading in) for filter set `set`
 * (0..65534), from any thread, at any rate: only the newest request
 * counts, and the audio thread takes it at its next callback; the engine
 * switches within its next block (es_engine_select_set). arrival_ns
 * (es_now_ns) is when the request came in, from which the
 * filter-exchange latency is measured (es_stats). */
void es_processor_select_set(es_processor *p, int set, long long arrival_ns);

#endif
