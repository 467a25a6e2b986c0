/* A live session: one stream playing a source through a room and an engine
 * on a device, and every change a person makes while it plays: another
 * room, another engine, a block size, a partition size, GPU pipelining,
 * the mix, the source, recording, a meter reset. `earshot play` drives it
 * from command lines, the workstation from keys; neither touches the audio
 * path any other way, and both read what it shows from its snapshot
 * (snapshot.h).
 *
 * Control side only, from one thread, which never waits on a change: a
 * change is a play spec (play_spec.h) handed to the session's preparer
 * thread, which builds every stream, the first one included: it loads the
 * room, opens the file, builds the engine (FFT planning, GPU set-up) and,
 * when the stream's shape changes, a new processor. es_session_poll()
 * plays what is ready (a crossfade, or a stream reopened) and publishes
 * the snapshot. A change asked while an earlier one is still being
 * prepared supersedes it. Every change either happens or leaves the stream
 * playing as before, and either way the session says so in one line. */
#ifndef ES_SESSION_H
#define ES_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "acoustics.h"
#include "ambi_decoder.h"
#include "library.h"
#include "answers.h"
#include "listening_test.h"
#include "play_spec.h"
#include "response.h"
#include "snapshot.h"
#include "sweep.h"

typedef struct {
    const char *device;        /* "auto" (audio/device.h says what it tries), "null", a name */
    const char *input_device;  /* with the microphone: the input's own device */
    es_jack_options jack;      /* on the native JACK device */
    int mic_inputs;            /* the microphone's channels; 0: the room's inputs */
    int layout_inputs, layout_outputs; /* file rooms as this matrix (--layout); 0: guessed */
    const char *rooms_dir;     /* an extra library folder, or NULL */
    const char *file;          /* the sound file the file source plays, or NULL */
    double rate;
    double crossfade_ms;
    int first_output, outputs; /* a share of the room's outputs (--outputs),
                                * from 0; outputs 0: all of them */
    const char *record, *record_input; /* record from the start, or NULL */
    /* What the A/B slots hold at the start: A always (an empty room: the
     * library's default); B the parts in b_parts (ES_SPEC_* bits; 0: B
     * is empty), the rest as A, kept until it is played. The slot
     * `playing` plays first. */
    es_play_spec slot[ES_AB_SLOTS];
    unsigned b_parts;
    int playing;
    /* Rooms that came from remembered settings (a bit per slot): one that
     * is no longer there is left out (the snapshot's remembered_gone says
     * which): A plays the default room, B keeps A's (and is empty when
     * the room was all it held), where a room a person named fails the
     * start. */
    unsigned remembered_rooms;
    es_mix mix;                /* the levels from the start */
    int osc_port;              /* a head tracker's OSC messages on this UDP port; 0: none */
    const char *osc_bind;      /* ...of this address (a literal); NULL: head.h's default */
    const char *headphone;     /* a headphone filter after every room (rooms/headphone.h), or NULL */
    /* Where a SOFA room of head orientations splits into the heads that
     * switch and one tail (sofa.h: ES_SPLIT_AUTO, the room's mixing
     * time; ES_SPLIT_NONE, whole sets; or ms). Zero: whole sets. */
    double split_ms;
    /* Directions between the measured ones (sofa.h's es_interp):
     * ES_INTERP_LINEAR blends them while the room plays (head_blend.c). */
    int interp;
    /* A SOFA set of loudspeakers plays the input laid out so (sofa.h's
     * es_sofa_speakers: "5.1"); NULL: by its emitters' order. */
    const char *speakers;
    /* A room in spherical harmonics (field_layout.h): what it is decoded
     * to (--hrir, --decoder, --speakers), and a file room's layout
     * (--layout ambix3), or NULL. */
    es_field_options field;
    const char *field_layout;
    /* --log FILE: every command, its reply and the figures, one JSON
     * object a line (session_log.h); NULL: none. */
    const char *log_path;
} es_session_config;

/* One line for the person: what happened; `problem` when it went wrong. */
typedef void (*es_session_say)(void *ctx, int problem, const char *line);

typedef struct es_session es_session;

/* Loads the room, builds the engine and starts the stream (on "auto": the
 * devices audio/ tries, the null device last, with a notice). NULL and a
 * message when it cannot play at all. */
es_session *es_session_open(const es_session_config *cfg, es_session_say say, void *ctx,
                            char *err, size_t n);
/* Stops the stream and finishes the recordings (their errors are said). 0,
 * or -1 if a recording failed or the device had stopped answering. The
 * snapshot is made once more, final. */
int es_session_stop(es_session *s);
void es_session_close(es_session *s);

/* Head tracking (head.h): the orientation, in degrees (an angle NAN:
 * held as it is); said in one line (the set it picks, or that the room
 * has none). 0, or -1 said. */
