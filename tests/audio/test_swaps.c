/* 1000 room and engine swaps while playing.
 *
 * An audio thread runs the processor block after block; a control thread
 * builds engines (three rooms x the CPU engines), queues swaps and destroys
 * what the audio thread retires, as the loader thread will. Checks:
 *   - the audio thread allocates, frees, locks, sleeps and writes nothing
 *     (counted; not in sanitizer builds, whose allocator is their own);
 *   - no click: a 110 Hz sine goes in; during an equal-power crossfade the
 *     output is cos(g) a + sin(g) b of two rooms' outputs, so no step may
 *     exceed what that sum can make: |da| + |db| + (gain slope) x level,
 *     bounded by 2 x the largest step a room makes by itself + (pi / fade
 *     frames) x its peak. "By itself" is measured from a fresh engine,
 *     onset included: an engine swapped in starts with a silent history, so
 *     its output builds up exactly as a room's does when a sound starts.
 *     The same detector must fire on swaps with a one-frame "crossfade", so
 *     it is shown to catch clicks;
 *   - every swap completes, and nothing leaks (the ASan build runs this
 *     test too, and LeakSanitizer checks at exit). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "processor.h"
#include "reference.h"
#ifdef ES_COUNT_RT
#include "rt_counters.h"
#endif

#define SWAPS 1000
#define BLOCK 64
#define RATE 48000.0
#define ROOMS 3

static es_ir *rooms[ROOMS];
static const es_format fmt_all = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                                  .outputs = 2};
static es_processor *proc;
static atomic_int done_swapping;

static es_ir *make_room(int taps, double decay, uint64_t *rng)
{
    es_ir *ir = es_ir_create(1, 2, taps, RATE);
    for (int o = 0; o < 2; o++) {
        float *h = es_ir_path(ir, 0, o);
        for (int t = 0; t < taps; t++)
            h[t] = (float)(0.3 * es_test_uniform(rng) * exp(-decay * t / taps));
    }
    return ir;
}

static es_engine *build(int k)
{
    const es_engine_class *cls = es_engine_find(k % 2 ? "cpu-direct" : "cpu-partitioned");
    es_options opt = {0};
    char err[256];
    es_engine *e = es_engine_create(cls, &fmt_all, rooms[k % ROOMS], &opt, err, sizeof err);
    if (!e) {
        printf("FAIL create: %s\n", err);
        exit(1);
    }
    return e;
}

static void *control(void *arg)
{
    const int swaps = *(const int *)arg;
    char err[256];
    for (int k = 1; k <= swaps; k++) {
        es_engine *e = build(k);
        while (es_processor_swap(proc, e, &fmt_all, err, sizeof err) != 0)
            es_processor_collect(proc);
        /* Wait for this swap's crossfade to end before the next. */
        while (es_processor_swap_pending(proc))
            es_processor_collect(proc);
    }
    atomic_store(&done_swapping, 1);
    return NULL;
}

static double sine(long t)
{
    return 0.5 * sin(2 * 3.14159265358979 * 110.0 * (double)t / RATE);
}

static double peak;

/* Runs blocks of a sine through p until stop() says so; returns the largest
 * step between consecutive output samples (and the peak in `peak`). */
static double play(es_processor *p, long *t, int (*stop)(long blocks), long *blocks_out)
{
    float in0[BLOCK], out0[BLOCK], out1[BLOCK];
    const float *in[1] = {in0};
    float *out[2] = {out0, out1};
    float last[2] = {0, 0};
    double step = 0;
    long blocks = 0;
    int first = 1; /* no step into the first sample: there is no "before" */
    while (!stop(blocks)) {
        for (int i = 0; i < BLOCK; i++)
            in0[i] = (float)sine((*t)++);
        es_processor_process(p, in, out, BLOCK);
        for (int o = 0; o < 2; o++)
            for (int i = 0; i < BLOCK; i++) {
                double d = fabs((double)out[o][i] - last[o]);
                if (!(first && i == 0))
                    step = d > step ? d : step;
                peak = fabs(out[o][i]) > peak ? fabs(out[o][i]) : peak;
                last[o] = out[o][i];
            }
        first = 0;
        blocks++;
    }
    *blocks_out = blocks;
    return step;
}

/* Long enough to pass the longest room's onset many times over, and to
 * see as many blocks of each room as the swapping run sees. */
static int steady_stop(long blocks)
{
    return blocks >= 12000;
}

