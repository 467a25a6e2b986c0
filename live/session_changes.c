/* The live session's changes: a change sets the target spec and goes to
 * the preparer (submit); es_session_poll brings back what it built and
 * plays it (a crossfade, or a stream reopened), or says why not and
 * forgets it. The levels and the recordings change here too, without the
 * preparer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "session_private.h"

static const char slot_letter[ES_AB_SLOTS] = {'A', 'B'};

/* What playing a built change came to. */
typedef enum { APPLY_PLAYED, APPLY_FAILED, APPLY_WAITS } apply_outcome;

/* What the stream keeps playing when a change fails, in words. */
static void still_playing(const es_session *s, const es_play_spec *q, char *out, size_t n)
{
    const unsigned d = es_play_spec_diff(&s->playing, q);
    if (d & ES_SPEC_ROOM)
        snprintf(out, n, "still playing the previous room");
    else if (d & ES_SPEC_SOURCE)
        snprintf(out, n, "still playing the %s", es_source_word(s->playing.source));
    else if (d & ES_SPEC_BLOCK)
        snprintf(out, n, "still playing at %d", s->playing.block);
    else
        snprintf(out, n, "still playing as before");
}

/* A prepared change that needs a new stream. 0, or -1 with a message (the
 * processor is consumed either way). */
static int apply_reopen(es_session *s, es_prep_result *r, int restart, char *err, size_t n)
{
    const es_prep_request *q = &r->req;
    if (s->priming.ticket) { /* the swap goes with the old stream, said as it was */
        es_session_sayf(s, 0, "%s", s->priming.line);
        s->priming.ticket = 0;
    }
    es_stats before; /* the slots' counts, which go with the old processor */
    es_processor_stats(es_player_processor(s->player), &before);
    const int new_source = q->spec.source != s->playing.source;
    es_file_source *file = new_source ? r->file : s->file;
    /* A take whose file has the old channels ends here. */
    if (r->inputs != es_session_inputs(s))
        es_taps_finish(&s->taps, ES_TAP_INPUT, 0);
    if (r->fmt.outputs != es_processor_format(es_player_processor(s->player))->outputs)
        es_taps_finish(&s->taps, ES_TAP_OUTPUT, 0);
    es_player_config plc;
    es_session_player_config(s, q->spec.source, file, q->spec.block, &plc);
    es_processor *proc = r->proc;
    r->proc = NULL;
    if (s->state.stream == ES_STREAM_STALLED) /* a dead stream cannot be stopped safely */
        es_player_abandon_device(s->player);
    if (es_player_reconfigure(s->player, &plc, proc, err, n) != 0)
        return -1;
    es_watch_count_from_now(&s->watch);
    es_slots_carry(&s->slots, &before, restart ? q->slot : -1);
    if (new_source) { /* the stream no longer reads the old one */
        r->file = s->file; /* closed with the rest of the result */
        s->file = file;
        es_session_watch_new_source(s);
    }
    return 0;
}

/* What a change did, in words, once it plays: every way it differs from
 * what played until now (two quick changes can arrive as one). */
static void done_line(es_session *s, const es_prep_result *r, int reopened, int restart,
                      char *line, size_t n)
{
    const es_prep_request *q = &r->req;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    char latency[224], parts[1200] = "";
    es_latency_full_text(&lp, s->cfg.rate, latency, sizeof latency);
    const unsigned d = es_play_spec_diff(&s->playing, &q->spec);
    if (q->fallback)
        snprintf(parts, sizeof parts, "%s", q->what);
    else
        es_play_spec_describe(&q->spec, d, s->cfg.file, parts, sizeof parts);
    const int other_slot = q->slot != s->slots.playing;
    if (other_slot)
        snprintf(line, n, "slot %c plays%s%s", slot_letter[q->slot],
                 parts[0] ? ": " : " (the same room, engine and block)", parts);
    else
        snprintf(line, n, "%s", parts[0] ? parts : q->what);
    size_t used = strlen(line);
    if (d & ES_SPEC_BLOCK)
        used += (size_t)snprintf(line + used, n - used, ": latency now %s", latency);
    else if (reopened && !(d & ES_SPEC_SOURCE))
        used += (size_t)snprintf(line + used, n - used, ": the stream reopened, latency now %s",
                                 latency);
    /* The slot holds something else now: its statistics start again. */
    if (restart && s->slots.ab[q->slot].set && used < n)
        used += (size_t)snprintf(line + used, n - used, " (slot %c counts from now)",
                                 slot_letter[q->slot]);
    if (r->prime_note[0] && used < n)
        snprintf(line + used, n - used, " (%s)", r->prime_note);
}

