/* A test double: an engine that wraps a real one and
 *   - counts its creations and destructions, so a test can prove every
 *     engine it made was destroyed exactly once (a destroyed wrapper stays
 *     allocated, in a static pool, so a second destroy is counted, not
 *     undefined);
 *   - busy-waits inside process() on chosen calls, so a test can put a
 *     known delay into chosen blocks of the processor (which times the
 *     engine path, so the delay counts as the engine's time).
 * Control-side calls from one thread at a time; process() from one. */
#ifndef ES_TEST_WRAP_ENGINE_H
#define ES_TEST_WRAP_ENGINE_H

#include <stdint.h>

#include "engine.h"

/* The class every wrapper has (name "test-wrap"). */
extern const es_engine_class es_test_wrap_class;

/* Wraps `inner` (taking it; NULL gives NULL). delay_calls: 0-based
 * numbers of process() calls, ascending, each delayed by delay_us; NULL
 * and 0 for none. The array must outlive the engine. NULL when the pool
 * is spent (inner is then destroyed). */
es_engine *es_test_wrap(es_engine *inner, const uint64_t *delay_calls, int delay_count,
                        double delay_us);
/* The wrapper's delays sleep (off the CPU, as a thread the machine
 * deschedules) instead of busy-waiting (the engine's own work). */
void es_test_wrap_off_cpu(es_engine *wrapped);
/* es_engine_create for `k` and fmt/ir/opt, wrapped without delays. */
es_engine *es_test_wrap_create(const es_engine_class *k, const es_format *fmt, const es_ir *ir,
                               char *err, size_t n);

/* A second double: an engine that lends its outputs (process_views), as
 * a GPU engine lends its mapped staging. It runs `inner` (taking it; NULL
 * gives NULL) into buffers of its own, points the views there, and fills
 * the caller's own[] with NaN: a host that read own[] instead of the
 * views would play NaN. Its process() is inner's. Destroyed with
 * es_engine_destroy, which destroys inner. */
es_engine *es_test_lender(es_engine *inner, int outputs, int max_block);

typedef struct {
    long created;        /* wrappers made since the last es_test_wrap_forget() */
    long destroyed;      /* of those, destroyed at least once */
    long alive;          /* created and never destroyed */
    long destroyed_twice; /* destroyed more than once */
} es_test_census;

void es_test_wrap_census(es_test_census *c);
/* 1 when every wrapper made was destroyed exactly once; else 0, and a line
 * saying what is wrong. */
int es_test_wrap_all_gone(const char *when);
/* Starts the count again (the pool is reused). Only with none alive. */
void es_test_wrap_forget(void);

#endif
