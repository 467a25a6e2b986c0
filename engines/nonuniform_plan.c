/* Choosing the non-uniform partition plan. A level with partition P and n
 * partitions costs, per frame:
 *   FFT:  (inputs + outputs) transforms of 2P points per P frames,
 *         about C_FFT * 2P log2(2P) each (with the layout passes and copies
 *         around them);
 *   MAC:  paths * n * (P + 1) complex multiply-adds per P frames: C_MAC_HEAD
 *         each in the head (small, cached); C_MAC_TAIL in a tail level, whose
 *         spectra stream from memory but whose passes serve four blocks
 *         (engine_partitioned.c);
 *   jobs: a tail level's worker wakes once per P frames, C_JOB each.
 * Small partitions cost MACs, large ones FFTs and a longer head (a level of
 * partition P may start only at 2P + max_block, so its work has P -
 * max_block frames of time). Every growth ratio (2 to 16) and largest
 * partition up to ES_NU_MAX_PART is built and costed, and the cheapest is
 * kept: the same trade zita-convolver makes with its level sizes, and
 * Wefers' cost models in general.
 *
 * The constants are ns on a 2020s x86 core with FFTW and the AVX-512
 * kernels, fitted to seven plans of a 2 s stereo room at block 128 run
 * through build/earshot-zita-compare (2.6 to 5.1 ms of CPU a second, the
 * fit within 0.17 of each); only their ratios matter. With time-blocked
 * tail passes, MACs became cheap beside transforms, and fewer, longer
 * levels won: growth x16 from the head to 2048-frame partitions measured
 * 2.59 ms/s where the older model's pick (x4 up to 8192) took 3.20. */
#include <math.h>
#include <string.h>

#include "nonuniform.h"
#include "partition.h"

#define C_FFT 0.12       /* ns per point-log2(point) of a real FFT */
#define C_MAC_HEAD 0.12  /* ns per complex multiply-add, head */
#define C_MAC_TAIL 0.2   /* ns per complex multiply-add, tail level */
#define C_JOB 3000.0     /* ns per worker wakeup */

/* C_FFT holds per point and log2 up to 8192 points; past that a
 * transform's working set leaves the first-level cache: a forward and
 * inverse pair with Debian's FFTW on an AVX-512 Xeon measured 0.20-0.26
 * ns per point-log up to 8192 points, 0.32 at 16384 and 0.40 at 32768.
 * With the old constant, a render's block of 8192 (16384 points) was
 * chosen where it was no cheaper than 4096, at more memory (the stereo
 * demo reverbs of jconvolver). */
static double fft_size_factor(double points)
{
    const double over = log2(points) - 13.0;
    return over > 0 ? 1.0 + 0.35 * over : 1.0;
}

double es_nu_level_cost(int ffts, int paths, const es_nu_level *l, int tail)
{
    const double P = l->part;
    return ffts * C_FFT * fft_size_factor(2.0 * P) * 2.0 * log2(2.0 * P) +
           paths * l->count * (tail ? C_MAC_TAIL : C_MAC_HEAD) * (P + 1) / P +
           (tail ? C_JOB / P : 0);
}

int es_nu_cut_levels(int max_block, int length, int p0, int ratio, int max_part, int max_levels,
                     es_nu_level *level)
{
    const int L = length > 0 ? length : 1;
    int P = p0, start = 0, levels = 0;
    for (int k = 0; k < max_levels; k++) {
        es_nu_level *l = &level[k];
        l->part = P;
        l->offset = start;
        levels = k + 1;
        const long next = (long)P * ratio;
        const long next_start = 2 * next + max_block; /* the next level's earliest offset */
        if (next > max_part || k == max_levels - 1 || next_start >= L) {
            l->count = (L - start + P - 1) / P; /* the rest of the IR */
            break;
        }
        l->count = (int)((next_start - start + P - 1) / P);
        if (l->count < 1)
            l->count = 1;
        start += l->count * P;
        P = (int)next;
    }
    return levels;
}

void es_nu_plan_make(const es_format *fmt, const es_ir *ir, int head_part, int ratio,
                     int max_part, es_nu_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->ratio = ratio;
    const int p0 = head_part > 0 ? head_part : es_default_partition(fmt->max_block);
    plan->levels = es_nu_cut_levels(fmt->max_block, ir->length, p0, ratio, max_part,
                                    ES_NU_MAX_LEVELS, plan->level);
    const int paths = es_ir_path_count(ir), ffts = ir->inputs + ir->outputs;
    plan->cost = 0;
    for (int k = 0; k < plan->levels; k++)
        plan->cost += es_nu_level_cost(ffts, paths, &plan->level[k], k > 0);
}

void es_nu_plan_choose(const es_format *fmt, const es_ir *ir, int head_part, es_nu_plan *plan)
{
    es_nu_plan best = {0}, candidate;
    const int P0 = head_part > 0 ? head_part : es_default_partition(fmt->max_block);
    for (int ratio = 2; ratio <= 16; ratio *= 2)
        for (int max_part = P0; max_part <= ES_NU_MAX_PART; max_part *= ratio) {
            es_nu_plan_make(fmt, ir, head_part, ratio, max_part, &candidate);
            if (best.levels == 0 || candidate.cost < best.cost)
                best = candidate;
        }
    *plan = best;
}