/* Says a primed swap's line with what its priming came to, once it did:
 * the new engine plays from then on. A report of an older swap is
 * dropped. A swap that finished without one was not primed in time. */
static void say_primed(es_session *s)
{
    es_prime_report rep;
    while (es_preparer_take_primed(s->preparer, &rep)) {
        if (!s->priming.ticket || rep.ticket != s->priming.ticket)
            continue;
        if (rep.ok)
            es_session_sayf(s, 0, "%s (primed on %.1f s of what it heard, in %.0f ms)",
                            s->priming.line, rep.heard_s, rep.ms);
        else
            es_session_sayf(s, 1, "%s (%s)", s->priming.line, rep.why);
        s->priming.ticket = 0;
    }
    if (s->priming.ticket && s->player &&
        !es_processor_swap_pending(es_player_processor(s->player))) {
        es_session_sayf(s, 1, "%s (not primed within %.0f s: it plays without what the stream "
                        "heard)", s->priming.line, ES_PRIME_WAIT_MS / 1000);
        s->priming.ticket = 0;
    }
}

/* Queues a built engine's crossfade, primed on what the stream heard when
 * it was planned and the preparer has room for it. 0, or -1 and why. */
static int swap_in(es_session *s, es_prep_result *r, int restart, char *err, size_t n)
{
    const es_prep_request *q = &r->req;
    es_processor *proc = es_player_processor(s->player);
    const int primed = r->ringing && es_preparer_can_prime(s->preparer);
    const int same_room = !(es_play_spec_diff(&s->playing, &q->spec) & ES_SPEC_ROOM);
    const es_swap_how how = {.ab = q->slot, .restart = restart, .same_filter = primed && same_room,
                             .ringing = primed ? r->ringing_out : NULL,
                             .ringing_frames = primed ? es_ringing_frames(r->ringing) : 0};
    uint64_t ticket;
    if (es_processor_swap_with(proc, r->engine, &r->fmt, &how, &ticket, err, n) != 0)
        return -1;
    r->engine = NULL; /* the processor's now */
    if (primed) {
        es_preparer_prime(s->preparer, es_processor_history(proc), ticket, r->ringing,
                          r->ringing_out, r->fmt.outputs);
        r->ringing = NULL;
        r->ringing_out = NULL;
        s->priming.ticket = ticket;
    }
    return 0;
}

/* A change that failed is no longer wanted: what later changes build on
 * goes back to what plays, in the parts nothing newer has asked for since. */
static void forget(es_session *s, const es_prep_request *q)
{
    const unsigned untouched = ~es_play_spec_diff(&s->target, &q->spec);
    es_play_spec_take(&s->target, &s->playing, untouched & ES_SPEC_ALL);
    if (s->target_slot == q->slot)
        s->target_slot = s->slots.playing;
}

/* Plays a built change: a swap the processor crossfades, or a new stream.
 * The processor takes one swap at a time: while one crossfades, the
 * newest change waits (APPLY_WAITS), and a newer one replaces it. Queueing
 * every change would play a string of stale rooms, each held in memory
 * until its turn. The processor's own limit (can_swap) is the backstop. */
