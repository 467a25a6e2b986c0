/* The ringing (engines/include/ringing.h) against the float64 reference,
 * and the identity a primed switch rests on, for every engine that runs
 * here:
 *   1. what the past owes: for fresh random input and IRs (mono, true
 *      stereo, a 2 x 3 matrix with a path missing; 1 to 24000 taps) and
 *      latencies 0 to 300, the ringing equals the float64 convolution of
 *      the past alone, from the moment on, to below -120 dB of its peak;
 *   2. an engine fed only the input from the moment M on, plus the
 *      ringing, equals the float64 convolution of the whole input (the
 *      engine that heard everything), from M - latency on, below -110 dB;
 *      for every engine class that runs here (a GPU engine where there is
 *      a GPU), with random call sizes.
 *
 *   test_ringing [--quick] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "ringing.h"

#define RATE 48000.0

/* The ringing of x[0..moment) for `latency`, checked against the
 * reference; its error in dB of the peak. */
static double ringing_error(const es_ir *ir, float *const *x, int moment, int latency)
{
    char err[256];
    es_ringing *r = es_ringing_create(ir, latency, (size_t)1 << 30, err, sizeof err);
    if (!r) {
        printf("FAIL es_ringing_create: %s\n", err);
        es_test_failures++;
        return INFINITY;
    }
    const int past = es_ringing_past_frames(r), frames = es_ringing_frames(r);
    /* The past as the host keeps it: its last `past` frames, zero before
     * the stream began. */
    float **p = es_test_planar(ir->inputs, past > 0 ? past : 1);
    for (int i = 0; i < ir->inputs; i++)
        for (int t = 0; t < past; t++) {
            const int at = moment - past + t;
            p[i][t] = at >= 0 ? x[i][at] : 0.0f;
        }
    float **out = es_test_planar(ir->outputs, frames > 0 ? frames : 1);
    es_ringing_run(r, (const float *const *)p, out);
    /* The past alone through the room, at conv time moment + m - latency. */
    double **ref = es_ref_convolve(ir, x, moment, moment + frames);
    double **want = malloc((size_t)ir->outputs * sizeof *want);
    for (int o = 0; o < ir->outputs; o++) {
        want[o] = calloc((size_t)(frames > 0 ? frames : 1), sizeof(double));
        for (int m = 0; m < frames; m++) {
            const int t = moment + m - latency;
            want[o][m] = t >= 0 ? ref[o][t] : 0.0;
        }
    }
    const double db = frames > 0 ? es_test_error_db(ir, out, want, frames) : -INFINITY;
    es_test_free_planar(want, ir->outputs);
    es_test_free_planar(ref, ir->outputs);
    es_test_free_planar(out, ir->outputs);
    es_test_free_planar(p, ir->inputs);
    es_ringing_destroy(r);
    return db;
}

/* A 2 x 3 matrix with the path 1 -> 0 missing. */
static es_ir *matrix_ir(int length, uint64_t *rng)
{
    es_ir *ir = es_ir_create(2, 3, length, RATE);
    for (int i = 0; i < 2; i++)
        for (int o = 0; o < 3; o++) {
            if (i == 1 && o == 0)
                continue;
            float *h = es_ir_path(ir, i, o);
            for (int k = 0; k < length; k++)
                h[k] = (float)(es_test_uniform(rng) * exp(-4.0 * k / length));
        }
    return ir;
}

static void check_against_reference(uint64_t *rng, int quick)
{
    static const char *layouts[] = {"mono", "true-stereo", "matrix"};
    static const int lengths[] = {1, 7, 3000, 24000};
    static const int latencies[] = {0, 64, 300};
    double worst = -INFINITY;
    for (size_t l = 0; l < 3; l++)
        for (size_t n = 0; n < 4; n++)
            for (size_t d = 0; d < 3; d++) {
                const int length = lengths[n];
                if (quick && length > 3000)
                    continue;
                es_ir *ir = !strcmp(layouts[l], "matrix") ? matrix_ir(length, rng)
                                                          : es_test_ir(layouts[l], length, rng);
                /* The moment comes after less input than the room is
                 * long, and after more. */
                for (int early = 0; early < 2; early++) {
                    const int moment = early ? length / 2 + 5 : 2 * length + 333;
                    float **x = es_test_planar(ir->inputs, moment);
                    for (int i = 0; i < ir->inputs; i++)
                        for (int t = 0; t < moment; t++)
                            x[i][t] = (float)es_test_uniform(rng);
                    const double db = ringing_error(ir, x, moment, latencies[d]);
                    char what[160];
                    snprintf(what, sizeof what, "ringing %s, %d taps, latency %d, %d frames "
                             "heard: %.1f dB", layouts[l], length, latencies[d], moment, db);
                    es_test_check(db < -120, what);
                    worst = fmax(worst, db);
                    es_test_free_planar(x, ir->inputs);
                }
                es_ir_destroy(ir);
            }
    printf("ringing against float64: worst %.1f dB of the peak\n", worst);
}

