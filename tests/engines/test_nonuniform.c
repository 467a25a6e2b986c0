/* cpu-nonuniform beyond the shared reference tests:
 *   - the plans the cost model picks for 2 s and 10 s stereo rooms at
 *     blocks 32-256 are sound: levels follow each other without gaps, each
 *     tail level starts at least 2P + block in (its deadline is then P -
 *     block frames after its input is complete), and they cover the IR;
 *   - IR lengths one tap either side of every level boundary the plan
 *     makes (where each tail level starts, up to the largest partition),
 *     at blocks 32 and 64, against float64 with random call sizes;
 *   - a tail worker slowed on purpose, in real time: its late results are
 *     counted (they are what the processor counts as misses), the output
 *     while it is late is wrong (so the check below can fail), and once it
 *     has caught up the output is back within -120 dB of float64;
 *   - the same slowed worker while the host freewheels (es_engine_freewheel:
 *     blocks back to back, as fast as they are made, no deadline): no late
 *     result, and the whole output within -120 dB of float64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nonuniform.h"
#include "reference.h"

#define RATE 48000
#define BLOCK 64

static int check_plans(void)
{
    int fail = 0;
    const int blocks[] = {32, 64, 128, 256};
    const double seconds[] = {2, 10};
    for (int s = 0; s < 2; s++)
        for (int b = 0; b < 4; b++) {
            es_ir *ir = es_ir_create(2, 2, (int)(seconds[s] * RATE), RATE);
            es_ir_path(ir, 0, 0);
            es_ir_path(ir, 1, 1);
            es_format fmt = {.sample_rate = RATE, .max_block = blocks[b], .inputs = 2,
                             .outputs = 2};
            es_nu_plan p;
            es_nu_plan_choose(&fmt, ir, 0, &p);
            char text[512];
            int used = 0, bad = 0;
            for (int k = 0; k < p.levels; k++) {
                const es_nu_level *l = &p.level[k];
                used += snprintf(text + used, sizeof text - (size_t)used, " %dx%d", l->count,
                                 l->part);
                if (k > 0 && (l->offset != p.level[k - 1].offset +
                                            p.level[k - 1].count * p.level[k - 1].part ||
                              l->offset < 2 * l->part + blocks[b]))
                    bad = 1;
            }
            const es_nu_level *last = &p.level[p.levels - 1];
            bad |= last->offset + last->count * last->part < ir->length;
            printf("%s %4.0f s stereo, block %3d: x%d,%s (model %.0f ns/frame)\n",
                   bad ? "FAIL" : "ok  ", seconds[s], blocks[b], p.ratio, text, p.cost);
            fail |= bad;
            es_ir_destroy(ir);
        }
    return fail;
}

/* One IR length through cpu-nonuniform offline, random calls up to
 * `block`, tail jobs on `workers` threads (es_options.workers), against
 * float64. Returns the error in dB. */
static double run_length(int length, int block, int workers, uint64_t *seed)
{
    es_ir *ir = es_test_ir("stereo", length, seed);
    const es_format fmt = {.sample_rate = RATE, .max_block = block, .inputs = 2, .outputs = 2};
    const es_options opt = {.offline = 1, .workers = workers};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-nonuniform"), &fmt, ir, &opt, err,
                                    sizeof err);
    if (!e) {
        printf("FAIL create for %d taps: %s\n", length, err);
        es_ir_destroy(ir);
        return 0;
    }
    const int in_frames = length + 4 * block, out_frames = in_frames + length - 1;
    float **in = es_test_planar(2, in_frames);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < in_frames; t++)
            in[i][t] = (float)es_test_uniform(seed);
    double **ref = es_ref_convolve(ir, in, in_frames, out_frames);
    es_call_pattern calls = {.max_block = block, .random = 1, .state = seed};
    float **y = es_test_run(e, ir, in, in_frames, out_frames, calls);
    const double db = es_test_error_db(ir, y, ref, out_frames);
    es_test_free_planar(in, 2);
    es_test_free_planar(y, 2);
    es_test_free_planar(ref, 2);
    es_engine_destroy(e);
    es_ir_destroy(ir);
    return db;
}

