/* What the session's polls watch, and what the watch keeps between them
 * (internal to live/): the stream's clock (when it started, when the
 * meters count from, when it stopped, when the last block came), the
 * counts it said and when it said them (a count that keeps rising is said
 * at most once a second), and the room playing, for a runaway soon after
 * it began. session_watch.c watches with it: the engine, its shards, the
 * sound's safety, the device and the file source. The lines said once are
 * the message log's to remember (messages.h). */
#ifndef ES_WATCH_H
#define ES_WATCH_H

#include <stdint.h>
#include <time.h>

#include "engine_gpu.h"

typedef struct {
    /* The stream's clock (CLOCK_MONOTONIC). */
    struct timespec started;   /* the device started; zero: it never did */
    struct timespec since;     /* the meters count from here (a reset, a reopen) */
    struct timespec stopped;   /* the stream stopped */
    struct timespec progress_at; /* the last poll that saw a new block */
    uint64_t progress_blocks;  /* the blocks counted then */
    uint64_t xruns_base;       /* the device's count at the last meter reset */

    /* Counts already said, and when (seconds on es_now's clock). */
    uint64_t shard_late[ES_GPUS_MAX]; /* a split engine's late blocks */
    double shard_at;
    uint64_t bad_input, bad_output, runaways;
    double bad_input_at, bad_output_at;

    /* The room playing (a runaway soon after it began is a loud room). */
    double room_at;            /* when it began to play */
    double room_loud_db;       /* how much louder than a levelled room it plays */
    int turned_down;           /* it was turned down once for being loud */
    double unmute_at;          /* then played again once the lower level is in (0: not) */
} es_watch;

/* ---- the stream's clock ---- */

/* The device started now: the clock, the meters and the device's progress
 * count from here; `xruns` is the device's count now. */
void es_watch_start(es_watch *w, uint64_t xruns);
/* 1 once the device started. */
int es_watch_started(const es_watch *w);
/* The stream reopened: the meters count from now. */
void es_watch_count_from_now(es_watch *w);
/* The meters were reset: they count from now, the device's over/underruns
 * from `xruns`. */
void es_watch_reset_meters(es_watch *w, uint64_t xruns);
void es_watch_stop(es_watch *w);
/* Seconds since the start and since the meters' start, up to now or, once
 * `stopped`, to the stop. */
void es_watch_times(const es_watch *w, int stopped, double *elapsed, double *counted);
/* The device's over/underruns since the meters' start, of `xruns` now. */
uint64_t es_watch_xruns(const es_watch *w, uint64_t xruns);

/* ---- the device ---- */

/* 1 when the stream counted new blocks since the last look (noted at
 * `now`); else 0, and for how long it has been quiet in *quiet. */
int es_watch_progress(es_watch *w, uint64_t blocks, const struct timespec *now, double *quiet);
/* Seconds from the start to the last block. */
double es_watch_played(const es_watch *w);

/* ---- the room playing ---- */

/* A room (or its level) began to play: a runaway soon after is the room's
 * loudness before it is a loop. */
void es_watch_room_began(es_watch *w, double loud_db);

#endif
