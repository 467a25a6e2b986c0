/* The session's taps on the audio path: every block, dry and wet, goes to
 * the scope (the spectrum view) and, while recording, to the recorders'
 * rings. Recording starts and stops while the stream plays, so the
 * callback reads each recorder through an atomic pointer, and the control
 * side, after taking one away, waits until the callback is not inside the
 * tap before finishing it: a flag the callback raises around its use, read
 * after the pointer is cleared (sequentially consistent, so either the
 * callback saw NULL or the control side sees the flag). */
#include <stdio.h>
#include <string.h>

#include "session_private.h"

#define DROP_SAY_SECONDS 1.0 /* lost frames are said at most this often */

void es_session_taps_init(es_session *s)
{
    es_scope_init(&s->scope);
    for (int w = 0; w < 2; w++) {
        atomic_init(&s->tap[w], NULL);
        atomic_init(&s->in_tap[w], 0);
    }
}

static ES_RT void tap(es_session *s, int which, const float *const *x, int channels,
                      int frames)
{
    es_scope_write(&s->scope, which == REC_OUTPUT ? ES_SCOPE_WET : ES_SCOPE_DRY, x, channels,
                   frames);
    atomic_store(&s->in_tap[which], 1);
    es_recorder *r = atomic_load(&s->tap[which]);
    if (r)
        es_recorder_tap(r, x, channels, frames);
    atomic_store(&s->in_tap[which], 0);
}

ES_RT void es_session_output_tap(void *ctx, const float *const *out, int channels, int frames)
{
    tap(ctx, REC_OUTPUT, out, channels, frames);
}

ES_RT void es_session_input_tap(void *ctx, const float *const *in, int channels, int frames)
{
    tap(ctx, REC_INPUT, in, channels, frames);
}

int es_session_finish_recording(es_session *s, int which)
{
    es_recorder *r = s->recorder[which];
    if (!r || !atomic_load(&s->tap[which]))
        return 0; /* none, or finished already */
    atomic_store(&s->tap[which], NULL);
    const struct timespec nap = {0, 200000};
    while (atomic_load(&s->in_tap[which]))
        nanosleep(&nap, NULL);
    char err[768];
    if (es_recorder_finish(r, err, sizeof err) != 0) {
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

int es_session_record(es_session *s, const char *path, const char *input_path)
{
    if (es_session_recording(s)) {
        int rc = 0;
        for (int w = 0; w < 2; w++)
            rc |= es_session_finish_recording(s, w);
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
        if (paths[w] && !(next[w] = es_recorder_open(paths[w], s->cfg.rate, channels[w], 0,
                                                     err, sizeof err))) {
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
    /* Both start on the same callback as nearly as two stores can. */
    atomic_store(&s->tap[REC_INPUT], next[REC_INPUT]);
    atomic_store(&s->tap[REC_OUTPUT], next[REC_OUTPUT]);
    es_session_sayf(s, 0, "recording to %s%s%s", path, input_path ? " and " : "",
                    input_path ? input_path : "");
    return 0;
}

const char *es_session_recording(const es_session *s)
{
    es_session *m = (es_session *)s;
    for (int w = 0; w < 2; w++)
        if (atomic_load(&m->tap[w]))
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

void es_session_watch_recording(es_session *s)
{
    if (!es_session_recording(s))
        return;
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
