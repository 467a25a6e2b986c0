/* Time-blocked MAC passes (engine_partitioned.c): an engine that sums
 * 2, 3 or 4 blocks in one pass over its filter gives the convolution, to
 * float64, whatever comes between two passes:
 *
 *   - whole-block calls only (the pass, then blocks that add only their
 *     newest partitions to what the pass summed for them);
 *   - calls of random sizes, so partial blocks (which sum their own tail)
 *     fall between passes and the phase goes on counting through them;
 *   - silent stretches, whose slots the passes skip;
 *   - a reset in the middle, after which nothing summed before may count;
 *   - filters shorter than the blocks a pass serves (1 to 3 partitions),
 *     a 3 x 2 matrix with a path missing, and over 32 partitions (summed
 *     in chunks).
 *
 * Each run is checked against the float64 direct convolution (-120 dB)
 * and against the same engine with one block a pass (-120 dB: the sums
 * run in another order, so not bit for bit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partitioned_steps.h"
#include "reference.h"

typedef struct {
    const char *layout;
    int part, parts;
} shape;

/* A 3 x 2 matrix with the path 1 -> 0 missing. */
static es_ir *matrix(int length, uint64_t *rng)
{
    es_ir *ir = es_ir_create(3, 2, length, 48000);
    for (int i = 0; ir && i < 3; i++)
        for (int o = 0; o < 2; o++) {
            if (i == 1 && o == 0)
                continue;
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; h && t < length; t++)
                h[t] = (float)es_test_uniform(rng) * 0.5f;
        }
    return ir;
}

/* Runs `frames` of in through e in calls of `block` frames (random sizes
 * up to block when random), resetting e (and restarting the signal's
 * reference) at frame `reset_at` when it is > 0. Returns the output. */
static float **run(es_engine *e, const es_ir *ir, float **in, int frames, int block, int random,
                   int reset_at, uint64_t *rng)
{
    float **out = es_test_planar(ir->outputs, frames);
    const float **ip = calloc((size_t)ir->inputs, sizeof *ip);
    float **op = calloc((size_t)ir->outputs, sizeof *op);
    int at = 0;
    while (at < frames) {
        int n = random ? es_test_int(rng, 1, block) : block;
        if (reset_at > 0 && at < reset_at && at + n > reset_at)
            n = reset_at - at;
        n = at + n > frames ? frames - at : n;
        if (at == reset_at)
            es_engine_reset(e);
        for (int i = 0; i < ir->inputs; i++)
            ip[i] = in[i] + at;
        for (int o = 0; o < ir->outputs; o++)
            op[o] = out[o] + at;
        es_engine_process(e, ip, op, n);
        at += n;
    }
    free(ip);
    free(op);
    return out;
}

static double worst_db(const es_ir *ir, float **y, double **ref, int from, int frames)
{
    double err = 0, peak = 0;
    for (int o = 0; o < ir->outputs; o++)
        for (int t = from; t < frames; t++) {
            const double d = fabs((double)y[o][t] - ref[o][t - from]);
            err = d > err ? d : err;
            peak = fabs(ref[o][t - from]) > peak ? fabs(ref[o][t - from]) : peak;
        }
    return err == 0 ? -INFINITY : 20 * log10(err / peak);
}

static void run_case(const shape *c, int random, uint64_t *rng)
{
    const int length = c->part * c->parts - c->part / 3;
    es_ir *ir = strcmp(c->layout, "3x2") == 0 ? matrix(length, rng)
                                               : es_test_ir(c->layout, length, rng);
    const int frames = c->part * (c->parts + 13), reset_at = c->part * 7 + c->part / 2;
    float **in = es_test_planar(ir->inputs, frames);
    for (int i = 0; i < ir->inputs; i++)
        for (int t = 0; t < frames; t++) {
            const int block = t / c->part;
            in[i][t] = block % 6 == 3 || block % 6 == 4 ? 0.0f : (float)es_test_uniform(rng);
        }
    /* After the reset the engine starts from silence: the reference is
     * that of the signal from reset_at on. */
    float **after = es_test_planar(ir->inputs, frames - reset_at);
    for (int i = 0; i < ir->inputs; i++)
        memcpy(after[i], in[i] + reset_at, sizeof(float) * (size_t)(frames - reset_at));
    double **ref_before = es_ref_convolve(ir, in, reset_at, reset_at);
    double **ref_after = es_ref_convolve(ir, after, frames - reset_at, frames - reset_at);

    es_format fmt = {.sample_rate = 48000, .max_block = c->part, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    es_options opt = {.partition = c->part};
    char err[256];
    float **plain = NULL;
    for (int pass = 1; pass <= ES_PASS_BLOCKS_MAX; pass++) {
        es_engine *e = es_partitioned_create(&fmt, ir, &opt, pass, err, sizeof err);
        if (!e) {
            es_test_check(0, err);
            break;
        }
        const uint64_t calls_seed = *rng; /* the same call sizes for every pass count */
        uint64_t calls = calls_seed;
        float **y = run(e, ir, in, frames, c->part, random, reset_at, &calls);
        const double before = worst_db(ir, y, ref_before, 0, reset_at);
        float **y_after = es_test_planar(ir->outputs, frames - reset_at);
        for (int o = 0; o < ir->outputs; o++)
            memcpy(y_after[o], y[o] + reset_at, sizeof(float) * (size_t)(frames - reset_at));
        const double after_db = worst_db(ir, y_after, ref_after, 0, frames - reset_at);
        char what[256];
        snprintf(what, sizeof what,
                 "%s, %d x %d, %s calls, %d block%s a pass: %.1f dB before the reset, "
                 "%.1f dB after",
                 c->layout, c->parts, c->part, random ? "random" : "whole-block", pass,
                 pass == 1 ? "" : "s", before, after_db);
        es_test_check(before <= -120 && after_db <= -120, what);
        if (pass == 1) {
            plain = y;
        } else {
            double diff = 0, peak = 0;
            for (int o = 0; o < ir->outputs; o++)
                for (int t = 0; t < frames; t++) {
                    const double d = fabs((double)y[o][t] - plain[o][t]);
                    diff = d > diff ? d : diff;
                    peak = fabs(plain[o][t]) > peak ? fabs(plain[o][t]) : peak;
                }
            const double db = diff == 0 ? -INFINITY : 20 * log10(diff / peak);
            snprintf(what, sizeof what, "  and within %.1f dB of one block a pass", db);
            es_test_check(db <= -120, what);
            es_test_free_planar(y, ir->outputs);
        }
        es_test_free_planar(y_after, ir->outputs);
        es_engine_destroy(e);
        if (pass == ES_PASS_BLOCKS_MAX)
            *rng = calls; /* move on */
    }
    es_test_free_planar(plain, ir->outputs);
    es_test_free_planar(in, ir->inputs);
    es_test_free_planar(after, ir->inputs);
    es_test_free_planar(ref_before, ir->outputs);
    es_test_free_planar(ref_after, ir->outputs);
    es_ir_destroy(ir);
}

int main(void)
{
    uint64_t rng = es_test_seed();
    static const shape cases[] = {
        {"mono", 64, 1},    {"mono", 64, 2},     {"stereo", 64, 3},   {"stereo", 128, 9},
        {"3x2", 256, 13},   {"true-stereo", 64, 70}, {"mono-stereo", 1024, 6},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int random = 0; random <= 1; random++)
            run_case(&cases[k], random, &rng);
    printf("time-blocked passes: %s\n", es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
