/* Opening the live session: the stream built through the preparer (the
 * one place a stream is built, the first one too) before anything plays.
 * The room loader and the room list opened, each slot's spec resolved
 * (a remembered room that is gone left out), the first stream built and
 * waited for, the device opened with its processor (each device `auto`
 * means in turn), the recordings asked for from the start put on the
 * audio path, and the stream started. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "core/rt_memory.h"
#include "osc_control.h"
#include "session_log.h"
#include "session_private.h"

/* The first stream is built before anything plays: as long as it takes. */
#define FIRST_BUILD_S 86400.0

/* Every page mapped now and later is resident before anyone touches it:
 * the audio thread never takes a page fault, which would wait on the
 * address-space lock while another thread maps or unmaps memory (the
 * screen starting up, a room being prepared). */
static void lock_memory(es_session *s)
{
    /* Engines come and go with every change. glibc raises its mmap
     * threshold to the size of each large block freed, after which blocks
     * that size come from the heap and, freed, stay mapped (and locked):
     * a fixed threshold keeps every engine-sized buffer a mapping of its
     * own, given back when the engine is destroyed. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory cannot be locked */
    char locked[300];
    if (es_rt_memory_lock(locked, sizeof locked) != 0)
        es_session_sayf(s, 0, "note: %s; the audio thread may take page faults "
                        "(docs/INSTALL.md: locked memory)", locked);
#else
    (void)s;
#endif
}

/* 1 when `room` is a library room or a file that is there. */
static int room_exists(const es_session *s, const char *room)
{
    struct stat st;
    return es_library_find(&s->rooms.lib, room) || (stat(room, &st) == 0 && S_ISREG(st.st_mode));
}

/* 1 when slot k's room came from remembered settings and is gone. */
static int remembered_and_gone(es_session *s, int k)
{
    const es_play_spec *spec = &s->cfg.slot[k];
    if (!spec->room[0] || !(s->cfg.remembered_rooms & (1u << k)) || room_exists(s, spec->room))
        return 0;
    s->remembered_gone |= 1u << k;
    return 1;
}

/* Each slot's spec: A's room the default where none is named; B the parts
 * it holds, A's for the rest. A remembered room that is gone is left
 * out. 0, or -1. */
static int resolve_slots(es_session *s, char *err, size_t n)
{
    es_play_spec *a = &s->cfg.slot[ES_SLOT_A], *b = &s->cfg.slot[ES_SLOT_B];
    if (remembered_and_gone(s, ES_SLOT_A))
        a->room[0] = 0;
    if (!a->room[0]) {
        const char *fallback = es_room_loader_default(&s->rooms);
        if (!fallback) {
            snprintf(err, n, "no room given and the shipped rooms are not found; use "
                     "--room FILE");
            return -1;
        }
        es_play_spec_set_room(a, fallback);
    }
    if (s->cfg.b_parts && remembered_and_gone(s, ES_SLOT_B))
        s->cfg.b_parts &= ~(unsigned)ES_SPEC_ROOM;
    const es_play_spec held = *b;
    *b = *a; /* B's source is the stream's: A's */
    es_play_spec_take(b, &held, s->cfg.b_parts & ES_SPEC_SLOT);
    if (!s->cfg.b_parts && s->cfg.playing == ES_SLOT_B)
        s->cfg.playing = ES_SLOT_A;
    return 0;
}

void es_session_head_follows(es_session *s, es_prep_result *r)
{
    es_head_set_blend(s->head.tracker, r->blend_engine, r->blend_heads, r->blend_kept,
                      r->blend_first);
    r->blend_heads = NULL; /* the tracker's */
    es_head_set_room(s->head.tracker, r->poses, r->pose_count, r->pose_varies);
    es_head_set_field(s->head.tracker, r->field_order, r->field_decoder);
}

/* The first stream's request: what slot `playing` holds, against no
 * stream at all. */
static void first_request(es_session *s, es_prep_request *q)
{
    const int slot = s->cfg.playing;
    *q = (es_prep_request){.spec = s->cfg.slot[slot], .slot = slot, .rate = s->cfg.rate,
                           .file = s->cfg.file, .can_capture = 1,
                           .mic_inputs = s->cfg.mic_inputs, .pc = s->pc,
                           .headphone = s->headphone.ears ? &s->headphone : NULL,
                           .split_ms = s->cfg.split_ms, .interp = s->cfg.interp,
                           .speakers = s->cfg.speakers, .field = s->cfg.field,
                           .field_layout = s->cfg.field_layout};
    snprintf(q->what, sizeof q->what, "the first stream");
    q->pc.ab = slot; /* the processor counts its first engine there */
}