static int swaps_stop(long blocks)
{
    (void)blocks;
    return atomic_load(&done_swapping);
}

/* Plays while a control thread makes `swaps` swaps; returns the largest
 * step and the stats. */
static double run_swaps(int swaps, double crossfade_ms, es_stats *st, long *blocks
#ifdef ES_COUNT_RT
                        , es_rt_counts *rt
#endif
)
{
    es_processor_config cfg = {.mix = {.wet = 1, .dry = 0, .gain = 1},
                               .crossfade_ms = crossfade_ms, .offline = 1};
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    char err[256];
    atomic_store(&done_swapping, 0);
    proc = es_processor_create(&fmt, build(0), &cfg, err, sizeof err);
    pthread_t ctl;
    pthread_create(&ctl, NULL, control, &swaps);
    long t = 0;
#ifdef ES_COUNT_RT
    es_rt_count_begin();
#endif
    double step = play(proc, &t, swaps_stop, blocks);
#ifdef ES_COUNT_RT
    *rt = es_rt_count_end();
#endif
    pthread_join(ctl, NULL);
    es_processor_stats(proc, st);
    es_processor_collect(proc);
    es_processor_destroy(proc);
    return step;
}

int main(void)
{
    uint64_t rng = es_test_seed();
    rooms[0] = make_room(500, 5, &rng);
    rooms[1] = make_room(3000, 7, &rng);
    rooms[2] = make_room(9000, 4, &rng);
    /* Rendered (no runaway detector): the rooms' random taps ring far
     * above full scale, which live output would mute (audio/safety.h). */
    es_processor_config cfg = {.mix = {.wet = 1, .dry = 0, .gain = 1}, .crossfade_ms = 5,
                               .offline = 1};
    char err[256];
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2};

    /* What playback of each room produces by itself, from a fresh start. */
    double steady = 0, loudest = 0;
    for (int k = 0; k < 2 * ROOMS; k++) {
        es_processor *p = es_processor_create(&fmt, build(k), &cfg, err, sizeof err);
        /* Start at the sine's crest: the onset is largest when the sound
         * "starts" at full level, and a swap can land at any phase. */
        long t = (long)(RATE / 110.0 / 4.0 + 0.5), blocks;
        peak = 0;
        double s = play(p, &t, steady_stop, &blocks);
        steady = s > steady ? s : steady;
        loudest = peak > loudest ? peak : loudest;
        es_processor_destroy(p);
    }
    peak = loudest;
    const double fade_frames = 5e-3 * RATE;
    const double bound = 2 * steady + 3.14159265358979 / fade_frames * peak;

    es_stats st;
    long blocks;
    int failures = 0;
#ifdef ES_COUNT_RT
    es_rt_counts rt;
    double swapping = run_swaps(SWAPS, 5, &st, &blocks, &rt);
#else
    double swapping = run_swaps(SWAPS, 5, &st, &blocks);
#endif
    printf("%llu swaps in %ld blocks; largest step %.4f while swapping; rooms alone: step "
           "%.4f, peak %.3f; bound %.4f\n", (unsigned long long)st.swaps, blocks, swapping,
           steady, peak, bound);
    if (st.swaps != SWAPS) {
        printf("FAIL %llu swaps completed, want %d\n", (unsigned long long)st.swaps, SWAPS);
        failures++;
    }
    if (!(swapping <= bound)) {
        printf("FAIL a click: a step of %.4f, more than a crossfade can make (%.4f)\n",
               swapping, bound);
        failures++;
    }
#ifdef ES_COUNT_RT
    printf("audio thread: %ld allocs, %ld frees, %ld locks, %ld waits\n", rt.allocs, rt.frees,
           rt.locks, rt.waits);
    if (rt.allocs || rt.frees || rt.locks || rt.waits) {
        printf("FAIL the audio thread allocated, freed, locked or waited\n");
        failures++;
    }
    double hard = run_swaps(50, 1e3 / RATE, &st, &blocks, &rt);
#else
    double hard = run_swaps(50, 1e3 / RATE, &st, &blocks);
#endif
    printf("50 hard switches (one-frame crossfade): largest step %.4f\n", hard);
    if (!(hard > bound)) {
        printf("FAIL the click detector does not see hard switches\n");
        failures++;
    }
    for (int k = 0; k < ROOMS; k++)
        es_ir_destroy(rooms[k]);
    printf("swaps: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
