/* The session's taps (taps.h). The dry and wet takes must hold the same
 * blocks, sample for sample. So the callback reads the recorders once a
 * callback, through one atomic pointer, in the input tap (which the player
 * calls first) and records that callback's output to the same ones; two
 * pointers read apart could see a take start or stop between the input and
 * the output, one block apart. The control side, after taking the pointer
 * away, waits until the callback is out of its block before changing or
 * finishing a take: a flag the callback raises from the input tap to the
 * end of the output tap, read after the pointer is cleared (sequentially
 * consistent, so either the callback saw NULL or the control side sees the
 * flag). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "taps.h"

#define DROP_SAY_SECONDS 1.0 /* lost frames are said at most this often */

static void sayf(es_taps *t, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void sayf(es_taps *t, int problem, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (t->say)
        t->say(t->say_ctx, problem, line);
}

void es_taps_init(es_taps *t, double rate, es_taps_say say, void *ctx)
{
    memset(t, 0, sizeof *t);
    es_scope_init(&t->scope);
    atomic_init(&t->taps, NULL);
    atomic_init(&t->in_block, 0);
    t->rate = rate;
    t->say = say;
    t->say_ctx = ctx;
}

ES_RT void es_taps_input(void *ctx, const float *const *in, int channels, int frames)
{
    es_taps *t = ctx;
    es_scope_write(&t->scope, ES_SCOPE_DRY, in, channels, frames);
    atomic_store(&t->in_block, 1);
    t->block_taps = atomic_load(&t->taps);
    if (t->block_taps && t->block_taps[ES_TAP_INPUT])
        es_recorder_tap(t->block_taps[ES_TAP_INPUT], in, channels, frames);
}

ES_RT void es_taps_output(void *ctx, const float *const *out, int channels, int frames)
{
    es_taps *t = ctx;
    es_scope_write(&t->scope, ES_SCOPE_WET, out, channels, frames);
    if (t->block_taps && t->block_taps[ES_TAP_OUTPUT])
        es_recorder_tap(t->block_taps[ES_TAP_OUTPUT], out, channels, frames);
    t->block_taps = NULL;
    atomic_store(&t->in_block, 0);
}

/* Takes the recorders off the audio path: once this returns, no callback
 * is using them, and none will until resume. A stalled stream's callback
 * may never leave its block: after a second the take is finished anyway
 * (that callback, stuck in the engine, is not writing to it). */
static void taps_pause(es_taps *t, int stalled)
{
    atomic_store(&t->taps, NULL);
    const struct timespec nap = {0, 200000};
    for (int k = 0; atomic_load(&t->in_block) && !(stalled && k > 5000); k++)
        nanosleep(&nap, NULL);
}

/* Puts `live` back on the audio path, when it records anything. */
static void taps_resume(es_taps *t)
{
    if (t->live[ES_TAP_OUTPUT] || t->live[ES_TAP_INPUT])
        atomic_store(&t->taps, (es_recorder *const *)t->live);
}

/* Finishes a take that is off the audio path already. */
static int finish(es_taps *t, int which)
{
    es_recorder *r = t->recorder[which];
    char err[768];
    if (es_recorder_finish(r, err, sizeof err) != 0) {
        if (!(t->failure_said & (1 << which))) /* else said once, when it happened */
            sayf(t, 1, "%s", err);
        return -1;
    }
    const unsigned long long lost = es_recorder_dropped(r);
    const unsigned long long written = es_recorder_written(r);
    if (lost)
        sayf(t, 1, "recorded %llu frames to %s (%llu lost to a full ring)", written,
             t->path[which], lost);
    else
        sayf(t, 0, "recorded %llu frames to %s", written, t->path[which]);
    return 0;
}

int es_taps_finish(es_taps *t, int which, int stalled)
{
    int was[2] = {0, 0}, any = 0;
    for (int w = 0; w < 2; w++) {
        was[w] = t->live[w] && (which == ES_TAPS_BOTH || which == w);
        any |= was[w];
    }
    if (!any)
        return 0; /* none, or finished already */
    /* Off the audio path at once, so both end on the same block; the other
     * take, if any, goes on without a gap. */
    taps_pause(t, stalled);
    for (int w = 0; w < 2; w++)
        if (was[w])
            t->live[w] = NULL;
    taps_resume(t);
    int rc = 0;
    for (int w = 0; w < 2; w++)
        rc |= was[w] ? finish(t, w) : 0;
    return rc;
}

int es_taps_start(es_taps *t, const char *const paths[2], const int channels[2],
                  int exclusive, char *err, size_t n)
{
    es_recorder *next[2] = {NULL, NULL};
    for (int w = 0; w < 2; w++)
        if (paths[w] && !(next[w] = es_recorder_open(paths[w], t->rate, channels[w], exclusive,
                                                     0, err, n))) {
            es_recorder_free(next[ES_TAP_OUTPUT]);
            return -1;
        }
    for (int w = 0; w < 2; w++) {
        es_recorder_free(t->recorder[w]); /* the last take, finished already */
        t->recorder[w] = next[w];
        snprintf(t->path[w], sizeof t->path[w], "%s", paths[w] ? paths[w] : "");
    }
    t->dropped_said = 0;
    t->failure_said = 0;
    /* Both start on the same callback: one pointer says both. Nothing is
     * recording here, so `taps` is NULL and no callback holds `live`. */
    taps_pause(t, 0);
    t->live[ES_TAP_OUTPUT] = next[ES_TAP_OUTPUT];
    t->live[ES_TAP_INPUT] = next[ES_TAP_INPUT];
    taps_resume(t);
    return 0;
}

void es_taps_close(es_taps *t)
{
    es_taps_finish(t, ES_TAPS_BOTH, 1);
    for (int w = 0; w < 2; w++) {
        es_recorder_free(t->recorder[w]);
        t->recorder[w] = NULL;
    }
}

const char *es_taps_recording(const es_taps *t)
{
    for (int w = 0; w < 2; w++)
        if (t->live[w])
            return t->path[w];
    return NULL;
}

uint64_t es_taps_recorded_frames(const es_taps *t)
{
    return t->recorder[ES_TAP_OUTPUT] ? es_recorder_written(t->recorder[ES_TAP_OUTPUT]) : 0;
}

uint64_t es_taps_dropped(const es_taps *t)
{
    uint64_t lost = 0;
    for (int w = 0; w < 2; w++)
        lost += t->recorder[w] ? es_recorder_dropped(t->recorder[w]) : 0;
    return lost;
}

const char *es_taps_failed(const es_taps *t)
{
    for (int w = 0; w < 2; w++) {
        const int code = t->live[w] ? es_recorder_failed(t->live[w], NULL, 0) : 0;
        if (code)
            return code == ENOSPC || code == EDQUOT ? "disk full"
                   : code == EFBIG                  ? "file too large"
                                                    : "write error";
    }
    return NULL;
}

void es_taps_watch(es_taps *t)
{
    if (!es_taps_recording(t))
        return;
    /* A write error is said at once, whole, and once: the take goes on
     * holding what it has until it is stopped. */
    for (int w = 0; w < 2; w++) {
        char why[600];
        if (!(t->failure_said & (1 << w)) && t->live[w] &&
            es_recorder_failed(t->live[w], why, sizeof why)) {
            t->failure_said |= 1 << w;
            sayf(t, 1, "recording FAILED: %s; the first %.1f s are kept in %s", why,
                 (double)es_recorder_written(t->live[w]) / t->rate, t->path[w]);
        }
    }
    const uint64_t lost = es_taps_dropped(t);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (lost > t->dropped_said &&
        (t->dropped_said == 0 || es_seconds_between(&t->dropped_when, &now) > DROP_SAY_SECONDS)) {
        sayf(t, 1, "recording: %llu frames lost so far, the ring overflowed (the disk is too "
             "slow)", (unsigned long long)lost);
        t->dropped_said = lost;
        t->dropped_when = now;
    }
}
