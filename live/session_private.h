/* The session's insides, shared by session.c (polling, stopping and
 * closing the stream), session_open.c (opening it), session_changes.c
 * (asking for changes and playing them), session_watch.c (what each poll
 * watches), session_measure.c (measurements through the device) and
 * snapshot.c (what the views read).
 * The parts with a job of their own are objects in their own files, and
 * their fields are theirs: the state machine (live_state.c), the message
 * log (messages.c), the watch (session_watch.c), the measurements
 * (session_measure.c), the A/B slots (slots.c), the taps (taps.c), the
 * room list (room_list.c) and the builder (preparer.c). Nothing outside
 * live/ includes this. */
#ifndef ES_SESSION_PRIVATE_H
#define ES_SESSION_PRIVATE_H

#include "file_source.h"
#include "head.h"
#include "live_state.h"
#include "measuring.h"
#include "messages.h"
#include "preparer.h"
#include "room_list.h"
#include "room_loader.h"
#include "room_measure.h"
#include "session.h"
#include "slots.h"
#include "taps.h"
#include "watch.h"

struct es_session {
    es_session_config cfg;     /* as opened; cfg.device is the device that opened */
    es_port_names ports;       /* the first room's names for the JACK ports (cfg.jack's) */
    es_live_state state;       /* live_state.h: every "may it?" asks this */
    es_message_log log;        /* messages.h: every line said, and the history */

    /* What plays, and what was last asked for: changes build on `target`,
     * which plays once the preparer built it (for slot target_slot). */
    es_play_spec playing;
    es_play_spec target;
    int target_slot;
    es_processor_config pc;    /* the levels (pc.mix) and crossfade, for new processors */
    /* Head tracking: where filter-set requests go (every stream's
     * processor reads them: pc.set_requests), and the tracker. */
    struct {
        es_set_requests requests;
        es_head *tracker;
    } head;
    es_headphone_eq headphone; /* --headphone's filter (ears 0: none) */

    es_room_loader rooms;      /* the preparer's once it runs */
    es_preparer *preparer;
    es_prep_result *waiting;   /* built, waiting for the processor to take a swap */
    /* A primed swap's line, said once its priming is done (it plays then). */
    struct {
        uint64_t ticket;       /* 0: none */
        char line[1600];
    } priming;
    es_room_list list;
    unsigned remembered_gone;  /* slots whose remembered room was gone */
    es_slots slots;
    es_taps taps;
    es_file_source *file;      /* the file source's reader, when it plays */
    es_player *player;

    es_watch watch;            /* watch.h: the stream's clock, what was said and when */
    es_measuring measuring;    /* measuring.h: the latency probe, a room measured */
    es_live_snapshot snap;     /* snapshot.c: made by each poll */

    /* Every command over OSC (osc_control.h), NULL without --osc; the
     * session log (--log), NULL without; a listening test (session_test.c),
     * NULL when none ran; `quit` asked over OSC. */
    struct es_osc_control *control;
    struct es_session_log *log_file;
    struct es_listening_test *test;
    int quit_asked;
};

/* session_test.c: a trial loaded plays once it is ready (each poll); the
 * test's memory and files let go (at close). */
void es_session_test_poll(es_session *s);
void es_session_test_close(es_session *s);

/* session.c: a line said (the message log's, escaped, stamped, heard). */
void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The say callback for the session's objects (taps, room list). */
void es_session_say_line(void *ctx, int problem, const char *line);
/* Moves the state machine. */
void es_session_event(es_session *s, es_live_event ev);
/* The player's configuration for a source, file and block. */
void es_session_player_config(es_session *s, es_source_kind kind, es_file_source *file,
                              int block, es_player_config *plc);
/* The stream now, as a request is built against; the source's channels
 * as it reads them (its processor's inputs). */
void es_session_stream_now(const es_session *s, es_stream_now *now);
int es_session_inputs(const es_session *s);
/* -1 (and why) when either of a take's paths (output, input; NULL: none)
 * would overwrite what plays (es_session_record_overwrites_input: 1 when
 * recording to `path` would replace the input file, a slot's room file or
 * a file a room library holds). */
int es_session_record_refused(const es_session *s, const char *const paths[2], char *err,
                              size_t n);
int es_session_record_overwrites_input(const es_session *s, const char *path, char *err,
                                       size_t n);

/* session_changes.c */
/* Hands the target to the preparer, as `what`. prime: 0 when the engine
 * is to start empty (a panic). */
void es_session_submit(es_session *s, const char *what, int fallback, int prime);
/* Plays what the preparer finished; takes the room measurements and the
 * rescan it made. */
void es_session_take_prepared(es_session *s);

/* session_watch.c: a failed engine (its fallback asked, once per
 * failure), a broken one (built again), a late shard, an engine that
 * cannot keep up; the safety's counts and a runaway, said; a stream that
 * delivers no blocks (stalled, lost); a file source that stopped. */
void es_session_watch_engine(es_session *s, const es_stats *st);
void es_session_watch_safety(es_session *s, const es_stats *st);
void es_session_watch_device(es_session *s, const es_stats *st, const struct timespec *now);
void es_session_watch_source(es_session *s);
/* A new source plays: a read error of its own is said again. */
void es_session_watch_new_source(es_session *s);

/* session_measure.c: why a measurement through the device (the latency
 * probe, a room's sweeps) may not start now, or NULL when it may; a
 * latency probe's result said; a room being measured moved on (its
 * sweeps, its analysis, the room into slot B), and dropped when the
 * stream stops. */
const char *es_session_probe_refused(const es_session *s);
void es_session_watch_probe(es_session *s);
void es_session_watch_measure(es_session *s);
void es_session_drop_measure(es_session *s);

/* snapshot.c: the snapshot made anew from the session as it is. */
void es_session_publish(es_session *s);

/* session_open.c: the head tracker follows the room `r` built (its
 * sets, its blends, a field), which starts to play. */
void es_session_head_follows(es_session *s, es_prep_result *r);

#endif
