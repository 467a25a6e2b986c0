/* The session's measurements through the device, as it keeps them
 * between polls (internal to live/): the latency probe's figures, and a
 * room being measured by sweep (room_measure.h) with the last one's
 * result and the room it saved, waiting to play in slot B.
 * session_measure.c starts them, moves them on with the stream and owns
 * these fields; the snapshot reads them through es_measuring_view. */
#ifndef ES_MEASURING_H
#define ES_MEASURING_H

#include "player.h"
#include "room_measure.h"
#include "session.h"
#include "snapshot.h"

typedef struct {
    unsigned probes;           /* latency measurements finished */
    es_probe_result probe;     /* the last one's round trip and clicks */
    es_room_measure *room;     /* a room being measured, or NULL */
    es_measure_result result;  /* the last room's, once it ended */
    int result_valid;
    unsigned ended;            /* rooms measured so far, saved or not */
    int for_b;                 /* saved, to play in slot B once the list has it */
    double saved_at;           /* when it was saved (the snapshot's elapsed) */
} es_measuring;

/* A latency measurement finished. */
void es_measuring_probe_done(es_measuring *m, const es_probe_result *r);

/* A room is being measured (taken), its result not yet known. */
void es_measuring_room_started(es_measuring *m, es_room_measure *room);
/* The room being measured, or NULL. */
es_room_measure *es_measuring_room(const es_measuring *m);
/* The room's measurement ended (saved or failed): its result kept and
 * counted, the room measure freed. */
void es_measuring_room_ended(es_measuring *m);
/* It ended with the stream under it gone: nothing saved, `line` says why. */
void es_measuring_room_lost(es_measuring *m, const char *line);
/* The room measured dropped unfinished (the stream stopped): 1 when there
 * was one. */
int es_measuring_room_dropped(es_measuring *m);
/* The last room's result once it ended, else NULL. */
const es_measure_result *es_measuring_result(const es_measuring *m);

/* The room just saved plays in slot B once the list has it; `elapsed` is
 * the snapshot's clock now. */
void es_measuring_wait_for_list(es_measuring *m, double elapsed);
/* The name of the saved room waiting for the list, or NULL. */
const char *es_measuring_waiting(const es_measuring *m);
/* What slot B plays of the room waiting: its name once `listed`, its file
 * once it waited `wait_s` without, and no longer waiting; NULL: wait on. */
const char *es_measuring_for_b(es_measuring *m, int listed, double elapsed, double wait_s);

/* The snapshot's figures of both. probe_running: the state machine's
 * measurement through the device runs (a probe, unless a room is). */
void es_measuring_view(const es_measuring *m, int probe_running, es_live_snapshot *snap);

#endif
