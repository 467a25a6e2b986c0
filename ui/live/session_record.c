/* The session's taps on the audio path: every block, dry and wet, goes to
 * the scope (the spectrum view) and, while recording, to the recorders'
 * rings. Recording starts and stops while the stream plays; the dry and
 * wet takes must hold the same blocks, sample for sample. So the callback
 * reads the recorders once a callback, through one atomic pointer, in the
 * input tap (which the player calls first) and records that callback's
 * output to the same ones; two pointers read apart could see a take start
 * or stop between the input and the output, one block apart. The control
 * side, after taking the pointer away, waits until the callback is out of
 * its block before changing or finishing a take: a flag the callback
 * raises from the input tap to the end of the output tap, read after the
 * pointer is cleared (sequentially consistent, so either the callback saw
 * NULL or the control side sees the flag). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/files.h"
#include "session_private.h"

#define DROP_SAY_SECONDS 1.0 /* lost frames are said at most this often */

void es_session_taps_init(es_session *s)
{
    es_scope_init(&s->scope);
    atomic_init(&s->taps, NULL);
    atomic_init(&s->in_block, 0);
}

ES_RT void es_session_input_tap(void *ctx, const float *const *in, int channels, int frames)
{
    es_session *s = ctx;
    es_scope_write(&s->scope, ES_SCOPE_DRY, in, channels, frames);
    atomic_store(&s->in_block, 1);
    s->block_taps = atomic_load(&s->taps);
    if (s->block_taps && s->block_taps[REC_INPUT])
        es_recorder_tap(s->block_taps[REC_INPUT], in, channels, frames);
}

ES_RT void es_session_output_tap(void *ctx, const float *const *out, int channels, int frames)
{
    es_session *s = ctx;
    es_scope_write(&s->scope, ES_SCOPE_WET, out, channels, frames);
    if (s->block_taps && s->block_taps[REC_OUTPUT])
        es_recorder_tap(s->block_taps[REC_OUTPUT], out, channels, frames);
    s->block_taps = NULL;
    atomic_store(&s->in_block, 0);
}

/* Takes the recorders off the audio path: once this returns, no callback
 * is using them, and none will until taps_resume. */
static void taps_pause(es_session *s)
{
    atomic_store(&s->taps, NULL);
    const struct timespec nap = {0, 200000};
    /* A stalled stream's callback may never leave its block: after a
     * second the take is finished anyway (that callback, stuck in the
     * engine, is not writing to it). */
    for (int k = 0; atomic_load(&s->in_block) && !(s->stalled && k > 5000); k++)
        nanosleep(&nap, NULL);
}

/* Puts `live` back on the audio path, when it records anything. */
static void taps_resume(es_session *s)
{
    if (s->live[REC_OUTPUT] || s->live[REC_INPUT])
        atomic_store(&s->taps, (es_recorder *const *)s->live);
}

/* Finishes a take that is off the audio path already. */
static int finish(es_session *s, int which)
{
    es_recorder *r = s->recorder[which];
    char err[768];
    if (es_recorder_finish(r, err, sizeof err) != 0) {
        if (!(s->failure_said & (1 << which))) /* else said once, when it happened */
            es_session_sayf(s, 1, "%s", err);
        return -1;
    }
    const unsigned long long lost = es_recorder_dropped(r);
    const unsigned long long written = es_recorder_written(r);
    if (lost)
        es_session_sayf(s, 1, "recorded %llu frames to %s (%llu lost to a full ring)",
                        written, s->record_path[which], lost);
    else
        es_session_sayf(s, 0, "recorded %llu frames to %s", written, s->record_path[which]);
    return 0;
}

int es_session_finish_recording(es_session *s, int which)
{
    if (!s->live[which])
        return 0; /* none, or finished already */
    taps_pause(s);
    s->live[which] = NULL;
    taps_resume(s); /* the other take, if any, goes on without a gap */
    return finish(s, which);
}

int es_session_record_overwrites_input(const es_session *s, const char *path, char *err,
                                       size_t n)
{
    /* The input file and the room's IR, by device and inode: a take
     * replaces its file when it starts, and these are what plays. */
    const char *inputs[] = {s->cfg.file, s->room};
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++)
        if (inputs[k] && inputs[k][0] && es_same_file(path, inputs[k])) {
            snprintf(err, n, "%.300s: the recording would overwrite %.300s", path, inputs[k]);
            return 1;
        }
    return 0;
}

