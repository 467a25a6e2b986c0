/* The processor's stages (internal to audio/), in the order a block meets
 * them in es_processor_process:
 *
 *   1. the input guard (processor_input.c): samples that are no signal
 *      silenced, the trim, the history kept for priming;
 *   2. the crossfade (processor_crossfade.c, its engine slots in
 *      processor_slot.c): the engine that plays and, during a swap, the one
 *      coming in, as a small state machine (STEADY, HELD, FADING);
 *   3. the mixer (processor_mix.c): the dry path's delay, wet, dry, gain
 *      and bypass, each ramped when it moves;
 *   4. the output guard (processor_output.c): the runaway detector, the
 *      mute, the limiter, and the last scan (nothing that is not a number
 *      leaves; the samples past full scale counted);
 *   5. accounting (processor_accounting.c): the block's time and levels
 *      into the statistics, published under a seqlock.
 *
 * Each stage is a struct that owns its state and buffers, made from the
 * stream's format (init, free: both safe on a zeroed struct, so a
 * half-made processor is freed in one path) and stepped once a block. The
 * steps are real-time safe (ES_RT); they count what they see into the
 * block's statistics (es_stats), which accounting owns. */
#ifndef ES_PROCESSOR_STAGES_H
#define ES_PROCESSOR_STAGES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/spsc_ring.h"
#include "limiter.h"
#include "processor.h"
#include "safety.h"

/* ---- ramps: a gain that moves linearly to its target ---- */

typedef struct {
    float now, to, step;
    int left; /* samples until it is there */
} es_ramp;

/* Sets the target, reached over `len` samples (at once when len is 0). */
static inline ES_RT void es_ramp_to(es_ramp *r, float to, int len)
{
    if (to == r->to)
        return;
    r->to = to;
    r->left = len;
    r->step = len ? (to - r->now) / (float)len : 0;
    if (!len)
        r->now = to;
}

/* The next `frames` values into g; ends exactly on the target. */
static inline ES_RT void es_ramp_run(es_ramp *r, float *g, int frames)
{
    for (int t = 0; t < frames; t++) {
        if (r->left > 0) {
            r->now = --r->left ? r->now + r->step : r->to;
        }
        g[t] = r->now;
    }
}

/* 1 while the ramp stands at `value`: no pass over the samples needed. */
static inline ES_RT int es_ramp_at(const es_ramp *r, float value)
{
    return r->left == 0 && r->now == value;
}

/* A delay line's length for `latency` frames read behind blocks of up to
 * max_block: a power of two, so a position wraps with a mask. With no
 * latency nothing is delayed: one sample. */
static inline size_t es_delay_frames(int latency, int max_block)
{
    size_t p = 1;
    while (latency && p < (size_t)latency + (size_t)max_block)
        p <<= 1;
    return p;
}

/* ---- 1. the input guard (processor_input.c) ---- */

typedef struct {
    int inputs;
    int ramp_len;        /* frames of a trim's ramp */
    float **clean;       /* [inputs] max_block: the input made safe */
    float **trimmed;     /* [inputs] max_block: after the trim */
    float *trim_gains;   /* max_block: the trim per sample while it moves */
    es_ramp trim;        /* linear; heads for 0 while the input is held */
    int held;            /* the input held at silence (es_processor_hold_input) */
    es_history *history; /* what the stream heard, for priming; NULL: none kept */
} es_input_guard;

/* Keeps history_frames + wait_frames of input when history_frames > 0 (a
 * primed engine reads its past while it waits). 0, or -1
 * with why in err. */
int es_input_guard_init(es_input_guard *g, const es_format *fmt, int history_frames,
                        int wait_frames, char *err, size_t n);
/* Lets go of the history (a priming under way finds the writer gone). */
void es_input_guard_free(es_input_guard *g);
/* The trim heads for trim_db, ramped or at once. */
ES_RT void es_input_guard_level(es_input_guard *g, double trim_db, int ramped);
/* Holds the input at silence (1) or lets it in (0), ramped as a trim. */
ES_RT void es_input_guard_hold(es_input_guard *g, int hold, double trim_db);
/* The block as the engines and the dry path take it: any channel with a
 * sample that is not finite or beyond ES_INPUT_MAX copied with those
 * samples silenced (counted in st->bad_input), then trimmed, then kept
 * in the history. Most blocks come back as `in` itself. */
ES_RT const float *const *es_input_guard_run(es_input_guard *g, const float *const *in,
                                             int frames, es_stats *st);
/* Everything heard so far reads as silence (a panic). */
ES_RT void es_input_guard_forget(es_input_guard *g);

/* ---- 2. the crossfade and its engine slots ---- */

