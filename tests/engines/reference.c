#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"

uint64_t es_test_seed(void)
{
    const char *env = getenv("EARSHOT_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    printf("seed %llu (set EARSHOT_TEST_SEED to replay)\n", (unsigned long long)seed);
    return seed ? seed : 1;
}

/* xorshift64*: fast, and plenty for test signals. */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

double es_test_uniform(uint64_t *state)
{
    return (double)(next(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

int es_test_int(uint64_t *state, int lo, int hi)
{
    return lo + (int)(next(state) % (uint64_t)(hi - lo + 1));
}

es_ir *es_test_ir(const char *layout, int length, uint64_t *state)
{
    int ins = 1, outs = 1, full = 0;
    if (!strcmp(layout, "stereo"))
        ins = outs = 2;
    else if (!strcmp(layout, "mono-stereo"))
        outs = 2;
    else if (!strcmp(layout, "true-stereo"))
        ins = outs = 2, full = 1;
    es_ir *ir = es_ir_create(ins, outs, length, 48000);
    for (int i = 0; i < ins; i++)
        for (int o = 0; o < outs; o++) {
            if (ins == outs && !full && i != o)
                continue;
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < length; t++)
                h[t] = (float)es_test_uniform(state);
        }
    return ir;
}

double **es_ref_convolve(const es_ir *ir, float *const *in, int in_frames, int out_frames)
{
    double **out = calloc((size_t)ir->outputs, sizeof *out);
    for (int o = 0; o < ir->outputs; o++) {
        out[o] = calloc((size_t)out_frames, sizeof(double));
        for (int i = 0; i < ir->inputs; i++) {
            const float *h = ir->taps[i * ir->outputs + o];
            if (!h)
                continue;
            /* Loop over input samples: zero padding after in_frames costs nothing. */
            for (int m = 0; m < in_frames && m < out_frames; m++) {
                const double x = in[i][m];
                const int last = out_frames - m < ir->length ? out_frames - m : ir->length;
                double *y = out[o] + m;
                for (int k = 0; k < last; k++)
                    y[k] += x * (double)h[k];
            }
        }
    }
    return out;
}

float **es_test_planar(int channels, int frames)
{
    float **p = calloc((size_t)channels, sizeof *p);
    for (int c = 0; c < channels; c++)
        p[c] = calloc((size_t)frames + 1, sizeof(float));
    return p;
}

void es_test_free_planar(void *planar, int channels)
{
    void **p = planar;
    for (int c = 0; p && c < channels; c++)
        free(p[c]);
    free(p);
}

float **es_test_run(es_engine *e, const es_ir *ir, float *const *in, int in_frames,
                    int out_frames, es_call_pattern calls)
{
    const int latency = es_engine_latency(e);
    const int total = out_frames + latency;
    float **x = es_test_planar(ir->inputs, calls.max_block);
    float **y = es_test_planar(ir->outputs, calls.max_block);
    float **out = es_test_planar(ir->outputs, out_frames);
    float **views = calloc((size_t)ir->outputs, sizeof *views);
    /* Calls alternate between process() and process_views (as the
     * processor asks), so an engine that lends its outputs is checked both
     * ways, and each way after the other. */
    for (int at = 0, call = 0; at < total; call++) {
        int n = calls.random ? es_test_int(calls.state, 1, calls.max_block) : calls.max_block;
        for (int i = 0; i < ir->inputs; i++)
            for (int t = 0; t < n; t++)
                x[i][t] = at + t < in_frames ? in[i][at + t] : 0.0f;
        if (call % 2) {
            es_engine_process_views(e, (const float *const *)x, y, views, ir->outputs, n);
        } else {
            es_engine_process(e, (const float *const *)x, y, n);
            for (int o = 0; o < ir->outputs; o++)
                views[o] = y[o];
        }
        for (int o = 0; o < ir->outputs; o++)
            for (int t = 0; t < n; t++) {
                int k = at + t - latency;
                if (k >= 0 && k < out_frames)
                    out[o][k] = views[o][t];
            }
        at += n;
    }
    free(views);
    es_test_free_planar(x, ir->inputs);
    es_test_free_planar(y, ir->outputs);
    return out;
}

double es_test_error_db(const es_ir *ir, float *const *y, double *const *ref, int frames)
{
    double peak = 0, err = 0;
    for (int o = 0; o < ir->outputs; o++)
        for (int t = 0; t < frames; t++) {
            peak = fmax(peak, fabs(ref[o][t]));
            double d = fabs((double)y[o][t] - ref[o][t]);
            err = d > err || d != d ? d : err;
        }
    if (err != err)
        return INFINITY;
    return err == 0 ? -INFINITY : 20 * log10(err / peak);
}

int es_test_failures;

void es_test_check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    es_test_failures += !ok;
}
