/* The session's preparer: one thread that does every slow thing a change
 * needs (loading, resampling and laying out a room, opening an input file,
 * building an engine, with its FFT planning or GPU set-up, and a new
 * processor) and measures rooms for the screen, so that the thread that
 * draws and reads keys never waits on any of it. It also destroys what
 * the stream let go of (retired engines, old processors and rooms).
 *
 * One request is built at a time. A request submitted while another waits
 * replaces it, and a result whose request was superseded while it was
 * being built is dropped: only the latest thing a person asked for plays.
 * Internal to live/. */
#ifndef ES_PREPARER_H
#define ES_PREPARER_H

#include <stdint.h>

#include "file_source.h"
#include "processor.h"
#include "room_loader.h"
#include "session.h"

/* What the stream should play, and what plays now (to tell a crossfade
 * from a new stream). */
typedef struct {
    uint64_t id;
    char what[256];            /* the change in words: "room cathedral" */
    char room[1024];
    const es_engine_class *engine;
    es_options options;
    int block;
    es_source_kind source;
    const char *file;          /* the file source's path (the session's, stable) */
    int fallback;              /* replacing a failed engine */
    int ab;                    /* the A/B slot it is for (pc.ab too) */
    /* the stream now */
    double rate;
    int inputs, outputs, latency, block_now;
    es_source_kind source_now;
    es_processor_config pc;    /* for a new processor */
} es_prep_request;

typedef struct {
    es_prep_request req;
    char err[768];             /* empty when it was built */
    char note[300];            /* a line worth saying (gain, resampling), or "" */
    es_ir *ir;
    int inputs;
    es_file_source *file;      /* the new source's reader (source changed to a file) */
    es_engine *engine;         /* fits the stream: crossfade it in */
    es_format fmt;             /* the engine's format */
    es_processor *proc;        /* or a new stream (block, source, more latency) */
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

/* Replaces any request not yet started; supersedes one being built. */
void es_preparer_submit(es_preparer *p, const es_prep_request *req);
/* The newest finished result, or NULL. The caller owns it (free it with
 * es_preparer_discard_result, which hands its parts to the thread). */
es_prep_result *es_preparer_take(es_preparer *p);
/* 1 while a request is waiting or being built; `what` says which. */
int es_preparer_busy(es_preparer *p, char *what, size_t n);

/* Destroyed on the preparer thread, never on the caller's. */
void es_preparer_discard_engine(es_preparer *p, es_engine *e);
void es_preparer_discard_processor(es_preparer *p, es_processor *proc);
void es_preparer_discard_ir(es_preparer *p, es_ir *ir);
void es_preparer_discard_result(es_preparer *p, es_prep_result *r);

/* Room measurements for the screen: queued, measured in turn. A library
 * room as prepared for playing; a file room (ES_ROOMS_FILE) as the file
 * plays, unnormalised. The result names the room and its file. */
void es_preparer_measure(es_preparer *p, const es_room *room);
/* A finished measurement into *out (1), or 0 when none is waiting. */
int es_preparer_take_measurement(es_preparer *p, es_room_info *out);

/* The library is read again: when asked, and by itself when a manifest
 * changed (looked at about once a second, while the thread is idle). The
 * loader takes the new library on this thread, between jobs, so nothing
 * it is using changes under it; the session takes a copy (a rescan is done
 * before any change submitted after it). */
void es_preparer_rescan(es_preparer *p);
/* The newest library read again, or NULL; *asked: 1 when es_preparer_rescan
 * asked for it. The caller owns it: es_library_close, then free. */
es_library *es_preparer_take_rescan(es_preparer *p, int *asked);

#endif
