/* Engines null against each other: ENGINE and cpu-partitioned (or the
 * engine named with --against) on the same fresh random input and IR give
 * the same output, to below -120 dB of the peak, for several layouts,
 * lengths and block sizes.
 *
 *   test_null ENGINE [--pipelined] [--against ENGINE] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

static int failures;

static float **render(const es_engine_class *k, const es_ir *ir, float **in, int frames,
                      int block, int pipelined)
{
    es_format fmt = {.sample_rate = 48000, .max_block = block, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    es_options opt = {.offline = 1, .gpu_pipelined = pipelined};
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL %s: %s\n", k->name, err);
        failures++;
        return NULL;
    }
    es_call_pattern calls = {.max_block = block};
    float **y = es_test_run(e, ir, in, frames, frames + ir->length - 1, calls);
    es_engine_destroy(e);
    return y;
}

int main(int argc, char **argv)
{
    const es_engine_class *k = argc > 1 ? es_engine_find(argv[1]) : NULL;
    const es_engine_class *ref = es_engine_find("cpu-partitioned");
    int pipelined = 0;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--pipelined"))
            pipelined = 1;
        else if (!strcmp(argv[a], "--against") && a + 1 < argc)
            ref = es_engine_find(argv[++a]);
        else
            ref = NULL;
    }
    if (!k || !ref) {
        fprintf(stderr, "usage: test_null ENGINE [--pipelined] [--against ENGINE]\n");
        return 2;
    }
    char why[256];
    if (!k->probe(why, sizeof why)) {
        printf("SKIP %s: %s\n", k->name, why);
        return 77;
    }
    uint64_t rng = es_test_seed();
    static const char *layouts[] = {"mono", "stereo", "true-stereo"};
    static const int lengths[] = {1000, 48000, 96000};
    static const int blocks[] = {32, 64, 256, 1024};
    double worst = -INFINITY;
    for (int l = 0; l < 3; l++)
        for (int b = 0; b < 4; b++) {
            es_ir *ir = es_test_ir(layouts[l], lengths[(l + b) % 3], &rng);
            const int frames = 4096;
            float **in = es_test_planar(ir->inputs, frames);
            for (int i = 0; i < ir->inputs; i++)
                for (int t = 0; t < frames; t++)
                    in[i][t] = (float)es_test_uniform(&rng);
            float **a = render(k, ir, in, frames, blocks[b], pipelined);
            float **c = render(ref, ir, in, frames, blocks[b], 0);
            if (a && c) {
                const int n = frames + ir->length - 1;
                double peak = 0, err = 0;
                for (int o = 0; o < ir->outputs; o++)
                    for (int t = 0; t < n; t++) {
                        peak = fmax(peak, fabs(c[o][t]));
                        err = fmax(err, fabs((double)a[o][t] - c[o][t]));
                    }
                double db = 20 * log10(err / peak);
                worst = fmax(worst, db);
                printf("%s %s vs %s, %s ir=%d block=%d: %.1f dB\n",
                       db <= -120 ? "ok  " : "FAIL", k->name, ref->name, layouts[l],
                       ir->length, blocks[b], db);
                failures += !(db <= -120);
            }
            es_test_free_planar(a, ir->outputs);
            es_test_free_planar(c, ir->outputs);
            es_test_free_planar(in, ir->inputs);
            es_ir_destroy(ir);
        }
    printf("%s: null against %s, worst %.1f dB, %d failed\n", k->name, ref->name, worst,
           failures);
    return failures ? 1 : 0;
}
