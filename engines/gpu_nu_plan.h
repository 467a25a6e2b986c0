/* cuda-nonuniform's plan: how the IR matrix is cut into levels, what each
 * level costs the GPU per frame, and the device memory an instance holds.
 * Pure arithmetic (no CUDA), so it is chosen, checked and tested anywhere.
 * Internal to engines/.
 *
 * Level 0, the head, has partitions of the block size (a power of two) and
 * runs every block in the callback's own job. Level k > 0 has partitions
 * P_k that grow by the plan's ratio (4 or 8) and runs once per P_k frames
 * on lower-priority streams. Its input partition is complete at a multiple
 * of P_k and its first output is needed offset_k - P_k frames later; a
 * level starts at offset 2 P_k + B at the earliest (B the largest block),
 * so each of its jobs has at least P_k frames of time, the rule
 * cpu-nonuniform follows.
 */
#ifndef ES_GPU_NU_PLAN_H
#define ES_GPU_NU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "nonuniform.h" /* es_nu_level and the cutting of levels, shared */

#define ES_GNU_MAX_LEVELS 8
#define ES_GNU_MAX_PART 65536

typedef struct {
    int levels;                 /* level 0 is the head */
    es_nu_level level[ES_GNU_MAX_LEVELS];
    int ratio;                  /* growth from level to level: 4 or 8 */
    double head_bytes;          /* filter spectra the head reads per block */
    double bytes_per_frame;     /* filter spectra all levels read, per frame */
    double cost;                /* the model's estimate, ns of GPU per frame */
} es_gnu_plan;

/* What the plan is for: the IR matrix's shape and the stream's largest
 * block. paths: the non-NULL (input, output) pairs. */
typedef struct {
    int inputs, outputs, paths;
    int length;                 /* IR taps */
    int max_block;
    int head_part;              /* the head's partition; 0: the block's power of two */
} es_gnu_shape;

/* The plan for a ratio and a largest partition. */
void es_gnu_plan_make(const es_gnu_shape *s, int ratio, int max_part, es_gnu_plan *plan);
/* The cheapest plan by the cost model, over ratios 4 and 8 and largest
 * partitions up to ES_GNU_MAX_PART. */
void es_gnu_plan_choose(const es_gnu_shape *s, es_gnu_plan *plan);

/* Frames of input history on the device (a power of two): what the tail
 * levels read their blocks from. Beyond the windows the levels need, it
 * holds ES_GNU_HISTORY_SLACK frames, so a tail job that the GPU holds back
 * that long still finds its input. */
#define ES_GNU_HISTORY_SLACK 65536
long es_gnu_history_frames(const es_gnu_plan *plan, int max_block);
/* Frames of a tail level's output ring (a power of two): its results wait
 * there from the job until the head has added them, offset + 2P + 2B. */
long es_gnu_ring_frames(const es_nu_level *level, int max_block);

/* Device memory an instance with this plan holds, bytes, buffer by buffer
 * as the engine allocates them (cuFFT's work areas aside): per level the
 * filter spectra (complex float, rows of P + 1 bins rounded up to 4, per
 * partition and path), each input's frequency-domain delay line, the
 * transform and sum buffers; each tail level's output ring; the input
 * history. */
uint64_t es_gnu_plan_device_bytes(const es_gnu_shape *s, const es_gnu_plan *plan);

/* 0 when `need` bytes fit in `free_bytes` with `reserve` to spare; else -1
 * and one line naming both ("needs 17.2 GB of GPU memory, 12.0 GB free"). */
int es_gnu_memory_check(uint64_t need, uint64_t free_bytes, uint64_t reserve, char *err,
                        size_t n);

#endif
