/* The session's taps on the audio path (internal to live/): every block,
 * dry and wet, goes to the scope (the spectrum view) and, while
 * recording, to the recorders' rings. Recording starts and stops while the
 * stream plays; the dry and wet takes hold the same blocks, sample for
 * sample (taps.c says how). */
#ifndef ES_TAPS_H
#define ES_TAPS_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "core/rt.h"
#include "recorder.h"
#include "scope.h"

enum { ES_TAP_OUTPUT = 0, ES_TAP_INPUT = 1 };

/* How the taps say what happened to a take (the session's lines). */
typedef void (*es_taps_say)(void *ctx, int problem, const char *line);

typedef struct {
    es_scope scope;
    /* The audio thread reads `taps` once a callback, in the input tap, and
     * records the output of that same callback to what it read. The
     * control side owns `recorder[]` and `live[]`, and changes `live[]`
     * only while `taps` is NULL and `in_block` is clear. */
    es_recorder *live[2];                /* recording now, or NULL */
    _Atomic(es_recorder *const *) taps;  /* live, or NULL */
    atomic_int in_block;                 /* from the input tap to the output's end */
    es_recorder *const *block_taps;      /* the audio thread's, for this callback */
    es_recorder *recorder[2];            /* the last takes (finished or not) */
    char path[2][1024];
    double rate;
    int failure_said;                    /* bit per take: its write error is said */
    uint64_t dropped_said;
    struct timespec dropped_when;
    es_taps_say say;
    void *say_ctx;
} es_taps;

void es_taps_init(es_taps *t, double rate, es_taps_say say, void *ctx);
/* Finishes what still records (said), and frees the takes. */
void es_taps_close(es_taps *t);

/* The player's taps (es_player_config's input_tap and tap; ctx: es_taps). */
ES_RT void es_taps_input(void *ctx, const float *const *in, int channels, int frames);
ES_RT void es_taps_output(void *ctx, const float *const *out, int channels, int frames);

/* Opens takes on paths[ES_TAP_OUTPUT] and paths[ES_TAP_INPUT] (NULL: none)
 * of these channel counts and puts them on the audio path together, from
 * the same callback. exclusive: never replace a file that exists. 0, or
 * -1 with one line in err (nothing changed). */
int es_taps_start(es_taps *t, const char *const paths[2], const int channels[2],
                  int exclusive, char *err, size_t n);
/* Takes `which` (or both, ES_TAPS_BOTH) off the audio path, on the same
 * block, and finishes them: said ("recorded N frames to X"). stalled: the
 * stream's callback may never leave its block; it is given a second. 0, or
 * -1 when a take failed (said). */
#define ES_TAPS_BOTH (-1)
int es_taps_finish(es_taps *t, int which, int stalled);

/* The output take's path while recording, else NULL. */
const char *es_taps_recording(const es_taps *t);
uint64_t es_taps_recorded_frames(const es_taps *t);
uint64_t es_taps_dropped(const es_taps *t);
/* While a take cannot be written: why in two or three words ("disk full"). */
const char *es_taps_failed(const es_taps *t);
/* Says a write error at once (whole, once) and lost frames at most once a
 * second. */
void es_taps_watch(es_taps *t);

#endif
