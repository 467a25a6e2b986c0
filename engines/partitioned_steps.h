/* A whole block through a cpu-partitioned engine in slices, for a
 * scheduler that runs something more urgent between them (cpu-nonuniform's
 * tail levels; internal to engines/). The result is the same, bit for bit,
 * as es_engine_process() on the same block. */
#ifndef ES_PARTITIONED_STEPS_H
#define ES_PARTITIONED_STEPS_H

#include "engine.h"

/* A slice's MAC work, in complex bins: about 30-60 us on a 2020s x86 core,
 * whatever the partition. Transforms are a slice each (one input's forward
 * FFT, one output's inverse). */
#define ES_SLICE_BINS 65536

typedef struct {
    int stage;          /* 0: the inputs' transforms; 1: MACs; 2: an output's inverse */
    int input, output;  /* where the block has got to */
    int age;            /* the next partition of the current path */
    int ages;           /* ages this block sums (all, or the newest few) */
    int outs;           /* sums per age: 1, or the blocks a time-blocked pass serves */
    unsigned added;     /* bit t: the current output's sum t has something */
    unsigned chunk_added; /* bit t: the current MAC chunk's sum t has */
} es_block_steps;

/* The most blocks one time-blocked MAC pass sums (engine_partitioned.c). */
#define ES_PASS_BLOCKS_MAX 4

/* cpu-partitioned with `pass_blocks` blocks summed per MAC pass (1 to
 * ES_PASS_BLOCKS_MAX; 0: the engine's own choice for the callback; see
 * engine_partitioned.c). cpu-nonuniform's tail levels, whose blocks have
 * slack, take 4. */
es_engine *es_partitioned_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                 int pass_blocks, char *err, size_t n);

void es_partitioned_steps_begin(es_block_steps *s);
/* One slice of the block of P frames (the engine's partition) in in[];
 * returns 1 when out[] holds the block's P frames of output, else 0. The
 * engine must be between blocks (every earlier call whole blocks) when the
 * steps begin, and nothing else may run it until they are done. */
ES_RT int es_partitioned_step(es_engine *e, const float *const *in, float *const *out,
                              es_block_steps *s);

#endif
