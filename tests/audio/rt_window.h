/* The audio thread's side of a processor stage's test, counted: what runs
 * between rt_window_open and rt_window_shut allocates, frees, locks,
 * sleeps and writes nothing (rt_counters.c counts it). The sanitizer
 * build brings its own allocator: there the same calls run uncounted. */
#ifndef ES_TEST_RT_WINDOW_H
#define ES_TEST_RT_WINDOW_H

#include <stdio.h>

#include "reference.h"
#ifdef ES_COUNT_RT
#include "rt_counters.h"
#endif

static inline void rt_window_open(void)
{
#ifdef ES_COUNT_RT
    es_rt_count_begin();
#endif
}

/* Closes the window and checks what was counted in it. */
static inline void rt_window_shut(const char *what)
{
#ifdef ES_COUNT_RT
    const es_rt_counts c = es_rt_count_end();
    char line[400];
    snprintf(line, sizeof line,
             "%s: no allocation, free, lock or wait (%ld, %ld, %ld, %ld counted)", what,
             c.allocs, c.frees, c.locks, c.waits);
    es_test_check(!c.allocs && !c.frees && !c.locks && !c.waits, line);
#else
    printf("skip %s: counted only in the build without sanitizers\n", what);
#endif
}

#endif
