/* The session's insides, shared by session.c (the stream and its changes),
 * session_record.c (the taps: recording and the scope) and
 * session_report.c. Nothing else includes this. */
#ifndef ES_SESSION_PRIVATE_H
#define ES_SESSION_PRIVATE_H

#include <stdatomic.h>
#include <time.h>

#include "core/clock.h"
#include "file_source.h"
#include "preparer.h"
#include "recorder.h"
#include "room_loader.h"
#include "session.h"

enum { REC_OUTPUT = 0, REC_INPUT = 1 };

/* One A/B slot, as the session keeps it. */
typedef struct {
    int set;                   /* B is empty until it is first played */
    char room[1024];
    const es_engine_class *engine;
    es_options options;
    int block;
    int latency;               /* frames heard when it last played */
    uint64_t generation;       /* counts restarts of its statistics */
    es_ab_stats carried;       /* counted by processors since let go of */
} es_slot_state;

struct es_session {
    es_session_config cfg;     /* as now: engine, block, options, source follow changes */
    char device_name[256];     /* cfg.device points here once opened */
    char room[1024];           /* the room playing: a library name or a file */
    es_session_say say;
    void *say_ctx;
    es_room_loader rooms;      /* the preparer's once the stream plays */
    es_preparer *preparer;
    es_prep_request target;    /* the latest change asked for */
    es_prep_result *waiting;   /* built, waiting for the processor to take a swap */
    es_library view;           /* the room list the screen reads (session_rooms.c) */
    es_room_info **room_info;  /* one per entry of the view, NULL until the screen asks */
    unsigned rooms_version;
    int inputs;                /* the source's channels */
    es_file_source *file;
    es_processor_config pc;
    es_player *player;

    /* A/B (session_slots.c): what each slot holds, and its statistics from
     * processors the stream has let go of (a reopen); the processor counts
     * the rest. `ab_active` is the slot that plays (the target's slot once
     * a switch plays). */
    es_slot_state ab[ES_AB_SLOTS];
    int ab_active;
    uint64_t xruns_base;       /* the device's count at the last meter reset */

    /* The taps (session_record.c). The audio thread reads `taps` once a
     * callback, in the input tap, and records the output of that same
     * callback to what it read, so the dry and wet takes start and stop on
     * the same block. The control side owns `recorder[]` and `live[]`, and
     * changes `live[]` only while `taps` is NULL and `in_block` is clear. */
    es_scope scope;
    es_recorder *live[2];                /* recording now, or NULL */
    _Atomic(es_recorder *const *) taps;  /* live, or NULL */
    atomic_int in_block;                 /* from the input tap to the output's end */
    es_recorder *const *block_taps;      /* the audio thread's, for this callback */
    es_recorder *recorder[2];
    char record_path[2][1024];
    int failure_said;                    /* bit per take: its write error is said */
    int preparer_left;                   /* its thread was still busy at the end: kept */
    uint64_t dropped_said;
    struct timespec dropped_when;

    /* Watching the stream (es_session_poll). */
    struct timespec started, since, stopped, progress_at;
    uint64_t progress_blocks;
    int stalled, fallback_asked, source_said, stopped_yet;
    /* A split engine's shards: late blocks already said, and when. */
    uint64_t shard_said[ES_GPUS_MAX];
    double shard_said_at;
    int lost;                  /* the device is gone: left alone, changes refused */
    int probing;               /* a latency measurement is under way */
};

void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* session.c: the player's configuration for a source, file and block */
void es_session_player_config(const es_session *s, es_source_kind kind,
                              es_file_source *file, int block, es_player_config *plc);

/* session_changes.c */
/* A source as a person names it: the file's name, or the kind. */
const char *es_session_source_word(const es_session *s, es_source_kind k);
/* Plays what the preparer finished; takes the room measurements it made. */
void es_session_take_prepared(es_session *s);
/* A failed engine: asks the preparer for the fallback (once per failure). */
void es_session_watch_engine(es_session *s, const es_stats *st);

/* session_slots.c */
void es_session_slots_init(es_session *s);
/* 1 when a prepared change for slot q->ab makes it hold another room,
 * engine, options or block: its statistics start again. */
int es_session_slot_restarts(const es_session *s, const es_prep_request *q);
/* The change plays: the slot holds what it asked for, and is the one
 * playing. */
void es_session_slot_played(es_session *s, const es_prep_request *q, int restart);
/* The stream reopened: `old` is what its last processor counted, kept
 * for every slot but restart_ab (-1: none). */
void es_session_slots_carry(es_session *s, const es_stats *old, int restart_ab);
/* The meters were reset: every slot counts from zero. */
void es_session_slots_reset(es_session *s);

/* session_changes.c: hands the target to the preparer, as `what`. */
void es_session_submit(es_session *s, const char *what, int fallback);
/* session_rooms.c: the room list */
/* The list from the library as opened, with the room playing when it is a
 * file. Before the preparer starts (it reads the same library). 0 or -1. */
int es_session_rooms_open(es_session *s, char *err, size_t n);
/* Takes the measurements and the library read again that the preparer made. */
void es_session_rooms_poll(es_session *s);
/* The room playing changed: a file joins the list, a gone room leaves it. */
void es_session_rooms_played(es_session *s);
void es_session_rooms_close(es_session *s);

/* session_record.c */
void es_session_taps_init(es_session *s);
/* The player's taps: the scope, and the recorders when there are. */
void es_session_output_tap(void *ctx, const float *const *out, int channels, int frames);
void es_session_input_tap(void *ctx, const float *const *in, int channels, int frames);
/* Takes recorder `which` off the audio path and finishes it; 0 or -1 (said). */
int es_session_finish_recording(es_session *s, int which);
/* 1 (and why in err) when recording to `path` would replace the input
 * file or the room's IR file. */
int es_session_record_overwrites_input(const es_session *s, const char *path, char *err,
                                       size_t n);
/* Says so when a recording lost frames since it last said. */
void es_session_watch_recording(es_session *s);


#endif
