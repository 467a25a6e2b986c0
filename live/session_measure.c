/* Measurements through the session's stream, one at a time (the state
 * machine's probe): the latency probe's round trip (session.h's
 * es_session_measure_latency), and a room measured by sweep
 * (es_session_measure_room): the sweeps moved on by each poll, and the
 * room, once saved, played in slot B with A left as it was.
 *
 * What they keep between polls is the measurements' own (measuring.h):
 * the es_measuring functions here are the only ones that touch it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "session_private.h"

/* A round-trip measurement: ES_PROBE_CLICKS clicks over this long, each
 * heard in its own window (0.5 s: the longest round trip measured). */
#define PROBE_SECONDS 2.5
/* The room saved, waiting for the library's rescan to list it: played in
 * slot B by its name once the list has it (by its file after this long
 * without). */
#define LISTED_WAIT_S 3.0

/* ---- what the measurements keep ---- */

void es_measuring_probe_done(es_measuring *m, const es_probe_result *r)
{
    m->probes++;
    m->probe = *r;
}

void es_measuring_room_started(es_measuring *m, es_room_measure *room)
{
    m->room = room;
    m->result_valid = 0;
}

es_room_measure *es_measuring_room(const es_measuring *m)
{
    return m->room;
}

void es_measuring_room_ended(es_measuring *m)
{
    m->result = *es_room_measure_result(m->room);
    m->result_valid = 1;
    m->ended++;
    es_room_measure_free(m->room);
    m->room = NULL;
}

void es_measuring_room_lost(es_measuring *m, const char *line)
{
    es_room_measure_free(m->room);
    m->room = NULL;
    m->result = (es_measure_result){.retry_level_db = NAN};
    snprintf(m->result.line, sizeof m->result.line, "%s", line);
    m->result_valid = 1;
    m->ended++;
}

int es_measuring_room_dropped(es_measuring *m)
{
    if (!m->room)
        return 0;
    es_room_measure_free(m->room);
    m->room = NULL;
    return 1;
}

const es_measure_result *es_measuring_result(const es_measuring *m)
{
    return m->result_valid ? &m->result : NULL;
}

void es_measuring_wait_for_list(es_measuring *m, double elapsed)
{
    m->for_b = 1;
    m->saved_at = elapsed;
}

const char *es_measuring_waiting(const es_measuring *m)
{
    return m->for_b ? m->result.name : NULL;
}

const char *es_measuring_for_b(es_measuring *m, int listed, double elapsed, double wait_s)
{
    if (!m->for_b || (!listed && elapsed < m->saved_at + wait_s))
        return NULL;
    m->for_b = 0;
    return listed ? m->result.name : m->result.path;
}

void es_measuring_view(const es_measuring *m, int probe_running, es_live_snapshot *snap)
{
    snap->probing = probe_running && !m->room;
    snap->measuring = m->room != NULL;
    snap->measures_ended = m->ended;
    if (m->result_valid) {
        snap->measure_saved = m->result.saved;
        snap->measure_retry_db = m->result.retry_level_db;
        snprintf(snap->measure_line, sizeof snap->measure_line, "%s", m->result.line);
    }
    if (m->room)
        es_room_measure_progress(m->room, &snap->measure_pass, &snap->measure_passes,
                                 &snap->measure_share);
    snap->probes = m->probes;
    snap->probe_frames = m->probe.frames;
    snap->probe_low = m->probe.low;
    snap->probe_high = m->probe.high;
    snap->probe_heard = m->probe.heard;
    snap->probe_clicks = m->probe.clicks;
}

/* ---- one at a time ---- */

const char *es_session_probe_refused(const es_session *s)
{
    if (es_live_allows(s->state, ES_DO_PROBE))
        return NULL;
    return s->state.stream == ES_STREAM_LOST      ? "the device is lost"
           : s->state.probe == ES_PROBE_RUNNING ? "a measurement is under way"
                                                : "the session has stopped";
}

/* ---- the latency probe ---- */

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

