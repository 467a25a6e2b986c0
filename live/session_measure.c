/* A room measured on the session's stream (session.h's
 * es_session_measure_room): the latency probe's place in the state
 * machine (one measurement through the device at a time), the sweeps
 * moved on by each poll, and the room, once saved, played in slot B with
 * A left as it was. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "session_private.h"

/* The room out of the loop while it is measured: the input held at
 * silence, so the engine neither hears the sweep nor rings it back into
 * the microphone (the sweep itself goes out dry, beside the processor). */
static void hold_input(es_session *s, int hold)
{
    if (s->player)
        es_processor_hold_input(es_player_processor(s->player), hold);
}

int es_session_measure_room(es_session *s, const es_measure_plan *plan)
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
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const es_format *fmt = es_processor_format(es_player_processor(s->player));
    if (plan->inputs > fmt->inputs) {
        es_session_sayf(s, 1, "measure: %d inputs asked for; the stream has %d (earshot "
                        "--input mic --inputs %d opens more)", plan->inputs, fmt->inputs,
                        plan->inputs);
        return -1;
    }
    const es_room_measure_stream stream = {
        .player = s->player, .rate = s->cfg.rate,
        .inputs = plan->inputs > 0 ? plan->inputs : fmt->inputs,
        .outputs = fmt->outputs, .zero = lp.known && lp.round_trip > 0 ? (size_t)lp.round_trip : 0,
        .zero_known = lp.known, .device = es_player_device(s->player)};
    char err[512];
    s->measure = es_room_measure_start(plan, &stream, err, sizeof err);
    if (!s->measure) {
        es_session_sayf(s, 1, "measure: %s", err);
        return -1;
    }
    s->measured_valid = 0;
    hold_input(s, 1);
    es_session_event(s, ES_EV_PROBE_STARTED);
    const es_sweep *sw = &plan->sweep;
    es_sweep real = *sw;
    real.rate = s->cfg.rate;
    es_session_sayf(s, 0, "measuring: %d sweep%s of %.2f s, %g to %g Hz at %.0f dBFS%s%s",
                    plan->output_count > 1 ? plan->output_count : 1,
                    plan->output_count > 1 ? "s (one per output)" : "",
                    (double)es_sweep_frames(&real) / real.rate, sw->f1,
                    sw->f2, sw->level_db, sw->repeats > 1 ? ", repeated and averaged" : "",
                    plan->reference_input >= 0 ? ", with a reference" : "");
    return 0;
}

const es_measure_result *es_session_measure_result(const es_session *s)
{
    return s->measured_valid ? &s->measured : NULL;
}

/* The room just saved, into slot B, which plays; A keeps what it held. */
static void play_in_b(es_session *s, const char *path)
{
    if (s->target_slot != ES_SLOT_B && es_session_switch_slot(s, ES_SLOT_B) != 0)
        return;
    es_session_set_room(s, path);
}

/* The room saved, waiting for the library's rescan to list it: played in
 * slot B by its name once the list has it (by its file after a few
 * seconds without). */
#define LISTED_WAIT_S 3.0
static void watch_listing(es_session *s)
{
    if (!s->measured_for_b)
        return;
    const int listed = es_session_room_index(s, s->measured.name) >= 0;
    if (!listed && s->snap.elapsed < s->measured_at + LISTED_WAIT_S)
        return;
    s->measured_for_b = 0;
    play_in_b(s, listed ? s->measured.name : s->measured.path);
}

void es_session_watch_measure(es_session *s)
{
    watch_listing(s);
    if (!s->measure)
        return;
    /* A stream that stalls under a sweep (a server gone, or back at another
     * rate, which is not taken) leaves a recording with a hole in it. */
    if (s->state.stream != ES_STREAM_PLAYING) {
        es_room_measure_free(s->measure);
        s->measure = NULL;
        hold_input(s, 0);
        es_session_event(s, ES_EV_PROBE_DONE);
        s->measured = (es_measure_result){0};
        snprintf(s->measured.line, sizeof s->measured.line,
                 "measure: the device %s during the sweep (a server stopped, or back at "
                 "another rate); nothing saved",
                 s->state.stream == ES_STREAM_STALLED ? "stalled" : "was lost");
        s->measured.retry_level_db = NAN;
        s->measured_valid = 1;
        s->measures_ended++;
        es_session_sayf(s, 1, "%s", s->measured.line);
        return;
    }
    const es_measure_stage stage = es_room_measure_poll(s->measure);
    char note[256];
    if (es_room_measure_take_note(s->measure, note, sizeof note))
        es_session_sayf(s, 0, "%s", note);
    if (stage != ES_MEASURE_SAVED && stage != ES_MEASURE_FAILED)
        return;
    s->measured = *es_room_measure_result(s->measure);
    s->measured_valid = 1;
    s->measures_ended++;
    const int to_b = stage == ES_MEASURE_SAVED && s->measured.saved &&
                     es_room_measure_to_slot_b(s->measure);
    es_room_measure_free(s->measure);
    s->measure = NULL;
    hold_input(s, 0);
    es_session_event(s, ES_EV_PROBE_DONE);
    es_session_sayf(s, stage == ES_MEASURE_FAILED, "%s", s->measured.line);
    if (to_b) {
        es_session_rescan(s);
        s->measured_for_b = 1;
        s->measured_at = s->snap.elapsed;
    }
}

void es_session_drop_measure(es_session *s)
{
    if (!s->measure)
        return;
    es_room_measure_free(s->measure);
    s->measure = NULL;
    hold_input(s, 0);
    es_session_sayf(s, 1, "measure: stopped before the room was saved; nothing saved");
}
