/* The snapshot (snapshot.h): made anew from the session by each poll, so
 * that every view reads figures taken at one moment, and never the
 * session's insides. */
#include <stdio.h>
#include <string.h>

#include "session_private.h"

/* The engines, probed once (a GPU's probe asks the driver). */
static void engines(es_live_snapshot *snap)
{
    if (snap->engine_count)
        return;
    for (int i = 0; es_engines[i] && i < ES_LIVE_ENGINES; i++) {
        es_live_engine *e = &snap->engines[snap->engine_count++];
        e->engine = es_engines[i];
        e->usable = es_engines[i]->probe(e->why, sizeof e->why);
    }
}

static void stream(const es_session *s, es_live_snapshot *snap)
{
    snprintf(snap->device, sizeof snap->device, "%s", es_player_device(s->player));
    snap->device_state = s->state.stream == ES_STREAM_LOST      ? ES_DEVICE_LOST
                         : s->state.stream == ES_STREAM_STALLED ? ES_DEVICE_STALLED
                                                                : ES_DEVICE_PLAYING;
    snap->can_capture = es_device_can_capture(s->cfg.device);
    snap->file = s->cfg.file;
    const char *slash = s->cfg.file ? strrchr(s->cfg.file, '/') : NULL;
    snprintf(snap->source, sizeof snap->source, "%s",
             s->playing.source == ES_SOURCE_FILE && s->cfg.file
                 ? (slash ? slash + 1 : s->cfg.file)
                 : es_source_word(s->playing.source));
    snap->rate = s->cfg.rate;
    snap->playing = s->playing;
    snap->wanted = s->target;
    snap->active_slot = s->target_slot;
    snap->mix = s->pc.mix;
    es_player_latency_parts(s->player, &snap->latency);
    es_latency_text(&snap->latency, s->cfg.rate, snap->latency_text, sizeof snap->latency_text);
    es_latency_parts_text(&snap->latency, snap->latency_parts, sizeof snap->latency_parts);
    es_watch_times(&s->watch, s->state.stream == ES_STREAM_STOPPED, &snap->elapsed,
                   &snap->counted);
    snap->blocks_expected = snap->counted * s->cfg.rate / s->playing.block;
    snap->skipped_seconds = s->player ? es_player_skipped_seconds(s->player) : 0;
}

static void meters(const es_session *s, es_live_snapshot *snap)
{
    es_stats *st = &snap->stats;
    es_processor_stats(es_player_processor(s->player), st);
    if (!st->engine)
        st->engine = s->playing.engine->name;
    snap->playing_slot = st->ab_playing;
    snap->load_p50 = es_stats_load_quantile(st, 0.5);
    snap->load_p99 = es_stats_load_quantile(st, 0.99);
    snap->throughput = es_stats_throughput(st);
    snap->realtime_factor = es_stats_realtime_factor(st, s->cfg.rate);
    for (int k = 0; k < ES_AB_SLOTS; k++)
        es_slots_view(&s->slots, k, st, &snap->slot[k]);
    /* The slot playing: the latency heard now. */
    if (snap->playing_slot >= 0)
        snap->slot[snap->playing_slot].latency = es_player_latency(s->player);
    snap->xruns = es_watch_xruns(&s->watch, es_player_xruns(s->player));
    snap->have_stalls = es_player_stalls(s->player, &snap->stalls);
    es_engine_counts(&snap->engines_created, &snap->engines_destroyed);
    es_head_view_get(s->head.tracker, &snap->head);
    snap->exchange_p50_us = es_stats_exchange_quantile(st, 0.5);
    snap->exchange_p99_us = es_stats_exchange_quantile(st, 0.99);
    snap->motion_p50_us = es_stats_motion_quantile(st, 0.5);
    snap->motion_p99_us = es_stats_motion_quantile(st, 0.99);
}

static void changes(es_session *s, es_live_snapshot *snap)
{
    snap->preparing = 0;
    snap->preparing_what[0] = 0;
    if (s->waiting) {
        snap->preparing = 1;
        snprintf(snap->preparing_what, sizeof snap->preparing_what, "%s", s->waiting->req.what);
    } else if (s->preparer) {
        snap->preparing = es_preparer_busy(s->preparer, snap->preparing_what,
                                           sizeof snap->preparing_what);
    }
    es_measuring_view(&s->measuring, s->state.probe == ES_PROBE_RUNNING, snap);
}

static void recording(const es_session *s, es_live_snapshot *snap)
{
    const char *path = es_taps_recording(&s->taps);
    snap->recording = path != NULL;
    snprintf(snap->record_path, sizeof snap->record_path, "%s", s->taps.path[ES_TAP_OUTPUT]);
    snap->recorded_frames = es_taps_recorded_frames(&s->taps);
    snap->record_dropped = es_taps_dropped(&s->taps);
    snap->record_failed = es_taps_failed(&s->taps);
}

/* The room list, and the measurement of the room a view shows (asked of
 * the preparer the first time). */
static void rooms(es_session *s, es_live_snapshot *snap)
{
    snap->rooms = &s->list.view;
    snap->rooms_version = s->list.version;
    snap->remembered_gone = s->remembered_gone;
    snap->room_playing = es_room_list_index(&s->list, s->playing.room);
    snap->room_wanted = snap->preparing ? es_room_list_index(&s->list, s->target.room) : -1;
    const int shown = es_room_list_shown(&s->list);
    es_room_info *info = es_room_list_info(&s->list, shown);
    if (!info) {
        snap->shown = (es_room_info){.index = shown, .measured = -1, .error = "no such room"};
        return;
    }
    if (info->measured == 0 && s->preparer)
        es_preparer_measure(s->preparer, &s->list.view.rooms[shown], info->asked, info->step);
    snap->shown = *info;
}

void es_session_publish(es_session *s)
{
    es_live_snapshot *snap = &s->snap;
    engines(snap);
    stream(s, snap);
    meters(s, snap);
    changes(s, snap);
    recording(s, snap);
    rooms(s, snap);
    es_message_log_copy(&s->log, snap);
    snap->scope = &s->taps.scope;
}
