/* A live session: one stream playing a source through a room and an engine
 * on a device, and every change a person makes while it plays: another
 * room, another engine, a block size, a partition size, GPU pipelining,
 * the mix, the source, recording, a meter reset. `earshot play` drives it
 * from command lines, the workstation from keys; neither touches the audio
 * path any other way.
 *
 * Control side only, from one thread, which never waits on a change: a
 * change is a request to the session's preparer thread, which loads the
 * room, opens the file, builds the engine (FFT planning, GPU set-up) and,
 * when the stream's shape changes, a new processor. es_session_poll()
 * applies what is ready: a crossfade, or a stream reopened. A request made
 * while an earlier one is still being prepared supersedes it. Every change
 * either happens or leaves the stream playing as before, and either way
 * the session says so in one line through the `say` callback. */
#ifndef ES_SESSION_H
#define ES_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acoustics.h"
#include "engine.h"
#include "library.h"
#include "player.h"
#include "scope.h"

typedef enum { ES_SOURCE_SIGNAL, ES_SOURCE_FILE, ES_SOURCE_MIC } es_source_kind;

typedef struct {
    const char *device;        /* "auto" (default device, else null), "null", a name */
    const char *input_device;  /* with the microphone: the input's own device */
    const char *rooms_dir;     /* an extra library folder, or NULL */
    const char *room;          /* a library name or an IR file; NULL: the default */
    const char *file;          /* the sound file the file source plays, or NULL */
    es_source_kind source;
    const es_engine_class *engine;
    es_options options;
    double rate;
    double crossfade_ms;
    int block;
    int first_output, outputs; /* a share of the room's outputs (--outputs),
                                * from 0; outputs 0: all of them */
    const char *record, *record_input; /* record from the start, or NULL */
    double trim_db;            /* the input trim from the start */
    int limiter;               /* 1: the limiter on from the start, at: */
    double ceiling_db;
} es_session_config;

/* A room of the list as the screen shows it, measured on the preparer
 * thread. Known by its name and file, so a measurement follows its room
 * when the list changes around it. */
#define ES_DECAY_POINTS 256
typedef struct {
    int index;                 /* in the room list (es_session_library) */
    char name[ES_ROOM_NAME_MAX];
    char path[1024];
    int measured;              /* 0 not yet (asked for), 1 done, -1 failed (error says why) */
    es_acoustics a;            /* broadband, first channel */
    double seconds, gain_db;
    int channels;
    double decay[ES_DECAY_POINTS]; /* dB, evenly over a.usable_s */
    char error[512];
} es_room_info;

/* One line for the person: what happened; `problem` when it went wrong. */
typedef void (*es_session_say)(void *ctx, int problem, const char *line);

typedef struct es_session es_session;

/* Loads the room, builds the engine and starts the stream (on "auto": the
 * default device, else the null device with a notice). NULL and a message
 * when it cannot play at all. */
es_session *es_session_open(const es_session_config *cfg, es_session_say say, void *ctx,
                            char *err, size_t n);
/* Stops the stream and finishes the recordings (their errors are said). 0,
 * or -1 if a recording failed or the device had stopped answering. */
int es_session_stop(es_session *s);
void es_session_close(es_session *s);

/* Call often (every 20-30 ms); never waits on a preparation. Applies what
 * the preparer finished (a crossfade, or a stream reopened), hands retired
 * engines to the preparer to destroy, falls back when a GPU engine fails,
 * reports a stopped input file, a stalled device and a recording that
 * loses frames. */
void es_session_poll(es_session *s);

/* ---- changes; each returns 0 when asked for (it plays, or is said to have
 * failed, once es_session_poll applies it), -1 when refused at once (said
 * why) ---- */
int es_session_set_room(es_session *s, const char *room);
int es_session_set_engine(es_session *s, const es_engine_class *engine);
int es_session_set_block(es_session *s, int block);
/* Partition size and GPU pipelining: a crossfade when the latency allows,
 * else the stream reopens with room for the new latency. */
int es_session_set_options(es_session *s, const es_options *options);
/* The levels (processor.h's es_mix): checked (a refusal is said in one
 * line and changes nothing), sent ramped, and said in dB ("trim -6.0 dB",
 * "wet -3.0 dB, dry off"): each level that differs from before. */
int es_session_set_mix(es_session *s, const es_mix *mix);
int es_session_set_source(es_session *s, es_source_kind source);
/* Starts recording the output (and the dry input when input_path is not
 * NULL); while recording, stops and finishes the files. exclusive: the
 * names were made up by earshot, so a file that exists is never replaced
 * (refused instead). */
int es_session_record(es_session *s, const char *path, const char *input_path, int exclusive);
int es_session_reset_meters(es_session *s);
/* Measures the round trip through a loopback from the output to the
 * microphone input (es_player_probe_start): es_session_poll says
 * "latency measured X fr (Y ms), computed Z fr" once it is done, Z being
 * the device's input and output buffers (the click bypasses the engine). */
