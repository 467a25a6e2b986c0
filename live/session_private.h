/* The session's insides, shared by session.c (opening, watching and
 * closing the stream), session_changes.c (asking for changes and playing
 * them) and snapshot.c (what the views read). The parts with a job of
 * their own are objects in their own files: the state machine
 * (live_state.c), the A/B slots (slots.c), the taps (taps.c), the room
 * list (room_list.c) and the builder (preparer.c). Nothing outside live/
 * includes this. */
#ifndef ES_SESSION_PRIVATE_H
#define ES_SESSION_PRIVATE_H

#include <time.h>

#include "file_source.h"
#include "head.h"
#include "live_state.h"
#include "preparer.h"
#include "room_list.h"
#include "room_loader.h"
#include "room_measure.h"
#include "session.h"
#include "slots.h"
#include "taps.h"

/* What the safety watch has said, and when (seconds on es_now's clock), and
 * a loud room it turned down (session_watch.c). */
typedef struct {
    uint64_t bad_input, bad_output, runaways; /* counts already said */
    double bad_input_at, bad_output_at;
    double room_at;            /* when the room playing began to play */
    double room_loud_db;       /* how much louder than a levelled room it plays */
    int turned_down;           /* it was turned down once for being loud */
    double unmute_at;          /* then played again once the lower level is in (0: not) */
} es_safety_watch;

struct es_session {
    es_session_config cfg;     /* as opened; cfg.device is the device that opened */
    char device_name[256];
    es_port_names ports;       /* the first room's names for the JACK ports (cfg.jack's) */
    es_live_state state;       /* live_state.h: every "may it?" asks this */
    es_session_say say;
    void *say_ctx;

    /* What plays, and what was last asked for: changes build on `target`,
     * which plays once the preparer built it (for slot target_slot). */
    es_play_spec playing;
    es_play_spec target;
    int target_slot;
    uint64_t asked_id;         /* the preparer's id of the latest request */
    es_processor_config pc;    /* the levels (pc.mix) and crossfade, for new processors */
    /* Head tracking: where filter-set requests go (every stream's
     * processor reads them: pc.set_requests), and the tracker. */
    es_set_requests set_requests;
    es_head *head;
    es_headphone_eq headphone; /* --headphone's filter (ears 0: none) */

    es_room_loader rooms;      /* the preparer's once it runs */
    es_preparer *preparer;
    es_prep_result *waiting;   /* built, waiting for the processor to take a swap */
    /* A primed swap's line, said once its priming is done (it plays then). */
    uint64_t priming;          /* its ticket, 0 none */
    char priming_line[1600];
    int preparer_left;         /* its thread was still busy at the end: kept */
    es_room_list list;
    int shown_room;            /* the room the snapshot carries the measurement of */
    unsigned remembered_gone;  /* slots whose remembered room was gone */
    es_slots slots;
    es_taps taps;
    es_file_source *file;      /* the file source's reader, when it plays */
    int inputs;                /* the source's channels */
    int source_said;           /* the file source's error was said */
    es_player *player;

    /* Watching the stream (es_session_poll). */
    struct timespec started, since, stopped, progress_at;
    uint64_t progress_blocks;
    int paused_said;           /* the device's paused host was said (es_device_paused) */
    uint64_t xruns_base;       /* the device's count at the last meter reset */
    uint64_t shard_said[ES_GPUS_MAX]; /* a split engine's late blocks, said */
    double shard_said_at;
    uint64_t slow_said[ES_AB_SLOTS]; /* a slot's generation + 1 whose slow engine was said */
    es_safety_watch safety;    /* session_watch.c */
    unsigned probes;           /* latency measurements finished */
    int probe_frames;
    es_probe_result probe;    /* the last measurement's clicks */
    es_room_measure *measure;  /* a room being measured (session_measure.c), or NULL */
    es_measure_result measured; /* the last one's, once it ended */
    int measured_valid;
    unsigned measures_ended;   /* so far, saved or not */
    int measured_for_b;        /* saved, to play in slot B once the list has it */
    double measured_at;        /* when it was saved (the snapshot's elapsed) */

    /* The messages the snapshot carries: the last ES_LIVE_MESSAGES. */
    es_live_message messages[ES_LIVE_MESSAGES];
    int message_count;

    es_live_snapshot snap;     /* snapshot.c: made by each poll */
};

void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The say callback for the session's objects (taps, room list). */
void es_session_say_line(void *ctx, int problem, const char *line);
/* Moves the state machine. */
void es_session_event(es_session *s, es_live_event ev);

/* session.c: why a measurement through the device (the latency probe, a
 * room's sweeps) may not start now, or NULL when it may. */
const char *es_session_probe_refused(const es_session *s);
/* session.c: the player's configuration for a source, file and block. */
void es_session_player_config(es_session *s, es_source_kind kind, es_file_source *file,
                              int block, es_player_config *plc);
/* The stream now, as a request is built against. */
void es_session_stream_now(const es_session *s, es_stream_now *now);
/* 1 (and why in err) when recording to `path` would replace the input
 * file or the room's IR file. */
/* -1 (and why) when either of a take's paths (output, input; NULL: none)
 * would overwrite what plays (es_session_record_overwrites_input). */
int es_session_record_refused(const es_session *s, const char *const paths[2], char *err,
                              size_t n);
int es_session_record_overwrites_input(const es_session *s, const char *path, char *err,
                                       size_t n);

/* session_changes.c */
/* Hands the target to the preparer, as `what`. */
/* prime: 0 when the engine is to start empty (a panic). */
void es_session_submit(es_session *s, const char *what, int fallback, int prime);
/* Plays what the preparer finished; takes the room measurements and the
 * rescan it made. */
void es_session_take_prepared(es_session *s);
/* session_watch.c: a failed engine (its fallback asked, once per
 * failure), a broken one (built again), a late shard; the safety's
 * counts and a runaway, said. */
void es_session_watch_engine(es_session *s, const es_stats *st);
void es_session_watch_safety(es_session *s, const es_stats *st);
/* A room (or its level) began to play: a runaway soon after is the room's
 * loudness before it is a loop. */
void es_session_watch_room_began(es_session *s, double loud_db);
/* The same file: a stream that delivers no blocks (stalled, lost), a
 * latency probe's result, a file source that stopped. */
void es_session_watch_device(es_session *s, const es_stats *st, const struct timespec *now);
void es_session_watch_probe(es_session *s);
void es_session_watch_source(es_session *s);

/* session_measure.c: a room being measured moved on (its sweeps, its
 * analysis, the room into slot B), and dropped when the stream stops. */
void es_session_watch_measure(es_session *s);
void es_session_drop_measure(es_session *s);

/* snapshot.c: the snapshot made anew from the session as it is. */
void es_session_publish(es_session *s);

#endif