int es_session_record(es_session *s, const char *path, const char *input_path, int exclusive)
{
    if (es_session_recording(s)) {
        /* Both off the audio path at once, so both end on the same block. */
        taps_pause(s);
        int rc = 0, was[2];
        for (int w = 0; w < 2; w++) {
            was[w] = s->live[w] != NULL;
            s->live[w] = NULL;
        }
        for (int w = 0; w < 2; w++)
            rc |= was[w] ? finish(s, w) : 0;
        return rc;
    }
    if (!path) {
        es_session_sayf(s, 1, "record: no file name given");
        return -1;
    }
    es_recorder *next[2] = {NULL, NULL};
    const char *paths[2] = {path, input_path};
    const int channels[2] = {es_processor_format(es_player_processor(s->player))->outputs,
                             s->inputs};
    char err[768];
    for (int w = 0; w < 2; w++) {
        if (paths[w] && es_session_record_overwrites_input(s, paths[w], err, sizeof err)) {
            es_session_sayf(s, 1, "record: %s", err);
            es_recorder_free(next[0]);
            return -1;
        }
        if (paths[w] && !(next[w] = es_recorder_open(paths[w], s->cfg.rate, channels[w],
                                                     exclusive, 0, err, sizeof err))) {
            es_session_sayf(s, 1, "record: %s", err);
            es_recorder_free(next[0]);
            return -1;
        }
    }
    for (int w = 0; w < 2; w++) {
        es_recorder_free(s->recorder[w]); /* the last take, finished already */
        s->recorder[w] = next[w];
        snprintf(s->record_path[w], sizeof s->record_path[w], "%s", paths[w] ? paths[w] : "");
    }
    s->dropped_said = 0;
    s->failure_said = 0;
    /* Both start on the same callback: one pointer says both. Nothing is
     * recording here, so `taps` is NULL and no callback holds `live`. */
    taps_pause(s);
    s->live[REC_OUTPUT] = next[REC_OUTPUT];
    s->live[REC_INPUT] = next[REC_INPUT];
    taps_resume(s);
    es_session_sayf(s, 0, "recording to %s%s%s", path, input_path ? " and " : "",
                    input_path ? input_path : "");
    return 0;
}

const char *es_session_recording(const es_session *s)
{
    for (int w = 0; w < 2; w++)
        if (s->live[w])
            return s->record_path[w];
    return NULL;
}

uint64_t es_session_recorded_frames(const es_session *s)
{
    return s->recorder[REC_OUTPUT] ? es_recorder_written(s->recorder[REC_OUTPUT]) : 0;
}

uint64_t es_session_record_dropped(const es_session *s)
{
    uint64_t lost = 0;
    for (int w = 0; w < 2; w++)
        lost += s->recorder[w] ? es_recorder_dropped(s->recorder[w]) : 0;
    return lost;
}

const char *es_session_record_failed(const es_session *s)
{
    for (int w = 0; w < 2; w++) {
        const int code = s->live[w] ? es_recorder_failed(s->live[w], NULL, 0) : 0;
        if (code)
            return code == ENOSPC || code == EDQUOT ? "disk full"
                   : code == EFBIG                  ? "file too large"
                                                    : "write error";
    }
    return NULL;
}

void es_session_watch_recording(es_session *s)
{
    if (!es_session_recording(s))
        return;
    /* A write error is said at once, whole, and once: the take goes on
     * holding what it has until it is stopped. */
    for (int w = 0; w < 2; w++) {
        char why[600];
        if (!(s->failure_said & (1 << w)) && s->live[w] &&
            es_recorder_failed(s->live[w], why, sizeof why)) {
            s->failure_said |= 1 << w;
            es_session_sayf(s, 1, "recording FAILED: %s; the first %.1f s are kept in %s",
                            why, (double)es_recorder_written(s->live[w]) / s->cfg.rate,
                            s->record_path[w]);
        }
    }
    const uint64_t lost = es_session_record_dropped(s);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (lost > s->dropped_said &&
        (s->dropped_said == 0 || es_seconds_between(&s->dropped_when, &now) > DROP_SAY_SECONDS)) {
        es_session_sayf(s, 1, "recording: %llu frames lost so far, the ring overflowed (the "
                        "disk is too slow)", (unsigned long long)lost);
        s->dropped_said = lost;
        s->dropped_when = now;
    }
}