static apply_outcome apply(es_session *s, es_prep_result *r)
{
    const es_prep_request *q = &r->req;
    char why[768], tail[64];
    still_playing(s, &q->spec, tail, sizeof tail);
    if (r->err[0]) {
        forget(s, q);
        if (q->fallback)
            es_session_sayf(s, 1, "%s could not take over: %s", q->spec.engine->name, r->err);
        else
            es_session_sayf(s, 1, "%s; %s", r->err, tail);
        return APPLY_FAILED;
    }
    es_processor *proc = es_player_processor(s->player);
    const int restart = es_slots_restarts(&s->slots, q->slot, &q->spec);
    const int reopened = r->engine == NULL;
    if (r->engine) {
        if (es_processor_swap_pending(proc) || !es_processor_can_swap(proc) || s->priming.ticket)
            return APPLY_WAITS;
        if (swap_in(s, r, restart, why, sizeof why) != 0) {
            forget(s, q);
            es_session_sayf(s, 1, "%s: %s; %s", q->what, why, tail);
            return APPLY_FAILED;
        }
    } else if (apply_reopen(s, r, restart, why, sizeof why) != 0) {
        forget(s, q);
        es_session_sayf(s, 1, "%s: %s; %s", q->what, why, tail);
        return APPLY_FAILED;
    }
    if (r->note[0] && strcmp(q->spec.room, s->playing.room) != 0)
        es_session_sayf(s, 0, "%s", r->note);
    char line[sizeof s->priming.line];
    done_line(s, r, reopened, restart, line, sizeof line);
    if (s->priming.ticket) /* said once it plays, with its priming */
        snprintf(s->priming.line, sizeof s->priming.line, "%s", line);
    else
        es_session_sayf(s, 0, "%s", line);
    if (es_play_spec_diff(&s->playing, &q->spec) & (ES_SPEC_ROOM | ES_SPEC_RAW))
        es_watch_room_began(&s->watch, r->loud_db);
    s->playing = q->spec;
    es_session_head_follows(s, r);
    es_room_list_played(&s->list, s->playing.room); /* a file joins, a gone room leaves */
    es_slots_played(&s->slots, q->slot, &q->spec, restart, es_player_latency(s->player));
    return APPLY_PLAYED;
}

void es_session_take_prepared(es_session *s)
{
    /* Measurements first: those made before a rescan belong to the list
     * they were asked from, and the rescan keeps the ones still true. A
     * rescan before the change: it was read before the change it precedes. */
    es_room_info info;
    while (es_preparer_take_measurement(s->preparer, &info))
        es_room_list_take_measurement(&s->list, &info);
    es_library *fresh = es_preparer_take_rescan(s->preparer);
    if (fresh) { /* said either way: a rescan by itself follows a manifest's change */
        es_room_list_take_rescan(&s->list, fresh, s->playing.room);
        es_library_close(fresh);
        free(fresh);
    }
    say_primed(s);
    es_prep_result *r = es_preparer_take(s->preparer);
    if (r && s->waiting) { /* a newer change supersedes the one waiting */
        es_preparer_discard_result(s->preparer, s->waiting);
        s->waiting = NULL;
    }
    if (!r) {
        r = s->waiting;
        s->waiting = NULL;
    }
    if (!r)
        return;
    const apply_outcome done = apply(s, r);
    if (done == APPLY_WAITS) {
        s->waiting = r;
        es_session_event(s, ES_EV_WAITS);
        return;
    }
    es_preparer_discard_result(s->preparer, r);
    es_session_event(s, done == APPLY_PLAYED ? ES_EV_DONE : ES_EV_FAILED);
    if (es_preparer_busy(s->preparer, NULL, 0)) /* a newer change is being built */
        es_session_event(s, ES_EV_ASKED);
}

void es_session_submit(es_session *s, const char *what, int fallback, int prime)
{
    es_prep_request q = {.spec = s->target, .slot = s->target_slot, .fallback = fallback,
                         .prime = prime,
                         .rate = s->cfg.rate, .file = s->cfg.file,
                         .can_capture = es_device_can_capture(s->cfg.device),
                         .mic_inputs = s->cfg.mic_inputs, .pc = s->pc,
                         .headphone = s->headphone.ears ? &s->headphone : NULL,
                         .split_ms = s->cfg.split_ms, .interp = s->cfg.interp,
                         .speakers = s->cfg.speakers, .field = s->cfg.field, .field_layout = s->cfg.field_layout};
    snprintf(q.what, sizeof q.what, "%.250s", what);
    es_head_view head;
    es_head_view_get(s->head.tracker, &head);
    q.head_yaw = head.yaw;
    q.head_pitch = head.pitch;
    q.head_roll = head.roll;
    es_session_stream_now(s, &q.now);
    q.pc.ab = q.slot; /* a new processor counts its first engine there */
    es_preparer_submit(s->preparer, &q);
    es_session_event(s, fallback ? ES_EV_ENGINE_FAILED : ES_EV_ASKED);
}

