/* A measurement through the device (exchange.h), as the audio thread
 * drives it, block by block:
 *   - the signal comes out of the outputs asked for, from the first block
 *     after the start, and every other output is silent; every input is
 *     recorded frame for frame against it (an input the device lacks as
 *     silence), the last block cut where the signal ends;
 *   - done, the outputs are left alone again (the processor's), and a
 *     second start is refused until finish;
 *   - an abort in the middle leaves the outputs alone from the next block
 *     on and keeps no recording;
 *   - an audio thread playing blocks while the control side starts and
 *     aborts 200 times: each ends DONE or ABORTED, never stuck;
 *   - in builds that count them, no allocation, free, lock or wait on the
 *     audio thread's side (es_exchange_block). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exchange.h"
#ifdef ES_COUNT_RT
#include "rt_counters.h"
#endif

#define BLOCK 64
#define FRAMES 1000 /* not a multiple of the block: the last block is cut */

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* One block: inputs 0 and 1 ramp with the frame count (input 1 negated),
 * the outputs start as the processor's (0.5) before the exchange. */
static int block(es_exchange *x, long at, float out[3][BLOCK], int inputs)
{
    float a[BLOCK], b[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
        a[i] = (float)(at + i);
        b[i] = -(float)(at + i);
    }
    const float *in[2] = {a, b};
    float *o[3] = {out[0], out[1], out[2]};
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < BLOCK; i++)
            out[c][i] = 0.5f;
    return es_exchange_block(x, in, inputs, o, 3, BLOCK);
}

static void whole(void)
{
    es_exchange *x = es_exchange_create();
    float play[FRAMES];
    for (int i = 0; i < FRAMES; i++)
        play[i] = (float)(i + 1);
    char err[128];
    /* Outputs 0 and 2 play; 3 inputs asked of a device with 2. */
    check(es_exchange_start(x, play, FRAMES, 0x5, 3, err, sizeof err) == 0, "started");
    check(es_exchange_start(x, play, FRAMES, 0x5, 3, err, sizeof err) != 0 &&
              strstr(err, "under way"), "a second start while one runs: refused");
    float out[3][BLOCK];
    int good_out = 1, blocks = 0;
    long at = 0;
#ifdef ES_COUNT_RT
    es_rt_count_begin();
#endif
    while (es_exchange_state_now(x) != ES_EXCHANGE_DONE && blocks < 100) {
        block(x, at, out, 2);
        for (int i = 0; i < BLOCK; i++) {
            const long f = at + i;
            const float want = f < FRAMES ? (float)(f + 1) : 0.0f;
            good_out &= out[0][i] == want && out[2][i] == want && out[1][i] == 0.0f;
        }
        at += BLOCK;
        blocks++;
    }
#ifdef ES_COUNT_RT
    const es_rt_counts rt = es_rt_count_end();
    check(rt.allocs == 0 && rt.frees == 0 && rt.locks == 0 && rt.waits == 0,
          "the audio thread's side: no allocation, free, lock or wait");
#endif
    check(blocks == (FRAMES + BLOCK - 1) / BLOCK, "done after the blocks the signal needs");
    check(good_out, "outputs 1 and 3 play the signal, cut at its end; output 2 silent");
    const float *r0 = es_exchange_recording(x, 0), *r1 = es_exchange_recording(x, 1),
                *r2 = es_exchange_recording(x, 2);
    int good_in = r0 && r1 && r2;
    for (int i = 0; good_in && i < FRAMES; i++)
        good_in = r0[i] == (float)i && r1[i] == -(float)i && r2[i] == 0.0f;
    check(good_in, "inputs recorded frame for frame from the first block; the missing one silent");
    check(es_exchange_position(x) == FRAMES, "its position: every frame");
    check(block(x, at, out, 2) == 0 && out[0][0] == 0.5f, "done: the outputs are left alone");
    es_exchange_finish(x);
    check(es_exchange_state_now(x) == ES_EXCHANGE_IDLE && !es_exchange_recording(x, 0),
          "finished: idle again");

    check(es_exchange_start(x, play, FRAMES, 0x1, 1, err, sizeof err) == 0, "started again");
    block(x, 0, out, 2);
    block(x, BLOCK, out, 2);
    es_exchange_abort(x);
    check(es_exchange_state_now(x) == ES_EXCHANGE_ABORTED && !es_exchange_recording(x, 0),
          "aborted after two blocks: no recording");
    check(block(x, 2 * BLOCK, out, 2) == 0 && out[0][0] == 0.5f,
          "aborted: the outputs are left alone from the next block");
    es_exchange_finish(x);
    es_exchange_destroy(x);
}

/* An audio thread that never stops, and a control side that starts and
 * aborts (or lets finish) over and over. */
static atomic_int running = 1;

static void *audio(void *arg)
{
    es_exchange *x = arg;
    float out[3][BLOCK];
    long at = 0;
    while (atomic_load(&running)) {
        block(x, at, out, 2);
        at += BLOCK;
    }
    return NULL;
}

static void races(void)
{
    es_exchange *x = es_exchange_create();
    pthread_t t;
    pthread_create(&t, NULL, audio, x);
    float play[256] = {1};
    char err[128];
    int stuck = 0;
    const struct timespec tick = {0, 100000};
    for (int k = 0; k < 200; k++) {
        if (es_exchange_start(x, play, 256, 1, 2, err, sizeof err) != 0) {
            stuck++;
            break;
        }
        if (k % 2)
            es_exchange_abort(x);
        int waited = 0;
        while (es_exchange_state_now(x) != ES_EXCHANGE_DONE &&
               es_exchange_state_now(x) != ES_EXCHANGE_ABORTED && waited++ < 20000)
            nanosleep(&tick, NULL);
        stuck += waited >= 20000;
        es_exchange_finish(x);
    }
    atomic_store(&running, 0);
    pthread_join(t, NULL);
    check(stuck == 0, "200 starts against a running audio thread, half aborted: none stuck");
    es_exchange_destroy(x);
}

int main(void)
{
    whole();
    races();
    printf(failures ? "%d FAILED\n" : "all passed\n", failures);
    return failures != 0;
}
