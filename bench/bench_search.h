/* The searches of earshot-bench (bench_search.c): the longest IR an
 * engine runs with zero engine misses (--find-max, to 2 %), and the most
 * outputs of a matrix's inputs (--find-max-paths, to 2 % or one output),
 * each printed as a line (or JSON) with what the search cost. */
#ifndef ES_BENCH_SEARCH_H
#define ES_BENCH_SEARCH_H

#include "bench_run.h"

void es_bench_find_max(es_bench_config *c, int json);
void es_bench_find_max_paths(es_bench_config *c, int json);

#endif
