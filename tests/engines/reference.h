/* Test helpers: fresh random signals, the float64 direct convolution every
 * engine is checked against, and a driver that runs an engine over a whole
 * signal with chosen call sizes. */
#ifndef ES_TEST_REFERENCE_H
#define ES_TEST_REFERENCE_H

#include <stdint.h>

#include "engine.h"

/* Seeded from the clock unless EARSHOT_TEST_SEED is set; the seed is
 * printed so a failure can be replayed. */
uint64_t es_test_seed(void);
double es_test_uniform(uint64_t *state);       /* [-1, 1) */

/* The tests' tally: es_test_check prints "ok   WHAT" or "FAIL WHAT" and
 * counts the failures in es_test_failures. */
extern int es_test_failures;
void es_test_check(int ok, const char *what);
int es_test_int(uint64_t *state, int lo, int hi); /* [lo, hi] */

/* An IR matrix of `paths` layout with random taps:
 *   "mono" 1x1, "stereo" 2x2 diagonal, "mono-stereo" 1x2, "true-stereo" 2x2 full. */
es_ir *es_test_ir(const char *layout, int length, uint64_t *state);

/* out[o][n] = sum_i sum_k h_io[k] in_i[n - k] in double, n < out_frames. */
double **es_ref_convolve(const es_ir *ir, float *const *in, int in_frames, int out_frames);

float **es_test_planar(int channels, int frames); /* zeroed */
void es_test_free_planar(void *p, int channels);

/* Call sizes: a fixed size, or random in [1, max_block] when random = 1. */
typedef struct {
    int max_block;
    int random;
    uint64_t *state;
} es_call_pattern;

/* Feeds in (then zeros) through e and returns out_frames frames of output
 * starting `latency` frames in, i.e. aligned with the reference. Calls
 * alternate between es_engine_process and es_engine_process_views. */
float **es_test_run(es_engine *e, const es_ir *ir, float *const *in, int in_frames,
                    int out_frames, es_call_pattern calls);

/* 20 log10(max |y - ref| / max |ref|) over all outputs; -inf if exact. */
double es_test_error_db(const es_ir *ir, float *const *y, double *const *ref, int frames);

#endif
