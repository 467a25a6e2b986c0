/* Watching what the stream reports, once a poll: an engine that failed (a
 * GPU error: its CPU fallback is built) or whose output went non-finite
 * (built again, the same), a split engine's late shard, an engine that
 * cannot keep up, the sound's safety (safety.h): samples silenced on the
 * way in or out, and a runaway that muted the output; a device that
 * stalls or is lost, and a file source that stopped. Each is said once, or
 * at most once a second.
 *
 * The watch (watch.h) keeps what the polls need between them: the
 * stream's clock, the counts said and when, the room playing. Its fields
 * are this file's; the lines said once are the message log's memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "processor.h"
#include "session_private.h"

#define SAY_EVERY_S 1.0 /* a count that keeps rising is said at most this often */
/* No callback for this long, or for STALL_PERIODS of the stream's own
 * periods when they are longer (8192 frames at 8 kHz is a second a block,
 * and each one quiet but on time): the device is in trouble. */
#define STALL_SECONDS 1.0
#define STALL_PERIODS 3
#define LOST_SECONDS 5.0  /* stalled this long with the host still saying it runs: lost */

/* The lines the watch says once, as the message log's topics. */
enum {
    ONCE_SOURCE,               /* the file source stopped */
    ONCE_PAUSED,               /* the device's host is paused, not gone */
    ONCE_SLOW,                 /* + the slot: its engine cannot keep up (about its generation) */
    ONCE_TOPICS = ONCE_SLOW + ES_AB_SLOTS
};
_Static_assert(ONCE_TOPICS <= ES_MESSAGE_TOPICS, "the watch's once-lines fit the log");

static double now_s(void)
{
    return 1e-9 * (double)es_now_ns();
}

/* ---- the stream's clock ---- */

void es_watch_start(es_watch *w, uint64_t xruns)
{
    clock_gettime(CLOCK_MONOTONIC, &w->started);
    w->since = w->progress_at = w->started;
    w->xruns_base = xruns;
}

int es_watch_started(const es_watch *w)
{
    return w->started.tv_sec || w->started.tv_nsec;
}

void es_watch_count_from_now(es_watch *w)
{
    clock_gettime(CLOCK_MONOTONIC, &w->since);
}

void es_watch_reset_meters(es_watch *w, uint64_t xruns)
{
    clock_gettime(CLOCK_MONOTONIC, &w->since);
    w->xruns_base = xruns;
}

void es_watch_stop(es_watch *w)
{
    clock_gettime(CLOCK_MONOTONIC, &w->stopped);
}

void es_watch_times(const es_watch *w, int stopped, double *elapsed, double *counted)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const struct timespec *end = stopped ? &w->stopped : &now;
    *elapsed = es_seconds_between(&w->started, end);
    *counted = es_seconds_between(&w->since, end);
}

uint64_t es_watch_xruns(const es_watch *w, uint64_t xruns)
{
    return xruns >= w->xruns_base ? xruns - w->xruns_base : xruns;
}

int es_watch_progress(es_watch *w, uint64_t blocks, const struct timespec *now, double *quiet)
{
    if (blocks != w->progress_blocks) {
        w->progress_blocks = blocks;
        w->progress_at = *now;
        return 1;
    }
    *quiet = es_seconds_between(&w->progress_at, now);
    return 0;
}

double es_watch_played(const es_watch *w)
{
    return es_seconds_between(&w->started, &w->progress_at);
}

/* ---- the engine ---- */

/* A shard of a split engine that falls behind is named by its GPU in the
 * log, at most once a second, with its late blocks so far. A new instance
 * counts from 0 again. */
static void say_late_shards(es_watch *w, es_message_log *log, const es_stats *st)
{
    const double now = now_s();
    const int quiet = now - w->shard_at < SAY_EVERY_S;
    for (int k = 0; k < st->shards; k++) {
        const uint64_t late = st->shard[k].late;
        if (late < w->shard_late[k])
            w->shard_late[k] = 0;
        if (late == w->shard_late[k] || quiet)
            continue;
        es_message_log_sayf(log, 1, "%s: GPU %d (shard %d of %d, outputs %d-%d) late: %llu "
                            "blocks so far", st->engine, st->shard[k].device, k + 1,
                            st->shards, st->shard[k].first_output + 1,
                            st->shard[k].first_output + st->shard[k].outputs,
                            (unsigned long long)late);
        w->shard_late[k] = late;
        w->shard_at = now;
    }
}

