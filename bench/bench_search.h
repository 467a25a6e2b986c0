/* The searches of earshot-bench (bench_search.c): the longest IR an
 * engine runs with zero engine misses (--find-max, to 2 %), and the most
 * outputs of a matrix's inputs (--find-max-paths, to 2 % or one output,
 * as many times as --search-runs says),
 * each printed as a line (or JSON) with what the search cost. */
#ifndef ES_BENCH_SEARCH_H
#define ES_BENCH_SEARCH_H

#include "bench_run.h"

void es_bench_find_max(es_bench_config *c, int json);
/* `runs` searches over one room, then their spread; `wall` > 0: seconds
 * a search may take (it ends with the bracket it reached). */
void es_bench_find_max_paths(es_bench_config *c, int json, int runs, double wall);

#endif
