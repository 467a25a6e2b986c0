/* Render's plans. Live, the block is the latency a person hears; in a file
 * it is only a cost, so the block (and with it the head partition) becomes
 * a free variable of the same cost model cpu-nonuniform already plans its
 * levels with (nonuniform_plan.c): small partitions pay in multiply-adds
 * over many partitions, large ones in longer transforms. fconvolver makes
 * the same choice (8192-frame partitions whatever its configuration says);
 * here the model picks per IR and channel count. */
#include <stdio.h>

#include "nonuniform.h"
#include "offline_plan.h"

/* Powers of two from here to ES_BLOCK_MAX: below it the per-call overhead
 * of the processor and the file chunks alone costs more than the model
 * sees. */
#define OFFLINE_MIN_BLOCK 256

int es_partitioned_offline_block(const es_format *fmt, const es_ir *ir, es_options *opt,
                                 char *plan, size_t n, double *cost_ns)
{
    const int ffts = ir->inputs + ir->outputs, paths = es_ir_path_count(ir);
    int best = OFFLINE_MIN_BLOCK;
    double best_cost = 0;
    for (int P = OFFLINE_MIN_BLOCK; P <= ES_BLOCK_MAX; P *= 2) {
        const es_nu_level l = {P, 0, (ir->length + P - 1) / P};
        const double cost = es_nu_level_cost(ffts, paths, &l, 0);
        if (P == OFFLINE_MIN_BLOCK || cost < best_cost) {
            best = P;
            best_cost = cost;
        }
    }
    opt->partition = best;
    const int parts = (ir->length + best - 1) / best;
    snprintf(plan, n, "block and partition %d: %d partition%s of the %d-tap IR, %d paths "
             "(model: %.0f ns a frame)", best, parts, parts == 1 ? "" : "s", ir->length,
             paths, best_cost);
    if (cost_ns)
        *cost_ns = best_cost;
    (void)fmt;
    return best;
}

int es_nonuniform_offline_block(const es_format *fmt, const es_ir *ir, es_options *opt,
                                char *plan, size_t n, double *cost_ns)
{
    es_nu_plan best = {0};
    int best_block = OFFLINE_MIN_BLOCK;
    for (int B = OFFLINE_MIN_BLOCK; B <= ES_BLOCK_MAX; B *= 2) {
        es_format at = *fmt;
        at.max_block = B;
        es_nu_plan p;
        es_nu_plan_choose(&at, ir, 0, &p);
        if (best.levels == 0 || p.cost < best.cost) {
            best = p;
            best_block = B;
        }
    }
    opt->partition = 0; /* the head's partition follows the block */
    /* Tail jobs on the rendering thread: a worker would only add its
     * wakeups to the CPU time (the output is the same bit for bit). */
    opt->workers = -1;
    int used = snprintf(plan, n, "block %d, tail jobs on the rendering thread, levels",
                        best_block);
    for (int k = 0; k < best.levels && used > 0 && (size_t)used < n; k++)
        used += snprintf(plan + used, n - (size_t)used, " %d x %d", best.level[k].count,
                         best.level[k].part);
    if (used > 0 && (size_t)used < n)
        snprintf(plan + used, n - (size_t)used, " (model: %.0f ns a frame)", best.cost);
    if (cost_ns)
        *cost_ns = best.cost;
    return best_block;
}
