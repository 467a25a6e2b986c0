/* The processor's output guard alone (audio/processor_output.c):
 *   - with nothing asked it is transparent: a block leaves bit for bit,
 *     its samples past full scale counted;
 *   - the last scan: NaN and infinity silenced and counted, never counted
 *     as clipped; as an engine's check, a sample beyond ES_ENGINE_OUT_MAX
 *     is a fault (0), one under it is counted as clipped;
 *   - a mute ramps down over ES_MUTE_RAMP_MS to silence exactly, says why
 *     (muted, panic), and an unmute ramps back over ES_MIX_RAMP_MS;
 *   - a sample beyond +6 dBFS is a runaway at once: that block silent
 *     whole, counted with its peak and the input's, muted until unmuted,
 *     and not counted again meanwhile; a block over full scale held for
 *     0.25 s trips it too, ramped down; a render is never watched;
 *   - the limiter holds every sample at its ceiling while asked, and the
 *     guard is transparent again only once its release has gone;
 * every step counted for allocation, locks and waits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor_stages.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 256

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                              .outputs = 2};

typedef struct {
    es_output_guard og;
    es_stats st;
    float in0[BLOCK];
    float y0[BLOCK], y1[BLOCK];
    uint64_t limited, clipped;
} bench;

/* A block of `v` on both outputs (and 0.7 in) through the guard and the
 * scan; the scan's answer. */
static int block_of(bench *b, float v)
{
    float *const out[2] = {b->y0, b->y1};
    const float *const in[1] = {b->in0};
    for (int t = 0; t < BLOCK; t++)
        b->y0[t] = b->y1[t] = v, b->in0[t] = 0.7f;
    b->limited += es_output_guard_run(&b->og, in, out, BLOCK, &b->st);
    uint64_t clipped;
    const int ok = es_output_guard_scan(&b->og, out, BLOCK, 0, &clipped, &b->st);
    b->clipped += clipped;
    es_output_guard_report(&b->og, &b->st);
    return ok;
}

static int start(bench *b, int offline)
{
    char err[256];
    memset(b, 0, sizeof *b);
    if (es_output_guard_init(&b->og, &fmt, offline, err, sizeof err) != 0) {
        printf("FAIL output guard: %s\n", err);
        return 0;
    }
    es_output_guard_level(&b->og, &(es_mix){.wet = 1, .gain = 1});
    return 1;
}

static void transparent_and_scan(bench *b)
{
    float *const out[2] = {b->y0, b->y1};
    uint64_t bad_clipped, check_fault, check_clipped;
    int as_is, fault, fine;
    const float *const in[1] = {b->in0};
    float want[BLOCK];

    rt_window_open();
    for (int t = 0; t < BLOCK; t++)
        b->y0[t] = b->y1[t] = want[t] = 0.5f * sinf(0.01f * (float)t);
    b->y0[9] = want[9] = 1.5f, b->y1[9] = -1.25f;
    b->limited += es_output_guard_run(&b->og, in, out, BLOCK, &b->st);
    as_is = es_output_guard_transparent(&b->og) && memcmp(b->y0, want, sizeof want) == 0;
    es_output_guard_scan(&b->og, out, BLOCK, 0, &b->clipped, &b->st);
    b->y0[3] = NAN, b->y1[4] = INFINITY, b->y1[5] = 1.5f;
    es_output_guard_scan(&b->og, out, BLOCK, 0, &bad_clipped, &b->st);
    b->y0[3] = b->y1[4] = 0.0f, b->y1[5] = 5e8f;
    fine = es_output_guard_scan(&b->og, out, BLOCK, 1, &check_clipped, &b->st);
    b->y0[7] = 2e9f;
    fault = !es_output_guard_scan(&b->og, out, BLOCK, 1, &check_fault, &b->st);
    rt_window_shut("the output guard transparent, and its scan");

    es_test_check(as_is && b->clipped == 2 && b->limited == 0,
                  "nothing asked: the block leaves bit for bit, 2 samples past full scale "
                  "counted");
    es_test_check(b->st.bad_output == 2 && b->y0[3] == 0.0f && bad_clipped == 3,
                  "NaN and infinity silenced and counted, not clipped");
    es_test_check(fine && check_clipped == 3 && fault && check_fault == 0,
                  "as an engine's check: 5e8 is clipped, 2e9 a fault");
}

/* Blocks of `v` until `frames` passed: 1 when the output fell (or rose)
 * monotonically to `to` times v, and landed on it exactly. */
static int ramps(bench *b, float v, float to, int frames)
{
    float last = v * (to == 0.0f ? 1.0f : 0.0f);
    int monotonic = 1;
    for (int done = 0; done < frames; done += BLOCK) {
        block_of(b, v);
        for (int t = 0; t < BLOCK; t++)
            monotonic &= fabsf(b->y0[t] - v * to) <= fabsf(last - v * to), last = b->y0[t];
    }
    return monotonic && last == v * to;
}

