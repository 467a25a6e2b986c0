/* The live session, polled while it plays, stopped and closed; what its
 * other files share (its lines, its state machine, the player's
 * configuration, the stream as a request is built against, what a
 * recording may not replace). session_open.c opens it; session_watch.c is
 * what each poll watches (the engine, the safety, the device, the file
 * source); session_measure.c the measurements through the device (the
 * latency probe, a room's sweeps); session_changes.c asks for changes and
 * plays them; snapshot.c publishes what the views read; every line goes
 * to the message log (messages.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/files.h"
#include "osc_control.h"
#include "session_log.h"
#include "session_private.h"

/* The longest the end of a session waits for the preparer: quit and
 * SIGTERM end the process within 2 s whatever it is doing. */
#define PREPARER_QUIT_S 0.5
#define ALIVE_WAIT_S 0.1 /* at quit, a stream gives a block within this (or 4 periods) */

/* A session whose preparer was left busy at the end (stop_preparing): its
 * thread still reads the session's room loader, so the session is kept,
 * and reachable from here (so LeakSanitizer does not count it), until the
 * process ends. */
static es_session *left_behind;

void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    es_message_log_vsayf(&s->log, problem, fmt, ap);
    va_end(ap);
}

void es_session_say_line(void *ctx, int problem, const char *line)
{
    es_session_sayf(ctx, problem, "%s", line);
}

void es_session_note(es_session *s, int problem, const char *line)
{
    es_session_sayf(s, problem, "%s", line);
}

void es_session_event(es_session *s, es_live_event ev)
{
    s->state = es_live_next(s->state, ev);
}

void es_session_player_config(es_session *s, es_source_kind kind, es_file_source *file,
                              int block, es_player_config *plc)
{
    *plc = (es_player_config){.device = s->cfg.device, .block = block,
                              .live_input = kind == ES_SOURCE_MIC,
                              .input_device = s->cfg.input_device, .jack = s->cfg.jack,
                              .source = file ? es_file_source_fill : NULL,
                              .source_wait = file ? es_file_source_fill_wait : NULL,
                              .source_ctx = file,
                              .tap = es_taps_output, .tap_ctx = &s->taps,
                              .input_tap = es_taps_input, .input_tap_ctx = &s->taps};
}

void es_session_stream_now(const es_session *s, es_stream_now *now)
{
    es_processor *proc = es_player_processor(s->player);
    *now = (es_stream_now){.exists = 1, .spec = s->playing, .inputs = es_session_inputs(s),
                           .outputs = es_processor_format(proc)->outputs,
                           .latency = es_processor_latency(proc),
                           .history_frames = es_processor_history_frames(proc)};
}

int es_session_inputs(const es_session *s)
{
    return es_processor_format(es_player_processor(s->player))->inputs;
}

/* 1 (and why in err) when recording to `path` would replace what plays
 * or could play: the input file, either slot's room file, or any file a
 * room library holds (library_owns.c). A take replaces its file when it
 * starts, so this is asked before it does. */
int es_session_record_overwrites_input(const es_session *s, const char *path, char *err,
                                       size_t n)
{
    const char *inputs[] = {s->cfg.file, s->playing.room, s->cfg.slot[ES_SLOT_A].room,
                            s->cfg.slot[ES_SLOT_B].room};
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++)
        if (inputs[k] && inputs[k][0] && es_same_file(path, inputs[k])) {
            snprintf(err, n, "%.300s: the recording would overwrite %.300s", path, inputs[k]);
            return 1;
        }
    char whose[1100];
    if (es_library_owns(&s->list.view, path, whose, sizeof whose)) {
        snprintf(err, n, "%.300s: the recording would overwrite %.400s; record elsewhere", path,
                 whose);
        return 1;
    }
    return 0;
}

int es_session_record_refused(const es_session *s, const char *const paths[2], char *err,
                              size_t n)
{
    for (int w = 0; w < 2; w++)
        if (paths[w] && es_session_record_overwrites_input(s, paths[w], err, n))
            return -1;
    return 0;
}

/* The preparer finishes what it is building (dropped), then goes; what it
 * had to destroy is destroyed. After this nothing is being prepared. A
 * preparer held up for longer than PREPARER_QUIT_S (stuck in I/O) is left
 * behind with the room loader it uses: the session is then kept, not
 * freed, and the process ends without waiting for it. */
static void stop_preparing(es_session *s)
{
    if (!s->preparer)
        return;
    if (s->waiting) {
        es_preparer_discard_result(s->preparer, s->waiting);
        s->waiting = NULL;
    }
    es_prep_result *r = es_preparer_take(s->preparer);
    if (r)
        es_preparer_discard_result(s->preparer, r);
    char what[256] = "";
    es_preparer_busy(s->preparer, what, sizeof what);
    if (es_preparer_destroy(s->preparer, PREPARER_QUIT_S) != 0) {
        es_session_sayf(s, 1, "stopped without waiting for the preparation under way (%s): "
                        "it did not finish within %g s", what[0] ? what : "a change",
                        PREPARER_QUIT_S);
        left_behind = s;
    }
    s->preparer = NULL;
}

/* 1 when the stream delivers a block within a few periods (at least
 * ALIVE_WAIT_S): a stream that does not is dead, and asking its host API
 * to stop it can hang for good (PortAudio's JACK host waits for a callback
 * that a server killed a moment ago never makes). */