/* Opens the device with the first stream's processor, trying each device
 * `auto` means in turn (audio/device.h); the processor is built once and
 * stays the result's until a device takes it. 0, or -1 with why. */
static int open_device(es_session *s, es_prep_result *r, char *err, size_t n)
{
    const char *tries[ES_DEVICE_TRIES];
    const int n_tries = es_device_tries(s->cfg.device, tries);
    for (int attempt = 0; attempt < n_tries; attempt++) {
        char why[512];
        s->cfg.device = tries[attempt];
        if (s->playing.source == ES_SOURCE_MIC && !es_device_can_capture(tries[attempt])) {
            snprintf(why, sizeof why, "microphone: the %s device has no microphone; play a "
                     "file or the test signal, or use a sound device", tries[attempt]);
        } else {
            es_player_config plc;
            es_session_player_config(s, s->playing.source, r->file, s->playing.block, &plc);
            if ((s->player = es_player_open(&plc, r->proc, why, sizeof why))) {
                r->proc = NULL; /* the player's */
                return 0;
            }
        }
        if (attempt + 1 == n_tries) {
            snprintf(err, n, "%s", why);
            return -1;
        }
        char line[800];
        es_device_try_note(tries[attempt], tries[attempt + 1], why, line, sizeof line);
        es_session_sayf(s, 0, "%s", line);
    }
    snprintf(err, n, "no device to try");
    return -1;
}

/* The recordings asked for from the start, on the audio path before the
 * first block. 0, or -1 with why. */
static int start_recordings(es_session *s, int outputs, char *err, size_t n)
{
    const char *paths[2] = {s->cfg.record, s->cfg.record_input};
    if (!paths[0] && !paths[1])
        return 0;
    /* What they would overwrite was refused before the device opened
     * (refuse_recordings). */
    const int channels[2] = {outputs, es_session_inputs(s)};
    return es_taps_start(&s->taps, paths, channels, 0, err, n);
}

/* A recording asked for from the start that would replace what plays is
 * refused before any device opens: the one line, nothing else. */
static int refuse_recordings(es_session *s, char *err, size_t n)
{
    const char *paths[2] = {s->cfg.record, s->cfg.record_input};
    return es_session_record_refused(s, paths, err, n);
}

/* Builds the first stream on the preparer and opens the device with it.
 * 0, or -1 with why. */
static int open_stream(es_session *s, char *err, size_t n)
{
    es_prep_request q;
    first_request(s, &q);
    s->playing = q.spec;
    const uint64_t id = es_preparer_submit(s->preparer, &q);
    es_prep_result *r = es_preparer_wait(s->preparer, id, FIRST_BUILD_S);
    if (!r || r->err[0]) {
        /* After the room loaded, what failed (the engine) is named with it. */
        if (r && r->room_loaded)
            snprintf(err, n, "%.500s: %.500s", s->playing.room, r->err);
        else
            snprintf(err, n, "%s", r ? r->err : "the first stream was not built");
        es_preparer_discard_result(s->preparer, r);
        return -1;
    }
    es_session_head_follows(s, r);
    const int outputs = r->fmt.outputs;
    /* The ports are named once, by the first room, and keep their names. */
    _Static_assert(ES_JCONVOLVER_NAME == ES_JACK_PORT_NAME &&
                       ES_JCONVOLVER_SIDE == ES_JACK_PORTS,
                   "a room's port names fit the JACK device's");
    s->ports = r->ports;
    s->cfg.jack.input_names = (const char(*)[ES_JACK_PORT_NAME])s->ports.input;
    s->cfg.jack.output_names = (const char(*)[ES_JACK_PORT_NAME])s->ports.output;
    int rc = open_device(s, r, err, n);
    if (rc == 0) { /* the room plays: said now, not before a device that failed */
        if (r->note[0])
            es_session_sayf(s, 0, "%s", r->note);
        es_watch_room_began(&s->watch, r->loud_db);
        s->file = r->file; /* the stream reads it now */
        r->file = NULL;
        rc = start_recordings(s, outputs, err, n);
    }
    es_preparer_discard_result(s->preparer, r);
    return rc;
}