/* A change can be asked for while the stream plays. */
static int can_change(es_session *s, const char *what)
{
    if (es_live_allows(s->state, ES_DO_CHANGE))
        return 1;
    if (s->state.stream == ES_STREAM_LOST) /* reopening a dead server's stream fails or hangs */
        es_session_sayf(s, 1, "%s: device %s is lost: its stream stopped; nothing can "
                        "change until earshot starts again", what, s->cfg.device);
    else
        es_session_sayf(s, 1, "%s: the session has stopped", what);
    return 0;
}

/* Every change of what plays comes here: the calls below check their
 * value, then ask for the spec with it changed. */
int es_session_change(es_session *s, const es_play_spec *next, const char *what)
{
    if (!can_change(s, what))
        return -1;
    s->target = *next;
    es_session_submit(s, what, 0, 1);
    return 0;
}

int es_session_set_room(es_session *s, const char *room)
{
    char what[1100];
    snprintf(what, sizeof what, "room %s", room);
    es_play_spec next = s->target;
    es_play_spec_set_room(&next, room);
    return es_session_change(s, &next, what);
}

int es_session_set_engine(es_session *s, const es_engine_class *engine)
{
    char what[128];
    snprintf(what, sizeof what, "engine %s", engine->name);
    es_play_spec next = s->target;
    next.engine = engine;
    return es_session_change(s, &next, what);
}

int es_session_set_options(es_session *s, const es_options *options)
{
    char what[128];
    const es_engine_class *k = s->target.engine;
    if (options->partition != s->target.options.partition) {
        snprintf(what, sizeof what, "partition %d", options->partition);
        if (!(k->caps & ES_CAP_PARTITION)) {
            es_session_sayf(s, 1, "%s: %s takes no partition size", what, k->name);
            return -1;
        }
    } else {
        snprintf(what, sizeof what, "pipelined %s", options->gpu_pipelined ? "on" : "off");
        if (!(k->caps & ES_CAP_PIPELINED)) {
            es_session_sayf(s, 1, "%s: %s has no pipelined mode", what, k->name);
            return -1;
        }
    }
    es_play_spec next = s->target;
    next.options = *options;
    return es_session_change(s, &next, what);
}

int es_session_set_block(es_session *s, int block)
{
    char what[64];
    snprintf(what, sizeof what, "block %d", block);
    if (block < ES_BLOCK_MIN || block > ES_BLOCK_MAX) {
        es_session_sayf(s, 1, "%s: out of range (%d..%d)", what, ES_BLOCK_MIN, ES_BLOCK_MAX);
        return -1;
    }
    es_play_spec next = s->target;
    next.block = block;
    return es_session_change(s, &next, what);
}

int es_session_set_source(es_session *s, es_source_kind kind)
{
    char what[64];
    snprintf(what, sizeof what, "source %s", es_source_word(kind));
    if (kind == ES_SOURCE_MIC && !es_device_can_capture(s->cfg.device)) {
        es_session_sayf(s, 1, "microphone: the null device has no microphone; play a file "
                        "or the test signal, or use a sound device; still playing the %s",
                        es_source_word(s->playing.source));
        return -1;
    }
    if (kind == ES_SOURCE_FILE && !s->cfg.file) {
        es_session_sayf(s, 1, "file: no file to play (start with --input FILE); still "
                        "playing the %s", es_source_word(s->playing.source));
        return -1;
    }
    es_play_spec next = s->target;
    next.source = kind;
    return es_session_change(s, &next, what);
}

int es_session_switch_slot(es_session *s, int slot)
{
    if (slot < 0 || slot >= ES_AB_SLOTS) {
        es_session_sayf(s, 1, "slot %d: there are slots A and B", slot);
        return -1;
    }
    char what[64];
    snprintf(what, sizeof what, "slot %c", slot_letter[slot]);
    if (!can_change(s, what))
        return -1;
    if (slot == s->target_slot) {
        es_session_sayf(s, 0, "slot %c is playing already", slot_letter[slot]);
        return 0;
    }
    const es_slot *a = &s->slots.ab[slot];
    if (a->set) /* what it holds; the source is the stream's */
        es_play_spec_take(&s->target, &a->spec, ES_SPEC_SLOT);
    else /* an empty slot starts as what the other one holds */
        es_session_sayf(s, 0, "slot %c was empty: it starts as a copy of %c (%s on %s); "
                        "change its room or engine to compare", slot_letter[slot],
                        slot_letter[s->target_slot], s->target.engine->name, s->target.room);
    s->target_slot = slot;
    es_session_submit(s, what, 0, 1);
    return 0;
}

