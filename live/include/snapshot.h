/* What a live session shows: one snapshot, made by es_session_poll and
 * left as it is until the next poll. The workstation's screen, play's
 * report (text and JSON) and the meters read this and nothing else of the
 * session, so every figure they show was taken at the same moment and
 * counts the same things for both A/B slots. */
#ifndef ES_SNAPSHOT_H
#define ES_SNAPSHOT_H

#include <stdint.h>

#include "acoustics.h"
#include "head.h"
#include "library.h"
#include "play_spec.h"
#include "player.h"
#include "processor.h"
#include "scope.h"
#include "stats.h"

enum { ES_SLOT_A = 0, ES_SLOT_B = 1 };

/* Seconds a slot counts before its level (output over input) is shown:
 * past a room's early decay, so the past it rings with at a swap is a
 * small part of what it heard. */
#define ES_SLOT_LEVEL_SETTLE_S 3.0

/* The device as the meters should be read: playing (blocks arrive),
 * stalled (none for a second, the host still says the stream runs) or
 * lost (its stream stopped from outside, e.g. the sound server died, or it
 * stalled for 5 s: earshot has left it alone, changes are refused and what
 * the meters show is from before). */
typedef enum { ES_DEVICE_PLAYING, ES_DEVICE_STALLED, ES_DEVICE_LOST } es_device_state;
const char *es_device_state_word(es_device_state st); /* "playing", "stalled", "device lost" */

/* One A/B slot: what it holds and its own statistics, over the blocks its
 * engine played alone since it last changed or the meters were reset. */
typedef struct {
    int set;                   /* 0: B, never given anything */
    int played;                /* 0: held (remembered), not played yet */
    es_play_spec spec;
    int latency;               /* frames heard when it last played; -1 unknown */
    uint64_t generation;       /* goes up each time its statistics start again */
    es_ab_stats stats;
    /* The figures of `stats`, as every view shows them. The quantiles and
     * the worst are the audio thread's (its deadline); the mean, the
     * throughput and the real-time factor count the audio thread's time
     * and the engine's helper threads' CPU time (all the CPU it uses); a
     * GPU engine's GPU time is apart. */
    double seconds;            /* of audio counted */
    double load_p50, load_p99, load_max, load_mean; /* of the block's budget */
    double helpers_load;       /* of which the helper threads' (mean) */
    double gpu_load;           /* the GPU's time over the real time (mean) */
    double throughput;         /* samples a second of processing */
    double realtime_factor;
    double level_db;           /* output over input, dB, as heard; NAN before any, and
                                * for its first ES_SLOT_LEVEL_SETTLE_S */
} es_live_slot;

/* An engine as the screen lists it: probed once, when the session opened. */
#define ES_LIVE_ENGINES 8
typedef struct {
    const es_engine_class *engine;
    int usable;
    char why[160];             /* why not, or a note ("NVIDIA H100") */
} es_live_engine;

/* A room of the list as the screen shows it, measured on the preparer
 * thread. Known by its name and file, so a measurement follows its room
 * when the list changes around it. */
#define ES_DECAY_POINTS 256
typedef struct {
    int index;                 /* in the room list */
    char name[ES_ROOM_NAME_MAX];
    char path[1024];
    int measured;              /* 0 not yet (asked for), 1 done, -1 failed (error says why) */
    es_acoustics a;            /* broadband, of channel `channel` */
    int channel;               /* the channel measured (from 0): the first that sounds
                                * from `asked` on, going `step` (1 or -1) way */
    int asked, step;
    double seconds, gain_db;
    int channels;
    double decay[ES_DECAY_POINTS]; /* dB, evenly over a.usable_s */
    char error[512];
} es_room_info;

/* A line the session said (or a view added with es_session_note). */
#define ES_LIVE_MESSAGES 64
typedef struct {
    char when[16];             /* HH:MM:SS, local time */
    char text[300];            /* escaped: safe on any terminal */
    int problem;
} es_live_message;

