/* What the processor measures per block and publishes to the control side
 * (meters, headless reports). Definitions follow the design: a miss is a
 * block whose processing time exceeded its budget or whose GPU result was
 * late; DSP load is processing time over budget. */
#ifndef ES_STATS_H
/* The share of a block's budget its thread must have spent on the CPU
 * for a late block to be the engine's miss rather than a machine stall. */
#define ES_STALL_CPU_SHARE 0.8
#define ES_STATS_H

#include <stdint.h>

#include "core/rt.h"
#include "engine.h"

#define ES_METER_CHANNELS 8  /* channels with level meters */
#define ES_LOAD_BINS 201     /* DSP load histogram: 1 % bins, last = 200 % and over */
#define ES_RECENT_MISSES 16
/* The held peak falls as a PPM's does, 20 dB in 1.7 s, and never below
 * the RMS, so the peak never reads under the RMS beside it. */
#define ES_METER_FALL_DB (20.0 / 1.7)
#define ES_METER_RMS_MS 300.0 /* the RMS meters' integration time */
#define ES_AB_SLOTS 2         /* A/B slots with statistics of their own */
#define ES_LOAD_RECENT 256    /* per-block loads kept, newest last (a power of two) */
#define ES_EXCHANGE_BINS 400  /* filter-exchange latency: 50 us bins, the last 20 ms and over */
#define ES_EXCHANGE_BIN_US 50.0

/* The statistics of one A/B slot: the blocks its engine played alone (a
 * crossfade's blocks, with two engines running, belong to neither), since
 * the slot last changed room, engine or block, or the meters were reset.
 * Budget and processing time are summed over the same blocks, so the load
 * and the throughput describe the same window. */
typedef struct {
    uint64_t blocks, frames;
    uint64_t misses, late_results;
    uint64_t stalls;              /* machine stalls (es_stats.stalls) */
    double total_us;              /* processing time */
    double budget_total_us;       /* real time those blocks stood for */
    double max_us, load_max;
    uint32_t load_hist[ES_LOAD_BINS];
    uint64_t restarts;            /* times these statistics started again */
    /* What the stream cost while it played: the audio thread's CPU time,
     * each period whole (its blocks, the device's loop and the source
     * around them, the wake-up), the engine's helper threads' CPU time
     * (es_engine_status.helpers_cpu_ns), and a GPU engine's GPU time,
     * apart. The mean load, the real-time factor and the throughput count
     * the first two, all the CPU it used; the load's quantiles and worst
     * are the processing time (wall) of each block, its deadline. */
    double cpu_us, helpers_us, gpu_us;
    /* Energy in and out (sums of squares over every channel's samples):
     * the slot's level, output over input, as heard (es_ab_stats_gain_db). */
    double in_energy, out_energy;
} es_ab_stats;