/* What the crossfade is doing, each state with the gains it plays the two
 * engines at (the playing one's, the incoming one's):
 *   STEADY  one engine plays alone: its output as it is, no gain applied;
 *   HELD    a primed swap's engine runs beside it, hearing the input, out
 *           of the mix (1, 0) until its ringing is there (history.h), at
 *           most ES_PRIME_WAIT_MS;
 *   FADING  the incoming engine fades in over fade_len frames: equal
 *           power (sin, cos), or linear for the same filter (1 - k, k).
 * The transitions, on events (es_xfade_next's table):
 *   STEADY -swap-> FADING            STEADY -primed swap-> HELD
 *   HELD -ringing there-> FADING     HELD -gave up (the builder could
 *                                    not, or not in time)-> FADING, equal power
 *   FADING -faded (the old engine retired)-> STEADY
 * A swap waits in the command queue until STEADY: one crossfade at a
 * time. Were the retired ring full at the fade's end (es_processor_swap
 * keeps it from being), FADING would hold its end, the old engine silent,
 * and try again next block. */
typedef enum { ES_XFADE_STEADY, ES_XFADE_HELD, ES_XFADE_FADING } es_xfade_state;
#define ES_XFADE_STATES (ES_XFADE_FADING + 1)

typedef enum {
    ES_XFADE_SWAP,        /* an unprimed swap's engine adopted */
    ES_XFADE_SWAP_PRIMED, /* a primed swap's engine adopted: it waits for its ringing */
    ES_XFADE_RINGING,     /* its ringing is there */
    ES_XFADE_GAVE_UP,     /* the builder could not prime it, or not within the wait */
    ES_XFADE_FADED,       /* the fade reached its end and the old engine is retired */
} es_xfade_event;
#define ES_XFADE_EVENTS (ES_XFADE_FADED + 1)

/* 1 when `ev` can happen in state s. */
int es_xfade_allows(es_xfade_state s, es_xfade_event ev);
/* The state ev leads to; s itself for an event that cannot happen there. */
es_xfade_state es_xfade_next(es_xfade_state s, es_xfade_event ev);
const char *es_xfade_state_name(es_xfade_state s);
const char *es_xfade_event_name(es_xfade_event ev);

/* An engine's output beyond this is broken (a room normalised to unit
 * energy turns ES_INPUT_MAX into far less): muted, and built again. */
#define ES_ENGINE_OUT_MAX 1e9f

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
} es_slot;

typedef struct {
    es_slot slots[2];
    int active;              /* the slot that plays; the other comes in */
    es_xfade_state state;
    int pos, len;            /* frames into the fade, and its length */
    float *fade;             /* len + 1: sin(pi/2 * k / len) */
    int linear;              /* this fade is linear (the same filter) */
    int held_frames, hold_max; /* frames HELD so far, and at most */
    /* What the slots share: */
    int outputs, latency;
    size_t delay_size;       /* the slots' delay rings, a power of two */
    float **scratch;         /* [outputs] max_block: an engine's output before its delay */
    es_history *history;     /* the input guard's, borrowed; NULL: none */
    es_spsc_ring *retired;   /* where an engine faded out goes, borrowed */
} es_crossfade;

/* What the engines' block cost, for accounting. */
typedef struct {
    uint64_t late;           /* late results, both engines */
    double helpers_us;       /* their helper threads' CPU time */
    double gpu_us;           /* the playing engine's GPU time */
} es_engines_ran;

/* Fades over fade_len frames; a primed engine waits at most hold_max.
 * 0, or -1 with why in err. */
int es_crossfade_init(es_crossfade *x, const es_format *fmt, int latency, int fade_len,
                      int hold_max, es_history *history, es_spsc_ring *retired, char *err,
                      size_t n);
/* Destroys the engines it holds. */
void es_crossfade_free(es_crossfade *x);
/* The first engine, playing alone for A/B slot ab. */
void es_crossfade_load_first(es_crossfade *x, es_engine *e, int ab);

/* 1 in STEADY: one engine plays alone, and a swap is taken now (else it
 * waits its turn). */
ES_RT int es_crossfade_steady(const es_crossfade *x);
/* A swap's engine starts hearing the input with this block: FADING, or
 * HELD when `how` brings a ringing to wait for. */
ES_RT void es_crossfade_start(es_crossfade *x, es_engine *e, const es_swap_how *how,
                              uint64_t ticket);
/* HELD: plays once the ringing is there (st->primed), or without it when
 * the builder could not, or did not within hold_max (st->prime_late). */
ES_RT void es_crossfade_await(es_crossfade *x, int frames, es_stats *st);
/* Runs the engine that plays (straight into direct_out when not NULL: a
 * block whose output is the engine's) and the one coming in, their
 * ringing added, their output checked (the playing one's left to the
 * output's last scan when check_playing is 0), into `ran`. */
ES_RT void es_crossfade_run(es_crossfade *x, const float *const *in, float *const *direct_out,
                            int frames, int check_playing, int freewheel, es_engines_ran *ran,
                            es_stats *st);