typedef struct {
    /* ---- the stream ---- */
    char device[256];          /* as opened: "null", "JACK: system" */
    es_device_state device_state;
    int can_capture;           /* the device has inputs: a microphone can play */
    const char *file;          /* the file source's path, or NULL (no --input FILE) */
    char source[256];          /* what plays into it, as a person names it */
    double rate;
    es_play_spec playing;      /* what plays now */
    es_play_spec wanted;       /* what was last asked for (plays once prepared) */
    int playing_slot;          /* the slot playing alone; -1 while crossfading */
    int active_slot;           /* the slot changes go to */
    es_mix mix;                /* the levels now */
    es_latency_parts latency;  /* what a person at the microphone hears */
    char latency_text[224];    /* "5.33 ms (256 fr)", or "unknown (...)" */
    char latency_parts[96];    /* "128 in + 256 earshot + 256 out", or "" */
    double elapsed;            /* seconds since the stream started */
    double counted;            /* seconds since the meters last started counting */
    double blocks_expected;    /* over `counted`, from the clock */
    double skipped_seconds;    /* the device's clock skipped after overruns (the null device's) */

    /* ---- a change under way ---- */
    int preparing;             /* 1 while a change is built or waits to play */
    char preparing_what[256];  /* "room cathedral" */

    /* ---- the meters ---- */
    es_stats stats;            /* the processor's, since the meters last started */
    double load_p50, load_p99; /* of the whole stream's blocks */
    double throughput, realtime_factor;
    es_live_slot slot[ES_AB_SLOTS];
    uint64_t xruns;            /* the device's, since the meters were reset */
    int have_stalls;           /* the stall probe runs beside the stream */
    es_stall_stats stalls;
    uint64_t engines_created, engines_destroyed; /* in this process */
    /* Head tracking (head.h): the orientation, the set it picked, the
     * tracker's messages; the switches and their filter-exchange latency
     * are the processor's (stats.set_switches, exchange_*), and so is
     * the motion-to-sound latency (stats.motion_*). */
    es_head_view head;
    double exchange_p50_us, exchange_p99_us;
    double motion_p50_us, motion_p99_us;

    /* ---- the latency measurement (es_session_measure_latency) ---- */
    int probing;               /* 1 while the click is out */
    unsigned probes;           /* measurements finished so far */
    int probe_frames;          /* the last one: the round trip in frames (the clicks'
                                * median), -1 no figure */
    int probe_low, probe_high, probe_heard, probe_clicks; /* its clicks */

    /* ---- a room being measured (es_session_measure_room) ---- */
    int measuring;             /* 1 from the first sweep to the room saved */
    int measure_pass, measure_passes; /* the output swept: pass of passes */
    double measure_share;      /* of the sweep now playing, 0..1 (1: analysing) */
    unsigned measures_ended;   /* measurements that ended, saved or not, so far */
    int measure_saved;         /* the last one: 1 its room was saved */
    double measure_retry_db;   /* the last one, not saved: the level to try again at
                                * (NAN: a level would not help) */
    char measure_line[1024];   /* the last one's line */

    /* ---- recording ---- */
    int recording;             /* 1 while a take is being written */
    char record_path[1024];    /* the output take's path ("" when none was made) */
    uint64_t recorded_frames, record_dropped;
    const char *record_failed; /* while a take cannot be written: "disk full", ... */

    /* ---- the rooms ---- */
    const es_library *rooms;   /* the session's list; unchanged until the next poll */
    unsigned rooms_version;    /* changes whenever the list does */
    int room_playing;          /* its index, or -1 */
    int room_wanted;           /* the room a change under way brings, or -1 */
    es_room_info shown;        /* the room es_session_show_room asked for */

    unsigned remembered_gone;  /* slots (a bit each) whose remembered room was gone */

    /* ---- the engines, probed once ---- */
    int engine_count;
    es_live_engine engines[ES_LIVE_ENGINES];

    /* ---- the messages: the last ES_LIVE_MESSAGES, oldest first ---- */
    int message_count;         /* ever said; messages[] holds the newest */
    es_live_message messages[ES_LIVE_MESSAGES];

    /* ---- the spectrum's input: the scope's rings, read lock-free ---- */
    const es_scope *scope;
} es_live_snapshot;

/* The message `k` of the snapshot (0: the oldest it keeps), for a view
 * that walks them: NULL past the end. */
const es_live_message *es_live_message_at(const es_live_snapshot *snap, int k);
/* How many it keeps (at most ES_LIVE_MESSAGES). */
int es_live_messages_kept(const es_live_snapshot *snap);

#endif