/* Opens the room loader and the session's room list, and starts the
 * preparer on the loader. 0, or -1 with why. */
static int open_rooms(es_session *s, char *err, size_t n)
{
    es_room_loader_open(&s->rooms, s->cfg.rooms_dir);
    s->rooms.first_output = s->cfg.first_output;
    s->rooms.outputs = s->cfg.outputs;
    s->rooms.layout_inputs = s->cfg.layout_inputs;
    s->rooms.layout_outputs = s->cfg.layout_outputs;
    for (int m = 0; m < s->rooms.lib.message_count; m++)
        es_session_sayf(s, 1, "%s", s->rooms.lib.messages[m]);
    if (resolve_slots(s, err, n) != 0)
        return -1;
    /* The room list is the session's own copy, taken while the library is
     * still this thread's; from here on every slow thing happens on the
     * preparer thread, which owns the room loader: its cache, and the
     * library it reads again. */
    if (es_room_list_open(&s->list, &s->rooms.lib, s->cfg.slot[s->cfg.playing].room,
                          es_session_say_line, s, err, n) != 0)
        return -1;
    s->preparer = es_preparer_create(&s->rooms, s->cfg.rate, err, n);
    return s->preparer ? 0 : -1;
}

es_session *es_session_open(const es_session_config *cfg, es_session_say say, void *ctx,
                            char *err, size_t n)
{
    es_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    es_message_log_init(&s->log, say, ctx);
    s->state = (es_live_state){ES_STREAM_OPENING, ES_CHANGE_IDLE, ES_PROBE_IDLE};
    s->pc = (es_processor_config){.mix = cfg->mix, .crossfade_ms = cfg->crossfade_ms,
                                  .set_requests = &s->head.requests};
    if (!(s->head.tracker = es_head_create(&s->head.requests))) {
        snprintf(err, n, "out of memory");
        goto fail;
    }
    if (cfg->log_path && !(s->log_file = es_session_log_open(cfg->log_path, err, n)))
        goto fail;
    if (cfg->osc_port) {
        if (!(s->control = es_osc_control_create(s->head.tracker))) {
            snprintf(err, n, "out of memory");
            goto fail;
        }
        es_osc_control_set_log(s->control, s->log_file);
        es_head_set_control(s->head.tracker, s->control);
    }
    char osc_why[300];
    if (cfg->osc_port &&
        es_head_listen(s->head.tracker, cfg->osc_bind, cfg->osc_port, osc_why,
                       sizeof osc_why) != 0) {
        snprintf(err, n, "%s: %s", cfg->osc_bind ? "--osc-bind" : "--osc", osc_why);
        goto fail;
    }
    if (cfg->headphone) {
        char why[600];
        if (es_headphone_load(cfg->headphone, cfg->rate, &s->headphone, why, sizeof why) != 0) {
            snprintf(err, n, "--headphone %s", why);
            goto fail;
        }
        es_session_sayf(s, 0, "headphone filter: %s", s->headphone.said);
    }
    es_taps_init(&s->taps, cfg->rate, es_session_say_line, s);
    lock_memory(s);
    const es_play_spec *first = &cfg->slot[ES_SLOT_A];
    char gpu_why[256];
    if (es_gpu_list_for(first->engine, &first->options.gpu.list, gpu_why, sizeof gpu_why) != 0)
        es_session_sayf(s, 0, "note: %s; the list is kept for a switch to one", gpu_why);
    if (open_rooms(s, err, n) != 0 || refuse_recordings(s, err, n) != 0 ||
        open_stream(s, err, n) != 0 ||
        es_player_start(s->player, err, n) != 0)
        goto fail;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    if (!lp.known) /* said at once; a model standing in is said in the report */
        es_session_sayf(s, 1, "latency: %s", lp.note);
    s->target = s->playing;
    s->target_slot = s->cfg.playing;
    es_slots_init(&s->slots, &s->cfg.slot[ES_SLOT_A],
                  s->cfg.b_parts ? &s->cfg.slot[ES_SLOT_B] : NULL, s->cfg.playing,
                  es_player_latency(s->player));
    es_watch_start(&s->watch, es_player_xruns(s->player));
    es_session_event(s, ES_EV_OPENED);
    es_session_publish(s);
    return s;
fail:
    es_session_close(s);
    return NULL;
}
