/* The processor's input guard alone (audio/processor_input.c):
 *   - a clean block at unity trim goes on as it is (the caller's own
 *     buffers, no copy) and into the history;
 *   - NaN, both infinities, 1e30 and a sample beyond ES_INPUT_MAX are
 *     silenced in a copy and counted, every other sample bit for bit, the
 *     caller's block untouched, the history holding the silenced block;
 *   - a trim ramps linearly over ES_MIX_RAMP_MS and lands exactly on its
 *     gain; one set at once applies from the next sample;
 *   - held, the input ramps to silence and stays there; let in, it ramps
 *     back and goes on as it is again;
 *   - forgotten (a panic), the history reads as silence;
 * every step counted for allocation, locks and waits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor_stages.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 64
#define HISTORY 4096

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 2,
                              .outputs = 2};

static float ones[2][BLOCK];
static const float *const in[2] = {ones[0], ones[1]};

/* One block of ones through the guard: its output, channel 0. */
static const float *step(es_input_guard *g, es_stats *st)
{
    return es_input_guard_run(g, in, BLOCK, st)[0];
}

static void clean_and_bad(es_input_guard *g)
{
    es_stats st = {0};
    float bad[2][BLOCK], copy[2][BLOCK];
    for (int t = 0; t < BLOCK; t++)
        bad[0][t] = bad[1][t] = 0.25f * (float)t / BLOCK - 0.1f;
    const float poison[] = {NAN, INFINITY, -INFINITY, 1e30f, -1001.0f};
    for (int k = 0; k < 5; k++)
        bad[k % 2][3 + 7 * k] = poison[k];
    bad[0][50] = 999.5f; /* within ES_INPUT_MAX: kept */
    memcpy(copy, bad, sizeof bad);
    const float *const b[2] = {bad[0], bad[1]};

    rt_window_open();
    const float *const *clean = es_input_guard_run(g, in, BLOCK, &st);
    const float *const *x = es_input_guard_run(g, b, BLOCK, &st);
    rt_window_shut("the input guard on a clean and a bad block");

    es_test_check(clean == in && st.bad_input == 5,
                  "a clean block goes on as it is; 5 bad samples counted");
    int kept = 1, silenced = 1;
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < BLOCK; t++) {
            const int poisoned = !(fabsf(copy[i][t]) <= ES_INPUT_MAX);
            silenced &= !poisoned || x[i][t] == 0.0f;
            kept &= poisoned || memcmp(&x[i][t], &copy[i][t], sizeof(float)) == 0;
        }
    es_test_check(x != b && silenced && kept && memcmp(bad, copy, sizeof bad) == 0,
                  "bad samples silenced in a copy, the rest bit for bit, the caller's untouched");
    float h0[BLOCK], h1[BLOCK];
    float *const h[2] = {h0, h1};
    es_history_read(g->history, (int64_t)es_history_heard(g->history) - BLOCK, BLOCK, h);
    es_test_check(memcmp(h0, x[0], sizeof h0) == 0 && memcmp(h1, x[1], sizeof h1) == 0,
                  "the history holds the block as the engines heard it");
}

/* Runs blocks of ones until `frames` frames passed: 1 when every sample
 * moved monotonically towards `to` and the last landed on it exactly. */
static int ramps_to(es_input_guard *g, float to, int frames, es_stats *st)
{
    float last = step(g, st)[0];
    int monotonic = 1;
    for (int done = BLOCK; done < frames; done += BLOCK) {
        const float *y = step(g, st);
        for (int t = 0; t < BLOCK; t++) {
            monotonic &= fabsf(y[t] - to) <= fabsf(last - to);
            last = y[t];
        }
    }
    return monotonic && last == to;
}

static void trim_and_hold(es_input_guard *g)
{
    es_stats st = {0};
    const float half = (float)es_db_to_gain(-6.0), twice = (float)es_db_to_gain(6.0);
    const int ramp = g->ramp_len;
    int down, at_once, held, silent = 1, back, as_is;

    rt_window_open();
    es_input_guard_level(g, -6.0, 1);
    down = ramps_to(g, half, ramp, &st);
    es_input_guard_level(g, 6.0, 0);
    at_once = step(g, &st)[0] == twice;
    es_input_guard_level(g, 0.0, 0);
    es_input_guard_hold(g, 1, 0.0);
    held = ramps_to(g, 0.0f, ramp, &st);
    for (int k = 0; k < 4; k++)
        silent &= step(g, &st)[BLOCK - 1] == 0.0f;
    es_input_guard_hold(g, 0, 0.0);
    back = ramps_to(g, 1.0f, ramp + BLOCK, &st);
    as_is = es_input_guard_run(g, in, BLOCK, &st) == in;
    rt_window_shut("the input guard's trim and hold");

    es_test_check(ramp == (int)(ES_MIX_RAMP_MS * 1e-3 * RATE) && down,
                  "a trim of -6 dB ramps over 20 ms and lands on its gain exactly");
    es_test_check(at_once, "a trim set at once applies from the next sample");
    es_test_check(held && silent, "held, the input ramps to silence and stays there");
    es_test_check(back && as_is, "let in, it ramps back and goes on as it is");
}

static void forget(es_input_guard *g)
{
    es_stats st = {0};
    step(g, &st);
    rt_window_open();
    es_input_guard_forget(g);
    rt_window_shut("the input guard forgetting");
    float h0[BLOCK], h1[BLOCK];
    float *const h[2] = {h0, h1};
    es_history_read(g->history, (int64_t)es_history_heard(g->history) - BLOCK, BLOCK, h);
    int silent = 1;
    for (int t = 0; t < BLOCK; t++)
        silent &= h0[t] == 0.0f && h1[t] == 0.0f;
    es_test_check(silent, "forgotten, the history reads as silence");
}

int main(void)
{
    for (int t = 0; t < BLOCK; t++)
        ones[0][t] = ones[1][t] = 1.0f;
    char err[256];
    es_input_guard g = {0};
    if (es_input_guard_init(&g, &fmt, HISTORY, 0, err, sizeof err) != 0) {
        printf("FAIL input guard: %s\n", err);
        return 1;
    }
    es_input_guard_level(&g, 0.0, 0);
    clean_and_bad(&g);
    trim_and_hold(&g);
    forget(&g);
    es_input_guard_free(&g);
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
