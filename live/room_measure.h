/* Measuring a room on the session's stream (session.h's es_measure_plan):
 * a sweep out of each output in turn through the player's exchange, every
 * input recorded at once; then, on a thread of its own, the recordings
 * deconvolved (by the loopback reference when there is one) and analysed
 * (response.h), the verdicts weighed, and the room written into the
 * library with what it was measured with. The session drives it from its
 * poll and says its lines. */
#ifndef ES_ROOM_MEASURE_H
#define ES_ROOM_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "player.h"
#include "session.h"

typedef struct es_room_measure es_room_measure;

typedef struct {
    es_player *player;
    double rate;
    int inputs, outputs;      /* the stream's live inputs and outputs */
    size_t zero;              /* time zero without a reference: the round trip */
    int zero_known;           /* 0: the round trip is not known (0 used) */
    const char *device;       /* for the room's metadata */
} es_room_measure_stream;

/* Checks the plan against the stream and starts the first sweep. NULL
 * with one line in err (a bad plan, no live input, out of memory). */
es_room_measure *es_room_measure_start(const es_measure_plan *plan,
                                       const es_room_measure_stream *stream, char *err,
                                       size_t n);

typedef enum {
    ES_MEASURE_SWEEPING,   /* a sweep plays */
    ES_MEASURE_ANALYSING,  /* the thread works */
    ES_MEASURE_SAVED,      /* the room is in the library */
    ES_MEASURE_FAILED,     /* nothing saved; the line says why */
} es_measure_stage;

/* Moves it on (call from the session's poll): the next sweep, the
 * analysis, the result. */
es_measure_stage es_room_measure_poll(es_room_measure *m);
/* What it is doing: pass (1-based) of passes, and the share of the current
 * sweep played, 0..1. */
void es_room_measure_progress(const es_room_measure *m, int *pass, int *passes,
                              double *share);
/* Once SAVED or FAILED: the result (session.h). */
const es_measure_result *es_room_measure_result(const es_room_measure *m);
/* A line to say as it goes (a sweep played again), once: out, or NULL. */
const char *es_room_measure_take_note(es_room_measure *m, char *out, size_t n);
/* Whether the plan asked for the room in slot B. */
int es_room_measure_to_slot_b(const es_room_measure *m);
/* Stops it (a sweep is aborted; the thread is waited for) and frees it. */
void es_room_measure_free(es_room_measure *m);

#endif
