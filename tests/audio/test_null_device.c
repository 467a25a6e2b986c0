/* The null device runs the processor on a real-time clock: the blocks it
 * counts match the time that passed, a light engine misses nothing, and
 * when a known delay is put into chosen blocks, exactly those blocks are
 * counted as misses, and the device reports each overrun as an xrun.
 *
 * The delay is put in by a test double around the engine (wrap_engine.h),
 * which busy-waits in process() on chosen calls: one call per block, so
 * call k is block k, and the processor times the engine path, so the delay
 * counts as the block's processing time.
 *
 * Misses measure processing time and must be exact. Xruns also count a
 * clock thread that woke late, which a loaded 2-core machine does now and
 * then: each injected delay must give one, and a few more are tolerated. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "player.h"
#include "reference.h"
#include "wrap_engine.h"

#define RATE 48000.0
#define BLOCK 256 /* 5.33 ms */

static int failures;

static void run(const uint64_t *delay_blocks, int delays, double seconds)
{
    uint64_t rng = 7;
    es_ir *ir = es_test_ir("mono-stereo", 2000, &rng);
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    es_options opt = {0};
    char err[256];
    /* 1.5 budgets: a clear miss, and an overrun of the device's period. */
    es_engine *e = es_test_wrap(es_engine_create(es_engine_find("cpu-partitioned"), &fmt, ir,
                                                 &opt, err, sizeof err),
                                delay_blocks, delays, 1.5e6 * BLOCK / RATE);
    es_ir_destroy(ir);
    es_processor_config pc = {.mix = {.wet = 1, .gain = 1}};
    es_processor *p = e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
    es_player_config plc = {.device = "null", .block = BLOCK};
    es_player *pl = p ? es_player_open(&plc, p, err, sizeof err) : NULL;
    if (!pl || es_player_start(pl, err, sizeof err) != 0) {
        printf("FAIL %s\n", err);
        failures++;
        return;
    }
    struct timespec t0, t1, nap = {.tv_sec = (time_t)seconds};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    nanosleep(&nap, NULL);
    es_player_stop(pl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    es_stats s;
    es_processor_stats(es_player_processor(pl), &s);
    const double elapsed = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    /* Every period the clock did not skip has its block: each injected
     * overrun skips half a period (1.5 - 1), and a machine stall under load
     * skips what it took. */
    const double skipped = es_player_skipped_seconds(pl);
    const double expected = (elapsed - skipped) * RATE / BLOCK;
    int bad = s.blocks < 0.98 * expected || s.blocks > 1.02 * expected + 1;
    bad |= skipped < 0.9 * 0.5 * delays * BLOCK / RATE;
    bad |= s.misses != (uint64_t)delays;
    for (int k = 0; k < delays; k++)
        bad |= s.recent_misses[k] != delay_blocks[k];
    bad |= es_player_xruns(pl) < (uint64_t)delays || es_player_xruns(pl) > (uint64_t)delays + 3;
    printf("%s %d injected delays: %llu blocks in %.2f s less %.1f ms skipped (%.1f expected), "
           "%llu misses at",
           bad ? "FAIL" : "ok  ", delays, (unsigned long long)s.blocks, elapsed, 1e3 * skipped, expected,
           (unsigned long long)s.misses);
    for (uint64_t k = 0; k < s.misses && k < ES_RECENT_MISSES; k++)
        printf(" %llu", (unsigned long long)s.recent_misses[k]);
    printf(", %llu xruns\n", (unsigned long long)es_player_xruns(pl));
    failures += bad;
    es_player_close(pl);
}

int main(void)
{
    static const uint64_t chosen[] = {10, 50, 51, 200};
    run(NULL, 0, 2);
    run(chosen, 4, 2);
    failures += !es_test_wrap_all_gone("engines");
    printf("null device: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