/* An engine that cannot keep up with its room (cpu-direct on a cathedral:
 * p99 119 %, hundreds of misses): said once per slot as it plays (about
 * the slot's generation: a slot that holds something new may be said
 * again), with the engine made for long rooms at small blocks, or a
 * larger block. */
#define SLOW_AFTER_S 2.0
#define SLOW_MISSES 10
static void watch_keeping_up(es_session *s)
{
    const es_live_snapshot *snap = &s->snap;
    const int k = snap->playing_slot;
    if (k < 0 || k >= ES_AB_SLOTS)
        return;
    const es_live_slot *sl = &snap->slot[k];
    if (!sl->set || sl->seconds < SLOW_AFTER_S || sl->stats.misses < SLOW_MISSES ||
        sl->load_p99 < 1.0 || !es_message_log_once(&s->log, ONCE_SLOW + k, sl->generation + 1))
        return;
    const char *room = strrchr(sl->spec.room, '/') ? strrchr(sl->spec.room, '/') + 1
                                                   : sl->spec.room;
    char better[160] = "a larger block ([ ]) gives each block more time";
    for (int i = 0; i < snap->engine_count; i++) {
        const es_live_engine *e = &snap->engines[i];
        if (e->usable && e->engine != sl->spec.engine && !strcmp(e->engine->name, "cpu-nonuniform"))
            snprintf(better, sizeof better, "cpu-nonuniform (key %d), made for long rooms at "
                     "small blocks, plays them for a few percent; or a larger block ([ ])",
                     i + 1);
    }
    es_session_sayf(s, 1, "%s cannot keep up with %s: %llu misses, p99 %.0f %% of each "
                    "block's time; %s", sl->spec.engine->name, room,
                    (unsigned long long)sl->stats.misses, 100 * sl->load_p99, better);
}

/* A failed engine (a GPU error): the preparer builds its CPU fallback for
 * the same room. An engine whose output went non-finite: built again, the
 * same (its history holds the fault for as long as its room). Either
 * crossfades in like any change, asked once per failure (the state
 * machine's FALLBACK and FELL_BACK). */
void es_session_watch_engine(es_session *s, const es_stats *st)
{
    say_late_shards(&s->watch, &s->log, st);
    watch_keeping_up(s);
    if (!st->engine_failed && !st->engine_broken) {
        es_session_event(s, ES_EV_ENGINE_FINE);
        return;
    }
    if (!es_live_allows(s->state, ES_DO_FALLBACK))
        return;
    char what[160];
    if (st->engine_failed) {
        const es_engine_class *k = es_engine_fallback(st->engine);
        es_session_sayf(s, 1, "%s failed (%s); switching to %s, same room", st->engine,
                        st->engine_error, k->name);
        s->target.engine = k;
        snprintf(what, sizeof what, "engine %s (fallback)", k->name);
    } else {
        es_session_sayf(s, 1, "%s: its output went non-finite; it is muted and built again",
                        st->engine);
        snprintf(what, sizeof what, "engine %s (built again)", s->target.engine->name);
    }
    es_session_submit(s, what, 1, 1);
}

/* ---- the sound's safety ---- */

/* A count that rose since it was last said: said now, or once a second. */
static int due(uint64_t now, uint64_t *said, double *said_at)
{
    const double t = now_s();
    if (now < *said)
        *said = 0; /* the meters were reset */
    if (now == *said || t - *said_at < SAY_EVERY_S)
        return 0;
    *said = now;
    *said_at = t;
    return 1;
}

