/* A GPU error in the middle of a stream: the engine marks itself failed
 * with the error's text, outputs silence from then on, and nothing crashes
 * or hangs. The error is injected with EARSHOT_GPU_FAIL_AFTER (a real one cannot
 * be had on demand); the path it takes is the one a CUDA error takes.
 *
 *   test_gpu_fault ENGINE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

int main(int argc, char **argv)
{
    const es_engine_class *k = argc > 1 ? es_engine_find(argv[1]) : NULL;
    if (!k) {
        fprintf(stderr, "usage: test_gpu_fault ENGINE\n");
        return 2;
    }
    char why[256];
    if (!k->probe(why, sizeof why)) {
        printf("SKIP %s: %s\n", k->name, why);
        return 77;
    }
    setenv("EARSHOT_GPU_FAIL_AFTER", "20", 1);
    uint64_t rng = es_test_seed();
    es_ir *ir = es_test_ir("stereo", 3000, &rng);
    es_format fmt = {.sample_rate = 48000, .max_block = 128, .inputs = 2, .outputs = 2};
    es_options opt = {.offline = 1};
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL create: %s\n", err);
        return 1;
    }
    float **in = es_test_planar(2, 128), **out = es_test_planar(2, 128);
    int failures = 0, loud_before = 0;
    for (int b = 0; b < 60; b++) {
        for (int i = 0; i < 2; i++)
            for (int t = 0; t < 128; t++)
                in[i][t] = (float)es_test_uniform(&rng);
        es_engine_process(e, (const float *const *)in, out, 128);
        double peak = 0;
        for (int o = 0; o < 2; o++)
            for (int t = 0; t < 128; t++)
                peak = fmax(peak, fabs(out[o][t]));
        if (b < 20)
            loud_before += peak > 0;
        else if (peak != 0) {
            printf("FAIL block %d after the failure is not silent (peak %g)\n", b, peak);
            failures++;
        }
    }
    es_engine_status st;
    es_engine_get_status(e, &st);
    if (!st.failed || !strstr(st.message, "simulated device error")) {
        printf("FAIL status: failed %d, message '%s'\n", st.failed, st.message);
        failures++;
    }
    if (loud_before != 20) {
        printf("FAIL only %d of the 20 blocks before the failure had output\n", loud_before);
        failures++;
    }
    printf("%s: failed=%d '%s'; %s\n", k->name, st.failed, st.message,
           failures ? "FAIL" : "ok");
    es_engine_destroy(e);
    es_test_free_planar(in, 2);
    es_test_free_planar(out, 2);
    es_ir_destroy(ir);
    return failures ? 1 : 0;
}
