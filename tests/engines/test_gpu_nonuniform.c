/* cuda-nonuniform beyond the shared reference tests (skipped, exit 77,
 * without a usable GPU):
 *   - IR lengths one tap before, at and after every level boundary of its
 *     plans (where each tail level starts), blocks 32, 64 and 128, random
 *     call sizes, mono, stereo, true stereo and a 3 x 4 matrix with a NULL
 *     path, synchronous and pipelined, against float64: worst at or below
 *     -120 dB. The cost model puts tail levels only into long, many-path
 *     IRs; the plans here are forced (EARSHOT_GPU_NU_PLAN, a test hook) to
 *     growth x4 and x8 up to 8192-frame partitions, so IRs of a few
 *     thousand taps have the same boundaries a 10 s room has;
 *   - tail jobs dropped on purpose (EARSHOT_GPU_DROP_TAIL, test builds
 *     only): each is counted late once, in late_levels and late_results,
 *     the output while they are missing is wrong (so the check can fail),
 *     and once the level's delay line has moved past them the output is
 *     back within -120 dB of float64;
 *   - a live engine told the host freewheels (es_engine_freewheel), fed
 *     4 s back to back, synchronous and pipelined: no late result, within
 *     -120 dB of float64.
 * Offline elsewhere, so the results do not depend on the machine's load.
 * --few: four of the boundary cases, with plans up to 1024-frame
 * partitions, and the dropped jobs, for compute-sanitizer's memcheck;
 * --race: one stereo case through every level of a plan up to 1024-frame
 * partitions, for racecheck. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_nu_plan.h"
#include "reference.h"

#define RATE 48000
#define LIMIT_DB -120.0

static const es_engine_class *engine;
static double worst = -INFINITY;
static char worst_case[160];

/* "3x4": every path of a 3 in x 4 out matrix but 1 -> 2, which is NULL. */
static es_ir *make_ir(const char *layout, int length, uint64_t *rng)
{
    if (strcmp(layout, "3x4") != 0)
        return es_test_ir(layout, length, rng);
    es_ir *ir = es_ir_create(3, 4, length, RATE);
    for (int i = 0; i < 3; i++)
        for (int o = 0; o < 4; o++) {
            if (i == 1 && o == 2)
                continue;
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < length; t++)
                h[t] = (float)es_test_uniform(rng) * expf(-4.0f * t / length);
        }
    return ir;
}

/* The largest tail partition of the forced plans; --few and --race keep
 * it at 1024, so that compute-sanitizer runs hundreds of blocks, not
 * thousands. */
static int max_part = 8192;

/* The plan the engine makes under EARSHOT_GPU_NU_PLAN=ratio,max_part. */
static void forced_plan(int ratio, int length, int block, es_gnu_plan *p)
{
    const es_gnu_shape s = {2, 2, 2, length, block, 0};
    es_gnu_plan_make(&s, ratio, max_part, p);
    char value[32];
    snprintf(value, sizeof value, "%d,%d", ratio, max_part);
    setenv("EARSHOT_GPU_NU_PLAN", value, 1);
}

/* Its level offsets, for an IR long enough to have them all. */
static int boundaries(int ratio, int block, int *offset)
{
    es_gnu_plan p;
    forced_plan(ratio, 40000, block, &p);
    for (int k = 1; k < p.levels; k++)
        offset[k - 1] = p.level[k].offset;
    return p.levels - 1;
}

/* One IR through the engine against float64; returns the error in dB. */
/* freewheel 0: an offline engine; 1: a live one told the host freewheels
 * (es_engine_freewheel), which must wait for every result as offline. */
static double run_case_as(const char *layout, int length, int block, int pipelined,
                          uint64_t *rng, es_engine_status *st, int in_frames, int freewheel)
{
    es_ir *ir = make_ir(layout, length, rng);
    const es_format fmt = {.sample_rate = RATE, .max_block = block, .inputs = ir->inputs,
                           .outputs = ir->outputs};
    const es_options opt = {.offline = !freewheel, .gpu_pipelined = pipelined};
    char err[256];
    es_engine *e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL create %s, %d taps, block %d: %s\n", layout, length, block, err);
        es_ir_destroy(ir);
        return INFINITY;
    }
    if (freewheel)
        es_engine_freewheel(e, 1);
    const int out_frames = in_frames + length - 1;
    float **in = es_test_planar(ir->inputs, in_frames);
    for (int i = 0; i < ir->inputs; i++)
        for (int t = 0; t < in_frames; t++)
            in[i][t] = (float)es_test_uniform(rng);
    double **ref = es_ref_convolve(ir, in, in_frames, out_frames);
    es_call_pattern calls = {.max_block = block, .random = 1, .state = rng};
    float **y = es_test_run(e, ir, in, in_frames, out_frames, calls);
    const double db = es_test_error_db(ir, y, ref, out_frames);
    if (st)
        es_engine_get_status(e, st);
    es_engine_destroy(e);
    es_test_free_planar(in, ir->inputs);
    es_test_free_planar(y, ir->outputs);
    es_test_free_planar(ref, ir->outputs);
    es_ir_destroy(ir);
    return db;
}