/* The block's wet signal: the playing engine's output in STEADY; else the
 * two crossfaded at this state's gains, written into out (which the mix
 * then reads in place). */
ES_RT const float *const *es_crossfade_wet(es_crossfade *x, float *const *out, int frames);
/* Checks the playing engine's output now (the output's scan found a fault). */
ES_RT void es_crossfade_check_playing(es_crossfade *x, int frames, es_stats *st);
/* Moves the fade on by `frames`; at its end the old engine is retired and
 * the new one plays alone (counted in st). 1 when a swap ended. */
ES_RT int es_crossfade_advance(es_crossfade *x, int frames, es_stats *st);
/* The state the statistics show: the A/B slot playing, crossfading, broken. */
ES_RT void es_crossfade_report(const es_crossfade *x, es_stats *st);
/* The engine that plays; the one coming in (NULL in STEADY). */
ES_RT es_engine *es_crossfade_playing(const es_crossfade *x);
ES_RT es_engine *es_crossfade_incoming(const es_crossfade *x);
/* The A/B slot the playing engine counts in. */
ES_RT int es_crossfade_playing_ab(const es_crossfade *x);
/* 1 when the playing engine can write the block's output itself: no
 * delay to add, nothing ringing. */
ES_RT int es_crossfade_can_write_output(const es_crossfade *x);
/* 1 when the playing engine's output has not been found broken. */
ES_RT int es_crossfade_playing_sound(const es_crossfade *x);

/* The slots (processor_slot.c). */
/* Puts an engine in a slot, with a silent delay line. */
ES_RT void es_slot_load(es_crossfade *x, es_slot *s, es_engine *e);
/* The slot lets go of its ringing: the builder may free it. */
ES_RT void es_slot_release_ringing(es_crossfade *x, es_slot *s);
/* The slot's engine into s->wet: lent, or delayed by s->comp. */
ES_RT void es_slot_run(es_crossfade *x, es_slot *s, const float *const *in, int frames,
                       int freewheel);
/* The slot's engine straight into `out` (s->wet then points there): for
 * a slot with no delay to add whose output is the block's output. */
ES_RT void es_slot_run_into(es_crossfade *x, es_slot *s, const float *const *in,
                            float *const *out, int frames, int freewheel);
/* Adds the slot's ringing to its output while there is some. */
ES_RT void es_slot_ring(es_crossfade *x, es_slot *s, int frames);
/* Silences a slot whose output went non-finite or absurd, for good. */
ES_RT void es_slot_check(es_crossfade *x, es_slot *s, int frames, es_stats *st);
/* Late results since the last block; its helpers' CPU time added to
 * *helpers_us, its GPU time put in *device_us; the playing engine's
 * failure and shards into st. */
ES_RT uint64_t es_slot_new_late(es_crossfade *x, es_slot *s, double *device_us,
                                double *helpers_us, es_stats *st);

/* ---- 3. the mixer (processor_mix.c) ---- */

/* How a block is mixed. */
typedef enum {
    ES_MIXER_NONE,     /* the engine wrote the output: only the dry path is kept */
    ES_MIXER_CONSTANT, /* every gain still: constants, in loops the compiler vectorises */
    ES_MIXER_RAMPED,   /* a gain moving or a crossfade: gains per sample */
} es_mixer_pass;

enum { ES_G_WET, ES_G_DRY, ES_G_GAIN, ES_G_BYPASS, ES_G_COUNT }; /* per-sample gain rows */

typedef struct {
    int inputs, outputs, latency;
    int ramp_len, bypass_len; /* frames: a level's ramp, bypass's crossfade */
    es_mix asked;             /* the latest mix asked for */
    es_ramp wet, dry, gain, bypass; /* linear, on their way to `asked` */
    float **g;                /* [ES_G_COUNT] max_block: each gain per sample */
    float **dry_ring;         /* [inputs] ring of dry_size: the input, delayed */
    size_t dry_size, dry_write;
} es_mixer;

/* Bypass crossfades over bypass_len frames. 0, or -1. */
int es_mixer_init(es_mixer *m, const es_format *fmt, int latency, int bypass_len, char *err,
                  size_t n);
void es_mixer_free(es_mixer *m);
/* Every level heads for `mix`, ramped or at once. */
ES_RT void es_mixer_level(es_mixer *m, const es_mix *mix, int ramped);
/* 1 when no gain moves and bypass is off. */
ES_RT int es_mixer_settled(const es_mixer *m);
/* 1 when the mix is the room alone at unity: wet 1, dry 0, gain 1. */
ES_RT int es_mixer_unity(const es_mixer *m);
/* Keeps the trimmed input x for the dry path and mixes `wet` with it into
 * out as `pass` says (wet may be out itself: it is read in place). */
