/* cpu-partitioned's state and one block's work, shared by the engine
 * (engine_partitioned.c: create, process, reset) and the block's parts
 * (partitioned_block.c: the input's transform, the MAC sums, the output's
 * inverse, and the steps of partitioned_steps.h). Internal to engines/. */
#ifndef ES_PARTITIONED_H
#define ES_PARTITIONED_H

#include <fftw3.h>
#include <stdatomic.h>

#include "cmac_kernel.h"
#include "partitioned_steps.h"

typedef struct {
    es_engine base;
    int inputs, outputs;
    int part;          /* P: partition size in frames */
    int parts;         /* partitions per filter */
    int stride;        /* floats per half spectrum: P + 1 bins rounded up to 16 */
    int fill;          /* frames of the current block already taken, < P */
    int tail_ready;    /* tail[] holds the sum for the current block */
    int newest;        /* FDL slot of the block being filled; older ones follow */
    float **filter;    /* [in * out] parts spectra of 2*stride, scaled 1/(2P); NULL = no path */
    unsigned char *filter_shared; /* [in * out] 1: filter[r] is an earlier path's (the
                                   * same taps), freed with that one */
    float **fdl;       /* [inputs] parts + pad slots of 2*stride, see fdl_slot() */
    float **segment;   /* [inputs] 2P frames: previous block | current block */
    unsigned char **silent; /* [inputs][parts]: 1 = that FDL slot's spectrum is zero */
    unsigned char *prev_silent, *cur_sound; /* [inputs]: the last complete block was
                                             * all zeros; the current one is not (yet) */
    unsigned char *tail_silent; /* [outputs]: tail[] is zero (nothing added) */
    float **tail;      /* [outputs] 2*stride: sum over j >= 1 for this block; in
                        * whole-block use, the block's own sum */
    int pass_blocks;   /* blocks one MAC pass sums (1 = plain), see the top */
    int phase;         /* blocks since the last pass that summed later blocks;
                        * pass_blocks (or more) when later[] holds nothing valid */
    float **later;     /* [outputs] pass_blocks - 1 spectra: the known part of the
                        * sums of the next blocks */
    unsigned char *later_added; /* [outputs] bit t - 1: later sum t has something */
    const float **in_at; /* [inputs], [outputs]: a whole block's place in a call */
    float **out_at;
    float *acc;        /* 2*stride scratch spectrum */
    float *chunk;      /* pass_blocks x 2*stride: one chunk's partial sums */
    float *time;       /* 2P scratch time signal */
    float *cplx;       /* P + 1 interleaved bins: FFTW's side of the transforms */
    fftwf_plan forward, inverse;
    es_spectral_kernels k;
    /* Filter sets (partitioned_sets.c): set_filter[s] and set_shared[s]
     * are set s's filter[] and filter_shared[]; filter points at the set
     * playing. sets is 1 for an engine of one IR. */
    int sets;
    int set_now, set_next; /* playing; asked for (from the next block) */
    float ***set_filter;
    unsigned char **set_shared;
    int switching;     /* the current block fades from filter_old to filter */
    int heard;         /* a block has begun since create or reset: a set asked
                        * for before then is taken with no fade */
    float **filter_old;
    float **tail_old;  /* [outputs] 2*stride: filter_old's tail in a switch block */
    unsigned char *tail_old_silent;
    float *fade;       /* [P]: the new set's share of frame t of a switch block */
    float *y_old;      /* [P]: the old set's output in a switch block */
    uint64_t switches;
    /* Published at the end of each call, for other threads: set_now once
     * its switch is over, -1 while a switch block fades (es_engine_set_settled). */
    atomic_int settled;
} upols;

/* A float sum over thousands of partitions loses precision as it grows
 * (-111.5 dB at 7500 partitions, measured): long filters are summed in
 * chunks of MAC_CHUNK partitions (upols_mac_ages). */
#define MAC_CHUNK 32

/* Slot of the block `age` blocks older than the one being filled. The FDL is
 * stored newest-first so that ages 1, 2, 3... are ascending addresses, in
 * step with H_1, H_2, H_3...: the MAC streams both forward. */
static inline ES_RT float *fdl_slot(const upols *u, int input, int age)
{
    int slot = (u->newest + age) % u->parts;
    return u->fdl[input] + (size_t)slot * 2 * u->stride;
}

/* acc += X_{k-age} H_age for ages [from, to) of input i, in chunks of
 * MAC_CHUNK; returns whether it added anything. */
ES_RT int upols_mac_ages(const upols *u, float *acc, int i, const float *h, int from, int to);
/* tail[o] = sum over paths (i, o) and j = 1..parts-1 of X_{k-j} H_j. */
ES_RT void upols_compute_tail(upols *u);
/* The same with the paths `filter` into tail[] and tail_silent[]. */
ES_RT void upols_tail_of(const upols *u, float *const *filter, float **tail,
                         unsigned char *tail_silent);
/* Before a block: begins the switch to set_next if one is asked for. */
ES_RT void upols_begin_block(upols *u);
/* frames <= P - fill of a switch block: both sets' outputs, faded. */
ES_RT void upols_switch_chunk(upols *u, const float *const *in, float *const *out, int offset,
                              int frames);
/* The switch's buffers (and fade) for an engine of `sets` sets; 0 or
 * -1 out of memory. */
int upols_sets_alloc(upols *u, int sets);
void upols_sets_free(upols *u);
/* H_j = FFT(h[jP .. jP+P) zero-padded to 2P) / 2P into spectra, through
 * the scratch time[2P] and cplx[2(P+1)] (a thread of its own brings its
 * own: the audio thread's are u->time and u->cplx). */
void upols_transform_filter(const upols *u, const float *h, int length, float *spectra,
                            float *time, float *cplx);
/* Set `set`'s filters replaced by ir's, off the audio thread
 * (es_engine_load_set): 0, or -1 and why. */
int upols_load_set(upols *u, int set, const es_ir *ir, char *err, size_t n);
/* Frames of input i into the current block; its transform unless silent. */
ES_RT void upols_take_input(upols *u, const float *x, int i, int frames);
/* y = frames of the current block from the spectrum acc (or silence). */
ES_RT void upols_emit_output(upols *u, const float *acc, int added, float *y, int frames);
/* After `frames` more of the current block. */
ES_RT void upols_advance(upols *u, int frames);

#endif
