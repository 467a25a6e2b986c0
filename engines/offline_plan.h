/* Plans for rendering a file (internal to engines/): es_engine_class's
 * offline_block for the engines that have one. */
#ifndef ES_OFFLINE_PLAN_H
#define ES_OFFLINE_PLAN_H

#include <stddef.h>

#include "engine.h"

int es_partitioned_offline_block(const es_format *fmt, const es_ir *ir, es_options *opt,
                                 char *plan, size_t n, double *cost_ns);
int es_nonuniform_offline_block(const es_format *fmt, const es_ir *ir, es_options *opt,
                                char *plan, size_t n, double *cost_ns);

#endif
