/* `earshot bench --plot FILE.svg`: how an engine's cost grows, as a
 * picture. Two sweeps per engine, each point one es_bench_run:
 *   the IR's length  (at one channel layout), and
 *   the paths        (C inputs -> C outputs, one filter each, at one IR).
 * Each point is the callback's mean time per block over the block's
 * duration (its load), its p99 beside it, and for a GPU engine the GPU's
 * own time per job; the real-time line (100 %) is marked. Points of other
 * programs (a peer's render, timed whole) come from a file, drawn as
 * markers with their own labels. Internal to bench/. */
#ifndef ES_BENCH_PLOT_H
#define ES_BENCH_PLOT_H

#include "bench_run.h"
#include "core/param.h"

#define ES_PLOT_MAX_X ES_PARAM_LIST_MAX
#define ES_PLOT_MAX_ENGINES 8

typedef struct {
    const es_bench_config *base;   /* rate, block, seconds, max wall, options */
    const es_engine_class *const *engines;
    int engine_count;
    int back_to_back;              /* GPU engines too (else they are paced) */
    es_double_list ir_seconds;     /* the first sweep's lengths */
    int ir_channels;               /* its layout: C x C diagonal */
    es_int_list channels;          /* the second sweep's C */
    double paths_ir_seconds;       /* its IR length */
    const char *points_path;       /* NULL: no other program's points */
    const char *out_path;          /* the SVG */
} es_plot_request;

/* Checks what can be checked before the sweeps (the output can be
 * written, the points file reads); runs them, printing a table row per
 * point as it goes; writes the SVG. 0, 1 when a point failed (drawn
 * without it), 2 on bad input (one line said). */
int es_bench_plot(const es_plot_request *rq);

#endif
