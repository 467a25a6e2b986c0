/* The session's taps (live/taps.h) are on the audio path: the scope
 * and, while recording, the recorders. A thread plays the callback's part,
 * calling the taps block after block, while the control side starts and
 * stops 40 recordings. Checks:
 *   - the tapping thread allocates, frees, locks, sleeps and writes
 *     nothing (counted; not in sanitizer builds, whose allocator is their
 *     own; there ASan checks instead that no tap touches a finished take);
 *   - every take holds whole blocks, in order: each frame carries its
 *     number, so a take is one unbroken run;
 *   - each take's dry and wet recordings hold the same number of frames
 *     (they start and stop on the same block);
 *   - the scope gives back the latest samples, mono-summed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audiofile.h"
#include "taps.h"
#ifdef ES_COUNT_RT
#include "rt_counters.h"
#endif

#define BLOCK 64
#define TAKES 40

static atomic_int stop;
static atomic_long frames_tapped;

static void quiet(void *ctx, int problem, const char *line)
{
    (void)ctx;
    if (problem)
        printf("     session: %s\n", line);
}

static void *callback_thread(void *arg)
{
    es_taps *taps = arg;
    float l[BLOCK], r[BLOCK], m[BLOCK];
    const float *out[2] = {l, r}, *in[1] = {m};
    long frame = 0;
#ifdef ES_COUNT_RT
    es_rt_count_begin();
#endif
    while (!atomic_load(&stop)) {
        for (int t = 0; t < BLOCK; t++) {
            l[t] = (float)(frame + t); /* each frame says which it was */
            r[t] = -(float)(frame + t);
            m[t] = 0.5f;
        }
        es_taps_input(taps, in, 1, BLOCK);
        es_taps_output(taps, out, 2, BLOCK);
        frame += BLOCK;
        atomic_store(&frames_tapped, frame);
        for (volatile int spin = 0; spin < 20000; spin++)
            ; /* about a block's worth of work; no sleeping on this thread */
    }
#ifdef ES_COUNT_RT
    const es_rt_counts seen = es_rt_count_end();
    es_rt_counts *c = malloc(sizeof *c); /* counting has stopped */
    *c = seen;
    return c;
#else
    return NULL;
#endif
}

/* The control side: TAKES recordings started and stopped while the thread
 * taps. 1 if one failed. */
static int record_takes(es_taps *taps, const char *dir)
{
    char err[1024];
    int fail = 0;
    const struct timespec nap = {0, 7000000};
    for (int k = 0; k < TAKES; k++) {
        char out[128], dry[128];
        snprintf(out, sizeof out, "%s/take%02d.wav", dir, k);
        snprintf(dry, sizeof dry, "%s/take%02d-dry.wav", dir, k);
        const char *paths[2] = {out, dry};
        const int channels[2] = {2, 1};
        if (es_taps_start(taps, paths, channels, 1, err, sizeof err) != 0) {
            printf("FAIL %s\n", err);
            fail = 1;
        }
        nanosleep(&nap, NULL);
        if (es_taps_finish(taps, ES_TAPS_BOTH, 0) != 0)
            fail = 1;
    }
    return fail;
}

/* What the tapping thread counted (its return value); 1 if it did any of
 * what the audio thread must not. */
static int tapping_thread_quiet(void *counts)
{
#ifdef ES_COUNT_RT
    es_rt_counts *c = counts;
    printf("%s tapping thread: %ld allocs, %ld frees, %ld locks, %ld waits over %ld frames\n",
           c->allocs || c->frees || c->locks || c->waits ? "FAIL" : "ok  ", c->allocs,
           c->frees, c->locks, c->waits, atomic_load(&frames_tapped));
    const int fail = c->allocs || c->frees || c->locks || c->waits;
    free(c);
    return fail;
#else
    (void)counts;
    printf("ok   (sanitizer build: allocation counting off) %ld frames tapped\n",
           atomic_load(&frames_tapped));
    return 0;
#endif
}

typedef struct {
    int broken, empty, unequal; /* takes */
    long total;                 /* frames */
} take_tally;

/* Take k into the tally: its breaks, and whether its dry take holds the
 * same blocks as the wet one. 1 if a file would not load. */
static int tally_take(const char *dir, int k, take_tally *t)
{
    char path[128], dry_path[128], err[1024];
    snprintf(path, sizeof path, "%s/take%02d.wav", dir, k);
    snprintf(dry_path, sizeof dry_path, "%s/take%02d-dry.wav", dir, k);
    float **ch = NULL, **dry = NULL;
    es_audio_info info, dry_info;
    if (es_audiofile_load(path, &ch, &info, err, sizeof err) != 0) {
        printf("FAIL %s\n", err);
        return 1;
    }
    int fail = 0;
    t->empty += info.frames == 0;
    if (es_audiofile_load(dry_path, &dry, &dry_info, err, sizeof err) != 0) {
        printf("FAIL %s\n", err);
        fail = 1;
    } else {
        t->unequal += dry_info.frames != info.frames;
        es_audiofile_free_channels(dry, dry_info.channels);
    }
    t->total += (long)info.frames;
    for (long f = 1; f < (long)info.frames; f++)
        if (ch[0][f] != ch[0][f - 1] + 1 || ch[1][f] != -ch[0][f])
            t->broken++;
    if (info.frames % BLOCK)
        t->broken++;
    es_audiofile_free_channels(ch, info.channels);
    return fail;
}

/* Each take: whole blocks, one unbroken run of frame numbers; its dry and
 * wet files the same length. 1 if not. */
static int takes_unbroken(const char *dir)
{
    take_tally t = {0};
    int fail = 0;
    for (int k = 0; k < TAKES; k++)
        fail |= tally_take(dir, k, &t);
    printf("%s %d takes, %ld frames in all, %d with a break, %d empty\n",
           t.broken ? "FAIL" : "ok  ", TAKES, t.total, t.broken, t.empty);
    fail |= t.broken > 0;
    printf("%s each take's dry and wet files are the same length (%d differ)\n",
           t.unequal ? "FAIL" : "ok  ", t.unequal);
    fail |= t.unequal > 0;
    return fail;
}

/* The scope: the output's mono sum of frame f is (f - f) / 2 = 0, the
 * input's is 0.5. 1 if not. */
static int scope_holds_latest(es_taps *taps)
{
    float latest[256];
    const int have = es_scope_read(&taps->scope, ES_SCOPE_DRY, latest, 256);
    int off = have != 256;
    for (int i = 0; i < 256; i++)
        off |= latest[i] != 0.5f;
    es_scope_read(&taps->scope, ES_SCOPE_WET, latest, 256);
    for (int i = 0; i < 256; i++)
        off |= latest[i] != 0.0f;
    printf("%s the scope holds the latest dry and wet samples\n", off ? "FAIL" : "ok  ");
    return off;
}

int main(void)
{
    char dir[] = "/tmp/es-taps-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    static es_taps taps;
    es_taps_init(&taps, 48000, quiet, NULL);
    /* The test thread plays the callback's part. */
    pthread_t th;
    pthread_create(&th, NULL, callback_thread, &taps);
    int fail = record_takes(&taps, dir);
    atomic_store(&stop, 1);
    void *counts;
    pthread_join(th, &counts);
    fail |= tapping_thread_quiet(counts);
    fail |= takes_unbroken(dir);
    fail |= scope_holds_latest(&taps);
    es_taps_close(&taps);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        printf("note: could not remove %s\n", dir);
    return fail;
}