/* Samples silenced on the way in or out, said as their counts rise. */
static void say_silenced(es_watch *w, es_message_log *log, const es_stats *st)
{
    if (due(st->bad_input, &w->bad_input, &w->bad_input_at))
        es_message_log_sayf(log, 1, "input: %llu samples so far were not numbers (NaN, "
                            "infinity) or beyond +60 dBFS: played as silence",
                            (unsigned long long)st->bad_input);
    if (due(st->bad_output, &w->bad_output, &w->bad_output_at))
        es_message_log_sayf(log, 1, "output: %llu samples so far were not numbers: sent as "
                            "silence", (unsigned long long)st->bad_output);
}

/* A room that trips the runaway detector within this long of beginning to
 * play, while its input stays below LOOP_INPUT_DB, is taken for loud, not
 * for a loop: a user's hot IR played raw, a library room with a
 * manifest's gain. A loop brings the output back to the input, so its
 * input climbs to full scale with it (a microphone's converter clips
 * there), or it swells (the detector's swell); and a loop turned down by
 * less than its excess still climbs and trips again, muted then. */
#define LOUD_ROOM_S 10.0
#define LOOP_INPUT_DB -1.0
/* A loud room is turned down until its peak would have been this. */
#define LOUD_ROOM_PEAK_DB -6.0
/* ... and played again once the lower level has ramped in (the levels'
 * ramp is ES_MIX_RAMP_MS; unmuted during it, the room's next block
 * could still be over and trip the detector again). */
#define LOUD_ROOM_UNMUTE_S 0.2

void es_watch_room_began(es_watch *w, double loud_db)
{
    w->room_at = now_s();
    w->room_loud_db = loud_db;
    w->turned_down = 0;
}

/* 1 when the muted output has a runaway the watch has not seen. */
static int new_runaway(es_watch *w, const es_stats *st)
{
    if (st->muted != 1 || w->runaways == st->runaways)
        return 0;
    w->runaways = st->runaways;
    return 1;
}

/* The level (dB) a runaway that is a loud room turns the output down to,
 * from `gain`, and the line that says so (the room named `room`); NAN
 * when it is a loop, to stay muted. Once a room. */
static double loud_room_level(es_watch *w, const es_stats *st, float gain, const char *room,
                              char *line, size_t n)
{
    if (w->turned_down || st->runaway_swelled || !isfinite(st->runaway_peak) ||
        !(st->runaway_peak > 0) || now_s() - w->room_at > LOUD_ROOM_S ||
        !(st->runaway_in_peak < es_db_to_gain(LOOP_INPUT_DB)))
        return NAN;
    /* Down by what it was over, or by what it is louder than a levelled
     * room (the first block over may be the first of a louder passage),
     * whichever is more. */
    const double peak_db = 20 * log10(st->runaway_peak);
    const double over_db = fmax(peak_db - LOUD_ROOM_PEAK_DB, w->room_loud_db);
    const double was_db = gain > 0 ? 20 * log10(gain) : -INFINITY;
    const double to_db = floor(was_db - over_db);
    if (!isfinite(to_db) || to_db < ES_LEVEL_DB_MIN)
        return NAN;
    w->turned_down = 1;
    char loud[64] = "";
    if (w->room_loud_db > 0)
        snprintf(loud, sizeof loud, " (%+.1f dB against a levelled room)", w->room_loud_db);
    snprintf(line, n, "room %s is loud%s: it peaked at %+.1f dBFS; earshot turned the output "
             "down to %+.0f dB, not a feedback loop (- + or `gain` set it)", room, loud,
             peak_db, to_db);
    return to_db;
}

/* The loud room's lower level ramps in before it plays again. */
static void unmute_later(es_watch *w)
{
    w->unmute_at = now_s() + LOUD_ROOM_UNMUTE_S;
}

/* 1 when a loud room's lower level is in: the output plays again. */
static int unmute_due(es_watch *w)
{
    if (!(w->unmute_at > 0) || now_s() < w->unmute_at)
        return 0;
    w->unmute_at = 0;
    return 1;
}

/* A runaway that is a loud room: turned down by what it was over, and
 * played again. 1 when it was that; 0 to mute and call it a loop. */
