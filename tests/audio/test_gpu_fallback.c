/* A GPU engine fails mid-stream (an error injected with EARSHOT_GPU_FAIL_AFTER,
 * which takes the path a CUDA error takes): the control side falls back to
 * the engine's CPU fallback (cpu-nonuniform for cuda-nonuniform,
 * cpu-partitioned for the others) with the same room through the normal
 * crossfade, says
 * why, and the stream never stops. The same with each engine's matrix split
 * over two shards, one of which fails (check_split). Skipped without a
 * usable GPU engine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fallback.h"
#include "player.h"
#include "reference.h"

#define BLOCK 256
#define BLOCKS_KEPT 4096

static float block_peak[BLOCKS_KEPT];
static int blocks_seen;

static void tap(void *ctx, const float *const *out, int channels, int frames)
{
    (void)ctx;
    (void)channels;
    float peak = 0;
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < frames; t++)
            peak = fabsf(out[c][t]) > peak ? fabsf(out[c][t]) : peak;
    if (blocks_seen < BLOCKS_KEPT)
        block_peak[blocks_seen++] = peak;
}

/* Plays the engine for 2 s on the null device through a processor, with
 * the control side's fallback polled as a session does: the times it fell
 * back (-1: could not), its last words in `what`, the stats after. */
static int play_and_fall_back(const es_engine_class *k, es_engine *e, const es_ir *ir,
                              const es_format *fmt, es_player_config *plc, char *what,
                              size_t n, es_stats *s)
{
    char err[256];
    es_processor_config pc = {.mix = {.wet = 1, .gain = 1}};
    es_processor *p = es_processor_create(fmt, e, &pc, err, sizeof err);
    es_player *pl = p ? es_player_open(plc, p, err, sizeof err) : NULL;
    if (!pl || es_player_start(pl, err, sizeof err) != 0) {
        printf("FAIL %s: %s\n", k->name, err);
        es_player_close(pl);
        return -1;
    }
    int fell = 0;
    struct timespec tick = {0, 20000000};
    for (int i = 0; i < 100; i++) { /* 2 s */
        nanosleep(&tick, NULL);
        es_processor_collect(p);
        int r = es_fallback_poll(p, ir, what, n);
        if (r != 0)
            printf("  %s\n", what);
        fell += r == 1;
        if (r < 0)
            break;
    }
    es_player_stop(pl);
    es_processor_stats(p, s);
    es_player_close(pl);
    return fell;
}

static int check(const es_engine_class *k)
{
    setenv("EARSHOT_GPU_FAIL_AFTER", "50", 1);
    uint64_t rng = 3;
    es_ir *ir = es_test_ir("mono-stereo", 4800, &rng);
    es_format fmt = {.sample_rate = 48000, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    es_options opt = {0};
    char err[256], what[768] = "";
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL %s: %s\n", k->name, err);
        return 1;
    }
    es_player_config plc = {.device = "null", .block = BLOCK, .tap = tap};
    blocks_seen = 0;
    es_stats s;
    const int fell = play_and_fall_back(k, e, ir, &fmt, &plc, what, sizeof what, &s);
    /* Sound after the switch: the test signal's click at 1.0 s through the
     * room lands in blocks 187 onward. */
    float after = 0;
    for (int b = 187; b < blocks_seen; b++)
        after = block_peak[b] > after ? block_peak[b] : after;
    int ok = fell == 1 && strstr(what, "simulated device error") &&
             !strcmp(s.engine, es_engine_fallback(k->name)->name) && s.swaps == 1 && !s.engine_failed &&
             blocks_seen > 360 && after > 0;
    printf("%s %s: fell back %d time(s), now %s, %llu swaps, %d blocks, sound after: %.3f\n",
           ok ? "ok  " : "FAIL", k->name, fell, s.engine, (unsigned long long)s.swaps,
           blocks_seen, after);
    es_ir_destroy(ir);
    return !ok;
}

/* Per output channel: the last block's peaks, and the longest run of
 * silent blocks after the first sound. */
