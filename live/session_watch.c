/* Watching what the stream reports, once a poll: an engine that failed (a
 * GPU error: its CPU fallback is built) or whose output went non-finite
 * (built again, the same), a split engine's late shard, the sound's
 * safety (safety.h): samples silenced on the way in or out, and a runaway
 * that muted the output; a device that stalls or is lost, a latency probe
 * that finished (and its start, asked by a person), and a file source
 * that stopped. Each is said once, or at most once a second. */
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
/* A round-trip measurement: ES_PROBE_CLICKS clicks over this long, each
 * heard in its own window (0.5 s: the longest round trip measured). */
#define PROBE_SECONDS 2.5
#define LOST_SECONDS 5.0  /* stalled this long with the host still saying it runs: lost */

/* A shard of a split engine that falls behind is named by its GPU in the
 * log, at most once a second, with its late blocks so far. A new instance
 * counts from 0 again. */
static void watch_shards(es_session *s, const es_stats *st)
{
    const double now = 1e-9 * (double)es_now_ns();
    const int quiet = now - s->shard_said_at < SAY_EVERY_S;
    for (int k = 0; k < st->shards; k++) {
        const uint64_t late = st->shard[k].late;
        if (late < s->shard_said[k])
            s->shard_said[k] = 0;
        if (late == s->shard_said[k] || quiet)
            continue;
        es_session_sayf(s, 1, "%s: GPU %d (shard %d of %d, outputs %d-%d) late: %llu blocks so far",
                        st->engine, st->shard[k].device, k + 1, st->shards,
                        st->shard[k].first_output + 1,
                        st->shard[k].first_output + st->shard[k].outputs,
                        (unsigned long long)late);
        s->shard_said[k] = late;
        s->shard_said_at = now;
    }
}

/* An engine that cannot keep up with its room (cpu-direct on a cathedral:
 * p99 119 %, hundreds of misses): said once per slot as it plays, with
 * the engine made for long rooms at small blocks, or a larger block. */
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
        sl->load_p99 < 1.0 || s->slow_said[k] == sl->generation + 1)
        return;
    s->slow_said[k] = sl->generation + 1;
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
    watch_shards(s, st);
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

/* A count that rose since it was last said: said now, or once a second. */
static int due(uint64_t now, uint64_t *said, double *said_at)
{
    const double t = 1e-9 * (double)es_now_ns();
    if (now < *said)
        *said = 0; /* the meters were reset */
    if (now == *said || t - *said_at < SAY_EVERY_S)
        return 0;
    *said = now;
    *said_at = t;
    return 1;
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

void es_session_watch_room_began(es_session *s, double loud_db)
{
    s->safety.room_at = 1e-9 * (double)es_now_ns();
    s->safety.room_loud_db = loud_db;
    s->safety.turned_down = 0;
}

/* A runaway that is a loud room: turned down by what it was over, and
 * played again. 1 when it was that; 0 to mute and call it a loop. */
static int turn_down_loud_room(es_session *s, const es_stats *st)
{
    es_safety_watch *w = &s->safety;
    const double now = 1e-9 * (double)es_now_ns();
    if (w->turned_down || st->runaway_swelled || !isfinite(st->runaway_peak) ||
        !(st->runaway_peak > 0) || now - w->room_at > LOUD_ROOM_S ||
        !(st->runaway_in_peak < es_db_to_gain(LOOP_INPUT_DB)))
        return 0;
    /* Down by what it was over, or by what it is louder than a levelled
     * room (the first block over may be the first of a louder passage),
     * whichever is more. */
    const double peak_db = 20 * log10(st->runaway_peak);
    const double over_db = fmax(peak_db - LOUD_ROOM_PEAK_DB, w->room_loud_db);
    const double was_db = s->pc.mix.gain > 0 ? 20 * log10(s->pc.mix.gain) : -INFINITY;
    const double to_db = floor(was_db - over_db);
    if (!isfinite(to_db) || to_db < ES_LEVEL_DB_MIN)
        return 0;
    w->turned_down = 1;
    char loud[64] = "";
    if (w->room_loud_db > 0)
        snprintf(loud, sizeof loud, " (%+.1f dB against a levelled room)", w->room_loud_db);
    es_session_sayf(s, 1, "room %s is loud%s: it peaked at %+.1f dBFS; earshot turned the "
                    "output down to %+.0f dB, not a feedback loop (- + or `gain` set it)",
                    s->playing.room, loud, peak_db, to_db);
    if (es_session_set_mix(s, ES_MIX_GAIN, &(es_mix){.gain = (float)es_db_to_gain(to_db)}) != 0)
        return 0;
    w->unmute_at = now + LOUD_ROOM_UNMUTE_S;
    return 1;
}

void es_session_watch_safety(es_session *s, const es_stats *st)
{
    es_safety_watch *w = &s->safety;
    if (due(st->bad_input, &w->bad_input, &w->bad_input_at))
        es_session_sayf(s, 1, "input: %llu samples so far were not numbers (NaN, infinity) or "
                        "beyond +60 dBFS: played as silence",
                        (unsigned long long)st->bad_input);
    if (due(st->bad_output, &w->bad_output, &w->bad_output_at))
        es_session_sayf(s, 1, "output: %llu samples so far were not numbers: sent as silence",
                        (unsigned long long)st->bad_output);
    if (w->unmute_at > 0 && 1e-9 * (double)es_now_ns() >= w->unmute_at) {
        w->unmute_at = 0;
        if (st->muted == 1)
            es_session_unmute(s);
    }
    if (st->muted == 1 && w->runaways != st->runaways) {
        w->runaways = st->runaways;
        if (!turn_down_loud_room(s, st))
            es_session_sayf(s, 1, "runaway: %s (a feedback loop?); the output is muted: ! or "
                            "`unmute` plays again",
                            st->mute_why ? st->mute_why : "the output ran away");
    }
}

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
    if (st->blocks != s->progress_blocks) {
        if (s->state.stream == ES_STREAM_STALLED)
            es_session_sayf(s, 0, "device %s: audio running again",
                            es_player_device(s->player));
        es_session_event(s, ES_EV_BLOCKS);
        s->progress_blocks = st->blocks;
        s->progress_at = *now;
        return;
    }
    const double quiet = es_seconds_between(&s->progress_at, now), stall = stall_seconds(s);
    if (quiet <= stall)
        return;
    if (s->state.stream == ES_STREAM_PLAYING) {
        es_session_sayf(s, 1, "device %s: no audio for %.3g s (device lost or stalled)",
                        es_player_device(s->player), stall);
        es_session_event(s, ES_EV_QUIET);
        s->paused_said = 0;
    }
    const int active = es_player_device_active(s->player);
    const int lost_after = quiet > fmax(LOST_SECONDS, 2 * stall);
    if (active && lost_after && es_player_device_paused(s->player)) {
        if (!s->paused_said)
            es_session_sayf(s, 1, "device %s: its server has not called for %.0f s but still "
                            "holds earshot's ports (paused?): waiting for it; q quits",
                            es_player_device(s->player), quiet);
        s->paused_said = 1;
        return;
    }
    if (!active || lost_after) {
        es_session_sayf(s, 1, "device lost: %s %s; the meters show the %.1f s before it; "
                        "q quits", es_player_device(s->player),
                        active ? "has delivered no audio for 5 s"
                               : "stopped (its host API ended the stream)",
                        es_seconds_between(&s->started, &s->progress_at));
        es_player_abandon_device(s->player);
        es_session_event(s, ES_EV_GONE);
    }
}

