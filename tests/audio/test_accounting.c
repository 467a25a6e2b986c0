/* The processor's accounting alone (audio/processor_accounting.c):
 *   - what describes the stream (engine, latency, channels, the A/B slot
 *     playing) is published as it starts, and stays through a reset,
 *     which zeroes every count;
 *   - blocks and frames counted; a block counts in its A/B slot, one of
 *     two engines (-1) in none; live blocks measure levels and the slot's
 *     energies, a render's do not;
 *   - a late block busy on the CPU is a miss, one asleep a stall, and one
 *     while the host freewheels neither;
 *   - the seqlock: a reader taking copies while the audio thread publishes
 *     50,000 times never sees a torn one (every field from one publish),
 *     and sees them in order;
 * the audio thread's steps counted for allocation, locks and waits. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "processor_stages.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 64
#define PUBLISHES 50000

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                              .outputs = 2};

static float in0[BLOCK], out0[BLOCK], out1[BLOCK];

/* One block of `frames` counted for A/B slot ab, `spend` in between. */
static void block(es_accounting *a, int frames, int ab, int freewheel, void (*spend)(void))
{
    const float *const in[1] = {in0};
    const float *const out[2] = {out0, out1};
    es_accounting_begin(a);
    if (spend)
        spend();
    const es_block_done done = {.in = in, .out = out, .frames = frames, .ab = ab,
                                .freewheel = freewheel, .clipped = 1};
    es_accounting_count(a, &done);
    es_accounting_publish(a);
}

static void busy(void)
{
    const long long until = es_now_ns() + 2000000;
    while (es_now_ns() < until)
        ;
}

static void asleep(void)
{
    const struct timespec ms5 = {0, 5000000};
    nanosleep(&ms5, NULL);
}

static void counts(void)
{
    es_accounting a = {0}, render = {0};
    es_stats st, first;
    es_accounting_init(&a, &fmt, 480, 0, "cpu-test", 1);
    es_accounting_init(&render, &fmt, 480, 1, "cpu-test", 0);
    es_accounting_read(&a, &first);
    for (int t = 0; t < BLOCK; t++)
        in0[t] = 0.5f, out0[t] = out1[t] = 0.25f;

    rt_window_open();
    for (int k = 0; k < 6; k++)
        block(&a, BLOCK, k < 3 ? 1 : k < 5 ? 0 : -1, 0, NULL);
    block(&render, BLOCK, 0, 0, NULL);
    rt_window_shut("accounting's blocks");

    es_accounting_read(&a, &st);
    es_test_check(first.latency == 480 && first.inputs == 1 && first.outputs == 2 &&
                      strcmp(first.engine, "cpu-test") == 0 && first.ab_playing == 1,
                  "what describes the stream is published as it starts");
    es_test_check(st.blocks == 6 && st.frames == 6 * BLOCK && st.clipped == 6 &&
                      st.ab[1].blocks == 3 && st.ab[0].blocks == 2 && st.ab[1].in_energy > 0,
                  "6 blocks: 3 in slot 1, 2 in slot 0, one of two engines in none");
    es_test_check(st.in_peak[0] == 0.5f && st.out_peak[1] == 0.25f && st.out_rms[0] > 0,
                  "live blocks measure levels");
    es_accounting_read(&render, &st);
    es_test_check(st.blocks == 1 && st.in_peak[0] == 0.0f && st.ab[0].blocks == 1 &&
                      st.ab[0].in_energy == 0.0,
                  "a render's blocks measure no levels");

    /* Late blocks (sleeping is counted as a wait: off the count). */
    es_stats before;
    es_accounting_read(&a, &before);
    block(&a, 4, 0, 0, busy);
    block(&a, 4, 0, 0, asleep);
    block(&a, 4, 0, 1, asleep);
    es_accounting_read(&a, &st);
    const uint64_t misses = st.misses - before.misses, stalls = st.stalls - before.stalls;
    char line[200];
    snprintf(line, sizeof line, "late blocks: busy a miss, asleep a stall, freewheeling "
             "neither (%llu misses, %llu stalls, %llu freewheeling)",
             (unsigned long long)misses, (unsigned long long)stalls,
             (unsigned long long)st.freewheel_blocks);
    es_test_check(misses == 1 && stalls == 1 && st.freewheel_blocks == 1, line);

    rt_window_open();
    es_accounting_reset(&a);
    es_accounting_publish(&a);
    rt_window_shut("accounting's reset");
    es_accounting_read(&a, &st);
    es_test_check(st.blocks == 0 && st.misses == 0 && st.ab[1].blocks == 0 &&
                      st.latency == 480 && st.outputs == 2 && strcmp(st.engine, "cpu-test") == 0,
                  "a reset zeroes every count, keeps what describes the stream");
}

/* ---- the seqlock ---- */

typedef struct {
    es_accounting a;
    atomic_int done;
} shared_bench;

/* The audio thread: every field of a publish from one number. */
static void *publisher(void *arg)
{
    shared_bench *s = arg;
    rt_window_open();
    for (uint64_t k = 1; k <= PUBLISHES; k++) {
        es_stats *now = &s->a.now;
        now->blocks = k;
        now->frames = k * BLOCK;
        now->clipped = 3 * k;
        for (int b = 0; b < ES_LOAD_RECENT; b++)
            now->load_recent[b] = (float)k;
        es_accounting_publish(&s->a);
    }
    rt_window_shut("accounting's publishes");
    atomic_store(&s->done, 1);
    return NULL;
}

/* 1 when every field came from the same publish. */
static int whole(const es_stats *st)
{
    int same = st->frames == st->blocks * BLOCK && st->clipped == 3 * st->blocks;
    for (int b = 0; b < ES_LOAD_RECENT; b++)
        same &= st->load_recent[b] == (float)st->blocks;
    return same;
}

static void seqlock(void)
{
    static shared_bench s;
    es_accounting_init(&s.a, &fmt, 0, 0, "cpu-test", 0);
    pthread_t t;
    pthread_create(&t, NULL, publisher, &s);
    static es_stats st;
    long reads = 0, torn = 0, backwards = 0;
    uint64_t last = 0;
    while (!atomic_load(&s.done)) {
        es_accounting_read(&s.a, &st);
        reads++;
        torn += !whole(&st);
        backwards += st.blocks < last;
        last = st.blocks;
    }
    pthread_join(t, NULL);
    es_accounting_read(&s.a, &st);
    char line[200];
    snprintf(line, sizeof line, "the seqlock: %ld copies taken during %d publishes, none torn, "
             "in order", reads, PUBLISHES);
    es_test_check(torn == 0 && backwards == 0 && st.blocks == PUBLISHES && whole(&st), line);
}

int main(void)
{
    counts();
    seqlock();
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