int es_session_head(es_session *s, double yaw, double pitch, double roll);
/* The orientation turned by the given degrees (keys), said as `head`
 * says it. */
int es_session_head_nudge(es_session *s, double yaw, double pitch, double roll);

/* Call often (every 20-30 ms); never waits on a preparation. Plays what
 * the preparer finished (a crossfade, or a stream reopened), hands retired
 * engines to the preparer to destroy, falls back when a GPU engine fails,
 * reports a stopped input file, a stalled device and a recording that
 * loses frames, and publishes the snapshot. */
void es_session_poll(es_session *s);
/* The snapshot the last poll made: unchanged until the next poll. */
const es_live_snapshot *es_session_snapshot(const es_session *s);

/* ---- changes; each returns 0 when asked for (it plays, or is said to have
 * failed, once es_session_poll applies it), -1 when refused at once (said
 * why) ---- */
int es_session_set_room(es_session *s, const char *room);
int es_session_set_engine(es_session *s, const es_engine_class *engine);
/* Any change of what plays: `next` (es_session_wanted() with the change
 * made in it) asked for, said as `what` ("raw on"). What differs decides
 * whether it is a crossfade or a reopen (es_play_spec_cost), so a command
 * that changes a part of the spec needs no session call of its own (raw
 * is one: live/commands.c). The calls below check their value first. */
int es_session_change(es_session *s, const es_play_spec *next, const char *what);
int es_session_set_block(es_session *s, int block);
/* Partition size and GPU pipelining: a crossfade when the latency allows,
 * else the stream reopens with room for the new latency. */
int es_session_set_options(es_session *s, const es_options *options);
int es_session_set_source(es_session *s, es_source_kind source);
/* The levels (processor.h's es_mix): the fields named in `which`
 * (ES_MIX_* bits) taken from *mix, the rest as they are. Checked (a
 * refusal is said in one line and changes nothing), sent ramped, and said
 * in dB ("trim -6.0 dB", "wet -3.0 dB, dry off"): each level that moved. */
enum {
    ES_MIX_TRIM = 1u << 0,
    ES_MIX_WET = 1u << 1,
    ES_MIX_DRY = 1u << 2,
    ES_MIX_GAIN = 1u << 3,
    ES_MIX_BYPASS = 1u << 4,
    ES_MIX_LIMITER = 1u << 5, /* on or off, and the ceiling */
    ES_MIX_ALL = 0x3f,
};
int es_session_set_mix(es_session *s, unsigned which, const es_mix *mix);
/* Starts recording the output (and the dry input when input_path is not
 * NULL); while recording, stops and finishes the files. exclusive: the
 * names were made up by earshot, so a file that exists is never replaced
 * (refused instead). */
int es_session_record(es_session *s, const char *path, const char *input_path, int exclusive);
int es_session_reset_meters(es_session *s);
/* Panic: the output muted at once (a 10 ms ramp) and every history
 * cleared (the dry path's, and the engine's: it is built again, empty).
 * es_session_unmute plays again, after a panic or a runaway. */
int es_session_panic(es_session *s);
int es_session_unmute(es_session *s);
/* Measures the round trip through a loopback from the output to the
 * microphone input: the snapshot's probe figures, and a line "latency
 * measured X fr (Y ms), computed Z fr" once it is done, Z being the
 * device's input and output buffers (the click bypasses the engine). */
int es_session_measure_latency(es_session *s);
/* Measuring a room (ISO 18233's swept sine): what to sweep, and where the
 * room goes. Each output in `outputs` plays the sweep in turn while every
 * live input records; a reference input, wired straight from the sweep's
 * output, makes time zero exact and takes the device out of the result.
 * The room is N x M: the outputs swept are its inputs (the sources), the
 * inputs other than the reference its outputs (the microphones). */
#define ES_MEASURE_CHANNELS_MAX 8
typedef struct {
    es_sweep sweep;            /* its rate is the stream's */
    int outputs[ES_MEASURE_CHANNELS_MAX]; /* the outputs swept, from 0 */
    int output_count;          /* 0: the first output alone */
    int inputs;                /* the first N live inputs recorded; 0: every one */
    int reference_input;       /* the input wired to the sweep's output; -1: none */
    int reference_output;      /* an output that plays every sweep for the
                                  reference; -1: the reference hears the output
                                  being swept (a wire from each) */
    char name[ES_ROOM_NAME_MAX]; /* "": measured-YYYYMMDD-HHMMSS */
    char description[256];
    char dir[1024];            /* the library folder; "": the user's */
    int to_slot_b;             /* once saved, the room plays in slot B (A kept) */
} es_measure_plan;