ES_RT void es_mixer_run(es_mixer *m, const float *const *x, const float *const *wet,
                        float *const *out, int frames, es_mixer_pass pass);
/* The dry path forgets what it holds (a panic). */
ES_RT void es_mixer_forget(es_mixer *m);

/* ---- 4. the output guard (processor_output.c) ---- */

/* Why the output is muted (es_stats.muted). */
typedef enum { ES_MUTE_NONE, ES_MUTE_MUTED, ES_MUTE_PANIC } es_mute_why;

typedef struct {
    int inputs, outputs;
    int watch;              /* a live stream: watched for a runaway */
    int mute_len, unmute_len; /* frames: the ramp down, back up */
    es_ramp mute;           /* 1, or on its way to 0 while muted */
    float *mute_gains;      /* max_block */
    es_mute_why muted;
    const char *why;        /* in words (a literal), while muted */
    int limit;              /* the limiter is asked for (es_mix.limiter) */
    es_runaway runaway;     /* the feedback detector */
    es_limiter limiter;     /* the safety limiter (limiter.c) */
} es_output_guard;

/* offline: a render, which has no loop to run away in. 0, or -1. */
int es_output_guard_init(es_output_guard *og, const es_format *fmt, int offline, char *err,
                         size_t n);
void es_output_guard_free(es_output_guard *og);
/* The limiter as `mix` asks. */
ES_RT void es_output_guard_level(es_output_guard *og, const es_mix *mix);
/* Ramps the output down (over ES_MUTE_RAMP_MS), saying why. */
ES_RT void es_output_guard_mute(es_output_guard *og, es_mute_why why, const char *words);
/* Ramps it up again (over ES_MIX_RAMP_MS); the detector starts afresh. */
ES_RT void es_output_guard_unmute(es_output_guard *og);
/* 1 when the guard leaves the output as it is: no limiter asked or
 * cutting, no mute. */
ES_RT int es_output_guard_transparent(const es_output_guard *og);
/* The output before the limiter watched for a runaway (which mutes it:
 * at once, whole, for a sample beyond +6 dBFS; the input's peak `in`
 * noted), ramped down while muted, then limited. Returns the samples the
 * limiter turned down. */
ES_RT uint64_t es_output_guard_run(es_output_guard *og, const float *const *in,
                                   float *const *out, int frames, es_stats *st);
/* The last pass: nothing that is not a number leaves (silenced, counted in
 * st->bad_output), and the samples past full scale in *clipped. With
 * engine_check, a block the engine wrote is also its engine's check: 0 at
 * a sample beyond ES_ENGINE_OUT_MAX (the caller checks the engine, which
 * silences the block; *clipped is 0); else 1. */
ES_RT int es_output_guard_scan(es_output_guard *og, float *const *out, int frames,
                               int engine_check, uint64_t *clipped, es_stats *st);
/* The mute the statistics show. */
ES_RT void es_output_guard_report(const es_output_guard *og, es_stats *st);

/* ---- 5. accounting (processor_accounting.c) ---- */

typedef struct {
    es_stats now;             /* the audio thread's own copy */
    /* The stall probe beside the stream, when the host runs one: a late
     * block while it was held up too is the machine's. */
    _Atomic(const es_stall_probe *) watch;
    double rate;
    int offline;              /* a render: no levels measured */
    long long started, cpu_started; /* this block's start: wall, thread CPU, ns */
    long long cpu_at;         /* the thread's CPU time as the last block began, ns */
    int last_ab;              /* the A/B slot the last block counted in */
    atomic_uint seq;          /* seqlock around `shared`: odd while writing */
    es_stats shared;
} es_accounting;

/* What a block did, beside what the stages counted. */
typedef struct {
    const float *const *in;   /* the input as the engines heard it */
    const float *const *out;
    int frames;
    es_engines_ran engines;
    uint64_t clipped, limited;
    int ab;                   /* the A/B slot it counts in; -1: both engines ran */
    int freewheel;            /* the host freewheeled */
} es_block_done;

/* The statistics of a stream of fmt at `latency`, engine playing for A/B
 * slot ab, published as they start. */
void es_accounting_init(es_accounting *a, const es_format *fmt, int latency, int offline,
                        const char *engine, int ab);
/* The block begins: its clocks start. */
ES_RT void es_accounting_begin(es_accounting *a);
/* The block's time (a late one sorted into a miss or a stall) and levels. */
ES_RT void es_accounting_count(es_accounting *a, const es_block_done *b);
/* Everything counted so far, for the control side. */
ES_RT void es_accounting_publish(es_accounting *a);
/* Starts the counts again; what describes the stream stays. */
ES_RT void es_accounting_reset(es_accounting *a);
/* A consistent copy of the latest published statistics. Control side. */
void es_accounting_read(const es_accounting *a, es_stats *out);

#endif
