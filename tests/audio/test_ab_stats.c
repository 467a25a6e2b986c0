/* A/B statistics: each slot counts only the blocks its own engine played
 * alone, so one engine's misses never show against the other.
 *
 * Slot A plays an engine made late on every block (a test double busy-
 * waits past the budget); slot B an engine with no delay. After the swap
 * to B (restarting B's statistics), B shows no misses and exactly the
 * blocks after the crossfade; A keeps exactly its own; the crossfade's
 * blocks, with both engines running, count in neither. Swapping back to A
 * without a restart continues A's count; a swap with a restart starts it
 * again from zero and says so (restarts). The per-block load ring holds
 * each block's load at its block number. A reset clears every slot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor.h"
#include "reference.h"
#include "wrap_engine.h"

#define RATE 48000.0
#define BLOCK 64
#define TAPS 32
#define FADE_MS 4.0   /* 192 frames: three blocks */
#define LATE_US 2500.0 /* a block's budget is 1333 us */

static const es_format stream = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                                 .outputs = 2};

/* Every process() call of a "late" engine, up to this many. */
static uint64_t every_call[4096];

static es_engine *make(const es_ir *ir, int late)
{
    char err[256];
    es_engine *inner = es_engine_create(es_engine_find("cpu-direct"), &stream, ir, NULL, err,
                                        sizeof err);
    if (!inner) {
        printf("FAIL create: %s\n", err);
        es_test_failures++;
        return NULL;
    }
    return late ? es_test_wrap(inner, every_call, 4096, LATE_US) : es_test_wrap(inner, NULL, 0, 0);
}

static void run(es_processor *p, int blocks)
{
    static float x[BLOCK], y0[BLOCK], y1[BLOCK];
    for (int k = 0; k < BLOCK; k++)
        x[k] = (float)sin(0.1 * k);
    const float *in[1] = {x};
    float *out[2] = {y0, y1};
    for (int b = 0; b < blocks; b++)
        es_processor_process(p, in, out, BLOCK);
}

/* Blocks until the queued swap's crossfade is over; how many it took. */
static int fade(es_processor *p)
{
    int n = 0;
    while (es_processor_swap_pending(p) && n < 1000) {
        run(p, 1);
        n++;
    }
    return n;
}

/* The stream starts in slot A with the late engine: every block a miss. */
static void slot_a_counts_alone(es_processor *p)
{
    es_stats st;
    run(p, 20);
    es_processor_stats(p, &st);
    es_test_check(st.ab_playing == 0 && st.ab[0].blocks == 20 && st.ab[0].misses == 20,
          "slot A counts its late engine's 20 blocks, all misses");
    es_test_check(st.ab[1].blocks == 0, "slot B has counted nothing");
    es_test_check(st.load_recent[19 % ES_LOAD_RECENT] > 1.5f &&
              fabs(st.load_recent[19 % ES_LOAD_RECENT] - st.load_now) < 1e-6,
          "the load ring holds block 19's load at 19");
}

/* To B, restarting its statistics: the crossfade's blocks count in neither
 * slot. 0, or -1 when the swap is refused. */
static int slot_b_counts_its_own(es_processor *p, const es_ir *ir)
{
    char err[256];
    if (es_processor_swap_ab(p, make(ir, 0), &stream, 1, 1, err, sizeof err) != 0) {
        printf("FAIL swap: %s\n", err);
        return -1;
    }
    const int faded = fade(p);
    run(p, 30);
    es_stats st;
    es_processor_stats(p, &st);
    printf("     crossfade: %d blocks; A %llu blocks %llu misses; B %llu blocks %llu misses\n",
           faded, (unsigned long long)st.ab[0].blocks, (unsigned long long)st.ab[0].misses,
           (unsigned long long)st.ab[1].blocks, (unsigned long long)st.ab[1].misses);
    es_test_check(faded >= 3 && faded <= 4, "the crossfade takes its 4 ms (3 blocks, 4 with rounding)");
    es_test_check(st.ab_playing == 1 && st.ab[1].blocks == 30 && st.ab[1].misses == 0,
          "slot B counts its own 30 blocks and none of A's misses");
    es_test_check(st.ab[1].load_max < 1.0 && es_load_quantile(st.ab[1].load_hist, st.ab[1].load_max,
                                                      0.99) < 1.0,
          "slot B's worst and p99 load are its own (under budget)");
    es_test_check(st.ab[0].blocks == 20 && st.ab[0].misses == 20, "slot A keeps exactly its own");
    es_test_check(st.blocks == 20 + (uint64_t)faded + 30 && st.misses >= 20 + (uint64_t)faded,
          "the crossfade's blocks (both engines, late) count only in the stream's totals");
    const double rt = es_ab_stats_realtime_factor(&st.ab[1]);
    es_test_check(rt > 0 && fabs(rt * es_ab_stats_mean_load(&st.ab[1]) - 1.0) < 1e-9,
          "slot B's x RT is 1 / its mean load");
    return 0;
}

