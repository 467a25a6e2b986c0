/* A Dirac must come out as the IR, delayed by exactly latency() frames, at
 * every call size; and nothing may come out before it. Also checks a Dirac
 * that arrives mid-stream, after the engine has been running.
 *
 *   test_dirac ENGINE [--pipelined]   (GPU engines run offline: see
 *                                      test_reference.c) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

static int failures, pipelined;

static void check(const es_engine_class *k, int length, int block, int random_calls,
                  int offset, uint64_t *rng)
{
    es_ir *ir = es_test_ir("mono-stereo", length, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = block, .inputs = 1, .outputs = 2};
    es_options opt = {.partition = 64, .offline = 1, .gpu_pipelined = pipelined};
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL create ir=%d block=%d: %s\n", length, block, err);
        failures++;
        es_ir_destroy(ir);
        return;
    }
    const int latency = es_engine_latency(e);
    const int frames = offset + length + 64;
    float **in = es_test_planar(1, frames);
    in[0][offset] = 1.0f;
    /* es_test_run drops `latency` frames; run it with the raw stream too by
     * asking for latency extra frames and checking the front is silent. */
    es_call_pattern calls = {.max_block = block, .random = random_calls, .state = rng};
    float **y = es_test_run(e, ir, in, frames, frames, calls);
    double worst = 0;
    int early = 0;
    for (int o = 0; o < 2; o++) {
        const float *h = ir->taps[o];
        for (int t = 0; t < frames; t++) {
            double want = t >= offset && t - offset < length ? h[t - offset] : 0.0;
            worst = fmax(worst, fabs(y[o][t] - want));
            early |= t < offset && fabs(y[o][t]) > 1e-6;
        }
    }
    /* Also re-run from scratch and check the first `latency` raw frames are
     * silent, which es_test_run's alignment would otherwise hide. */
    es_engine_reset(e);
    float **raw = es_test_planar(2, block);
    float **x = es_test_planar(1, block);
    int silent_front = 1;
    for (int at = 0; at < latency;) {
        int n = latency - at < block ? latency - at : block;
        x[0][0] = at == 0 ? 1.0f : 0.0f;
        es_engine_process(e, (const float *const *)x, raw, n);
        for (int t = 0; t < n; t++)
            silent_front &= fabsf(raw[0][t]) < 1e-6f && fabsf(raw[1][t]) < 1e-6f;
        x[0][0] = 0.0f;
        at += n;
    }
    if (worst > 1e-5 || early || !silent_front) {
        printf("FAIL %s ir=%d block=%d%s offset=%d latency=%d: max deviation %.3g%s%s\n",
               k->name, length, block, random_calls ? " random" : "", offset, latency, worst,
               early ? ", output before the impulse" : "",
               silent_front ? "" : ", output inside the latency");
        failures++;
    }
    es_test_free_planar(in, 1);
    es_test_free_planar(y, 2);
    es_test_free_planar(raw, 2);
    es_test_free_planar(x, 1);
    es_engine_destroy(e);
    es_ir_destroy(ir);
}

int main(int argc, char **argv)
{
    char names[256];
    const es_engine_class *k = argc > 1 ? es_engine_find(argv[1]) : NULL;
    if (!k) {
        fprintf(stderr, "usage: test_dirac ENGINE (engines: %s)\n", es_engine_names(names, sizeof names));
        return 2;
    }
    pipelined = argc > 2 && !strcmp(argv[2], "--pipelined");
    char why[256];
    if (!k->probe(why, sizeof why)) {
        printf("SKIP %s: %s\n", k->name, why);
        return 77;
    }
    uint64_t rng = es_test_seed();
    static const int blocks[] = {1, 7, 64, 128, 1000, 4096};
    int runs = 0;
    for (int b = 0; b < 6; b++)
        for (int offset = 0; offset <= 777; offset += 777) {
            check(k, 1000, blocks[b], 0, offset, &rng);
            check(k, 5 * 64 + 3, blocks[b], 1, offset, &rng);
            runs += 2;
        }
    printf("%s: %d Dirac runs, %d failed\n", k->name, runs, failures);
    return failures ? 1 : 0;
}
