/* The channel layouts es_ir_from_channels builds from an IR file's channels,
 * and the IR checks every engine relies on. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

static int failures;

#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("FAIL line %d: ", __LINE__);            \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
            failures++;                                    \
        }                                                  \
    } while (0)

/* File channel c holds the value c + 1 in every sample, so a path's first
 * tap says which file channel(s) it came from. */
static float data[6][4];
static const float *chan[6];

static float tap(const es_ir *ir, int i, int o)
{
    const float *h = ir->taps[i * ir->outputs + o];
    return h ? h[0] : 0.0f;
}

static es_ir *layout(int file_channels, int inputs, char *err)
{
    return es_ir_from_channels(chan, file_channels, 4, 48000, inputs, err, 256);
}

static void fill_channels(void)
{
    for (int c = 0; c < 6; c++) {
        for (int t = 0; t < 4; t++)
            data[c][t] = (float)(c + 1);
        chan[c] = data[c];
    }
}

/* What each count of file channels becomes, for one and two inputs. */
static void channel_layouts(void)
{
    char err[256];
    es_ir *ir;

    ir = layout(1, 2, err); /* mono IR, stereo in: both inputs through it */
    EXPECT(ir && ir->inputs == 2 && ir->outputs == 2, "mono IR, 2 in");
    EXPECT(tap(ir, 0, 0) == 1 && tap(ir, 1, 1) == 1 && !ir->taps[1] && !ir->taps[2],
           "mono IR is diagonal");
    es_ir_destroy(ir);

    ir = layout(2, 1, err); /* stereo IR, mono in: L and R */
    EXPECT(ir && ir->inputs == 1 && ir->outputs == 2 && tap(ir, 0, 0) == 1 &&
           tap(ir, 0, 1) == 2, "stereo IR, mono in -> L/R");
    es_ir_destroy(ir);

    ir = layout(2, 2, err); /* stereo IR, stereo in: L*h0, R*h1 */
    EXPECT(ir && ir->outputs == 2 && tap(ir, 0, 0) == 1 && tap(ir, 1, 1) == 2 &&
           es_ir_path_count(ir) == 2, "stereo IR, stereo in");
    es_ir_destroy(ir);

    ir = layout(4, 2, err); /* true stereo: LL, LR, RL, RR */
    EXPECT(ir && ir->outputs == 2 && tap(ir, 0, 0) == 1 && tap(ir, 0, 1) == 2 &&
           tap(ir, 1, 0) == 3 && tap(ir, 1, 1) == 4, "true stereo order");
    es_ir_destroy(ir);

    ir = layout(4, 1, err); /* true stereo, mono in: both sides summed */
    EXPECT(ir && ir->outputs == 2 && tap(ir, 0, 0) == 1 + 3 && tap(ir, 0, 1) == 2 + 4,
           "true stereo, mono in");
    es_ir_destroy(ir);

    ir = layout(6, 2, err); /* 2 x 3 matrix */
    EXPECT(ir && ir->inputs == 2 && ir->outputs == 3 && tap(ir, 1, 2) == 6 &&
           tap(ir, 0, 1) == 2, "2x3 matrix");
    es_ir_destroy(ir);

    ir = layout(3, 2, err);
    EXPECT(!ir && strstr(err, "3-channel"), "3 channels for 2 inputs is refused: %s", err);
}

/* es_ir_check: empty, NaN, Inf, no path. */
static void ir_check_names_bad_samples(void)
{
    char err[256];
    es_ir *ir = es_ir_create(1, 1, 0, 48000);
    EXPECT(es_ir_check(ir, err, sizeof err) == -1 && strstr(err, "empty"), "empty");
    es_ir_destroy(ir);
    ir = es_ir_create(1, 1, 8, 48000);
    EXPECT(es_ir_check(ir, err, sizeof err) == -1 && strstr(err, "no path"), "no path");
    es_ir_path(ir, 0, 0)[5] = NAN;
    EXPECT(es_ir_check(ir, err, sizeof err) == -1 &&
           strstr(err, "NaN sample at frame 5"), "NaN: %s", err);
    ir->taps[0][5] = INFINITY;
    EXPECT(es_ir_check(ir, err, sizeof err) == -1 && strstr(err, "infinite"), "Inf: %s", err);
    ir->taps[0][5] = 0.5f;
    EXPECT(es_ir_check(ir, err, sizeof err) == 0, "a good IR passes: %s", err);
    es_ir_destroy(ir);
}

/* A matrix large enough to be searched by several threads (8 x 8 of
 * 600,000 taps: 38 M samples, 2 or more shares): the bad sample named is
 * the first in row order, wherever each thread's share begins. */
static void threaded_check_names_first_bad(void)
{
    char err[256];
    es_ir *big = es_ir_create(8, 8, 600000, 48000);
    int made = 1;
    for (int i = 0; i < 8; i++)
        for (int o = 0; o < 8; o++)
            made &= es_ir_path(big, i, o) != NULL;
    EXPECT(made, "a 154 MB matrix for the threaded search");
    if (made) {
        EXPECT(es_ir_check(big, err, sizeof err) == 0, "a large good matrix passes: %s",
               err);
        es_ir_path(big, 6, 3)[7] = NAN; /* in the last share */
        EXPECT(es_ir_check(big, err, sizeof err) == -1 &&
                   strstr(err, "NaN sample at frame 7 (input 7 -> output 4)"),
               "a NaN in the last share: %s", err);
        es_ir_path(big, 1, 2)[599999] = -INFINITY; /* an earlier row, its last frame */
        EXPECT(es_ir_check(big, err, sizeof err) == -1 &&
                   strstr(err, "infinite sample at frame 599999 (input 2 -> output 3)"),
               "the first bad sample in row order: %s", err);
    }
    es_ir_destroy(big);
}

/* es_engine_create refuses what does not fit before any engine sees it. */
static void create_refuses_misfits(void)
{
    char err[256];
    es_ir *ir = es_ir_create(1, 1, 8, 48000); /* one good path: 1 in x 1 out */
    es_ir_path(ir, 0, 0)[5] = 0.5f;
    es_format fmt = {.sample_rate = 48000, .max_block = 0, .inputs = 1, .outputs = 1};
    es_engine *e = es_engine_create(es_engines[0], &fmt, ir, NULL, err, sizeof err);
    EXPECT(!e && strstr(err, "block size 0"), "block 0: %s", err);
    fmt.max_block = 64;
    fmt.outputs = 2;
    e = es_engine_create(es_engines[0], &fmt, ir, NULL, err, sizeof err);
    EXPECT(!e && strstr(err, "1 in x 1 out"), "channel mismatch: %s", err);
    es_ir_destroy(ir);
}

int main(void)
{
    fill_channels();
    channel_layouts();
    ir_check_names_bad_samples();
    threaded_check_names_first_bad();
    create_refuses_misfits();
    printf("layouts: %d failed\n", failures);
    return failures ? 1 : 0;
}