static double run_case(const char *layout, int length, int block, int pipelined,
                       uint64_t *rng, es_engine_status *st, int in_frames)
{
    return run_case_as(layout, length, block, pipelined, rng, st, in_frames, 0);
}

/* A live engine, blocks back to back as a freewheeling JACK server sends
 * them (far faster than real time): told so, it waits for its head and
 * tail results, so none is late and the output is float64's. */
static void freewheeling(uint64_t *rng)
{
    es_engine_status st;
    setenv("EARSHOT_GPU_NU_PLAN", "4,1024", 1);
    for (int pipelined = 0; pipelined <= 1; pipelined++) {
        const double db = run_case_as("stereo", 20000, 64, pipelined, rng, &st, 4 * RATE, 1);
        char what[200];
        snprintf(what, sizeof what, "freewheeling, %s: 4 s back to back, %llu late results, "
                 "within %.1f dB of float64", pipelined ? "pipelined" : "synchronous",
                 (unsigned long long)st.late_results, db);
        es_test_check(db <= LIMIT_DB && st.late_results == 0, what);
    }
}

/* How much to run: compute-sanitizer runs each kernel hundreds of times
 * slower, racecheck slowest. */
enum { ALL, FEW, RACE };

/* FEW: stereo and 3 x 4 at block 64 with every level (one tap past the
 * last boundary), both modes. RACE: stereo, synchronous, a short input. */
static int check_boundaries(uint64_t *rng, int scope)
{
    const int few = scope != ALL;
    static const char *layouts[] = {"mono", "stereo", "true-stereo", "3x4"};
    static const int blocks[] = {32, 64, 128};
    int fail = 0, cases = 0;
    for (int l = 0; l < 4; l++)
        for (int b = 0; b < 3; b++)
            for (int pipelined = 0; pipelined < 2; pipelined++) {
                /* The matrices and the pipelined mode at block 64 only. */
                if ((l >= 2 || pipelined) && blocks[b] != 64)
                    continue;
                if (few && (blocks[b] != 64 || (l != 1 && l != 3)))
                    continue;
                if (scope == RACE && (l != 1 || pipelined))
                    continue;
                const int ratio = b == 1 && l == 1 ? 8 : 4;
                int offset[ES_GNU_MAX_LEVELS];
                const int levels = boundaries(ratio, blocks[b], offset);
                if (levels < 1) {
                    printf("FAIL the forced plan x%d at block %d has no tail level\n", ratio,
                           blocks[b]);
                    fail++;
                    continue;
                }
                for (int k = few ? levels - 1 : 0; k < levels; k++)
                    for (int d = few ? 1 : -1; d <= 1; d++) {
                        const int length = offset[k] + d;
                        /* Input that covers several blocks of every level
                         * below this one, and then the IR's whole tail. */
                        const int in_frames = scope == RACE ? 4 * blocks[b] : 3000 + 4 * blocks[b];
                        const double db =
                            run_case(layouts[l], length, blocks[b], pipelined, rng, NULL, in_frames);
                        cases++;
                        char name[160];
                        snprintf(name, sizeof name,
                                 "%s, %d taps (level %d at %d %+d, x%d), block %d%s", layouts[l],
                                 length, k + 1, offset[k], d, ratio, blocks[b],
                                 pipelined ? ", pipelined" : "");
                        if (db > worst) {
                            worst = db;
                            snprintf(worst_case, sizeof worst_case, "%s", name);
                        }
                        if (!(db <= LIMIT_DB)) {
                            printf("FAIL %s: %.1f dB\n", name, db);
                            fail++;
                        }
                    }
            }
    printf("     %d boundary cases, %d failed; worst %.1f dB (%s)\n", cases, fail, worst,
           worst_case);
    return fail;
}