const char *es_session_probe_refused(const es_session *s)
{
    if (es_live_allows(s->state, ES_DO_PROBE))
        return NULL;
    return s->state.stream == ES_STREAM_LOST      ? "the device is lost"
           : s->state.probe == ES_PROBE_RUNNING ? "a measurement is under way"
                                                : "the session has stopped";
}

int es_session_measure_latency(es_session *s)
{
    char why[256];
    const char *refused = es_session_probe_refused(s);
    if (refused) {
        es_session_sayf(s, 1, "latency: %s", refused);
        return -1;
    }
    if (es_player_probe_start(s->player, PROBE_SECONDS, why, sizeof why) != 0) {
        es_session_sayf(s, 1, "latency: %s", why);
        return -1;
    }
    es_session_event(s, ES_EV_PROBE_STARTED);
    return 0;
}

void es_session_watch_probe(es_session *s)
{
    es_probe_result r;
    if (s->state.probe != ES_PROBE_RUNNING || s->measure ||
        !es_player_probe_poll(s->player, &r))
        return;
    es_session_event(s, ES_EV_PROBE_DONE);
    s->probes++;
    s->probe_frames = r.frames;
    s->probe = r;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const int computed = lp.round_trip;
    char got[160], parts[200];
    es_round_trip_text(&lp, parts, sizeof parts);
    if (r.heard == 0)
        snprintf(got, sizeof got, "no click came back within %.1f s: is the output looped to "
                 "the input?", r.window / s->cfg.rate);
    else if (r.frames < 0 && r.heard < r.clicks)
        snprintf(got, sizeof got, "%d of %d clicks came back (%d to %d fr): the loop drops "
                 "sound; no figure", r.heard, r.clicks, r.low, r.high);
    else if (r.frames < 0)
        snprintf(got, sizeof got, "the %d clicks disagree (%d to %d fr): no figure", r.clicks,
                 r.low, r.high);
    if (r.frames < 0 && !lp.known)
        es_session_sayf(s, 1, "latency: %s (computed: %s)", got, lp.note);
    else if (r.frames < 0)
        es_session_sayf(s, 1, "latency: %s (computed %d frames: %s)", got, computed, parts);
    else if (!lp.known)
        es_session_sayf(s, 0, "latency measured %d fr (%d clicks, %d to %d); computed: %s",
                        r.frames, r.clicks, r.low, r.high, lp.note);
    else
        es_session_sayf(s, 0, "latency measured %d fr (%.2f ms; %d clicks, %d to %d fr), "
                        "computed %d fr (%s; the engine adds %d)", r.frames,
                        1e3 * r.frames / s->cfg.rate, r.clicks, r.low, r.high, computed, parts,
                        lp.engine);
}

/* The file source stopped (a read error): said once. */
void es_session_watch_source(es_session *s)
{
    if (s->file && !s->source_said && es_file_source_error(s->file)[0]) {
        es_session_sayf(s, 1, "input stopped: %s", es_file_source_error(s->file));
        s->source_said = 1;
    }
}