/* An engine fed x[moment..] with no history, plus the ringing of
 * x[..moment), against the whole input's convolution. */
static void check_engine(const es_engine_class *k, uint64_t *rng)
{
    const int length = 12000, block = 256, moment = 30011, after = 20000;
    es_ir *ir = es_test_ir("true-stereo", length, rng);
    const int total = moment + after;
    float **x = es_test_planar(2, total);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < total; t++)
            x[i][t] = (float)es_test_uniform(rng);
    es_format fmt = {.sample_rate = RATE, .max_block = block, .inputs = 2, .outputs = 2};
    es_options opt = {.offline = 1};
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL %s: %s\n", k->name, err);
        es_test_failures++;
        es_ir_destroy(ir);
        es_test_free_planar(x, 2);
        return;
    }
    const int latency = es_engine_latency(e);
    float *future[2] = {x[0] + moment, x[1] + moment};
    es_call_pattern calls = {.max_block = block, .random = 1, .state = rng};
    /* The engine's output at conv time moment + c. */
    float **y = es_test_run(e, ir, future, after, after, calls);
    es_engine_destroy(e);
    es_ringing *r = es_ringing_create(ir, latency, (size_t)1 << 30, err, sizeof err);
    const int past = es_ringing_past_frames(r), frames = es_ringing_frames(r);
    float **p = es_test_planar(2, past);
    for (int i = 0; i < 2; i++)
        memcpy(p[i], x[i] + moment - past, (size_t)past * sizeof(float));
    float **ring = es_test_planar(2, frames);
    es_ringing_run(r, (const float *const *)p, ring);
    /* From conv time moment - latency on: what a host that delays the
     * engine by its latency plays from the moment it switched. */
    const int span = after + latency;
    double **full = es_ref_convolve(ir, x, total, total);
    double **want = malloc(2 * sizeof *want);
    float **got = es_test_planar(2, span);
    for (int o = 0; o < 2; o++) {
        want[o] = malloc((size_t)span * sizeof(double));
        for (int c = 0; c < span; c++) {
            const int t = moment - latency + c; /* conv time */
            want[o][c] = full[o][t];
            const float engine = t >= moment ? y[o][t - moment] : 0.0f;
            got[o][c] = engine + (c < frames ? ring[o][c] : 0.0f);
        }
    }
    const double db = es_test_error_db(ir, got, want, span);
    char what[200];
    snprintf(what, sizeof what, "%s from frame %d with no history, plus the ringing, equals "
             "the whole input's convolution: %.1f dB", k->name, moment, db);
    es_test_check(db < -110, what);
    es_test_free_planar(want, 2);
    es_test_free_planar(got, 2);
    es_test_free_planar(full, 2);
    es_test_free_planar(ring, 2);
    es_test_free_planar(p, 2);
    es_test_free_planar(y, 2);
    es_test_free_planar(x, 2);
    es_ringing_destroy(r);
    es_ir_destroy(ir);
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    uint64_t rng = es_test_seed();
    check_against_reference(&rng, quick);
    char err[256];
    es_ir *big = es_test_ir("true-stereo", 48000, &rng);
    es_ringing *none = es_ringing_create(big, 0, 1 << 20, err, sizeof err);
    es_test_check(!none && strstr(err, "MB"), "a ringing past its memory is refused, said");
    printf("    %s\n", err);
    es_ringing_destroy(none);
    es_ir_destroy(big);
    for (int c = 0; es_engines[c]; c++) {
        char why[256];
        if (!es_engines[c]->probe(why, sizeof why)) {
            printf("skip %s: %s\n", es_engines[c]->name, why);
            continue;
        }
        check_engine(es_engines[c], &rng);
    }
    return es_test_failures ? 1 : 0;
}