typedef struct {
    uint64_t blocks, frames;      /* processed since the last reset */
    double cpu_us, helpers_us;    /* the audio thread's, the helpers' CPU time (es_ab_stats) */
    /* A block over its budget is an engine miss when the audio thread's
     * own CPU time in it was over ES_STALL_CPU_SHARE of the budget, or a
     * result of the engine's (a GPU job, a tail level) was late; else it
     * is a machine stall: the thread was not running (descheduled, woken
     * late inside the block), which no engine can help. */
    uint64_t misses;              /* engine misses: over budget by its work, or a result late */
    uint64_t late_results;        /* of those: GPU results or tail levels not ready */
    uint64_t stalls;              /* machine stalls (not misses) */
    uint64_t clipped;             /* output samples beyond full scale */
    /* Blocks run while the host freewheeled (an export through a JACK
     * graph: no deadline, none a miss or a stall), and whether the last
     * one was. */
    uint64_t freewheel_blocks;
    int freewheeling;
    uint64_t swaps;               /* crossfades completed */
    double budget_us;             /* the last block's budget: frames / rate */
    double last_us, max_us;       /* processing time of the last block, worst */
    double total_us;              /* sum of processing time */
    double load_now, load_max;    /* last block's time / budget, worst */
    uint32_t load_hist[ES_LOAD_BINS];
    double device_us;             /* GPU engines: the last block's GPU time */
    int latency;                  /* processor latency, frames */
    int crossfading;              /* 1 while two engines run */
    const char *engine;           /* the active engine's name */
    int inputs, outputs;
    uint64_t recent_misses[ES_RECENT_MISSES]; /* block numbers of the last
                                               * misses, oldest overwritten */
    /* The load of each of the last ES_LOAD_RECENT blocks: block b (counted
     * in `blocks`) at load_recent[b % ES_LOAD_RECENT]. The screen takes the
     * worst since its last look from here, exactly, not from a 1 % bin. */
    float load_recent[ES_LOAD_RECENT];
    int ab_playing;               /* the A/B slot playing alone, -1 while crossfading */
    es_ab_stats ab[ES_AB_SLOTS];
    /* The active engine's shards when its matrix is split over GPUs (0:
     * not split): each one's CUDA device, outputs and late blocks so far. */
    int shards;
    es_shard_status shard[ES_GPUS_MAX];
    int engine_failed;            /* the active engine failed (GPU error) */
    char engine_error[256];       /* and why, in the engine's words */
    /* The last block's peak; RMS integrated over about ES_METER_RMS_MS. */
    float in_peak[ES_METER_CHANNELS], in_rms[ES_METER_CHANNELS];
    float out_peak[ES_METER_CHANNELS], out_rms[ES_METER_CHANNELS];
    /* Peaks held and falling at ES_METER_FALL_DB per second (meters). */
    float in_hold[ES_METER_CHANNELS], out_hold[ES_METER_CHANNELS];
    /* Output samples the limiter turned down (its gain below 1): rising
     * while it acts. The input meters read the trimmed input. */
    uint64_t limited;
    /* Safety (safety.h): input samples that were not finite or beyond
     * ES_INPUT_MAX, played as silence; output samples that were not
     * finite, never sent (counted after the limiter, so none leaves);
     * blocks whose engine output was not finite (muted, and the engine
     * built again: engine_broken says the active one is). */
    uint64_t bad_input, bad_output, engine_bad;
    int engine_broken;
    /* The output is muted (ramped down): 1 by the runaway detector (why
     * says what it saw), 2 by a panic. */
    int muted;
    const char *mute_why;
    uint64_t runaways;            /* times the detector tripped */
    /* The last trip: the peak of the block that tripped it (linear, before
     * the limiter; infinite for a sample that was not a number), and 1 when
     * it was a swell (a level climbing block after block: a loop's mark). */
    float runaway_peak;
    float runaway_in_peak;        /* the input's peak in that block (a loop's climbs too) */
    int runaway_swelled;
    /* Primed swaps (history.h): crossfaded in with what the past still
     * rings, and those whose ringing did not come within ES_PRIME_WAIT_MS
     * (played without it, as an unprimed swap). */
    uint64_t primed, prime_late;
    /* Filter sets (a head-tracked room, es_processor_select_set): the set
     * playing; requests the audio thread took, and those a newer one
     * replaced before any block took them; switches heard. The
     * filter-exchange latency of each switch runs from the arrival of the
     * oldest request it answers (the tracker's message, stamped by the
     * thread that received it) to the end of the callback whose block
     * carries the new set: the moment the block leaves earshot for the
     * device (which adds its output latency before anyone hears it). */
    int set;
    uint64_t set_requests, set_superseded, set_switches;
    uint32_t exchange_hist[ES_EXCHANGE_BINS];
    double exchange_last_us, exchange_max_us;
    /* Motion-to-sound: from the motion a switch answers (a tracker's
     * packet as the kernel stamped it on arrival; a key or command when
     * it was given) to the same end; switches whose motion was known. */
    uint64_t motion_switches;
    uint32_t motion_hist[ES_EXCHANGE_BINS];
    double motion_last_us, motion_max_us;
    /* A field room playing (ambisonic.h; field_order -1: none): its
     * order, the orientation its last block turned to, blocks whose
     * rotation changed, and the time its rotation and decoding took a
     * block: the last, the largest, and their sum over field_blocks. */
    int field_order;
    float field_yaw, field_pitch, field_roll;
    uint64_t field_turns, field_blocks;
    double field_us_last, field_us_max, field_us_sum;
    /* When the first counted block left earshot (es_now_ns: the monotonic
     * clock), so that an outside clock can place the blocks: block k
     * left about k periods later on a device that keeps time. */
    long long first_block_ns;
} es_stats;

