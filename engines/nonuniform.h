/* The non-uniform engine's plan and its test hook (internal to engines/
 * and its tests; the hook exists in test builds only). */
#ifndef ES_NONUNIFORM_H
#define ES_NONUNIFORM_H

#include <stddef.h>

#include "engine.h"

#define ES_NU_MAX_LEVELS 8
#define ES_NU_MAX_PART 32768

typedef struct {
    int part;     /* partition size, frames */
    int offset;   /* first IR frame of the level */
    int count;    /* partitions in the level */
} es_nu_level;

typedef struct {
    int levels;   /* level 0 is the head, run in the callback */
    es_nu_level level[ES_NU_MAX_LEVELS];
    int ratio;    /* growth from level to level: 2, 4, 8 or 16 */
    double cost;  /* the model's estimate, ns of CPU per frame */
} es_nu_plan;

/* The levels themselves, for any non-uniform plan (the CPU engine's and
 * cuda-nonuniform's): the head's partition p0, partitions growing by
 * `ratio` up to max_part, each level starting at 2P + max_block or later,
 * the last taking the rest of `length` taps. Returns how many levels. */
int es_nu_cut_levels(int max_block, int length, int p0, int ratio, int max_part, int max_levels,
                     es_nu_level *level);

/* The cost model's estimate for one level, ns of CPU per frame: ffts
 * transforms (inputs + outputs), paths filters; a tail level pays a
 * worker wakeup per partition. */
double es_nu_level_cost(int ffts, int paths, const es_nu_level *l, int tail);

/* The cheapest plan by the cost model for this format and IR. head_part:
 * the head's partition, 0 for the default (the block, or the next fast
 * size). */
void es_nu_plan_choose(const es_format *fmt, const es_ir *ir, int head_part, es_nu_plan *plan);
/* The plan for a given growth ratio and largest partition. */
void es_nu_plan_make(const es_format *fmt, const es_ir *ir, int head_part, int ratio,
                     int max_part, es_nu_plan *plan);

#ifdef ES_TESTING
/* Test builds only (earshot_engines_testing): the next `jobs` jobs of tail
 * level `level_index` (1 = the first tail level) each take `us`
 * microseconds longer: in every slice (per_slice = 1: a long job that the
 * scheduler may interrupt), or once, as one piece it cannot. */
void es_nonuniform_slow_tail(es_engine *e, int level_index, int jobs, double us, int per_slice);
/* Test builds only: the audio thread never runs a tail job a held-up
 * worker has not started (live rescue off). */
void es_nonuniform_no_rescue(es_engine *e);
#endif
/* "count x part @ offset" per tail level into out; returns the tail levels. */
int es_nonuniform_describe(const es_engine *e, char *out, size_t n);

#endif
