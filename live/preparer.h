/* The session's preparer: the one place a stream is built. One thread does
 * every slow thing a play spec needs (loading, resampling and laying out a
 * room, opening an input file, building an engine with its FFT planning or
 * GPU set-up, and a new processor when the stream's shape changes), the
 * first stream's as every later one's, and measures rooms for the screen,
 * so that the thread that draws and reads keys never waits on any of it.
 * It also destroys what the stream let go of (retired engines, old
 * processors and rooms).
 *
 * One request is built at a time. A request submitted while another waits
 * replaces it, and a result whose request was superseded while it was
 * being built is dropped: only the latest thing a person asked for plays.
 * Internal to live/. */
#ifndef ES_PREPARER_H
#define ES_PREPARER_H

#include <stdint.h>

#include "file_source.h"
#include "ambi_decoder.h"
#include "headphone.h"
#include "history.h"
#include "play_spec.h"
#include "processor.h"
#include "ringing.h"
#include "room_loader.h"
#include "sofa.h"
#include "snapshot.h"

/* The stream a request is built against (to tell a crossfade from a new
 * stream), or none yet for the first. */
typedef struct {
    int exists;                /* 0: the first stream: everything is new */
    es_play_spec spec;         /* what it plays */
    int inputs, outputs;       /* its channels */
    int latency;               /* the processor's latency, frames */
    int history_frames;        /* the input it keeps for priming, frames (0: none) */
} es_stream_now;

/* The input a new stream keeps for priming the engines that later swaps
 * bring (history.h): this long (a room longer cannot be primed), and no
 * more memory than the second figure over all its inputs (2 inputs keep
 * 30 s at 48 kHz, 64 inputs 2.7 s), but always the room it starts with
 * (so that switching its engine is primed) up to the third figure. The
 * stream keeps ES_PRIME_WAIT_MS more, for the priming's own time. */
#define ES_HISTORY_SECONDS 30.0
#define ES_HISTORY_MAX_BYTES ((size_t)32 << 20)
#define ES_HISTORY_ROOM_MAX_BYTES ((size_t)256 << 20)
/* The most memory a priming may take (the transforms of every path). */
#define ES_PRIME_MAX_BYTES ((size_t)512 << 20)

typedef struct {
    uint64_t id;
    char what[256];            /* the change in words: "room cathedral" */
    es_play_spec spec;         /* what to build */
    int slot;                  /* the A/B slot it is for (pc.ab too) */
    int fallback;              /* replacing a failed engine */
    int prime;                 /* 1: a swap is primed on what the stream heard */
    es_stream_now now;
    double rate;
    const char *file;          /* the file source's path (the session's, stable) */
    int can_capture;           /* the device has a microphone */
    int mic_inputs;            /* the microphone's channels; 0: the room's inputs */
    es_processor_config pc;    /* for a new processor */
    /* A headphone filter every room is convolved with (the session's,
     * read once), or NULL. */
    const es_headphone_eq *headphone;
    /* The head's orientation held when asked, degrees: a room of filter
     * sets starts on (and is primed through) the set it points at. */
    float head_yaw, head_pitch, head_roll;
    /* Where a SOFA room of head orientations splits (sofa.h: ES_SPLIT_*,
     * or ms). */
    double split_ms;
    /* How a SOFA room hears directions between the measured ones (sofa.h's
     * es_interp): linear keeps two sets for blends (head_blend.c). */
    int interp;
    /* The input's loudspeaker layout for a SOFA set of loudspeakers
     * ("5.1"), or NULL. */
    const char *speakers;
    /* A field room's decoder, and a file room's field layout (NULL: its
     * own, a library room's manifest's, or a configuration's B-format
     * outputs). */
    es_field_options field;
    const char *field_layout;
} es_prep_request;

typedef struct {
    es_prep_request req;
    char err[768];             /* empty when it was built */
    char note[300];            /* a line worth saying (gain, resampling), or "" */
    double loud_db;            /* how much louder than a levelled room it plays
                                * (room_loader.h) */
    int room_loaded;           /* the room was read (a failure is the engine's) */
    int inputs;                /* the source's channels */
    es_file_source *file;      /* the new source's reader (the source is a new file) */
    es_engine *engine;         /* fits the stream: crossfade it in */
    es_format fmt;             /* the engine's format */
    es_processor *proc;        /* or a new stream (first, block, source, more latency) */
    /* A swap's priming (req.prime): the plan and the buffer it fills, for
     * es_preparer_prime; or why it is not primed (an empty note and no
     * plan: nothing to prime, as for a new stream). */
    es_ringing *ringing;
    float **ringing_out;       /* [fmt.outputs] of es_ringing_frames */
    char prime_note[300];
    double took_ms;            /* how long the build took, whole */
    double room_ms, engine_ms; /* of which loading the room, building the engine */
    /* The first stream's: the names its room gives its ports (the native
     * JACK device registers them once, for the whole session). */
    es_port_names ports;
    /* A room of filter sets (a SOFA file, played by head orientation):
     * each set's pose and what varies between them, for the head tracker;
     * pose_count 0 for a room of one filter matrix. */
    es_sofa_pose *poses;
    int pose_count;
    es_sofa_varies pose_varies;
    /* --interp linear: the room's sets as they play (for the head
     * tracker's blender, which takes them), its engine (the blender loads
     * into it: blend_kept and blend_kept + 1 are kept for blends) and the
     * set it starts on; NULL: nearest sets only. */
    es_sofa *blend_heads;
    es_engine *blend_engine;
    int blend_kept, blend_first;
    /* A field room's order (ambisonic.h), turned by the head (0: none),
     * and its decoder in words. */
    int field_order;
    char field_decoder[200];
} es_prep_result;

