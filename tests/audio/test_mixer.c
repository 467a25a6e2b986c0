/* The processor's mixer alone (audio/processor_mix.c), against a model of
 * the mix kept by the test (the whole input, the gains it asked for):
 *   - settled gains: y = gain * (wet * w + dry * x delayed by the
 *     latency), exactly, the dry path silent before its first frame; at
 *     dry 0 the wet signal alone; at latency 0 the dry path is the input
 *     itself, in the same block;
 *   - a level change ramps over ES_MIX_RAMP_MS: every sample between the
 *     mixes at the old and the new gains, the mix exactly the new one from
 *     the ramp's end, settled again then;
 *   - bypass crossfades over its own length to the delayed dry signal
 *     alone, exactly, and back;
 *   - a block the engine wrote (no pass) is left as it is, and its input
 *     still reaches the dry path;
 *   - the wet signal read in place (it is the output buffer) mixes the same;
 *   - forgotten (a panic), the dry path is silent for a latency;
 * every step counted for allocation, locks and waits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor_stages.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 64
#define LATENCY 100
#define BYPASS 128
#define FRAMES (200 * BLOCK)

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 2,
                              .outputs = 2};

typedef struct {
    es_mixer m;
    int latency;
    long at;                /* frames mixed so far */
    long forgotten;         /* dry frames before this read as silence */
    float x[2][FRAMES];     /* the input, every frame */
    float w[2][FRAMES];     /* the wet signal, every frame */
    float y[2][BLOCK];      /* the last block's output */
    int errors;             /* samples off the model */
} bench;

/* The dry sample output o carries at frame n. */
static float dry_at(const bench *b, int o, long n)
{
    const long from = n - b->latency;
    return from >= 0 && from >= b->forgotten ? b->x[o][from] : 0.0f;
}

/* One block mixed as `pass`; wet read in place when in_place. */
static void mix(bench *b, es_mixer_pass pass, int in_place)
{
    const float *x[2] = {b->x[0] + b->at, b->x[1] + b->at};
    const float *w[2] = {b->w[0] + b->at, b->w[1] + b->at};
    float *out[2] = {b->y[0], b->y[1]};
    if (in_place)
        for (int o = 0; o < 2; o++)
            memcpy(b->y[o], w[o], sizeof b->y[o]), w[o] = b->y[o];
    es_mixer_run(&b->m, x, w, out, BLOCK, pass);
    b->at += BLOCK;
}

/* The mix at gains wet, dry, gain of frame n, output o. */
static float model(const bench *b, int o, long n, float wet, float dry, float gain)
{
    return gain * (wet * b->w[o][n] + dry * dry_at(b, o, n));
}

/* The last block against the settled mix `m` (bypass: the dry alone). */
static void expect(bench *b, const es_mix *m)
{
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < BLOCK; t++) {
            const long n = b->at - BLOCK + t;
            const float want =
                m->bypass ? dry_at(b, o, n) : model(b, o, n, m->wet, m->dry, m->gain);
            b->errors += memcmp(&b->y[o][t], &want, sizeof want) != 0;
        }
}

/* The last block between the mixes at the corners of from..to. */
static void between(bench *b, const es_mix *from, const es_mix *to)
{
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < BLOCK; t++) {
            const long n = b->at - BLOCK + t;
            float lo = INFINITY, hi = -INFINITY;
            for (int c = 0; c < 8; c++) {
                const float v = model(b, o, n, (c & 1 ? to : from)->wet,
                                      (c & 2 ? to : from)->dry, (c & 4 ? to : from)->gain);
                lo = fminf(lo, v), hi = fmaxf(hi, v);
            }
            const float slack = 1e-5f * (fabsf(lo) + fabsf(hi)) + 1e-6f; /* rounding */
            b->errors += !(b->y[o][t] >= lo - slack && b->y[o][t] <= hi + slack);
        }
}

