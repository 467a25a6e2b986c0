/* A GPU engine's matrix split by outputs over several shards (--gpu 0,1,...):
 * shard k on GPU k modulo the GPUs there are, so one GPU holds every shard
 * (0,0,0) and two take turns (0,1,0,1). Skipped (exit 77) without a usable
 * GPU.
 *   - A 64 x 64 matrix (4096 paths) at block 64, in 1, 2, 3 (uneven: 22,
 *     21, 21 outputs) and 4 shards: every output of every split equals the
 *     one-shard output bit for bit, and the outputs on each side of every
 *     shard boundary (first and last too) null at or below -120 dB against
 *     float64. The plan is
 *     forced (EARSHOT_GPU_NU_PLAN, a test hook) to tail levels up to
 *     1024-frame partitions, so 3000 taps cross the boundaries a 10 s room
 *     has; offline, so the result does not depend on the machine's load.
 *   - Random call sizes, and pipelined mode, split in 2: equal to one shard.
 *   - A shard no path reaches plays silence; the others are exact.
 *   - status: the shards' GPUs, outputs and memory; the engine's memory is
 *     their sum.
 *   - One shard fails mid-stream (EARSHOT_GPU_FAIL_AFTER with
 *     EARSHOT_GPU_FAIL_SHARD, test builds): the engine is failed as one,
 *     its message names the shard's GPU, and the other shard still plays;
 *     offline the failed shard's outputs go silent, live its CPU stand-by
 *     plays them from the block it failed in (no silent block).
 *   - Bad lists: more shards than outputs, a GPU past the last: one line
 *     each, naming what is wrong.
 *   test_gpu_split [ENGINE]   (default cuda-nonuniform) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define RATE 48000
#define BLOCK 64
#define LIMIT_DB -120.0
#define SIDE 64
#define TAPS 3000
#define FRAMES 2048

static const es_engine_class *engine;

static es_gpu_list gpus_of(int shards)
{
    es_gpu_list l = {shards, {0}};
    const int gpus = es_gpu_count() > 0 ? es_gpu_count() : 1;
    for (int k = 0; k < shards; k++)
        l.device[k] = k % gpus;
    return l;
}

static es_ir *matrix(int inputs, int outputs, int length, uint64_t *rng)
{
    es_ir *ir = es_ir_create(inputs, outputs, length, RATE);
    for (int i = 0; i < inputs; i++)
        for (int o = 0; o < outputs; o++) {
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < length; t++)
                h[t] = (float)es_test_uniform(rng) * expf(-4.0f * t / length);
        }
    return ir;
}

/* The engine over `in` with `shards` shards; NULL with a message printed. */
static float **run(const es_ir *ir, float *const *in, int shards, int pipelined,
                   es_call_pattern calls, es_engine_status *st)
{
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    es_options opt = {.offline = 1, .gpu_pipelined = pipelined, .gpu.list = gpus_of(shards)};
    char err[512];
    es_engine *e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL create, %d shards: %s\n", shards, err);
        return NULL;
    }
    float **y = es_test_run(e, ir, in, FRAMES, FRAMES + ir->length, calls);
    if (st)
        es_engine_get_status(e, st);
    es_engine_destroy(e);
    return y;
}

static int same_bits(float *const *a, float *const *b, int outputs, int frames)
{
    for (int o = 0; o < outputs; o++)
        if (memcmp(a[o], b[o], sizeof(float) * (size_t)frames) != 0)
            return 0;
    return 1;
}

/* The outputs on each side of every boundary of 2, 3 and 4 shards of
 * SIDE outputs (and the first and last) against float64: the worst. */
