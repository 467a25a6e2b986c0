/* The whole processor through every one of its stages and states, each
 * phase's blocks counted for allocation, frees, locks and waits on the
 * audio thread (the control side's calls between them, engines made and
 * collected, off the count), and each phase shown to have reached what it
 * is for by the statistics it left:
 *   the crossfade: an unprimed swap (FADING), a primed one (HELD, its
 *     ringing added, FADING), one its builder could not prime and one
 *     never answered (given up), an engine whose output breaks;
 *   the input guard: samples that are no signal, the input held and let in;
 *   the mixer: levels ramping, bypass in and out;
 *   the output guard: the limiter, a mute, a panic, a runaway beyond
 *     +6 dBFS and one held over full scale;
 *   accounting: a reset, the host freewheeling;
 *   a render: blocks the engine writes itself, its check in the last
 *     scan, which finds an engine that breaks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 256
#define TAPS 2000
#define STALLED_WAIT_BLOCKS 400 /* past ES_PRIME_WAIT_MS at BLOCK */

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 2,
                              .outputs = 2};

typedef struct {
    es_processor *p;
    es_history *history;
    float **in, **out, **ringing;
    uint64_t rng, ticket;
    float level;   /* the input's amplitude */
    es_stats st;   /* after the last phase */
} bench;

static es_ir *room(double scale, uint64_t seed)
{
    es_ir *ir = es_ir_create(2, 2, TAPS, RATE);
    for (int i = 0; i < 2; i++)
        for (int o = 0; o < 2; o++) {
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < TAPS; t++)
                h[t] = (float)(scale * es_test_uniform(&seed) * exp(-4.0 * t / TAPS));
        }
    return ir;
}

/* cpu-partitioned over a room of `scale` (1e10: one that breaks). */
static es_engine *engine(double scale, int offline)
{
    es_ir *ir = room(scale, 7);
    es_options opt = {.partition = 128, .offline = offline};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-partitioned"), &fmt, ir, &opt, err,
                                    sizeof err);
    es_ir_destroy(ir);
    if (!e)
        printf("FAIL engine: %s\n", err);
    return e;
}

/* Blocks of noise at b->level, counted; bad: a NaN and an infinity in each. */
static void blocks(bench *b, const char *what, int count, int bad)
{
    for (int i = 0; i < 2; i++) /* the input, made off the count */
        for (int t = 0; t < BLOCK; t++)
            b->in[i][t] = b->level * (float)es_test_uniform(&b->rng);
    if (bad)
        b->in[0][5] = NAN, b->in[1][9] = INFINITY;
    rt_window_open();
    for (int k = 0; k < count; k++)
        es_processor_process(b->p, (const float *const *)b->in, b->out, BLOCK);
    rt_window_shut(what);
    es_processor_collect(b->p);
    es_processor_stats(b->p, &b->st);
}

static void swap(bench *b, es_engine *e, int ab, int restart, int primed)
{
    char err[256];
    const es_swap_how how = {.ab = ab, .restart = restart, .same_filter = primed,
                             .ringing = primed ? b->ringing : NULL, .ringing_frames = TAPS};
    if (es_processor_swap_with(b->p, e, &fmt, &how, &b->ticket, err, sizeof err))
        printf("FAIL swap: %s\n", err);
}

static void mix(bench *b, float wet, float dry, float gain, int bypass, int limiter)
{
    const es_mix m = {.wet = wet, .dry = dry, .gain = gain, .bypass = bypass,
                      .limiter = limiter, .ceiling_db = -1.0f};
    es_processor_set_mix(b->p, &m);
}

static void crossfades(bench *b)
{
    swap(b, engine(0.05, 0), 1, 1, 0);
    blocks(b, "an unprimed swap: FADING, then STEADY", 12, 0);
    es_test_check(b->st.swaps == 1 && b->st.ab_playing == 1, "  (crossfaded in, slot 1)");
    swap(b, engine(0.05, 0), -1, 0, 1);
    blocks(b, "a primed swap: HELD while its ringing is not there", 3, 0);
    const int held = b->st.crossfading && b->st.primed == 0;
    es_history_set_primed(b->history, b->ticket, 1);
    blocks(b, "the primed swap: its ringing added, FADING, STEADY", 12, 0);
    es_test_check(held && b->st.primed == 1 && b->st.swaps == 2, "  (held, primed, played)");
    swap(b, engine(0.05, 0), -1, 0, 1);
    es_history_set_primed(b->history, b->ticket, 0);
    blocks(b, "a primed swap its builder could not prime: given up", 12, 0);
    swap(b, engine(0.05, 0), -1, 0, 1);
    blocks(b, "a primed swap never answered: given up after its wait", STALLED_WAIT_BLOCKS, 0);
    es_test_check(b->st.swaps == 4 && b->st.primed == 1 && b->st.prime_late == 1,
                  "  (both played unprimed, the second counted late)");
}

