/* The live session: opening the stream, and every change made while it
 * plays. Changes that keep the stream's shape (a room, an engine, a
 * partition size with no more latency) crossfade in the processor; the
 * rest (block size, source, more latency) build a new processor and reopen
 * the device, and the old stream plays on if that fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fallback.h"
#include "session_private.h"

#define STALL_SECONDS 1.0 /* no callback for this long: the device is in trouble */

void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (s->say)
        s->say(s->say_ctx, problem, line);
}

static es_processor *build_processor(es_session *s, const es_engine_class *k,
                                     const es_options *opt, const es_ir *ir, int block,
                                     char *err, size_t n)
{
    es_format fmt = {.sample_rate = s->cfg.rate, .max_block = block, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    char why[256];
    es_engine *e = es_engine_create(k, &fmt, ir, opt, why, sizeof why);
    if (!e) {
        snprintf(err, n, "%s", why);
        return NULL;
    }
    /* max_latency 0: the processor takes the engine's own. */
    es_processor_config pc = s->pc;
    pc.max_latency = 0;
    return es_processor_create(&fmt, e, &pc, err, n);
}

/* The source as a player sees it: the file's reader, the microphone or the
 * test signal. */
static void player_config(const es_session *s, es_source_kind kind, es_file_source *file,
                          int block, es_player_config *plc)
{
    *plc = (es_player_config){.device = s->cfg.device, .block = block,
                              .live_input = kind == ES_SOURCE_MIC,
                              .input_device = s->cfg.input_device,
                              .source = file ? es_file_source_fill : NULL,
                              .source_ctx = file,
                              .tap = es_session_output_tap, .tap_ctx = (void *)s,
                              .input_tap = es_session_input_tap, .input_tap_ctx = (void *)s};
}

/* Opens a source of `kind`: its channels in *inputs, the file reader in
 * *file (NULL for the others). 0, or -1 with a message. */
static int open_source(const es_session *s, es_source_kind kind, es_file_source **file,
                       int *inputs, char *err, size_t n)
{
    *file = NULL;
    *inputs = 1;
    if (kind == ES_SOURCE_MIC && !strcmp(s->cfg.device, "null")) {
        snprintf(err, n, "microphone: the null device has no microphone; play a file or "
                 "the test signal, or use a sound device");
        return -1;
    }
    if (kind != ES_SOURCE_FILE)
        return 0;
    if (!s->cfg.file) {
        snprintf(err, n, "file: no file to play (start with --input FILE)");
        return -1;
    }
    *file = es_file_source_open(s->cfg.file, s->cfg.rate, inputs, err, n);
    return *file ? 0 : -1;
}

static es_ir *load_room(es_session *s, const char *room, int inputs, char *err, size_t n)
{
    char note[300];
    es_ir *ir = es_room_loader_get(&s->rooms, room, s->cfg.rate, inputs, note, sizeof note,
                                   err, n);
    if (ir && note[0])
        es_session_sayf(s, 0, "%s", note);
    return ir;
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
    s->say = say;
    s->say_ctx = ctx;
    s->pc = (es_processor_config){.mix = {.wet = 1, .dry = 0, .gain = 1},
                                  .crossfade_ms = cfg->crossfade_ms};
    es_session_taps_init(s);
    /* Every page mapped now and later is resident before anyone touches
     * it: the audio thread never takes a page fault, which would wait on
     * the address-space lock while another thread maps or unmaps memory
     * (the screen starting up, a room being prepared). */
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory cannot be locked */
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        es_session_sayf(s, 0, "note: memory not locked (RLIMIT_MEMLOCK too low); the "
                        "audio thread may take page faults");
#endif
    es_room_loader_open(&s->rooms, cfg->rooms_dir);
    for (int m = 0; m < s->rooms.lib.message_count; m++)
        es_session_sayf(s, 1, "%s", s->rooms.lib.messages[m]);
    const char *room = cfg->room ? cfg->room : es_room_loader_default(&s->rooms);
    if (!room) {
        snprintf(err, n, "no room given and the shipped rooms are not found; use --room FILE");
        goto fail;
    }
    snprintf(s->room, sizeof s->room, "%s", room);
    if (open_source(s, cfg->source, &s->file, &s->inputs, err, n) != 0 ||
        !(s->ir = load_room(s, room, s->inputs, err, n)))
        goto fail;
    for (int w = 0; w < 2; w++) {
        const char *path = w == REC_OUTPUT ? cfg->record : cfg->record_input;
        if (!path)
            continue;
        const int channels = w == REC_OUTPUT ? s->ir->outputs : s->inputs;
        if (!(s->recorder[w] = es_recorder_open(path, cfg->rate, channels, 0, err, n)))
            goto fail;
        snprintf(s->record_path[w], sizeof s->record_path[w], "%s", path);
        atomic_store(&s->tap[w], s->recorder[w]);
    }
    const int automatic = !strcmp(cfg->device, "auto");
    s->cfg.device = automatic ? "default" : cfg->device;
    for (int attempt = 0; attempt < 2 && !s->player; attempt++) {
        char why[512];
        es_processor *proc = build_processor(s, cfg->engine, &cfg->options, s->ir, cfg->block,
                                             why, sizeof why);
        if (!proc) {
            snprintf(err, n, "%s: %s", room, why);
            goto fail;
        }
        es_player_config plc;
        player_config(s, cfg->source, s->file, cfg->block, &plc);
        s->player = es_player_open(&plc, proc, why, sizeof why);
        if (!s->player && automatic && attempt == 0) {
            es_session_sayf(s, 0, "note: no usable sound device (%s); playing on the null "
                            "device", why);
            s->cfg.device = "null";
        } else if (!s->player) {
            snprintf(err, n, "%s", why);
            goto fail;
        }
    }
    snprintf(s->device_name, sizeof s->device_name, "%s", s->cfg.device);
    s->cfg.device = s->device_name;
    if (es_player_start(s->player, err, n) != 0)
        goto fail;
    clock_gettime(CLOCK_MONOTONIC, &s->started);
    s->since = s->progress_at = s->started;
    return s;
fail:
    es_session_close(s);
    return NULL;
}

int es_session_stop(es_session *s)
{
    if (s->stopped_yet)
        return 0;
    s->stopped_yet = 1;
    int rc = 0;
    if (s->stalled) {
        es_player_abandon_device(s->player);
        es_session_sayf(s, 1, "device %s stopped answering; left as it is",
                        es_player_device(s->player));
        rc = -1;
    }
    es_player_stop(s->player);
    clock_gettime(CLOCK_MONOTONIC, &s->stopped);
    for (int w = 0; w < 2; w++)
        rc |= es_session_finish_recording(s, w);
    if (s->file && es_file_source_starved(s->file))
        es_session_sayf(s, 0, "note: the input file fell behind: %llu frames of silence",
                        (unsigned long long)es_file_source_starved(s->file));
    return rc;
}

void es_session_close(es_session *s)
{
    if (!s)
        return;
    if (s->player)
        es_session_stop(s);
    es_player_close(s->player);
    for (int w = 0; w < 2; w++)
        es_recorder_free(s->recorder[w]);
    es_file_source_close(s->file);
    es_ir_destroy(s->ir);
    es_room_loader_close(&s->rooms);
    free(s);
}

/* The stream delivers no blocks: said once when it stops, once when it
 * comes back. */
static void watch_device(es_session *s, const es_stats *st, const struct timespec *now)
{
    if (st->blocks != s->progress_blocks) {
        if (s->stalled)
            es_session_sayf(s, 0, "device %s: audio running again",
                            es_player_device(s->player));
        s->stalled = 0;
        s->progress_blocks = st->blocks;
        s->progress_at = *now;
    } else if (!s->stalled && es_seconds_between(&s->progress_at, now) > STALL_SECONDS) {
        es_session_sayf(s, 1, "device %s: no audio for %.0f s (device lost or stalled)",
                        es_player_device(s->player), STALL_SECONDS);
        s->stalled = 1;
    }
}

void es_session_poll(es_session *s)
{
    es_processor *proc = es_player_processor(s->player);
    es_processor_collect(proc);
    if (s->file && !s->source_said && es_file_source_error(s->file)[0]) {
        es_session_sayf(s, 1, "input stopped: %s", es_file_source_error(s->file));
        s->source_said = 1;
    }
    char what[768];
    const int fell = s->fallback_stuck ? 0 : es_fallback_poll(proc, s->ir, what, sizeof what);
    if (fell != 0)
        es_session_sayf(s, 1, "%s", what);
    s->fallback_stuck |= fell < 0; /* said once; the stream plays on, silent */
    if (fell > 0) {
        s->previous = s->cfg.engine;
        s->cfg.engine = es_engine_find("cpu-partitioned");
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    es_stats st;
    es_processor_stats(proc, &st);
    if (!s->stopped_yet)
        watch_device(s, &st, &now);
    es_session_watch_recording(s);
}

/* The stream reopened with a new processor: the meters count from now. */
static int reopen(es_session *s, const es_player_config *plc, es_processor *proc, char *err,
                  size_t n)
{
    if (s->stalled) /* a dead stream cannot be stopped safely, only left */
        es_player_abandon_device(s->player);
    if (es_player_reconfigure(s->player, plc, proc, err, n) != 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &s->since);
    return 0;
}

/* Plays `ir` through engine `k` with `opt`: a crossfade when the new engine
 * fits the stream's latency, else the stream reopens with room for it.
 * Takes `ir` on success. `what` names the change in messages. */
static int play_with(es_session *s, const es_engine_class *k, const es_options *opt,
                     es_ir *ir, const char *what)
{
    es_processor *proc = es_player_processor(s->player);
    char why[512];
    es_engine *e = es_engine_create(k, es_processor_format(proc), ir, opt, why, sizeof why);
    if (!e) {
        es_session_sayf(s, 1, "%s: %s; still playing as before", what, why);
        return -1;
    }
    if (es_engine_latency(e) <= es_processor_latency(proc)) {
        if (es_processor_swap(proc, e, why, sizeof why) != 0) {
            es_session_sayf(s, 1, "%s: %s; still playing as before", what, why);
            es_engine_destroy(e);
            return -1;
        }
        es_session_sayf(s, 0, "%s", what);
    } else {
        /* More latency than the stream has: a crossfade would move the
         * sound in time, so the stream reopens with room for it. */
        es_engine_destroy(e);
        es_processor *next = build_processor(s, k, opt, ir, s->cfg.block, why, sizeof why);
        if (!next || reopen(s, es_player_config_now(s->player), next, why, sizeof why) != 0) {
            es_session_sayf(s, 1, "%s: %s; still playing as before", what, why);
            return -1;
        }
        es_session_sayf(s, 0, "%s: the stream reopened, latency now %d frames", what,
                        es_player_latency(s->player));
    }
    if (ir != s->ir) {
        es_ir_destroy(s->ir);
        s->ir = ir;
    }
    if (k != s->cfg.engine) {
        s->previous = s->cfg.engine;
        s->cfg.engine = k;
    }
    s->cfg.options = *opt;
    return 0;
}

int es_session_set_room(es_session *s, const char *room)
{
    char err[768], what[1100];
    es_ir *ir = load_room(s, room, s->inputs, err, sizeof err);
    if (!ir) {
        es_session_sayf(s, 1, "%s; still playing the previous room", err);
        return -1;
    }
    const int outputs = es_processor_format(es_player_processor(s->player))->outputs;
    if (ir->outputs != outputs) {
        es_session_sayf(s, 1, "%s: %d output channels, the stream has %d; still playing the "
                        "previous room", room, ir->outputs, outputs);
        es_ir_destroy(ir);
        return -1;
    }
    snprintf(what, sizeof what, "room %s", room);
    if (play_with(s, s->cfg.engine, &s->cfg.options, ir, what) != 0) {
        es_ir_destroy(ir);
        return -1;
    }
    snprintf(s->room, sizeof s->room, "%s", room);
    return 0;
}

int es_session_set_engine(es_session *s, const es_engine_class *engine)
{
    char what[128];
    snprintf(what, sizeof what, "engine %s", engine->name);
    return play_with(s, engine, &s->cfg.options, s->ir, what);
}

const es_engine_class *es_session_previous_engine(const es_session *s)
{
    return s->previous;
}

int es_session_set_options(es_session *s, const es_options *options)
{
    char what[128];
    if (options->partition != s->cfg.options.partition)
        snprintf(what, sizeof what, "partition %d", options->partition);
    else
        snprintf(what, sizeof what, "pipelined %s", options->gpu_pipelined ? "on" : "off");
    return play_with(s, s->cfg.engine, options, s->ir, what);
}

int es_session_set_block(es_session *s, int block)
{
    char err[768];
    es_processor *next = build_processor(s, s->cfg.engine, &s->cfg.options, s->ir, block, err,
                                         sizeof err);
    es_player_config plc = *es_player_config_now(s->player);
    plc.block = block;
    if (!next || reopen(s, &plc, next, err, sizeof err) != 0) {
        es_session_sayf(s, 1, "block %d: %s; still playing at %d", block, err, s->cfg.block);
        return -1;
    }
    s->cfg.block = block;
    const int latency = es_player_latency(s->player);
    es_session_sayf(s, 0, "block %d: latency now %d frames (%.2f ms)", block, latency,
                    1e3 * latency / s->cfg.rate);
    return 0;
}

int es_session_set_mix(es_session *s, const es_mix *mix)
{
    if (es_processor_set_mix(es_player_processor(s->player), mix) != 0) {
        es_session_sayf(s, 1, "mix: too many changes queued; try again");
        return -1;
    }
    s->pc.mix = *mix; /* kept across reopens */
    return 0;
}

int es_session_reset_meters(es_session *s)
{
    if (es_processor_reset_stats(es_player_processor(s->player)) != 0) {
        es_session_sayf(s, 1, "reset: too many changes queued; try again");
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &s->since);
    return 0;
}

static const char *source_word(es_source_kind k)
{
    return k == ES_SOURCE_MIC ? "microphone" : k == ES_SOURCE_FILE ? "file" : "test signal";
}

int es_session_set_source(es_session *s, es_source_kind kind)
{
    char err[768];
    es_file_source *file;
    int inputs;
    if (open_source(s, kind, &file, &inputs, err, sizeof err) != 0) {
        es_session_sayf(s, 1, "%s; still playing the %s", err, source_word(s->cfg.source));
        return -1;
    }
    es_ir *ir = inputs == s->inputs ? NULL : load_room(s, s->room, inputs, err, sizeof err);
    es_processor *next = NULL;
    if (inputs == s->inputs || ir)
        next = build_processor(s, s->cfg.engine, &s->cfg.options, ir ? ir : s->ir,
                               s->cfg.block, err, sizeof err);
    if (next && ir && ir->outputs != s->ir->outputs) {
        snprintf(err, sizeof err, "the room has %d outputs for %d inputs, the stream %d",
                 ir->outputs, inputs, s->ir->outputs);
        es_processor_destroy(next);
        next = NULL;
    }
    if (next && s->recorder[REC_INPUT] && inputs != s->inputs)
        es_session_finish_recording(s, REC_INPUT); /* its file has the old channels */
    es_player_config plc;
    player_config(s, kind, file, s->cfg.block, &plc);
    if (!next || reopen(s, &plc, next, err, sizeof err) != 0) {
        es_session_sayf(s, 1, "%s: %s; still playing the %s", source_word(kind), err,
                        source_word(s->cfg.source));
        es_file_source_close(file);
        es_ir_destroy(ir);
        return -1;
    }
    es_file_source_close(s->file); /* the stream no longer reads it */
    s->file = file;
    s->source_said = 0;
    if (ir) {
        es_ir_destroy(s->ir);
        s->ir = ir;
    }
    s->inputs = inputs;
    s->cfg.source = kind;
    es_session_sayf(s, 0, "source: %s", es_session_source_name(s));
    return 0;
}

const es_session_config *es_session_now(const es_session *s)
{
    return &s->cfg;
}

const char *es_session_room(const es_session *s)
{
    return s->room;
}

const es_mix *es_session_mix(const es_session *s)
{
    return &s->pc.mix;
}

es_player *es_session_player(es_session *s)
{
    return s->player;
}

es_room_loader *es_session_rooms(es_session *s)
{
    return &s->rooms;
}

const es_scope *es_session_scope(const es_session *s)
{
    return &s->scope;
}

const char *es_session_source_name(const es_session *s)
{
    if (s->cfg.source == ES_SOURCE_FILE && s->cfg.file) {
        const char *slash = strrchr(s->cfg.file, '/');
        return slash ? slash + 1 : s->cfg.file;
    }
    return source_word(s->cfg.source);
}

double es_session_elapsed(const es_session *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return es_seconds_between(&s->started, s->stopped_yet ? &s->stopped : &now);
}

double es_session_counted(const es_session *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return es_seconds_between(&s->since, s->stopped_yet ? &s->stopped : &now);
}