/* The plan for a 2 s room puts levels at known offsets. IRs that end one
 * tap before, at and one tap after each of them get plans whose last level
 * is one tap short of full, exactly full, or a new level holding one tap:
 * all must null. Three ways to run the tail jobs: the default workers,
 * three workers (more than a 2-core machine has: jobs claimed by several
 * threads and the offline caller at once), and none (the caller runs
 * every job). */
static int check_boundaries(void)
{
    uint64_t seed = es_test_seed();
    int fail = 0;
    const int blocks[] = {32, 64, 64}, workers[] = {0, 3, -1};
    for (int b = 0; b < 3; b++) {
        es_ir *room = es_test_ir("stereo", 2 * RATE, &seed);
        const es_format fmt = {.sample_rate = RATE, .max_block = blocks[b], .inputs = 2,
                               .outputs = 2};
        es_nu_plan p;
        es_nu_plan_choose(&fmt, room, 0, &p);
        es_ir_destroy(room);
        double worst = -INFINITY;
        int cases = 0;
        for (int k = 1; k < p.levels; k++)
            for (int d = -1; d <= 1; d++) {
                const int length = p.level[k].offset + d;
                const double db = run_length(length, blocks[b], workers[b], &seed);
                worst = db > worst ? db : worst;
                cases++;
                if (!(db <= -120)) {
                    printf("FAIL %d taps at block %d: %.1f dB\n", length, blocks[b], db);
                    fail = 1;
                }
            }
        printf("%s level boundaries at block %d, %s: %d lengths up to the %d-frame level, "
               "worst %.1f dB (limit -120)\n",
               fail ? "FAIL" : "ok  ", blocks[b],
               workers[b] == 0 ? "default workers" : workers[b] > 0 ? "3 workers" : "no workers",
               cases, p.level[p.levels - 1].part, worst);
    }
    return fail;
}

static void sleep_until(const struct timespec *t0, double seconds)
{
    struct timespec at = *t0;
    const long long ns = (long long)(seconds * 1e9) + at.tv_nsec;
    at.tv_sec += ns / 1000000000LL;
    at.tv_nsec = ns % 1000000000LL;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
}

/* A live cpu-nonuniform engine (real time: it never waits for a worker,
 * unless told the host freewheels) on a fresh half-second mono IR, with
 * `frames` of fresh noise to feed it and room for what it plays. */
typedef struct {
    es_ir *ir;
    es_engine *e;
    char plan[256];
    float **in, **out;
} live_case;

static int live_case_make(live_case *c, int frames, uint64_t *seed)
{
    *c = (live_case){.ir = es_test_ir("mono", RATE / 2, seed)};
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 1};
    es_options opt = {0};
    char err[256];
    if (!(c->e = es_engine_create(es_engine_find("cpu-nonuniform"), &fmt, c->ir, &opt, err,
                                  sizeof err))) {
        printf("FAIL create: %s\n", err);
        es_ir_destroy(c->ir);
        return -1;
    }
    es_nonuniform_describe(c->e, c->plan, sizeof c->plan);
    c->in = es_test_planar(1, frames);
    c->out = es_test_planar(1, frames);
    for (int t = 0; t < frames; t++)
        c->in[0][t] = (float)es_test_uniform(seed);
    return 0;
}

static void live_case_free(live_case *c)
{
    es_test_free_planar(c->in, 1);
    es_test_free_planar(c->out, 1);
    es_engine_destroy(c->e);
    es_ir_destroy(c->ir);
}