static double boundary_error_db(const es_ir *ir, float *const *in, float *const *y)
{
    int pick[SIDE], picks = 0;
    for (int o = 0; o < ir->outputs; o++) {
        int edge = o == 0 || o == ir->outputs - 1;
        for (int shards = 2; shards <= 4; shards++) {
            const int each = ir->outputs / shards, extra = ir->outputs % shards;
            for (int c = 1, first = 0; c < shards; c++) {
                first += each + (c - 1 < extra);
                edge |= o == first || o == first - 1;
            }
        }
        if (edge)
            pick[picks++] = o;
    }
    es_ir *sub = es_ir_create(ir->inputs, picks, ir->length, RATE);
    float *mine[SIDE];
    for (int k = 0; k < picks; k++) {
        mine[k] = y[pick[k]];
        for (int i = 0; i < ir->inputs; i++)
            memcpy(es_ir_path(sub, i, k), ir->taps[i * ir->outputs + pick[k]],
                   sizeof(float) * (size_t)ir->length);
    }
    double **ref = es_ref_convolve(sub, in, FRAMES, FRAMES + ir->length);
    const double db = es_test_error_db(sub, mine, ref, FRAMES + ir->length);
    printf("  float64 reference: %d outputs (every shard boundary's)\n", picks);
    es_test_free_planar(ref, picks);
    es_ir_destroy(sub);
    return db;
}

static void exact_splits(uint64_t *rng)
{
    es_ir *ir = matrix(SIDE, SIDE, TAPS, rng);
    float **in = es_test_planar(SIDE, FRAMES);
    for (int i = 0; i < SIDE; i++)
        for (int t = 0; t < FRAMES; t++)
            in[i][t] = (float)es_test_uniform(rng);
    es_call_pattern whole = {BLOCK, 0, rng}, random = {BLOCK, 1, NULL};
    const int frames = FRAMES + TAPS;
    float **one = run(ir, in, 1, 0, whole, NULL);
    es_test_check(one != NULL, "64 x 64, one shard: built and run");
    if (!one)
        return;
    char what[200];
    const double one_db = boundary_error_db(ir, in, one);
    snprintf(what, sizeof what, "64 x 64, one shard: %.1f dB against float64 (limit %.0f)",
             one_db, LIMIT_DB);
    es_test_check(one_db <= LIMIT_DB, what);
    for (int shards = 2; shards <= 4; shards++) {
        es_engine_status st;
        float **y = run(ir, in, shards, 0, whole, &st);
        if (!y) {
            es_test_failures++;
            continue;
        }
        snprintf(what, sizeof what, "64 x 64 in %d shards%s: equal to one shard bit for bit",
                 shards, SIDE % shards ? " (uneven)" : "");
        const int same = same_bits(one, y, SIDE, frames);
        es_test_check(same, what);
        /* Equal bits have the one shard's error; else this split's own. */
        const double db = same ? one_db : boundary_error_db(ir, in, y);
        snprintf(what, sizeof what, "64 x 64 in %d shards: the outputs at every boundary "
                 "%.1f dB against float64 (limit %.0f)", shards, db, LIMIT_DB);
        es_test_check(db <= LIMIT_DB, what);
        int outs = 0, order = 1;
        uint64_t bytes = 0;
        for (int k = 0; k < st.gpu.shards; k++) {
            order &= st.gpu.shard[k].first_output == outs &&
                     st.gpu.shard[k].device == gpus_of(shards).device[k];
            outs += st.gpu.shard[k].outputs;
            bytes += st.gpu.shard[k].device_bytes;
        }
        snprintf(what, sizeof what, "status: %d shards on %d GPU%s in turn, outputs in order "
                 "(%d), %.1f MB held, the sum of theirs", st.gpu.shards,
                 es_gpu_count() < shards ? es_gpu_count() : shards,
                 es_gpu_count() > 1 ? "s" : "", outs, st.gpu.bytes / 1e6);
        es_test_check(st.gpu.shards == shards && outs == SIDE && order && bytes == st.gpu.bytes &&
                          bytes > 0 && !st.failed,
                      what);
        es_test_free_planar(y, SIDE);
    }
    /* The same random call sizes for both: where the calls cut the blocks
     * changes the sums' rounding, so each is compared with its own kind. */
    uint64_t calls_seed = *rng, calls_again = *rng;
    random.state = &calls_seed;
    float **r1 = run(ir, in, 1, 0, random, NULL);
    random.state = &calls_again;
    float **r2 = run(ir, in, 2, 0, random, NULL);
    es_test_check(r1 && r2 && same_bits(r1, r2, SIDE, frames),
                  "random call sizes, 2 shards: equal to one shard bit for bit");
    es_test_free_planar(r1, SIDE);
    es_test_free_planar(r2, SIDE);
    float **p1 = run(ir, in, 1, 1, whole, NULL), **p2 = run(ir, in, 2, 1, whole, NULL);
    es_test_check(p1 && p2 && same_bits(p1, p2, SIDE, frames),
                  "pipelined, 2 shards: equal to one shard bit for bit");
    es_test_free_planar(p1, SIDE);
    es_test_free_planar(p2, SIDE);
    es_test_free_planar(one, SIDE);
    es_test_free_planar(in, SIDE);
    es_ir_destroy(ir);
}