typedef struct es_preparer es_preparer;

/* Takes the loader (its cache is the preparer's from now on). */
es_preparer *es_preparer_create(es_room_loader *rooms, double rate, char *err, size_t n);
/* Drops what waits, lets the job under way finish (its result dropped),
 * destroys what is queued for destruction and joins the thread, waiting
 * at most wait_s for it: 0 when it is gone. A thread still busy then (a
 * file on a hung network share, a GPU that does not answer) is left to
 * finish on its own: -1, and the preparer and the room loader it was
 * given must stay allocated, because it still uses them. Quitting never
 * waits on a slow preparation. NULL-safe (0). */
int es_preparer_destroy(es_preparer *p, double wait_s);

/* Replaces any request not yet started; supersedes one being built.
 * Returns the request's id. */
uint64_t es_preparer_submit(es_preparer *p, const es_prep_request *req);
/* The newest finished result, or NULL. The caller owns it (free it with
 * es_preparer_discard_result, which hands its parts to the thread). */
es_prep_result *es_preparer_take(es_preparer *p);
/* Waits for the result of request `id` for at most wait_s: the result, or
 * NULL (not finished in time, or superseded). For the first stream, which
 * nothing plays before. */
es_prep_result *es_preparer_wait(es_preparer *p, uint64_t id, double wait_s);
/* 1 while a request is waiting or being built; `what` says which. */
int es_preparer_busy(es_preparer *p, char *what, size_t n);

/* Destroyed on the preparer thread, never on the caller's. */
void es_preparer_discard_engine(es_preparer *p, es_engine *e);
void es_preparer_discard_processor(es_preparer *p, es_processor *proc);
void es_preparer_discard_file(es_preparer *p, es_file_source *file);
void es_preparer_discard_result(es_preparer *p, es_prep_result *r);

/* Primes swap `ticket`'s engine (history.h): once the processor adopted
 * it, reads what the stream heard before, runs `plan` into `out` (the
 * buffer the swap was given) and says so to the processor; frees them
 * once it let go. Takes history (a reference), plan and out (outputs
 * buffers). Ahead of any other job: the engine runs unheard until then. */
void es_preparer_prime(es_preparer *p, es_history *history, uint64_t ticket, es_ringing *plan,
                       float **out, int outputs);

/* 1 when es_preparer_prime has room for one more (only the session adds
 * them, so the answer holds until it does). */
int es_preparer_can_prime(es_preparer *p);

/* What a priming came to. */
typedef struct {
    uint64_t ticket;
    int ok;                    /* 1 primed; 0 not, why says why */
    double ms;                 /* from es_preparer_prime to the ringing in place */
    double heard_s;            /* seconds of input it was primed on */
    char why[200];
} es_prime_report;
/* The oldest report not yet taken into *out (1), or 0. */
int es_preparer_take_primed(es_preparer *p, es_prime_report *out);

/* Room measurements for the screen: queued, measured in turn. A library
 * room as prepared for playing; a file room (ES_ROOMS_FILE) as the file
 * plays, unnormalised. The result names the room and its file. The
 * channel measured is the first that sounds from `from` on (from 0),
 * going `step` (1 or -1) way and round. */
void es_preparer_measure(es_preparer *p, const es_room *room, int from, int step);
/* A finished measurement into *out (1), or 0 when none is waiting. */
int es_preparer_take_measurement(es_preparer *p, es_room_info *out);

/* The library is read again: when asked, and by itself when a manifest
 * changed (looked at about once a second, while the thread is idle). The
 * loader takes the new library on this thread, between jobs, so nothing
 * it is using changes under it; the session takes a copy (a rescan is done
 * before any change submitted after it). */
void es_preparer_rescan(es_preparer *p);
/* The newest library read again, or NULL. The caller owns it:
 * es_library_close, then free. */
es_library *es_preparer_take_rescan(es_preparer *p);

#endif