static int slowed_tail(void)
{
    uint64_t seed = es_test_seed();
    const int length = RATE / 2, frames = 3 * RATE, blocks = frames / BLOCK;
    live_case c;
    if (live_case_make(&c, frames, &seed) != 0)
        return 1;
    es_ir *ir = c.ir;
    es_engine *e = c.e;
    const char *plan = c.plan;
    float **in = c.in, **out = c.out;
    /* Level 1's deadline is (P - block) frames (the plan's first tail
     * partition, 256 to 1024 frames: 4 to 20 ms); twice that and 2 ms more
     * per job for 10 jobs from block 300 makes it late for tens of ms. */
    int part1 = 0;
    if (sscanf(plan, "%*dx%d", &part1) != 1 || part1 <= BLOCK) {
        printf("FAIL no tail level in the plan '%s'\n", plan);
        return 1;
    }
    const double slow_us = 2e6 * (part1 - BLOCK) / RATE + 2000;
    const int slow_from = 300;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int b = 0; b < blocks; b++) {
        if (b == slow_from)
            es_nonuniform_slow_tail(e, 1, 10, slow_us, 0);
        const float *x[1] = {in[0] + (size_t)b * BLOCK};
        float *y[1] = {out[0] + (size_t)b * BLOCK};
        es_engine_process(e, x, y, BLOCK);
        sleep_until(&t0, (double)(b + 1) * BLOCK / RATE);
    }
    es_engine_status st;
    es_engine_get_status(e, &st);
    double **ref = es_ref_convolve(ir, in, frames, frames);
    /* While late: from the slowed jobs to well after them. Caught up: the
     * last IR length of the run, long after the slow jobs. */
    const int late_from = slow_from * BLOCK, late_to = late_from + RATE / 4;
    const int ok_from = frames - length;
    float *ys[1];
    double *rs[1];
    ys[0] = out[0] + late_from;
    rs[0] = ref[0] + late_from;
    const double late_db = es_test_error_db(ir, ys, rs, late_to - late_from);
    ys[0] = out[0] + ok_from;
    rs[0] = ref[0] + ok_from;
    const double after_db = es_test_error_db(ir, ys, rs, frames - ok_from);
    int fail = 0;
    printf("%s slowed tail (%s): %llu late results counted (%s)\n",
           st.late_results > 0 ? "ok  " : "FAIL", plan, (unsigned long long)st.late_results,
           st.helpers);
    fail |= st.late_results == 0;
    printf("%s while late the output is off: %.1f dB\n", late_db > -60 ? "ok  " : "FAIL",
           late_db);
    fail |= late_db <= -60;
    printf("%s caught up: the last %.2f s within %.1f dB of float64 (limit -120)\n",
           after_db <= -120 ? "ok  " : "FAIL", (double)length / RATE, after_db);
    fail |= after_db > -120;
    es_test_free_planar(ref, 1);
    live_case_free(&c);
    return fail;
}

/* A live engine (not offline) told the host freewheels: blocks come back
 * to back, far faster than real time, and the worker is slowed as above;
 * every tail result is waited for. */