/* Paths only into outputs 0 and 1 of four: shard 2 of 2 has none. */
static void empty_shard(uint64_t *rng)
{
    es_ir *ir = es_ir_create(2, 4, TAPS, RATE);
    for (int i = 0; i < 2; i++)
        for (int o = 0; o < 2; o++) {
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < TAPS; t++)
                h[t] = (float)es_test_uniform(rng) * expf(-4.0f * t / TAPS);
        }
    float **in = es_test_planar(2, FRAMES);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < FRAMES; t++)
            in[i][t] = (float)es_test_uniform(rng);
    es_call_pattern whole = {BLOCK, 0, rng};
    float **one = run(ir, in, 1, 0, whole, NULL), **two = run(ir, in, 2, 0, whole, NULL);
    int silent = two != NULL;
    for (int o = 2; two && o < 4; o++)
        for (int t = 0; t < FRAMES + TAPS; t++)
            silent &= two[o][t] == 0.0f;
    es_test_check(one && two && same_bits(one, two, 4, FRAMES + TAPS) && silent,
                  "a shard no path reaches: silence, the other shard exact");
    es_test_free_planar(one, 4);
    es_test_free_planar(two, 4);
    es_test_free_planar(in, 2);
    es_ir_destroy(ir);
}

/* live = 0: offline, no stand-by: the failed shard's outputs go silent.
 * live = 1: the shard's CPU stand-by plays its outputs from the block it
 * failed in: no silent block on either output. */