typedef struct {
    int saved;                 /* 1: the room is in the library, or kept elsewhere */
    /* Where the library refused it (full, read-only), why; the room is then
     * in the cache folder's measured/ library (path), never lost. "" when
     * it went where it was asked to. */
    char elsewhere[600];
    char line[1024];           /* what was saved, or why nothing was */
    char name[ES_ROOM_NAME_MAX], path[1024];
    int sources, receivers;    /* the room's inputs (outputs swept) and outputs */
    int frames;                /* the room's length */
    double rate;
    int referenced;            /* time zero from a reference (else the round trip) */
    int zero;                  /* frames taken as the loop's own (no reference) */
    double band_low, band_high; /* Hz: the band the room is flat over (es_sweep_band) */
    /* Each path, source s to receiver r at [s * receivers + r]. */
    es_response paths[ES_MEASURE_CHANNELS_MAX * ES_MEASURE_CHANNELS_MAX];
    es_acoustics acoustics;    /* ISO 3382-1, broadband, of the first path */
    double seconds;            /* from the first sweep to the room saved */
    int retries;               /* sweeps played again after losing frames */
    double retry_level_db;     /* nothing saved: the sweep level to try again at
                                * (es_response_retry_level); NAN when a level
                                * would not help */
} es_measure_result;

/* Starts measuring a room (said as it goes; the snapshot's measuring
 * fields show the sweep's progress); a line says what was saved, or why
 * nothing was: a clipped, silent or too quiet recording (with the level
 * to use), a stream that changed or lost frames during a sweep. */
int es_session_measure_room(es_session *s, const es_measure_plan *plan);
/* The last measurement's result once it ended, else NULL. */
const es_measure_result *es_session_measure_result(const es_session *s);

/* A/B: plays slot A or B, crossfaded (the stream reopens when its block
 * differs). An empty B starts as a copy of A to change. */
int es_session_switch_slot(es_session *s, int slot);
/* Reads the library again (on the preparer thread); said in one line
 * ("rooms: 8 (1 new: hall-b)") once the list has it. The manifests are
 * also watched: a change to one rescans by itself within about a second. */
int es_session_rescan(es_session *s);

/* What was last asked for, and the levels now: what the next change
 * builds on (two changes between polls both take). */
const es_play_spec *es_session_wanted(const es_session *s);
int es_session_wanted_slot(const es_session *s);
const es_mix *es_session_mix(const es_session *s);

/* ---- the room list (the snapshot's `rooms`) ---- */
/* What a `room` change names to pick entry `r`: a file's path, else the
 * room's name. */
const char *es_session_room_word(const es_room *r);
/* The list index of a room as a `room` change names it, or -1. */
int es_session_room_index(const es_session *s, const char *room);
/* The room whose measurement the snapshot's `shown` carries from the next
 * poll on (measured on the preparer thread the first time). */
void es_session_show_room(es_session *s, int index);
/* The shown room's measurement moves to its next channel that sounds
 * (step 1) or the one before (-1), round: a matrix's paths in turn. 0, or
 * -1 when it is not measured yet or has one channel. */
int es_session_step_room_channel(es_session *s, int step);

/* A line of a view's own (a key's refusal), kept with the session's. */
void es_session_note(es_session *s, int problem, const char *line);

/* ---- replies, the log, quitting from afar ---- */
/* Lines said so far; the last said since `count` into line[n] ("" none):
 * a command's reply. */
int es_session_said_count(const es_session *s);
void es_session_said_since(const es_session *s, int count, char *line, size_t n);
/* The session log (--log; session_log.h), or NULL. */
struct es_session_log *es_session_logger(const es_session *s);
/* A descriptor that becomes readable when a command arrives over OSC
 * (-1 without --osc): a headless loop that waits on it as well as on its
 * tick polls at once, so a command is answered within a millisecond, not
 * at the next tick. */
int es_session_wake_fd(const es_session *s);
/* 1 once `quit` came over OSC: the loop ends as it does on `quit`. */
int es_session_quit_asked(const es_session *s);

/* ---- a blind listening test (listening_test.h) ---- */
/* Starts the test: its first trial is prepared at once. 0, or -1 with one
 * line (the answers' files exist, no room to hold it). */
int es_session_test_start(es_session *s, const es_test_config *cfg, char *err, size_t n);
/* The subject hears a label ("a", "b", "x"; "1", "2" in a same/different
 * trial), or answers ("a", "b": preferred, or what X is; "same",
 * "different"). 0, or -1 said in one line (es_session_test_view's line). */
int es_session_test_hear(es_session *s, const char *label);
int es_session_test_answer(es_session *s, const char *answer);
void es_session_test_view(const es_session *s, es_test_view *v);
/* The summary once done: per test, k of n, p and the decision (answers.h's
 * es_test_summary); the count, 0 before the end. */
int es_session_test_summary(const es_session *s, const es_test_summary **out);
/* 1 while a test runs: hide names, engines, slots and the figures that
 * tell them apart. */
int es_session_blind(const es_session *s);
/* The plan of the test running or done, or NULL. */
const es_plan *es_session_test_plan(const es_session *s);

#endif
