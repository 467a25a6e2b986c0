/* A whole block through cpu-partitioned in slices (partitioned_steps.h)
 * equals es_engine_process() on the same block bit for bit, however the
 * slices of several engines are interleaved: the property cpu-nonuniform's
 * tail scheduler needs, since a render and a live run must agree whether or
 * not a deeper level's job was preempted.
 *
 * Cases: partitions from 64 to 16384 frames (a slice is then a part of one
 * path's MACs), filters of 1 to 70 partitions (over 32 the MACs are summed
 * in chunks, which slices must not cross), a 3 x 2 matrix with a NULL path,
 * and input with silent blocks (their transforms and MACs are skipped);
 * each with one block a MAC pass and with four (time-blocked passes, whose
 * sums for the next blocks must survive another engine's slices). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partitioned_steps.h"
#include "reference.h"

typedef struct {
    int inputs, outputs, part, parts;
} shape;

static es_ir *matrix(const shape *c, uint64_t *rng)
{
    es_ir *ir = es_ir_create(c->inputs, c->outputs, c->part * c->parts - c->part / 3, 48000);
    for (int i = 0; ir && i < c->inputs; i++)
        for (int o = 0; o < c->outputs; o++) {
            if (c->inputs > 1 && i == 1 && o == 0)
                continue; /* a NULL path */
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; h && t < ir->length; t++)
                h[t] = (float)es_test_uniform(rng) * 0.5f;
        }
    return ir;
}

static int run_case(const shape *c, int pass_blocks, uint64_t *rng)
{
    es_ir *ir = matrix(c, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = c->part, .inputs = c->inputs,
                     .outputs = c->outputs};
    es_options opt = {.partition = c->part};
    char err[256];
    es_engine *whole = es_partitioned_create(&fmt, ir, &opt, pass_blocks, err, sizeof err);
    es_engine *sliced = es_partitioned_create(&fmt, ir, &opt, pass_blocks, err, sizeof err);
    es_engine *other = es_partitioned_create(&fmt, ir, &opt, pass_blocks, err, sizeof err);
    if (!whole || !sliced || !other) {
        printf("FAIL %s\n", err);
        return 1;
    }
    const int blocks = c->parts + 4;
    float **in = es_test_planar(c->inputs, c->part);
    float **a = es_test_planar(c->outputs, c->part);
    float **b = es_test_planar(c->outputs, c->part);
    float **scratch = es_test_planar(c->outputs, c->part);
    int equal = 1, slices = 0;
    for (int n = 0; n < blocks; n++) {
        const int silent = n % 5 == 2 || n % 5 == 3; /* two silent blocks in five */
        for (int i = 0; i < c->inputs; i++)
            for (int t = 0; t < c->part; t++)
                in[i][t] = silent ? 0.0f : (float)es_test_uniform(rng);
        es_engine_process(whole, (const float *const *)in, a, c->part);
        es_block_steps s, s_other;
        es_partitioned_steps_begin(&s);
        es_partitioned_steps_begin(&s_other);
        /* Another engine's block runs between this one's slices, as a more
         * urgent level's job would. */
        int done = 0, other_done = 0;
        while (!done) {
            done = es_partitioned_step(sliced, (const float *const *)in, b, &s);
            slices++;
            if (!other_done)
                other_done = es_partitioned_step(other, (const float *const *)in, scratch,
                                                 &s_other);
        }
        while (!other_done)
            other_done = es_partitioned_step(other, (const float *const *)in, scratch, &s_other);
        for (int o = 0; o < c->outputs; o++)
            equal &= memcmp(a[o], b[o], sizeof(float) * (size_t)c->part) == 0 &&
                     memcmp(a[o], scratch[o], sizeof(float) * (size_t)c->part) == 0;
    }
    printf("%s %d x %d, %d partitions of %d, %d block%s a pass: %d blocks in %d slices, %s\n",
           equal ? "ok  " : "FAIL", c->inputs, c->outputs, c->parts, c->part, pass_blocks,
           pass_blocks == 1 ? "" : "s", blocks, slices, equal ? "equal bit for bit" : "NOT equal");
    es_test_free_planar(in, c->inputs);
    es_test_free_planar(a, c->outputs);
    es_test_free_planar(b, c->outputs);
    es_test_free_planar(scratch, c->outputs);
    es_engine_destroy(whole);
    es_engine_destroy(sliced);
    es_engine_destroy(other);
    es_ir_destroy(ir);
    return !equal;
}

int main(void)
{
    uint64_t rng = es_test_seed();
    static const shape cases[] = {
        {1, 1, 64, 1},    {2, 2, 64, 70},  {1, 2, 256, 33},   {3, 2, 512, 40},
        {2, 2, 4096, 6},  {1, 1, 16384, 3}, {2, 1, 8192, 12},
    };
    int failures = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int pass_blocks = 1; pass_blocks <= ES_PASS_BLOCKS_MAX; pass_blocks += 3)
            failures += run_case(&cases[k], pass_blocks, &rng);
    printf("sliced blocks: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