/* What a levels change did, as a person reads it: each level that moved,
 * in dB ("trim -6.0 dB", "wet -3.0 dB, dry off", "bypass on"). */
static void say_levels(es_session *s, const es_mix *was, const es_mix *now)
{
    char line[256] = "", v[32];
    size_t used = 0;
#define ADD(...) used += (size_t)snprintf(line + used, sizeof line - (used < sizeof line ? used : sizeof line), __VA_ARGS__)
    if (now->trim_db != was->trim_db)
        ADD("%strim %+.1f dB", used ? ", " : "", (double)now->trim_db);
    const float lin[3][2] = {{was->wet, now->wet}, {was->dry, now->dry}, {was->gain, now->gain}};
    static const char *const name[3] = {"wet", "dry", "gain"};
    for (int k = 0; k < 3; k++)
        if (lin[k][1] != lin[k][0]) {
            es_level_text(lin[k][1], 1, v, sizeof v);
            ADD("%s%s %s", used ? ", " : "", name[k], v);
        }
    if (now->bypass != was->bypass)
        ADD("%sbypass %s", used ? ", " : "", now->bypass ? "on" : "off");
    if (now->limiter != was->limiter || (now->limiter && now->ceiling_db != was->ceiling_db)) {
        if (now->limiter)
            ADD("%slimiter at %+.1f dBFS", used ? ", " : "", (double)now->ceiling_db);
        else
            ADD("%slimiter off", used ? ", " : "");
    }
#undef ADD
    es_session_sayf(s, 0, "%s", used ? line : "levels unchanged");
}

int es_session_set_mix(es_session *s, unsigned which, const es_mix *mix)
{
    es_mix m = s->pc.mix;
    if (which & ES_MIX_TRIM)
        m.trim_db = mix->trim_db;
    if (which & ES_MIX_WET)
        m.wet = mix->wet;
    if (which & ES_MIX_DRY)
        m.dry = mix->dry;
    if (which & ES_MIX_GAIN)
        m.gain = mix->gain;
    if (which & ES_MIX_BYPASS)
        m.bypass = mix->bypass;
    if (which & ES_MIX_LIMITER) {
        m.limiter = mix->limiter;
        m.ceiling_db = mix->limiter ? mix->ceiling_db : m.ceiling_db;
    }
    char why[256];
    if (!es_mix_check(&m, why, sizeof why)) {
        es_session_sayf(s, 1, "%s; the levels stay as they were", why);
        return -1;
    }
    if (es_processor_set_mix(es_player_processor(s->player), &m) != 0) {
        es_session_sayf(s, 1, "levels: too many changes queued; try again");
        return -1;
    }
    const es_mix was = s->pc.mix;
    s->pc.mix = m; /* kept across reopens */
    say_levels(s, &was, &m);
    return 0;
}

int es_session_panic(es_session *s)
{
    if (!can_change(s, "panic"))
        return -1;
    if (es_processor_mute(es_player_processor(s->player), 1) != 0) {
        es_session_sayf(s, 1, "panic: too many changes queued; try again");
        return -1;
    }
    es_session_sayf(s, 1, "panic: muted, every history cleared; ! or `unmute` plays again");
    es_session_submit(s, "panic (every history cleared)", 0, 0); /* built empty */
    return 0;
}

int es_session_unmute(es_session *s)
{
    if (es_processor_unmute(es_player_processor(s->player)) != 0) {
        es_session_sayf(s, 1, "unmute: too many changes queued; try again");
        return -1;
    }
    es_session_sayf(s, 0, "unmuted");
    return 0;
}

int es_session_reset_meters(es_session *s)
{
    if (es_processor_reset_stats(es_player_processor(s->player)) != 0) {
        es_session_sayf(s, 1, "reset: too many changes queued; try again");
        return -1;
    }
    es_watch_reset_meters(&s->watch, es_player_xruns(s->player));
    es_slots_reset(&s->slots);
    es_player_stalls_reset(s->player);
    return 0;
}

