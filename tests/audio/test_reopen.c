/* Changing the block size while playing: the stream reopens at 64, then
 * 1024 frames, with a processor for the new block; the latency follows,
 * the new stream counts blocks at the new rate, and the gap is short. A
 * reopen that fails leaves the old stream playing. */
#include <stdio.h>
#include <time.h>

#include "player.h"
#include "reference.h"

#define RATE 48000.0

static es_ir *room;

static es_processor *build(int block)
{
    es_format fmt = {.sample_rate = RATE, .max_block = block, .inputs = 1, .outputs = 2};
    es_options opt = {0};
    es_processor_config pc = {.mix = {.wet = 1, .gain = 1}};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-partitioned"), &fmt, room, &opt, err,
                                    sizeof err);
    return e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Blocks counted while it sleeps `seconds`, against the clock. */
static int play_for(es_player *pl, int block, double seconds)
{
    es_stats before, s;
    es_processor_stats(es_player_processor(pl), &before);
    const double t0 = now();
    struct timespec nap = {0, (long)(seconds * 1e9)};
    nanosleep(&nap, NULL);
    es_processor_stats(es_player_processor(pl), &s);
    s.blocks -= before.blocks;
    const double expected = (now() - t0) * RATE / block;
    const int latency = es_player_latency(pl);
    /* The window's two edges can each cut a block, and a machine that
     * stalls the null device's thread makes it skip (up to 15 %, as
     * app/commands allows): what this checks is that the stream plays on
     * at its block, not the machine's timing. */
    const int ok = s.blocks >= 0.85 * expected - 2 && s.blocks <= 1.1 * expected + 2 &&
                   latency == block && s.misses == 0; /* the output block: no live input */
    printf("%s block %4d: %llu blocks (%.0f expected), latency %d frames, %llu misses\n",
           ok ? "ok  " : "FAIL", block, (unsigned long long)s.blocks, expected, latency,
           (unsigned long long)s.misses);
    return !ok;
}

int main(void)
{
    uint64_t rng = 11;
    room = es_test_ir("mono-stereo", 4800, &rng);
    char err[256];
    es_player_config plc = {.device = "null", .block = 256};
    es_player *pl = es_player_open(&plc, build(256), err, sizeof err);
    if (!pl || es_player_start(pl, err, sizeof err)) {
        printf("FAIL %s\n", err);
        return 1;
    }
    int failures = play_for(pl, 256, 0.5);
    static const int blocks[] = {64, 1024};
    for (int k = 0; k < 2; k++) {
        es_processor *next = build(blocks[k]);
        const double t0 = now();
        if (es_player_reopen(pl, blocks[k], next, err, sizeof err) != 0) {
            printf("FAIL reopen at %d: %s\n", blocks[k], err);
            failures++;
            continue;
        }
        const double gap = now() - t0;
        printf("%s reopened at %d in %.1f ms\n", gap < 0.05 ? "ok  " : "FAIL", blocks[k],
               1e3 * gap);
        failures += gap >= 0.05;
        failures += play_for(pl, blocks[k], 0.5);
    }
    /* A block the device cannot take: the old stream must go on. */
    es_processor *bad = build(64);
    if (es_player_reopen(pl, 0, bad, err, sizeof err) == 0) {
        printf("FAIL a reopen at block 0 succeeded\n");
        failures++;
    } else {
        printf("ok   block 0 refused (%s)\n", err);
        failures += play_for(pl, 1024, 0.5) != 0;
    }
    es_player_close(pl);
    es_ir_destroy(room);
    printf("reopen: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