static void mutes(bench *b)
{
    int down, why, up, panic, clear;
    const int len = (int)(ES_MUTE_RAMP_MS * 1e-3 * RATE);
    rt_window_open();
    es_output_guard_mute(&b->og, ES_MUTE_MUTED, "muted");
    down = ramps(b, 0.5f, 0.0f, len) && !es_output_guard_transparent(&b->og);
    why = b->st.muted == ES_MUTE_MUTED && strcmp(b->st.mute_why, "muted") == 0;
    es_output_guard_unmute(&b->og);
    up = ramps(b, 0.5f, 1.0f, (int)(ES_MIX_RAMP_MS * 1e-3 * RATE));
    clear = b->st.muted == ES_MUTE_NONE && !b->st.mute_why &&
            es_output_guard_transparent(&b->og);
    es_output_guard_mute(&b->og, ES_MUTE_PANIC, "panic");
    block_of(b, 0.5f);
    panic = b->st.muted == ES_MUTE_PANIC && strcmp(b->st.mute_why, "panic") == 0;
    es_output_guard_unmute(&b->og);
    ramps(b, 0.5f, 1.0f, (int)(ES_MIX_RAMP_MS * 1e-3 * RATE));
    rt_window_shut("the output guard's mutes");
    es_test_check(down && why, "a mute ramps down over 10 ms to silence exactly, muted");
    es_test_check(up && clear, "unmuted: back up over 20 ms, transparent again");
    es_test_check(panic, "a panic says so");
}

static void runaways(bench *b)
{
    int silent = 1, once, tripped_at = 0, ramped, unwatched;
    const uint64_t before = b->st.runaways;
    rt_window_open();
    block_of(b, 3.0f);
    for (int t = 0; t < BLOCK; t++)
        silent &= b->y0[t] == 0.0f && b->y1[t] == 0.0f;
    for (int k = 0; k < 10; k++)
        block_of(b, 3.0f), silent &= b->y0[BLOCK - 1] == 0.0f;
    once = b->st.runaways == before + 1 && b->st.runaway_peak == 3.0f &&
           b->st.runaway_in_peak == 0.7f && b->st.muted == ES_MUTE_MUTED &&
           strstr(b->st.mute_why, "+6 dBFS") != NULL;
    es_output_guard_unmute(&b->og);
    for (int k = 1; k <= 100 && !tripped_at; k++) {
        block_of(b, 1.5f);
        tripped_at = b->st.runaways == before + 2 ? k : 0;
    }
    ramped = b->y0[0] > 1.0f && b->y0[BLOCK - 1] < b->y0[0] && !b->st.runaway_swelled;
    rt_window_shut("the output guard's runaways");

    es_test_check(silent && once, "beyond +6 dBFS: the block silent whole, counted once with "
                                  "its peak and the input's, muted, said why");
    char line[200];
    snprintf(line, sizeof line, "held over full scale: tripped after %.3f s, ramped down",
             tripped_at * BLOCK / RATE);
    es_test_check(tripped_at * BLOCK > ES_RUNAWAY_OVER_S * RATE &&
                      tripped_at * BLOCK <= ES_RUNAWAY_OVER_S * RATE + 2 * BLOCK && ramped,
                  line);

    bench render;
    if (!start(&render, 1))
        return;
    rt_window_open();
    block_of(&render, 3.0f);
    unwatched = !render.st.runaways && render.y0[0] == 3.0f && render.clipped == 2 * BLOCK;
    rt_window_shut("a render's output guard");
    es_test_check(unwatched, "a render is never watched for a runaway");
    es_output_guard_free(&render.og);
}

static void limiter(bench *b)
{
    const es_mix on = {.wet = 1, .gain = 1, .limiter = 1, .ceiling_db = -6.0f};
    const float ceiling = (float)es_db_to_gain(-6.0);
    int held = 1, blocks = 0, opaque;
    rt_window_open();
    es_output_guard_unmute(&b->og); /* after the runaway */
    es_output_guard_level(&b->og, &on);
    opaque = !es_output_guard_transparent(&b->og);
    for (int k = 0; k < 20; k++) {
        block_of(b, k % 2 ? 1.0f : -0.9f);
        for (int t = 0; t < BLOCK; t++)
            held &= fabsf(b->y0[t]) <= ceiling;
    }
    es_output_guard_level(&b->og, &(es_mix){.wet = 1, .gain = 1});
    while (!es_output_guard_transparent(&b->og) && blocks < 1000)
        blocks++, block_of(b, 0.1f);
    rt_window_shut("the output guard's limiter");
    es_test_check(opaque && held && b->limited > 0,
                  "the limiter holds every sample at -6 dBFS, counted");
    char line[200];
    snprintf(line, sizeof line, "transparent again %.2f s after the limiter let go",
             blocks * BLOCK / RATE);
    es_test_check(blocks > 0 && blocks < 1000, line);
}

int main(void)
{
    static bench b;
    if (!start(&b, 0))
        return 1;
    transparent_and_scan(&b);
    mutes(&b);
    runaways(&b);
    limiter(&b);
    es_output_guard_free(&b.og);
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