int es_session_measure_latency(es_session *s);

/* ---- A/B: two fixed slots, each a room, an engine (with its options) and
 * a block. Changes go to the slot playing; es_session_switch_slot plays
 * the other, crossfaded (the stream reopens when its block differs). B is
 * empty until first played: switching to it then makes it a copy of A to
 * change. Each slot has statistics of its own: only the blocks its engine
 * played alone, since its room, engine, options or block last changed or
 * the meters were reset. ---- */
enum { ES_SLOT_A = 0, ES_SLOT_B = 1 };
typedef struct {
    int set;                  /* 0: B, never played */
    const char *room;
    const es_engine_class *engine;
    es_options options;
    int block;
    int latency;              /* frames heard when it last played */
    uint64_t generation;      /* goes up each time its statistics start again */
    es_ab_stats stats;
} es_session_slot;
int es_session_switch_slot(es_session *s, int slot);
/* The slot playing, or the one a change under way is for. */
int es_session_active_slot(const es_session *s);
/* Slot `slot` as it stands, statistics included. `now`: a snapshot of the
 * processor's stats the caller took already (es_processor_stats), or NULL
 * to take one. */
void es_session_slot_info(es_session *s, int slot, const es_stats *now, es_session_slot *out);
/* Over/underruns the device reported since the meters were last reset. */
uint64_t es_session_xruns(const es_session *s);
/* The stall probe beside the stream (es_player_stalls): 1 and its counts
 * since the stream started or the meters were reset, or 0. */
int es_session_stalls(const es_session *s, es_stall_stats *out);

/* ---- what is playing ---- */
const es_session_config *es_session_now(const es_session *s); /* engine, block, ... */
/* What was last asked for (it plays once prepared): room, engine, options,
 * block, source. Changes build on it, so two quick ones both take. */
typedef struct {
    const char *room;
    const es_engine_class *engine;
    es_options options;
    int block;
    es_source_kind source;
} es_session_wanted;
es_session_wanted es_session_want(const es_session *s);
const char *es_session_room(const es_session *s);
/* The levels now (the last es_session_set_mix that was taken). */
const es_mix *es_session_mix(const es_session *s);
es_player *es_session_player(es_session *s);
/* The room list: the library's rooms, then the IR files played by their
 * path (origin ES_ROOMS_FILE, named by the file's base name), then the
 * room playing when it has left the library (gone, until another plays).
 * The session's own copy: es_session_poll swaps in a library read again,
 * so between polls it holds still. */
const es_library *es_session_library(const es_session *s);
/* Changes whenever the list does (a rescan, a file played): a cursor
 * finds its room again by name. */
unsigned es_session_rooms_version(const es_session *s);
/* What a `room` command says to pick list entry `r`: a file's path, else
 * the room's name. */
const char *es_session_room_word(const es_room *r);
/* The list index of a room as a `room` command names it, or -1. */
int es_session_room_index(const es_session *s, const char *room);
/* The measurement of list entry `index`: asked of the preparer the first
 * time (measured 0 until it is done). */
const es_room_info *es_session_room_info(es_session *s, int index);
/* Reads the library again (on the preparer thread); said in one line
 * ("rooms: 8 (1 new: hall-b)") once the list has it. The manifests are
 * also watched: a change to one rescans by itself within about a second. */
int es_session_rescan(es_session *s);
/* 1 while a change is being prepared; `what` names it ("room cathedral"). */
int es_session_preparing(es_session *s, char *what, size_t n);
const es_scope *es_session_scope(const es_session *s);
const char *es_session_source_name(const es_session *s);
/* The output recording's path, or NULL when not recording. */
const char *es_session_recording(const es_session *s);
uint64_t es_session_recorded_frames(const es_session *s);
uint64_t es_session_record_dropped(const es_session *s);
/* While a take could not be written (a full disk): why, in two or three
 * words ("disk full"); NULL while all goes well. */
const char *es_session_record_failed(const es_session *s);
/* Seconds since the stream started, and since the meters last started
 * counting (a reset, or a stream reopened). */
double es_session_elapsed(const es_session *s);
double es_session_counted(const es_session *s);

/* The device as the meters should be read: playing (blocks arrive),
 * stalled (none for a second, the host still says the stream runs) or
 * lost (its stream stopped from outside, e.g. the sound server died, or it
 * stalled for LOST seconds: earshot has left it alone, changes are refused
 * and what the meters show is from before). */
typedef enum { ES_DEVICE_PLAYING, ES_DEVICE_STALLED, ES_DEVICE_LOST } es_device_state;
es_device_state es_session_device_state(const es_session *s);
const char *es_device_state_word(es_device_state st); /* "playing", "stalled", "device lost" */

/* The stream's stats as a report: the headless table, or one JSON object. */
void es_session_report(es_session *s, FILE *to, int json);

#endif