/* What a probe that gave no figure heard, in words. */
static void no_figure(const es_probe_result *r, double rate, char *got, size_t n)
{
    if (r->heard == 0)
        snprintf(got, n, "no click came back within %.1f s: is the output looped to the "
                 "input?", r->window / rate);
    else if (r->heard < r->clicks)
        snprintf(got, n, "%d of %d clicks came back (%d to %d fr): the loop drops sound; no "
                 "figure", r->heard, r->clicks, r->low, r->high);
    else
        snprintf(got, n, "the %d clicks disagree (%d to %d fr): no figure", r->clicks, r->low,
                 r->high);
}

/* A probe's result said, against the round trip computed. */
static void say_probe(es_session *s, const es_probe_result *r)
{
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const int computed = lp.round_trip;
    char got[160], parts[200];
    es_round_trip_text(&lp, parts, sizeof parts);
    if (r->frames < 0)
        no_figure(r, s->cfg.rate, got, sizeof got);
    if (r->frames < 0 && !lp.known)
        es_session_sayf(s, 1, "latency: %s (computed: %s)", got, lp.note);
    else if (r->frames < 0)
        es_session_sayf(s, 1, "latency: %s (computed %d frames: %s)", got, computed, parts);
    else if (!lp.known)
        es_session_sayf(s, 0, "latency measured %d fr (%d clicks, %d to %d); computed: %s",
                        r->frames, r->clicks, r->low, r->high, lp.note);
    else
        es_session_sayf(s, 0, "latency measured %d fr (%.2f ms; %d clicks, %d to %d fr), "
                        "computed %d fr (%s; the engine adds %d)", r->frames,
                        1e3 * r->frames / s->cfg.rate, r->clicks, r->low, r->high, computed,
                        parts, lp.engine);
}

void es_session_watch_probe(es_session *s)
{
    es_probe_result r;
    if (s->state.probe != ES_PROBE_RUNNING || es_measuring_room(&s->measuring) ||
        !es_player_probe_poll(s->player, &r))
        return;
    es_session_event(s, ES_EV_PROBE_DONE);
    es_measuring_probe_done(&s->measuring, &r);
    say_probe(s, &r);
}

/* ---- a room ---- */

/* The room out of the loop while it is measured: the input held at
 * silence, so the engine neither hears the sweep nor rings it back into
 * the microphone (the sweep itself goes out dry, beside the processor). */
static void hold_input(es_session *s, int hold)
{
    if (s->player)
        es_processor_hold_input(es_player_processor(s->player), hold);
}

/* Why the stream cannot measure with `plan`, said (-1), or 0 when it can. */
static int stream_refuses(es_session *s, const es_measure_plan *plan)
{
    const char *refused = es_session_probe_refused(s);
    if (refused) {
        es_session_sayf(s, 1, "measure: %s", refused);
        return -1;
    }
    if (s->playing.source != ES_SOURCE_MIC) {
        es_session_sayf(s, 1, "measure: the room is heard through the microphone: play it "
                        "as the source first");
        return -1;
    }
    const es_format *fmt = es_processor_format(es_player_processor(s->player));
    if (plan->inputs > fmt->inputs) {
        es_session_sayf(s, 1, "measure: %d inputs asked for; the stream has %d (earshot "
                        "--input mic --inputs %d opens more)", plan->inputs, fmt->inputs,
                        plan->inputs);
        return -1;
    }
    return 0;
}

/* What the sweeps are, said as they start. */
static void say_sweeps(es_session *s, const es_measure_plan *plan)
{
    const es_sweep *sw = &plan->sweep;
    es_sweep real = *sw;
    real.rate = s->cfg.rate;
    es_session_sayf(s, 0, "measuring: %d sweep%s of %.2f s, %g to %g Hz at %.0f dBFS%s%s",
                    plan->output_count > 1 ? plan->output_count : 1,
                    plan->output_count > 1 ? "s (one per output)" : "",
                    (double)es_sweep_frames(&real) / real.rate, sw->f1,
                    sw->f2, sw->level_db, sw->repeats > 1 ? ", repeated and averaged" : "",
                    plan->reference_input >= 0 ? ", with a reference" : "");
}