/* Back to A, keeping its statistics: they go on from 20. */
static void back_to_a_goes_on(es_processor *p, const es_ir *ir)
{
    char err[256];
    es_stats st;
    es_processor_swap_ab(p, make(ir, 1), &stream, 0, 0, err, sizeof err);
    fade(p);
    run(p, 5);
    es_processor_stats(p, &st);
    es_test_check(st.ab[0].blocks == 25 && st.ab[0].misses == 25 && st.ab[0].restarts == 0,
          "back to A without a restart: A's count goes on (25)");
    es_test_check(st.ab[1].blocks == 30 && st.ab[1].misses == 0, "B's stays as it was");
}

/* A changes engine: its statistics start again. */
static void a_restarts_with_another_engine(es_processor *p, const es_ir *ir)
{
    char err[256];
    es_stats st;
    es_processor_swap_ab(p, make(ir, 0), &stream, 0, 1, err, sizeof err);
    fade(p);
    run(p, 7);
    es_processor_stats(p, &st);
    es_test_check(st.ab[0].blocks == 7 && st.ab[0].misses == 0 && st.ab[0].restarts == 1,
          "A with another engine: its count starts again (7 blocks, restart 1)");
}

/* es_processor_swap keeps the slot playing and its count. */
static void plain_swap_keeps_slot(es_processor *p, const es_ir *ir)
{
    char err[256];
    es_stats st;
    es_processor_swap(p, make(ir, 0), &stream, err, sizeof err);
    fade(p);
    run(p, 3);
    es_processor_stats(p, &st);
    es_test_check(st.ab_playing == 0 && st.ab[0].blocks == 10, "a plain swap stays in slot A");
}

static void reset_clears_every_slot(es_processor *p)
{
    es_stats st;
    es_processor_reset_stats(p);
    run(p, 2);
    es_processor_stats(p, &st);
    es_test_check(st.ab[0].blocks == 2 && st.ab[1].blocks == 0 && st.blocks == 2,
          "a reset clears every slot");
}

static es_ir *random_ir(void)
{
    uint64_t rng = 12345;
    es_ir *ir = es_ir_create(1, 2, TAPS, RATE);
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < TAPS; t++)
            es_ir_path(ir, 0, o)[t] = (float)(0.1 * es_test_uniform(&rng));
    return ir;
}

int main(void)
{
    for (int k = 0; k < 4096; k++)
        every_call[k] = (uint64_t)k;
    es_ir *ir = random_ir();
    es_processor_config cfg = {.mix = {.wet = 1, .dry = 0, .gain = 1}, .crossfade_ms = FADE_MS,
                               .ab = 0};
    char err[256];
    es_processor *p = es_processor_create(&stream, make(ir, 1), &cfg, err, sizeof err);
    if (!p) {
        printf("FAIL processor: %s\n", err);
        return 1;
    }
    slot_a_counts_alone(p);
    if (slot_b_counts_its_own(p, ir) != 0)
        return 1;
    back_to_a_goes_on(p, ir);
    a_restarts_with_another_engine(p, ir);
    plain_swap_keeps_slot(p, ir);
    reset_clears_every_slot(p);

    es_processor_destroy(p);
    es_ir_destroy(ir);
    es_test_check(es_test_wrap_all_gone("at the end"), "every engine made was destroyed once");
    printf("%s\n", es_test_failures ? "FAILED" : "PASSED");
    return es_test_failures ? 1 : 0;
}