static void input_and_mix(bench *b)
{
    blocks(b, "input that is no signal, silenced", 4, 1);
    es_test_check(b->st.bad_input == 8, "  (8 samples silenced)");
    es_processor_hold_input(b->p, 1);
    blocks(b, "the input held at silence", 8, 0);
    const float held_peak = b->st.in_peak[0];
    es_processor_hold_input(b->p, 0);
    blocks(b, "the input let in again", 8, 0);
    es_test_check(held_peak == 0.0f && b->st.in_peak[0] > 0.0f, "  (silent, then heard)");
    mix(b, 0.5f, 0.5f, 0.8f, 0, 0);
    blocks(b, "levels ramping", 8, 0);
    mix(b, 0.5f, 0.5f, 0.8f, 1, 0);
    blocks(b, "bypass in", 12, 0);
    mix(b, 0.5f, 0.5f, 0.8f, 0, 1);
    blocks(b, "bypass out, the limiter on", 12, 0);
    mix(b, 1.0f, 0.3f, 3.0f, 0, 1);
    blocks(b, "the limiter holding the output", 4, 0);
    es_test_check(b->st.limited > 0 && b->st.out_peak[0] <= 0.9f, "  (limited)");
    mix(b, 0.7f, 0.3f, 0.9f, 0, 0);
}

static void guards(bench *b)
{
    es_processor_mute(b->p, 0);
    blocks(b, "a mute", 4, 0);
    const int muted = b->st.muted == 1 && b->st.out_peak[0] == 0.0f;
    es_processor_unmute(b->p);
    es_processor_mute(b->p, 1);
    blocks(b, "an unmute, then a panic", 4, 0);
    es_test_check(muted && b->st.muted == 2, "  (muted, then in a panic)");
    es_processor_unmute(b->p);
    mix(b, 1.0f, 4.0f, 16.0f, 0, 0);
    blocks(b, "a runaway beyond +6 dBFS", 4, 0);
    es_test_check(b->st.runaways == 1 && b->st.out_peak[0] == 0.0f, "  (tripped, silent)");
    mix(b, 0.0f, 1.0f, 1.0f, 0, 0);
    b->level = 1.6f;
    blocks(b, "levels ramping while muted", 8, 0);
    es_processor_unmute(b->p);
    blocks(b, "a runaway held over full scale", 60, 0);
    es_test_check(b->st.runaways == 2 && b->st.muted == 1 && b->st.mute_why &&
                      strstr(b->st.mute_why, "full scale for") && !b->st.runaway_swelled,
                  "  (tripped after 0.25 s over full scale)");
    b->level = 0.3f;
    es_processor_unmute(b->p);
    mix(b, 0.7f, 0.3f, 0.9f, 0, 0);
    swap(b, engine(1e10, 0), -1, 0, 0);
    blocks(b, "an engine whose output breaks, crossfading in", 16, 0);
    es_test_check(b->st.engine_bad > 0 && b->st.engine_broken, "  (silenced, flagged)");
    es_processor_reset_stats(b->p);
    es_processor_freewheel(b->p, 1);
    blocks(b, "the statistics reset, the host freewheeling", 4, 0);
    es_processor_freewheel(b->p, 0);
    es_test_check(b->st.blocks == 4 && b->st.freewheel_blocks == 4, "  (counted afresh)");
}

static int bench_start(bench *b, es_engine *first, int offline)
{
    char err[256];
    const es_processor_config pc = {.mix = {.wet = offline ? 1.0f : 0.7f,
                                            .dry = offline ? 0.0f : 0.3f,
                                            .gain = offline ? 1.0f : 0.9f},
                                    .max_latency = offline ? 0 : 1024, .offline = offline,
                                    .history_frames = offline ? 0 : 48000};
    b->p = first ? es_processor_create(&fmt, first, &pc, err, sizeof err) : NULL;
    if (!b->p) {
        printf("FAIL processor: %s\n", first ? err : "no engine");
        return 0;
    }
    b->history = es_processor_history(b->p);
    b->rng = 11;
    b->level = 0.3f;
    return 1;
}

static void bench_end(bench *b)
{
    es_history_unref(b->history);
    es_processor_destroy(b->p);
    b->p = NULL, b->history = NULL;
}

static void render(bench *b)
{
    if (!bench_start(b, engine(0.05, 1), 1))
        return;
    blocks(b, "a render: blocks the engine writes, checked in the last scan", 8, 0);
    bench_end(b);
    if (!bench_start(b, engine(1e10, 1), 1))
        return;
    b->level = 0.0f;
    blocks(b, "a render's engine still quiet", 2, 0);
    b->level = 0.3f;
    blocks(b, "a render's engine breaking, found by the last scan", 4, 0);
    es_test_check(b->st.engine_bad > 0 && b->st.engine_broken && b->st.bad_output == 0,
                  "  (found, every output silenced)");
    bench_end(b);
}

int main(void)
{
    static bench b;
    b.in = es_test_planar(2, BLOCK), b.out = es_test_planar(2, BLOCK);
    b.ringing = es_test_planar(2, TAPS);
    if (!bench_start(&b, engine(0.05, 0), 0))
        return 1;
    crossfades(&b);
    input_and_mix(&b);
    guards(&b);
    bench_end(&b);
    render(&b);
    es_test_free_planar(b.in, 2);
    es_test_free_planar(b.out, 2);
    es_test_free_planar(b.ringing, 2);
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