static void settled_and_ramps(bench *b)
{
    const es_mix a = {.wet = 0.5f, .dry = 0.25f, .gain = 2.0f};
    const es_mix wet_only = {.wet = 0.75f, .gain = 0.5f};
    const es_mix c = {.wet = 1.0f, .dry = 0.125f, .gain = 1.0f};
    int settled = 1, moving = 1, unity;
    const int ramp_blocks = (b->m.ramp_len + BLOCK - 1) / BLOCK;

    rt_window_open();
    es_mixer_level(&b->m, &a, 0);
    for (int k = 0; k < 4; k++) /* the first blocks read the dry path's silence */
        mix(b, ES_MIXER_CONSTANT, 0), expect(b, &a);
    es_mixer_level(&b->m, &wet_only, 0);
    mix(b, ES_MIXER_CONSTANT, 0), expect(b, &wet_only);
    es_mixer_level(&b->m, &a, 0);
    mix(b, ES_MIXER_CONSTANT, 0), expect(b, &a);
    es_mixer_level(&b->m, &c, 1);
    for (int k = 0; k < ramp_blocks; k++) {
        moving &= !es_mixer_settled(&b->m);
        mix(b, ES_MIXER_RAMPED, k % 2), between(b, &a, &c);
    }
    settled &= es_mixer_settled(&b->m);
    mix(b, ES_MIXER_CONSTANT, 0), expect(b, &c);
    unity = !es_mixer_unity(&b->m);
    es_mixer_level(&b->m, &(es_mix){.wet = 1.0f, .gain = 1.0f}, 0);
    unity &= es_mixer_unity(&b->m);
    rt_window_shut("the mixer's settled and moving gains");

    es_test_check(b->errors == 0, "settled: gain * (wet * w + dry * x delayed), exactly; the "
                                  "dry path silent before its first frame");
    es_test_check(moving && settled,
                  "a level change ramps over 20 ms, each sample between the old and new "
                  "mixes, then exactly the new one, settled");
    es_test_check(unity, "unity: wet 1, dry 0, gain 1 only");
}

static void bypass_and_no_pass(bench *b)
{
    const es_mix on = {.wet = 0.5f, .dry = 0.25f, .gain = 2.0f, .bypass = 1};
    const es_mix off = {.wet = 0.5f, .dry = 0.25f, .gain = 2.0f};
    const int bypass_blocks = BYPASS / BLOCK;
    int errors_before = b->errors, untouched = 1;

    rt_window_open();
    es_mixer_level(&b->m, &off, 0);
    es_mixer_level(&b->m, &on, 1);
    for (int k = 0; k < bypass_blocks; k++)
        mix(b, ES_MIXER_RAMPED, 0);
    for (int k = 0; k < 3; k++)
        mix(b, ES_MIXER_RAMPED, k % 2), expect(b, &on);
    es_mixer_level(&b->m, &off, 1);
    for (int k = 0; k < bypass_blocks; k++)
        mix(b, ES_MIXER_RAMPED, 0);
    mix(b, ES_MIXER_CONSTANT, 0), expect(b, &off);
    /* The engine wrote these: left as they are, their input kept. */
    for (int k = 0; k < 3; k++) {
        for (int o = 0; o < 2; o++)
            for (int t = 0; t < BLOCK; t++)
                b->y[o][t] = 123.0f;
        const float *x[2] = {b->x[0] + b->at, b->x[1] + b->at};
        es_mixer_run(&b->m, x, NULL, (float *const[]){b->y[0], b->y[1]}, BLOCK, ES_MIXER_NONE);
        b->at += BLOCK;
        untouched &= b->y[0][0] == 123.0f && b->y[1][BLOCK - 1] == 123.0f;
    }
    for (int k = 0; k < 3; k++)
        mix(b, ES_MIXER_CONSTANT, 0), expect(b, &off);
    rt_window_shut("the mixer's bypass and a block with no pass");

    es_test_check(b->errors == errors_before,
                  "bypass: the delayed dry signal alone, exactly, and back");
    es_test_check(untouched, "a block the engine wrote is left as it is; its input still "
                             "reaches the dry path");
}

static void forget(bench *b)
{
    const es_mix m = {.wet = 0.5f, .dry = 0.25f, .gain = 2.0f};
    const int errors_before = b->errors;
    rt_window_open();
    es_mixer_forget(&b->m);
    b->forgotten = b->at;
    for (int k = 0; k < 4; k++)
        mix(b, ES_MIXER_CONSTANT, 0), expect(b, &m);
    rt_window_shut("the mixer forgetting");
    es_test_check(b->errors == errors_before, "forgotten, the dry path is silent for a latency");
}

static int bench_start(bench *b, int latency)
{
    char err[256];
    memset(b, 0, sizeof *b);
    b->latency = latency;
    b->forgotten = -1;
    for (int n = 0; n < FRAMES; n++) /* small integers: every sum exact */
        for (int i = 0; i < 2; i++)
            b->x[i][n] = (float)((n * (i + 3)) % 29 - 14),
            b->w[i][n] = (float)((n * (i + 7)) % 31 - 15);
    if (es_mixer_init(&b->m, &fmt, latency, BYPASS, err, sizeof err) != 0) {
        printf("FAIL mixer: %s\n", err);
        return 0;
    }
    return 1;
}

int main(void)
{
    static bench b;
    if (!bench_start(&b, LATENCY))
        return 1;
    settled_and_ramps(&b);
    bypass_and_no_pass(&b);
    forget(&b);
    es_mixer_free(&b.m);

    printf("at latency 0 (the dry path read from the input):\n");
    if (!bench_start(&b, 0))
        return 1;
    settled_and_ramps(&b);
    es_mixer_free(&b.m);
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