static int freewheeling(void)
{
    uint64_t seed = es_test_seed();
    const int frames = 2 * RATE, blocks = frames / BLOCK;
    live_case c;
    if (live_case_make(&c, frames, &seed) != 0)
        return 1;
    es_ir *ir = c.ir;
    es_engine *e = c.e;
    float **in = c.in, **out = c.out;
    es_engine_freewheel(e, 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int b = 0; b < blocks; b++) {
        if (b == 300)
            es_nonuniform_slow_tail(e, 1, 10, 5000, 0);
        const float *x[1] = {in[0] + (size_t)b * BLOCK};
        float *y[1] = {out[0] + (size_t)b * BLOCK};
        es_engine_process(e, x, y, BLOCK);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    es_engine_freewheel(e, 0);
    es_engine_status st;
    es_engine_get_status(e, &st);
    double **ref = es_ref_convolve(ir, in, frames, frames);
    float *ys[1] = {out[0]};
    double *rs[1] = {ref[0]};
    const double db = es_test_error_db(ir, ys, rs, frames);
    const double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    const int fail = st.late_results != 0 || db > -120;
    printf("%s freewheeling (%s): %.1f s of blocks back to back in %.2f s, a worker slowed: "
           "%llu late results, the whole output within %.1f dB of float64 (limit -120)\n",
           fail ? "FAIL" : "ok  ", c.plan, (double)frames / RATE, took,
           (unsigned long long)st.late_results, db);
    es_test_free_planar(ref, 1);
    live_case_free(&c);
    return fail;
}

/* The scheduler: the deepest level's jobs made long (each of their slices
 * 2 ms longer, about 20 ms a job; as one piece 150 ms, seven periods of a
 * first level of 1024 frames) while one worker
 * serves every level in real time. Sliced, the first level's jobs run between the deep job's
 * slices and nothing is late; the same slowness as one piece, which the
 * scheduler cannot interrupt, makes the first levels late (so the check
 * can fail) unless the audio thread runs their jobs itself (the rescue,
 * off for the first two runs). Returns the late results. */
static unsigned long long deep_level_slowed(int per_slice, int rescue, char *plan, size_t n)
{
    uint64_t seed = es_test_seed();
    const int length = 10 * RATE, frames = 4 * RATE, blocks = frames / BLOCK;
    es_ir *ir = es_test_ir("mono", length, &seed);
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 1};
    es_options opt = {.workers = 1};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-nonuniform"), &fmt, ir, &opt, err,
                                    sizeof err);
    if (!e) {
        printf("FAIL create: %s\n", err);
        es_ir_destroy(ir);
        return ~0ULL;
    }
    const int levels = es_nonuniform_describe(e, plan, n);
    if (!rescue)
        es_nonuniform_no_rescue(e);
    float **in = es_test_planar(1, BLOCK), **out = es_test_planar(1, BLOCK);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int b = 0; b < blocks; b++) {
        if (b == 10)
            es_nonuniform_slow_tail(e, levels, 1000, per_slice ? 2000 : 150000, per_slice);
        for (int t = 0; t < BLOCK; t++)
            in[0][t] = (float)es_test_uniform(&seed);
        es_engine_process(e, (const float *const *)in, out, BLOCK);
        sleep_until(&t0, (double)(b + 1) * BLOCK / RATE);
    }
    es_engine_status st;
    es_engine_get_status(e, &st);
    es_test_free_planar(in, 1);
    es_test_free_planar(out, 1);
    es_engine_destroy(e);
    es_ir_destroy(ir);
    return st.late_results;
}

static int deep_level_sliced(void)
{
    char plan[256];
    const unsigned long long sliced = deep_level_slowed(1, 0, plan, sizeof plan);
    const unsigned long long whole = deep_level_slowed(0, 0, plan, sizeof plan);
    const unsigned long long rescued = deep_level_slowed(0, 1, plan, sizeof plan);
    /* One piece, every deep job holds the first level up for 150 ms: tens
     * of late results in 4 s. Sliced or rescued, none, but for what the
     * machine itself does: it stalls a real-time thread by tens of ms now
     * and then (docs/PERFORMANCE.md), which can make a result late
     * whatever the scheduler does; a quarter of the one-piece count is
     * room for that and still far from it. */
    const int ok = whole >= 20 && 4 * sliced <= whole && 4 * rescued <= whole;
    printf("%s deepest level slowed (%s, one worker): sliced %llu late results; as one "
           "piece %llu, %llu with the audio thread running the short levels' jobs\n",
           ok ? "ok  " : "FAIL", plan, sliced, whole, rescued);
    return !ok;
}

int main(void)
{
    int fail = check_plans();
    fail |= check_boundaries();
    fail |= slowed_tail();
    fail |= freewheeling();
    fail |= deep_level_sliced();
    return fail;
}