int es_session_measure_room(es_session *s, const es_measure_plan *plan)
{
    if (stream_refuses(s, plan) != 0)
        return -1;
    const es_format *fmt = es_processor_format(es_player_processor(s->player));
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const es_room_measure_stream stream = {
        .player = s->player, .rate = s->cfg.rate,
        .inputs = plan->inputs > 0 ? plan->inputs : fmt->inputs,
        .outputs = fmt->outputs, .zero = lp.known && lp.round_trip > 0 ? (size_t)lp.round_trip : 0,
        .zero_known = lp.known, .device = es_player_device(s->player)};
    char err[512];
    es_room_measure *room = es_room_measure_start(plan, &stream, err, sizeof err);
    if (!room) {
        es_session_sayf(s, 1, "measure: %s", err);
        return -1;
    }
    es_measuring_room_started(&s->measuring, room);
    hold_input(s, 1);
    es_session_event(s, ES_EV_PROBE_STARTED);
    say_sweeps(s, plan);
    return 0;
}

const es_measure_result *es_session_measure_result(const es_session *s)
{
    return es_measuring_result(&s->measuring);
}

/* The room just saved, into slot B, which plays; A keeps what it held. */
static void play_in_b(es_session *s, const char *path)
{
    if (s->target_slot != ES_SLOT_B && es_session_switch_slot(s, ES_SLOT_B) != 0)
        return;
    es_session_set_room(s, path);
}

/* The room saved, waiting for the library's rescan to list it: played in
 * slot B by its name once the list has it (by its file after
 * LISTED_WAIT_S without). */
static void watch_listing(es_session *s)
{
    const char *name = es_measuring_waiting(&s->measuring);
    if (!name)
        return;
    const int listed = es_session_room_index(s, name) >= 0;
    const char *room = es_measuring_for_b(&s->measuring, listed, s->snap.elapsed, LISTED_WAIT_S);
    if (room)
        play_in_b(s, room);
}

/* A stream that stalls under a sweep (a server gone, or back at another
 * rate, which is not taken) leaves a recording with a hole in it: the
 * measurement ends, nothing saved. */
static void end_on_stall(es_session *s)
{
    char line[300];
    snprintf(line, sizeof line,
             "measure: the device %s during the sweep (a server stopped, or back at another "
             "rate); nothing saved",
             s->state.stream == ES_STREAM_STALLED ? "stalled" : "was lost");
    es_measuring_room_lost(&s->measuring, line);
    hold_input(s, 0);
    es_session_event(s, ES_EV_PROBE_DONE);
    es_session_sayf(s, 1, "%s", line);
}

void es_session_watch_measure(es_session *s)
{
    watch_listing(s);
    es_room_measure *room = es_measuring_room(&s->measuring);
    if (!room)
        return;
    if (s->state.stream != ES_STREAM_PLAYING) {
        end_on_stall(s);
        return;
    }
    const es_measure_stage stage = es_room_measure_poll(room);
    char note[256];
    if (es_room_measure_take_note(room, note, sizeof note))
        es_session_sayf(s, 0, "%s", note);
    if (stage != ES_MEASURE_SAVED && stage != ES_MEASURE_FAILED)
        return;
    const int to_b = stage == ES_MEASURE_SAVED && es_room_measure_result(room)->saved &&
                     es_room_measure_to_slot_b(room);
    es_measuring_room_ended(&s->measuring);
    hold_input(s, 0);
    es_session_event(s, ES_EV_PROBE_DONE);
    const es_measure_result *r = es_measuring_result(&s->measuring);
    es_session_sayf(s, stage == ES_MEASURE_FAILED, "%s", r->line);
    if (to_b) {
        es_session_rescan(s);
        es_measuring_wait_for_list(&s->measuring, s->snap.elapsed);
    }
}

void es_session_drop_measure(es_session *s)
{
    if (!es_measuring_room_dropped(&s->measuring))
        return;
    hold_input(s, 0);
    es_session_sayf(s, 1, "measure: stopped before the room was saved; nothing saved");
}