static int turn_down_loud_room(es_session *s, const es_stats *st)
{
    char line[1400];
    const double to_db = loud_room_level(&s->watch, st, s->pc.mix.gain, s->playing.room, line,
                                         sizeof line);
    if (isnan(to_db))
        return 0;
    es_session_sayf(s, 1, "%s", line);
    if (es_session_set_mix(s, ES_MIX_GAIN, &(es_mix){.gain = (float)es_db_to_gain(to_db)}) != 0)
        return 0;
    unmute_later(&s->watch);
    return 1;
}

void es_session_watch_safety(es_session *s, const es_stats *st)
{
    say_silenced(&s->watch, &s->log, st);
    if (unmute_due(&s->watch) && st->muted == 1)
        es_session_unmute(s);
    if (new_runaway(&s->watch, st) && !turn_down_loud_room(s, st))
        es_session_sayf(s, 1, "runaway: %s (a feedback loop?); the output is muted: ! or "
                        "`unmute` plays again",
                        st->mute_why ? st->mute_why : "the output ran away");
}

/* ---- the device ---- */

/* How long the stream may deliver nothing before it is called stalled:
 * STALL_SECONDS, or STALL_PERIODS of its period or block if longer. */
static double stall_seconds(const es_session *s)
{
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const int frames = lp.period > s->playing.block ? lp.period : s->playing.block;
    return fmax(STALL_SECONDS, STALL_PERIODS * (double)frames / s->cfg.rate);
}

/* The stream delivers no blocks: said once when it stops, once when it
 * comes back. A stream whose host API says it stopped (PortAudio's
 * stream-finished callback, Pa_IsStreamActive), or that stalls for
 * LOST_SECONDS, is lost: it is left alone from then on, because asking a
 * dead server to stop or reopen can hang, abort or fail with a misleading
 * error inside the host API. A device whose host is paused, not gone
 * (es_device_paused: a JACK server stopped with SIGSTOP still holds
 * earshot's client and ports), is waited for however long it pauses. */
void es_session_watch_device(es_session *s, const es_stats *st, const struct timespec *now)
{
    if (!es_live_allows(s->state, ES_DO_WATCH))
        return;
    double quiet;
    if (es_watch_progress(&s->watch, st->blocks, now, &quiet)) {
        if (s->state.stream == ES_STREAM_STALLED)
            es_session_sayf(s, 0, "device %s: audio running again",
                            es_player_device(s->player));
        es_session_event(s, ES_EV_BLOCKS);
        return;
    }
    const double stall = stall_seconds(s);
    if (quiet <= stall)
        return;
    if (s->state.stream == ES_STREAM_PLAYING) {
        es_session_sayf(s, 1, "device %s: no audio for %.3g s (device lost or stalled)",
                        es_player_device(s->player), stall);
        es_session_event(s, ES_EV_QUIET);
        es_message_log_forget(&s->log, ONCE_PAUSED);
    }
    const int active = es_player_device_active(s->player);
    const int lost_after = quiet > fmax(LOST_SECONDS, 2 * stall);
    if (active && lost_after && es_player_device_paused(s->player)) {
        if (es_message_log_once(&s->log, ONCE_PAUSED, 1))
            es_session_sayf(s, 1, "device %s: its server has not called for %.0f s but still "
                            "holds earshot's ports (paused?): waiting for it; q quits",
                            es_player_device(s->player), quiet);
        return;
    }
    if (!active || lost_after) {
        es_session_sayf(s, 1, "device lost: %s %s; the meters show the %.1f s before it; "
                        "q quits", es_player_device(s->player),
                        active ? "has delivered no audio for 5 s"
                               : "stopped (its host API ended the stream)",
                        es_watch_played(&s->watch));
        es_player_abandon_device(s->player);
        es_session_event(s, ES_EV_GONE);
    }
}

/* ---- the file source ---- */

/* The file source stopped (a read error): said once a source. */
void es_session_watch_source(es_session *s)
{
    es_file_source *file = s->file;
    if (file && es_file_source_error(file)[0] && es_message_log_once(&s->log, ONCE_SOURCE, 1))
        es_session_sayf(s, 1, "input stopped: %s", es_file_source_error(file));
}

void es_session_watch_new_source(es_session *s)
{
    es_message_log_forget(&s->log, ONCE_SOURCE);
}
