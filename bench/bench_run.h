/* One benchmark measurement: a synthetic room through one engine, block by
 * block, back to back, timing every process() call. */
#ifndef ES_BENCH_RUN_H
#define ES_BENCH_RUN_H

#include <stdint.h>

#include "engine.h"

typedef struct {
    const es_engine_class *engine;
    double rate;          /* Hz */
    int block;            /* frames per process() call */
    double ir_seconds;    /* IR length */
    int ir_taps;          /* IR length in taps; overrides ir_seconds when > 0 */
    int channels;         /* C in, C out, one filter per channel */
    int fan_out;          /* > 0: 1 input -> fan_out outputs, one filter each */
    int true_stereo;      /* 2 in, 2 out, 4 filters (overrides channels) */
    int matrix;           /* > 0: matrix inputs, every path a filter */
    int matrix_outputs;   /* its outputs (--matrix IxO; 0: as many as inputs);
                           * right after matrix: --matrix's parser sets both */
    double seconds;       /* audio to run, after warm-up */
    double max_wall;      /* stop early after this much wall time (s) */
    int stop_on_miss;     /* stop at the first block over budget */
    int paced;            /* start each block one period after the last, as an
                           * audio callback does, instead of back to back */
    int copy_out;         /* 1: process() into the bench's buffers; 0: the
                           * engine may lend its own (es_engine_process_views,
                           * as the processor calls it) */
    /* > 1: the room in `sets` filter sets (a head-tracked SOFA room's
     * orientations: each the same shape, other noise), one engine over
     * all of them (es_engine_create_sets), switching to another set every
     * `switch_every` blocks (0: every block). */
    int sets, switch_every;
    /* With sets, > 0: the room split in time at this many ms, as a SOFA
     * room of head orientations plays (es_engine_create_split): each set
     * a head of that length, one tail of the rest for all, on the engine
     * (the heads on its engine of sets). */
    double split_ms;
    /* > 0: a field room of this order (ambisonic.h): the room 1 x
     * (order+1)^2 SH channels on the engine, turned every block at 360
     * degrees a second, decoded to two ears by a 1,024-tap decoder (a
     * binaural decoder's length at 48 kHz) on cpu-partitioned. */
    int ambisonic;
    /* A room the caller made, of the configuration's matrix, played as it
     * is (one set, no split, no field) and left to the caller: a search's
     * trials share one instead of each making its own. NULL: the run makes
     * its synthetic room. */
    const es_ir *room;
    int build_once;       /* 1: the engine is built once (create_ms < 0) */
    es_options options;
} es_bench_config;

typedef struct {
    char error[256];      /* empty when the run happened */
    int taps, paths, latency;
    long blocks;          /* measured blocks */
    int cut_short;        /* 1: max_wall or stop_on_miss ended it early */
    double budget_us;     /* block / rate */
    double p50_us, p99_us, p999_us, max_us, mean_us;
    long misses;          /* engine misses: blocks over budget, or whose
                           * result the engine reported late (silence), that
                           * the engine's own work made late */
    long stalls;          /* machine stalls: late blocks whose own work took
                           * its usual time (see es_bench_run) */
    long late_wakes;      /* paced: blocks that started over a quarter of
                           * the budget after their time */
    char first_miss[200]; /* the first engine miss in words, or "" */
    uint64_t late_results;/* engine's own count (GPU results not ready) */
    uint64_t late_levels; /* of those: non-uniform tail levels not ready */
    uint64_t device_bytes;/* GPU engines: device memory the instance holds */
    double device_max_us; /* GPU engines: longest block on the worker */
    double device_p50_us, device_p99_us; /* GPU engines: the device's own time per
                                          * job (events around the graph), < 0
                                          * when none was seen */
    int shards;           /* a matrix split over GPUs (--gpu N,M,...): its
                           * shards at the end, 0 when not split */
    es_shard_status shard[ES_GPUS_MAX];
    int helpers_realtime; /* engine's helper threads: 1 real-time, 0 not, -1 none */
    char helpers[128];    /* their scheduling in words */
    double realtime_factor;  /* audio time / processing time */
    double gmacs;         /* time-domain-equivalent G multiply-adds / s */
    double create_ms;     /* building the instance a second time in this
                           * process: what a room swap costs while playing */
    double create_first_ms; /* the first build: FFTW planning, cuFFT and
                           * CUDA module loading happen once per process */
    uint64_t set_switches; /* engines of filter sets: switches made while measured */
    double switch_p50_us, switch_p99_us; /* the blocks a switch began in (-1: none):
                                            what a switch adds to the callback */
    double field_p50_us, field_p99_us; /* --ambisonic: the rotation and decoding's
                                        * share of each block (-1: none) */
} es_bench_result;

/* 0 when measured; -1 with result->error set.
 *
 * A late block is a machine stall, not an engine miss, when the engine's
 * own work for it fit in 80 % of the budget: for an engine working on the
 * measuring thread, that thread's CPU time in process(); for a GPU engine,
 * the time of the GPU job the block waited for (es_engine_status's
 * recent_seq / result_seq), also no more than a quarter of the budget or
 * twice the usual (median), or
 * the measuring thread's own time off the CPU, over a fifth of the budget.
 * The rest of the block's time was the machine's: a late wake-up, a thread
 * descheduled. Anything not shown to be a stall is an engine miss. Late
 * results of helper threads (cpu-nonuniform's tails) are engine misses. */
int es_bench_run(const es_bench_config *cfg, es_bench_result *result);
/* The paths (filters) of the configuration's synthetic room. */
int es_bench_paths(const es_bench_config *cfg);
/* The configuration's synthetic room (its layout, `taps` long, noise from
 * `seed`): decaying noise, as es_bench_run makes it. NULL: no memory. */
es_ir *es_bench_synthetic_room(const es_bench_config *cfg, int taps, uint32_t seed);

#endif