static int stream_alive(es_session *s)
{
    const es_processor *proc = es_player_processor(s->player);
    es_stats st;
    es_processor_stats(proc, &st);
    const uint64_t before = st.blocks;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const int frames = lp.period > s->playing.block ? lp.period : s->playing.block;
    const double wait = fmax(ALIVE_WAIT_S, 4.0 * frames / s->cfg.rate);
    const struct timespec step = {0, 5000000};
    for (double waited = 0; waited < wait; waited += 0.005) {
        es_processor_stats(proc, &st);
        if (st.blocks != before)
            return 1;
        nanosleep(&step, NULL);
    }
    return 0;
}

int es_session_stop(es_session *s)
{
    es_stream_state was = s->state.stream;
    if (was == ES_STREAM_STOPPED)
        return 0;
    /* A stream that died since the last look (a server killed in the last
     * second) is left as a stalled one is, not stopped. */
    const int ran = es_watch_started(&s->watch);
    if ((was == ES_STREAM_PLAYING || (was == ES_STREAM_OPENING && ran)) && !stream_alive(s))
        was = ES_STREAM_STALLED;
    es_session_drop_measure(s);
    es_session_event(s, ES_EV_STOP);
    int rc = 0;
    if (was == ES_STREAM_STALLED || was == ES_STREAM_LOST) {
        if (was == ES_STREAM_STALLED)
            es_player_abandon_device(s->player);
        es_session_sayf(s, 1, "device %s stopped answering; left as it is",
                        es_player_device(s->player));
        rc = -1;
    }
    es_player_stop(s->player);
    if (was != ES_STREAM_STALLED && was != ES_STREAM_LOST) {
        /* Stopped: the callback runs no more, so no priming's buffer is
         * read from now on, and the preparer may free them all. */
        es_history *h = es_processor_history(es_player_processor(s->player));
        if (h)
            es_history_writer_gone(h);
        es_history_unref(h);
    }
    es_watch_stop(&s->watch);
    stop_preparing(s);
    es_processor_collect(es_player_processor(s->player));
    rc |= es_taps_finish(&s->taps, ES_TAPS_BOTH, was == ES_STREAM_STALLED);
    if (s->file && es_file_source_starved(s->file))
        es_session_sayf(s, 0, "note: the input file fell behind: %llu frames of silence",
                        (unsigned long long)es_file_source_starved(s->file));
    es_session_publish(s); /* the last one, with what the stop said */
    return rc;
}

void es_session_close(es_session *s)
{
    if (!s)
        return;
    if (s->player)
        es_session_stop(s);
    /* The stream first: a priming's buffer is the processor's to read
     * until it is gone, and the preparer frees it. */
    es_player_close(s->player);
    s->player = NULL;
    stop_preparing(s); /* the preparer read the headphone filter; it has stopped */
    /* Its OSC thread stops; no stream reads the requests now. After the
     * preparer: no engine its blender watches is destroyed any more on
     * another thread (head_blend.c). */
    es_head_destroy(s->head.tracker);
    s->head.tracker = NULL;
    es_osc_control_destroy(s->control); /* its socket closed with the listener */
    s->control = NULL;
    es_session_test_close(s);
    es_session_log_close(s->log_file);
    s->log_file = NULL;
    es_taps_close(&s->taps);
    es_file_source_close(s->file);
    es_room_list_close(&s->list);
    if (left_behind == s) /* its preparer still reads s->rooms */
        return;
    es_room_loader_close(&s->rooms);
    es_headphone_free(&s->headphone);
    free(s);
}

/* Retired engines are destroyed on the preparer thread: destroying one
 * joins its helper threads, frees its plans and, on a GPU, its device
 * memory, none of which the control thread should wait for. */
static void retire(void *ctx, es_engine *e)
{
    es_preparer_discard_engine(ctx, e);
}

void es_session_poll(es_session *s)
{
    es_processor *proc = es_player_processor(s->player);
    if (s->preparer) {
        es_processor_collect_with(proc, retire, s->preparer);
        es_session_take_prepared(s);
        proc = es_player_processor(s->player); /* a reopen brings a new one */
    } else {
        es_processor_collect(proc);
    }
    es_session_watch_source(s);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    es_stats st;
    es_processor_stats(proc, &st);
    if (s->preparer)
        es_session_watch_engine(s, &st);
    es_session_watch_safety(s, &st);
    es_session_watch_device(s, &st, &now);
    es_session_watch_probe(s);
    es_session_watch_measure(s);
    es_taps_watch(&s->taps);
    es_session_publish(s);
    es_session_log_figures(s->log_file, &s->snap);
    es_session_test_poll(s);
    if (s->control && es_osc_control_poll(s->control, s))
        s->quit_asked = 1;
}

int es_session_said_count(const es_session *s)
{
    return s->log.count;
}

void es_session_said_since(const es_session *s, int count, char *line, size_t n)
{
    if (s->log.count > count && s->log.count - count <= ES_LIVE_MESSAGES)
        snprintf(line, n, "%s", s->log.lines[(s->log.count - 1) % ES_LIVE_MESSAGES].text);
    else if (n)
        line[0] = 0;
}

struct es_session_log *es_session_logger(const es_session *s)
{
    return s->log_file;
}

int es_session_wake_fd(const es_session *s)
{
    return s->control ? es_osc_control_wake_fd(s->control) : -1;
}

int es_session_quit_asked(const es_session *s)
{
    return s->quit_asked;
}

const es_live_snapshot *es_session_snapshot(const es_session *s)
{
    return &s->snap;
}

const es_play_spec *es_session_wanted(const es_session *s)
{
    return &s->target;
}

int es_session_wanted_slot(const es_session *s)
{
    return s->target_slot;
}

const es_mix *es_session_mix(const es_session *s)
{
    return &s->pc.mix;
}

const char *es_device_state_word(es_device_state st)
{
    return st == ES_DEVICE_LOST ? "device lost" : st == ES_DEVICE_STALLED ? "stalled" : "playing";
}