static int run_now[2], run_max[2], sounded[2];

static void tap_channels(void *ctx, const float *const *out, int channels, int frames)
{
    (void)ctx;
    (void)channels;
    for (int c = 0; c < 2; c++) {
        float peak = 0;
        for (int t = 0; t < frames; t++)
            peak = fabsf(out[c][t]) > peak ? fabsf(out[c][t]) : peak;
        sounded[c] |= peak > 0;
        run_now[c] = peak > 0 || !sounded[c] ? 0 : run_now[c] + 1;
        run_max[c] = run_now[c] > run_max[c] ? run_now[c] : run_max[c];
    }
}

static uint64_t noise_state = 1;

/* Noise, every block: a gap in the output is the engine's. Quiet enough
 * that the room's output stays near -20 dBFS: far above full scale for a
 * quarter of a second, the runaway detector would mute it (safety.h). */
static void noise(void *ctx, float *const *out, int channels, int frames)
{
    (void)ctx;
    for (int c = 0; c < channels; c++)
        for (int t = 0; t < frames; t++) {
            noise_state = noise_state * 6364136223846793005ull + 1442695040888963407ull;
            out[c][t] = 0.003f * (float)((int64_t)(noise_state >> 11) - (1ll << 52)) / 0x1p52f;
        }
}

/* The matrix split over two shards on GPU 0 (--gpu 0,0), shard 2 failing
 * mid-stream: the engine falls back as one, the message names the shard's
 * GPU, the healthy shard's output has no gap, and the failed shard's, whose
 * stand-by plays until the fallback's crossfade, none longer than a block. */
static int check_split(const es_engine_class *k)
{
    setenv("EARSHOT_GPU_FAIL_AFTER", "50", 1);
    setenv("EARSHOT_GPU_FAIL_SHARD", "2", 1);
    memset(run_now, 0, sizeof run_now);
    memset(run_max, 0, sizeof run_max);
    memset(sounded, 0, sizeof sounded);
    uint64_t rng = 5;
    es_ir *ir = es_test_ir("mono-stereo", 4800, &rng);
    es_format fmt = {.sample_rate = 48000, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    es_options opt = {.gpu.list = {2, {0, 0}}};
    char err[512], what[768] = "";
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    unsetenv("EARSHOT_GPU_FAIL_SHARD");
    if (!e) {
        printf("FAIL %s split: %s\n", k->name, err);
        es_ir_destroy(ir);
        return 1;
    }
    es_player_config plc = {.device = "null", .block = BLOCK, .tap = tap_channels,
                            .source = noise};
    es_stats s;
    const int fell = play_and_fall_back(k, e, ir, &fmt, &plc, what, sizeof what, &s);
    int ok = fell == 1 && strstr(what, "GPU 0 (shard 2 of 2") &&
             strstr(what, "simulated device error") &&
             !strcmp(s.engine, es_engine_fallback(k->name)->name) && s.swaps == 1 &&
             run_max[0] == 0 && run_max[1] <= 1;
    printf("%s %s split in 2 on GPU 0, shard 2 failed: fell back %d time(s) as one, now %s; "
           "longest silence: shard 1's output %d blocks, shard 2's %d blocks (of %d frames)\n",
           ok ? "ok  " : "FAIL", k->name, fell, s.engine, run_max[0], run_max[1], BLOCK);
    es_ir_destroy(ir);
    return !ok;
}

int main(void)
{
    int tested = 0, failures = 0;
    for (int k = 0; es_engines[k]; k++) {
        char why[256];
        if (strncmp(es_engines[k]->name, "cuda-", 5) || !es_engines[k]->probe(why, sizeof why))
            continue;
        tested++;
        failures += check(es_engines[k]);
        if (es_engines[k]->caps & ES_CAP_GPU)
            failures += check_split(es_engines[k]);
    }
    if (!tested) {
        printf("SKIP no usable GPU engine\n");
        return 77;
    }
    return failures ? 1 : 0;
}