int es_session_record(es_session *s, const char *path, const char *input_path, int exclusive)
{
    if (es_taps_recording(&s->taps))
        return es_taps_finish(&s->taps, ES_TAPS_BOTH, s->state.stream == ES_STREAM_STALLED);
    if (!path) {
        es_session_sayf(s, 1, "record: no file name given");
        return -1;
    }
    const char *paths[2] = {path, input_path};
    const int channels[2] = {es_processor_format(es_player_processor(s->player))->outputs,
                             es_session_inputs(s)};
    char err[768];
    if (es_session_record_refused(s, paths, err, sizeof err) != 0) {
        es_session_sayf(s, 1, "record: %s", err);
        return -1;
    }
    if (es_taps_start(&s->taps, paths, channels, exclusive, err, sizeof err) != 0) {
        es_session_sayf(s, 1, "record: %s", err);
        return -1;
    }
    es_session_sayf(s, 0, "recording to %s%s%s", path, input_path ? " and " : "",
                    input_path ? input_path : "");
    return 0;
}

int es_session_rescan(es_session *s)
{
    if (!s->preparer) {
        es_session_sayf(s, 1, "rescan: the session has stopped");
        return -1;
    }
    es_preparer_rescan(s->preparer);
    return 0;
}

const char *es_session_room_word(const es_room *r)
{
    return r->origin == ES_ROOMS_FILE ? r->path : r->name;
}

int es_session_room_index(const es_session *s, const char *room)
{
    return es_room_list_index(&s->list, room);
}

void es_session_show_room(es_session *s, int index)
{
    es_room_list_show(&s->list, index);
}

int es_session_step_room_channel(es_session *s, int step)
{
    es_room_info *info = es_room_list_info(&s->list, es_room_list_shown(&s->list));
    if (!info || info->measured != 1 || info->channels < 2)
        return -1;
    info->asked = (info->channel + step + info->channels) % info->channels;
    info->step = step < 0 ? -1 : 1;
    info->measured = 0; /* asked of the preparer at the next snapshot */
    return 0;
}

/* Where the head is now, and what it hears there, in one line. */
static void say_head(es_session *s)
{
    es_head_view v;
    es_head_view_get(s->head.tracker, &v);
    char blend[200];
    if (v.sets >= 1 && es_head_blend_words(&v, blend, sizeof blend))
        es_session_sayf(s, 0, "head: yaw %.1f, pitch %.1f, roll %.1f: %s", v.yaw, v.pitch,
                        v.roll, blend);
    else if (v.field_order)
        es_session_sayf(s, 0, "head: yaw %.1f, pitch %.1f, roll %.1f: the field turns",
                        v.yaw, v.pitch, v.roll);
    else if (v.sets < 1)
        es_session_sayf(s, 0, "head: yaw %.1f, pitch %.1f, roll %.1f held; %s has no sets to "
                        "follow it (a SOFA room does)", v.yaw, v.pitch, v.roll, s->playing.room);
    else
        es_session_sayf(s, 0, "head: yaw %.1f, pitch %.1f, roll %.1f: set %d of %d (%s "
                        "azimuth %.1f, elevation %.1f)", v.yaw, v.pitch, v.roll, v.set + 1,
                        v.sets, v.varies == ES_SOFA_SOURCE ? "the source at" : "measured at",
                        v.pose.azimuth, v.pose.elevation);
}

int es_session_head(es_session *s, double yaw, double pitch, double roll)
{
    char why[200];
    es_head_view was;
    es_head_view_get(s->head.tracker, &was);
    yaw = isnan(yaw) ? was.yaw : yaw;
    pitch = isnan(pitch) ? was.pitch : pitch;
    roll = isnan(roll) ? was.roll : roll;
    if (es_head_turn(s->head.tracker, yaw, pitch, roll, es_now_ns(), why, sizeof why) != 0) {
        es_session_sayf(s, 1, "head: %s", why);
        return -1;
    }
    say_head(s);
    return 0;
}

int es_session_head_nudge(es_session *s, double yaw, double pitch, double roll)
{
    char why[200];
    if (es_head_nudge(s->head.tracker, yaw, pitch, roll, why, sizeof why) != 0) {
        es_session_sayf(s, 1, "head: %s", why);
        return -1;
    }
    say_head(s);
    return 0;
}