/* ---- the audio thread's side (the processor's), real-time safe ---- */

/* What one block measured. */
typedef struct {
    double took_us;     /* the audio thread's processing time (wall) */
    double cpu_us;      /* its CPU time in it (judged only for a late block) */
    double budget_us;   /* the block's frames / rate */
    double helpers_us;  /* the engine's helper threads' CPU time since the last block */
    double gpu_us;      /* a GPU engine's GPU time for it, 0 otherwise */
    double in_energy, out_energy; /* sums of squares of the input and the output */
    /* The audio thread's CPU time over the period before this block (the
     * last block, and everything the thread did until this one), and the
     * A/B slot that block counted in (-1 none). */
    double period_cpu_us;
    int period_ab;
    int frames;
    uint64_t late, clipped, limited; /* late results; output samples clipped, limited */
    int ab;             /* the A/B slot whose engine played it alone; -1 a crossfade's */
    int freewheel;      /* the host freewheeled: no deadline, so never a miss or a stall */
} es_block_count;

ES_RT void es_stats_count_block(es_stats *s, const es_block_count *b);
/* Sum of squares of `channels` channels of `frames` samples. */
ES_RT double es_energy(const float *const *x, int channels, int frames);
/* Samples of x beyond full scale (|x| > 1, infinities too; not NaN).
 * frames <= 65536. */
ES_RT uint32_t es_count_clipped(const float *x, int frames);
/* The levels of one block: peaks, RMS over ES_METER_RMS_MS, held peaks. */
ES_RT void es_stats_measure_levels(es_stats *s, const float *const *in, int inputs,
                                   const float *const *out, int outputs, int frames,
                                   double rate);

/* ---- the control side's ---- */

/* The load that q (0..1) of the blocks stayed under, from the histogram. */
double es_stats_load_quantile(const es_stats *s, double q);
/* The filter-exchange latency below which a share q of the switches came,
 * us: a bin's upper edge, never above the worst seen; 0 with none. */
double es_stats_exchange_quantile(const es_stats *s, double q);
/* The same for the motion-to-sound latency. */
double es_stats_motion_quantile(const es_stats *s, double q);
/* The same for a histogram and its worst block (an A/B slot's). */
double es_load_quantile(const uint32_t hist[ES_LOAD_BINS], double load_max, double q);
/* An A/B slot's figures over its own window: throughput is the samples
 * (frames x channels) its engine path processed per second of processing
 * time; the real-time factor is the real time those blocks stood for over
 * the time they took, so it is 1 / mean load. 0 before any block. */
double es_ab_stats_throughput(const es_ab_stats *a, int channels);
double es_ab_stats_realtime_factor(const es_ab_stats *a);
double es_ab_stats_mean_load(const es_ab_stats *a);
/* The slot's level: output over input energy, dB (NAN before any input). */
double es_ab_stats_gain_db(const es_ab_stats *a);
/* Its helpers' and GPU's time over the real time of its blocks. */
double es_ab_stats_helpers_load(const es_ab_stats *a);
double es_ab_stats_gpu_load(const es_ab_stats *a);
/* dst += src: two windows of one slot as one (a stream reopened between). */
void es_ab_stats_add(es_ab_stats *dst, const es_ab_stats *src);
/* Samples per second the engine path could sustain: frames * channels /
 * processing time; and as a multiple of real time. */
double es_stats_throughput(const es_stats *s);
double es_stats_realtime_factor(const es_stats *s, double sample_rate);

#endif