static void one_shard_fails(uint64_t *rng, int live)
{
    setenv("EARSHOT_GPU_FAIL_AFTER", "20", 1);
    setenv("EARSHOT_GPU_FAIL_SHARD", "2", 1);
    es_ir *ir = matrix(1, 2, TAPS, rng);
    /* Live, each block's result is waited for 80 % of its duration: at
     * 8 kHz, 2048 frames give the GPU 200 ms, so a loaded machine does not
     * make blocks late (silent) and the test is about the stand-by. */
    const int block = live ? 2048 : BLOCK;
    es_format fmt = {.sample_rate = live ? 8000 : RATE, .max_block = block, .inputs = 1,
                     .outputs = 2};
    es_options opt = {.offline = !live, .gpu.list = gpus_of(2)};
    char err[512];
    es_engine *e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    unsetenv("EARSHOT_GPU_FAIL_AFTER");
    unsetenv("EARSHOT_GPU_FAIL_SHARD");
    if (!e) {
        printf("FAIL create: %s\n", err);
        es_test_failures++;
        es_ir_destroy(ir);
        return;
    }
    float **in = es_test_planar(1, block), **out = es_test_planar(2, block);
    int first_after_silent = 1, second_after_loud = 1, silent_blocks[2] = {0, 0};
    for (int b = 0; b < 60; b++) {
        for (int t = 0; t < block; t++)
            in[0][t] = (float)es_test_uniform(rng);
        /* process() and process_views by turns: the stand-by's outputs
         * must come through both. */
        float *views[2] = {out[0], out[1]};
        if (b % 2)
            es_engine_process_views(e, (const float *const *)in, out, views, 2, block);
        else
            es_engine_process(e, (const float *const *)in, out, block);
        float peak[2] = {0, 0};
        for (int o = 0; o < 2; o++)
            for (int t = 0; t < block; t++)
                peak[o] = fmaxf(peak[o], fabsf(views[o][t]));
        if (b >= 21) {
            first_after_silent &= peak[1] == 0;
            second_after_loud &= peak[0] > 0;
        }
        for (int o = 0; o < 2; o++)
            silent_blocks[o] += !(peak[o] > 0);
    }
    es_engine_status st;
    es_engine_get_status(e, &st);
    printf("  status: failed %d, '%s'\n", st.failed, st.message);
    char names[64], what_fails[120];
    snprintf(names, sizeof names, "GPU %d (shard 2 of 2", gpus_of(2).device[1]);
    snprintf(what_fails, sizeof what_fails, "shard 2 fails: the engine is failed as one, its "
             "message names %.*s", (int)strcspn(names, "("), names);
    es_test_check(st.failed && strstr(st.message, names) &&
                      strstr(st.message, "simulated device error"),
                  what_fails);
    char what[200];
    if (!live) {
        es_test_check(first_after_silent && second_after_loud,
                      "offline, after it: shard 2's output silent, shard 1's still playing");
    } else {
        snprintf(what, sizeof what, "live, with its stand-by: silent blocks of 60: shard 1's "
                 "output %d, shard 2's %d (the stand-by took over)", silent_blocks[0],
                 silent_blocks[1]);
        es_test_check(silent_blocks[0] == 0 && silent_blocks[1] == 0 &&
                          strstr(st.message, "outputs now on the CPU"),
                      what);
    }
    es_engine_destroy(e);
    es_test_free_planar(in, 1);
    es_test_free_planar(out, 2);
    es_ir_destroy(ir);
}

static void bad_lists(uint64_t *rng)
{
    es_ir *ir = matrix(1, 2, 256, rng);
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    char err[512] = "";
    es_options opt = {.offline = 1, .gpu.list = gpus_of(3)};
    es_engine *e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    printf("  3 shards, 2 outputs: %s\n", err);
    es_test_check(!e && strstr(err, "3 GPUs for 2 outputs"), "more shards than outputs: refused");
    es_engine_destroy(e);
    opt.gpu.list = (es_gpu_list){2, {0, es_gpu_count()}};
    err[0] = 0;
    e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    printf("  a GPU past the last: %s\n", err);
    es_test_check(!e && strstr(err, "entry 2") && strstr(err, "past the last GPU"),
                  "a GPU past the last: refused, naming the entry");
    es_engine_destroy(e);
    es_ir_destroy(ir);
}

int main(int argc, char **argv)
{
    engine = es_engine_find(argc > 1 ? argv[1] : "cuda-nonuniform");
    if (!engine) {
        fprintf(stderr, "usage: test_gpu_split [ENGINE]\n");
        return 2;
    }
    char why[256];
    if (!engine->probe(why, sizeof why)) {
        printf("SKIP %s: %s\n", engine->name, why);
        return 77;
    }
    if (engine == es_engine_find("cuda-nonuniform"))
        setenv("EARSHOT_GPU_NU_PLAN", "4,1024", 1);
    uint64_t rng = es_test_seed();
    exact_splits(&rng);
    empty_shard(&rng);
    one_shard_fails(&rng, 0);
    one_shard_fails(&rng, 1);
    bad_lists(&rng);
    printf("%s: %s\n", engine->name, es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
