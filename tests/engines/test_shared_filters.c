/* Repeated filters: es_ir_first_alike finds the rows that are the same
 * bit for bit (and no other), and an engine given a matrix where paths
 * repeat one filter, and where a path differs from another only in its
 * last tap or by the sign of one zero, plays every path right: each
 * output against the float64 reference on fresh random input, within the
 * engine's own bound. Built and destroyed twice over, so that a filter
 * freed twice shows (the sanitizer build stops on it).
 *
 *   test_shared_filters ENGINE        (77 where the engine cannot run) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define LENGTH 3000
#define INPUTS 3
#define OUTPUTS 4

/* Rows (input i -> output o, row i * OUTPUTS + o) and what they repeat:
 *   A at 0, 5, 10; B at 1 and 11; A with another last tap at 2;
 *   A with -0 for a +0 tap at 6; no path at 3 and 9; C at 4, 7, 8. */
static es_ir *matrix(uint64_t *rng, int want[INPUTS * OUTPUTS])
{
    es_ir *ir = es_ir_create(INPUTS, OUTPUTS, LENGTH, 48000);
    float a[LENGTH], b[LENGTH], c[LENGTH];
    for (int t = 0; t < LENGTH; t++) {
        const double decay = exp(-4.0 * t / LENGTH);
        a[t] = (float)(0.3 * es_test_uniform(rng) * decay);
        b[t] = (float)(0.3 * es_test_uniform(rng) * decay);
        c[t] = (float)(0.3 * es_test_uniform(rng) * decay);
    }
    a[100] = 0.0f; /* the tap row 6 gives -0 */
    const float *rows[INPUTS * OUTPUTS] = {a, b, a, NULL, c, a, a, c, c, NULL, a, b};
    const int first[INPUTS * OUTPUTS] = {0, 1, 2, -1, 4, 0, 6, 4, 4, -1, 0, 1};
    for (int r = 0; r < INPUTS * OUTPUTS; r++) {
        want[r] = first[r];
        if (!rows[r])
            continue;
        float *h = es_ir_path(ir, r / OUTPUTS, r % OUTPUTS);
        memcpy(h, rows[r], sizeof a);
        if (r == 2)
            h[LENGTH - 1] += 0.25f;
        if (r == 6)
            h[100] = -0.0f;
    }
    return ir;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *name = argc > 1 ? argv[1] : "cpu-partitioned";
    const es_engine_class *k = es_engine_find(name);
    char err[256];
    if (!k || !k->probe(err, sizeof err)) {
        printf("skip %s: %s\n", name, k ? err : "no such engine");
        return 77;
    }
    uint64_t rng = es_test_seed();
    int want[INPUTS * OUTPUTS], like[INPUTS * OUTPUTS];
    es_ir *ir = matrix(&rng, want);
    int right = es_ir_first_alike(ir, like) == 0;
    for (int r = 0; r < INPUTS * OUTPUTS; r++)
        right &= like[r] == want[r];
    es_test_check(right, "es_ir_first_alike: the repeats of A, B and C found; a last tap "
                         "and a -0 tell rows apart; no path is -1");

    const int frames = 9000;
    float **in = es_test_planar(INPUTS, frames);
    for (int i = 0; i < INPUTS; i++)
        for (int t = 0; t < frames; t++)
            in[i][t] = (float)(0.5 * es_test_uniform(&rng));
    double **ref = es_ref_convolve(ir, in, frames, frames + LENGTH);
    const es_format fmt = {.sample_rate = 48000, .max_block = 256, .inputs = INPUTS,
                           .outputs = OUTPUTS};
    for (int round = 0; round < 2; round++) {
        es_options opt = {.partition = round ? 512 : 0, .offline = 1};
        es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
        if (!e) {
            printf("FAIL %s: %s\n", name, err);
            return 1;
        }
        es_call_pattern calls = {.max_block = 256, .random = round, .state = &rng};
        float **y = es_test_run(e, ir, in, frames, frames + LENGTH, calls);
        const double db = es_test_error_db(ir, y, ref, frames + LENGTH);
        char line[200];
        snprintf(line, sizeof line, "%s, partition %s, %s calls: every output against the "
                 "float64 reference at %.1f dB", name, round ? "512" : "default",
                 round ? "random" : "256-frame", db);
        es_test_check(db < -100.0, line);
        es_engine_destroy(e);
        es_test_free_planar(y, OUTPUTS);
    }
    for (int o = 0; o < OUTPUTS; o++)
        free(ref[o]);
    free(ref);
    es_test_free_planar(in, INPUTS);
    es_ir_destroy(ir);
    printf("shared filters (%s): %s\n", name, es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