/* Level 1's jobs FIRST..FIRST+2 dropped; the output checked where they
 * were missing and after the delay line has let go of them. */
static void dropped_jobs(uint64_t *rng, int few)
{
    const int block = 64, length = few ? 6000 : 20000;
    es_ir *ir = make_ir("stereo", length, rng);
    es_gnu_plan p;
    forced_plan(4, length, block, &p);
    const es_nu_level *l1 = &p.level[1];
    const int first = 4, dropped = 3;
    setenv("EARSHOT_GPU_DROP_TAIL", "4,3", 1);
    const es_format fmt = {.sample_rate = RATE, .max_block = block, .inputs = 2, .outputs = 2};
    const es_options opt = {.offline = 1};
    char err[256];
    es_engine *e = es_engine_create(engine, &fmt, ir, &opt, err, sizeof err);
    unsetenv("EARSHOT_GPU_DROP_TAIL");
    if (!e) {
        printf("FAIL create: %s\n", err);
        es_test_failures++;
        es_ir_destroy(ir);
        return;
    }
    const int in_frames = few ? 12000 : 60000, out_frames = in_frames + length - 1;
    float **in = es_test_planar(2, in_frames);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < in_frames; t++)
            in[i][t] = (float)es_test_uniform(rng);
    double **ref = es_ref_convolve(ir, in, in_frames, out_frames);
    es_call_pattern calls = {.max_block = block, .random = 1, .state = rng};
    float **y = es_test_run(e, ir, in, in_frames, out_frames, calls);
    es_engine_status st;
    es_engine_get_status(e, &st);
    /* Jobs j have their output at offset + j P; a dropped block stays in
     * the level's delay line for count jobs. */
    const int bad_from = l1->offset + first * l1->part;
    const int bad_to = l1->offset + (first + dropped + l1->count) * l1->part;
    float *yw[2], *yr[2];
    double *rw[2], *rr[2];
    for (int o = 0; o < 2; o++) {
        yw[o] = y[o] + bad_from;
        rw[o] = ref[o] + bad_from;
        yr[o] = y[o] + bad_to;
        rr[o] = ref[o] + bad_to;
    }
    const double wrong = es_test_error_db(ir, yw, rw, bad_to - bad_from);
    const double right = es_test_error_db(ir, yr, rr, out_frames - bad_to);
    printf("     level 1 (%dx%d at %d): jobs %d-%d dropped; %llu late, %llu of them levels; "
           "error %.1f dB while missing, %.1f dB after\n",
           l1->count, l1->part, l1->offset, first, first + dropped - 1,
           (unsigned long long)st.late_results, (unsigned long long)st.late_levels, wrong, right);
    es_test_check(st.late_levels == (uint64_t)dropped && st.late_results == (uint64_t)dropped,
                  "each dropped tail job is counted late once");
    es_test_check(wrong > -60, "the output is wrong while they are missing");
    es_test_check(right <= LIMIT_DB, "and right again once the delay line has let go of them");
    es_engine_destroy(e);
    es_test_free_planar(in, 2);
    es_test_free_planar(y, 2);
    es_test_free_planar(ref, 2);
    es_ir_destroy(ir);
}

int main(int argc, char **argv)
{
    const int scope = argc < 2                         ? ALL
                      : strcmp(argv[1], "--few") == 0  ? FEW
                      : strcmp(argv[1], "--race") == 0 ? RACE
                                                       : -1;
    if (scope < 0 || argc > 2) {
        fprintf(stderr, "usage: test_gpu_nonuniform [--few|--race]\n");
        return 2;
    }
    max_part = scope == ALL ? 8192 : 1024;
    engine = es_engine_find("cuda-nonuniform");
    char why[256];
    if (!engine || !engine->probe(why, sizeof why)) {
        printf("SKIP cuda-nonuniform: %s\n", engine ? why : "not registered");
        return 77;
    }
    printf("cuda-nonuniform: %s\n", why);
    uint64_t rng = es_test_seed();
    es_test_check(check_boundaries(&rng, scope) == 0,
                  "every level boundary, blocks 32/64/128, random calls: within -120 dB");
    if (scope != RACE)
        dropped_jobs(&rng, scope == FEW);
    if (scope == ALL)
        freewheeling(&rng);
    unsetenv("EARSHOT_GPU_NU_PLAN");
    printf("%s\n", es_test_failures ? "FAILED" : "PASSED");
    return es_test_failures ? 1 : 0;
}
