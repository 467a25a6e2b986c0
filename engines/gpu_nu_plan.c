/* cuda-nonuniform's plan (gpu_nu_plan.h). The GPU's cost per frame:
 *   spectra: every level reads its filter spectra once per its period,
 *            paths * count * (P + 1) complex floats per P frames; the GPU
 *            streams them at about BYTES_NS bytes per ns (an H100 streams
 *            3 TB/s; the ratios between levels are what matter);
 *   launches: a tail level's job costs about LAUNCH_NS of fixed time per
 *            period (kernel launches, events, the worker's wake-up);
 *   FFTs:    (inputs + outputs) transforms of 2P points per P frames.
 * Small partitions read the spectra often; large ones put a long head in
 * front of them. The head is read every block, so its bytes per block
 * (head_bytes) bound the callback's own job, and the cost counts them at
 * the head's rate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_nu_plan.h"

#define BYTES_NS 1500.0   /* bytes of spectra the GPU reads per ns, sustained */
#define LAUNCH_NS 15000.0 /* fixed GPU time per tail-level job */
#define FFT_NS 0.002      /* ns per point-log2(point) of a batched FFT */
#define COMPLEX_BYTES 8.0

static int head_partition(const es_gnu_shape *s)
{
    if (s->head_part > 0)
        return s->head_part;
    int p = 16;
    while (p < s->max_block)
        p <<= 1;
    return p;
}

static double level_bytes(const es_gnu_shape *s, const es_nu_level *l)
{
    return (double)s->paths * l->count * (l->part + 1.0) * COMPLEX_BYTES;
}

void es_gnu_plan_make(const es_gnu_shape *s, int ratio, int max_part, es_gnu_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->ratio = ratio;
    plan->levels = es_nu_cut_levels(s->max_block, s->length, head_partition(s), ratio,
                                    max_part, ES_GNU_MAX_LEVELS, plan->level);
    const int ffts = s->inputs + s->outputs;
    plan->head_bytes = level_bytes(s, &plan->level[0]);
    for (int k = 0; k < plan->levels; k++) {
        const es_nu_level *l = &plan->level[k];
        const double per_frame = level_bytes(s, l) / l->part;
        plan->bytes_per_frame += per_frame;
        plan->cost += per_frame / BYTES_NS + ffts * FFT_NS * 2.0 * log2(2.0 * l->part) +
                      (k > 0 ? LAUNCH_NS / l->part : 0);
    }
}

void es_gnu_plan_choose(const es_gnu_shape *s, es_gnu_plan *plan)
{
    es_gnu_plan best = {0}, candidate;
    const int P0 = head_partition(s);
    for (int ratio = 4; ratio <= 8; ratio += 4)
        for (long max_part = P0; max_part <= ES_GNU_MAX_PART; max_part *= ratio) {
            es_gnu_plan_make(s, ratio, (int)max_part, &candidate);
            if (best.levels == 0 || candidate.cost < best.cost)
                best = candidate;
        }
    *plan = best;
}

static long pow2_at_least(long frames)
{
    long p = 1;
    while (p < frames)
        p <<= 1;
    return p;
}

long es_gnu_history_frames(const es_gnu_plan *plan, int max_block)
{
    long largest = plan->level[0].part;
    for (int k = 1; k < plan->levels; k++)
        largest = plan->level[k].part > largest ? plan->level[k].part : largest;
    return pow2_at_least(4 * largest + 2L * max_block + ES_GNU_HISTORY_SLACK);
}

long es_gnu_ring_frames(const es_nu_level *level, int max_block)
{
    return pow2_at_least((long)level->offset + 2L * level->part + 2L * max_block);
}

uint64_t es_gnu_plan_device_bytes(const es_gnu_shape *s, const es_gnu_plan *plan)
{
    const uint64_t ins = (uint64_t)s->inputs, outs = (uint64_t)s->outputs;
    uint64_t bytes = 0;
    for (int k = 0; k < plan->levels; k++) {
        const es_nu_level *l = &plan->level[k];
        const uint64_t stride = ((uint64_t)l->part + 1 + 3) & ~(uint64_t)3;
        const uint64_t P = (uint64_t)l->part;
        bytes += (uint64_t)s->paths * l->count * stride * 8; /* filter spectra */
        bytes += ins * l->count * stride * 8;                /* the delay line */
        bytes += ins * (2 * P * 4 + stride * 8);             /* segment, its spectrum */
        bytes += outs * (stride * 16 + stride * 8 + 2 * P * 4); /* sums, acc, time */
        if (k > 0)
            bytes += outs * (uint64_t)es_gnu_ring_frames(l, s->max_block) * 4;
    }
    return bytes + ins * (uint64_t)es_gnu_history_frames(plan, s->max_block) * 4;
}

int es_gnu_memory_check(uint64_t need, uint64_t free_bytes, uint64_t reserve, char *err,
                        size_t n)
{
    if (need + reserve <= free_bytes)
        return 0;
    snprintf(err, n, "needs %.1f GB of GPU memory, %.1f GB free", need / 1e9,
             free_bytes / 1e9);
    return -1;
}
