/* The live session: opening the stream, and every change made while it
 * plays. A change sets the session's target (room, engine, options, block,
 * source) and hands it to the preparer thread; es_session_poll applies
 * what comes back. Changes that keep the stream's shape (a room, an
 * engine, a partition size with no more latency) crossfade in the
 * processor; the rest (block size, source, more latency) come as a new
 * processor, and the device reopens with it. The old stream plays on if
 * anything fails. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

#include "core/rt_memory.h"
#include "core/text.h"
#include "session_private.h"

#define STALL_SECONDS 1.0 /* no callback for this long: the device is in trouble */
#define LOST_SECONDS 5.0  /* stalled this long with the host still saying it runs: lost */
/* The longest the end of a session waits for the preparer: quit and
 * SIGTERM end the process within 2 s whatever it is doing. */
#define PREPARER_QUIT_S 0.5

/* A session whose preparer was left busy at the end (stop_preparing). */
static es_session *left_behind;

void es_session_sayf(es_session *s, int problem, const char *fmt, ...)
{
    char line[1024], safe[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* Every line the session says may name a file, a room or a device:
     * escaped once here, safe on any terminal it reaches. */
    es_text_escape(safe, sizeof safe, line);
    if (s->say)
        s->say(s->say_ctx, problem, safe);
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
void es_session_player_config(const es_session *s, es_source_kind kind, es_file_source *file,
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
    if (kind == ES_SOURCE_MIC && !es_device_can_capture(s->cfg.device)) {
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
    s->pc = (es_processor_config){.mix = {.wet = 1, .dry = 0, .gain = 1,
                                          .trim_db = (float)cfg->trim_db,
                                          .limiter = cfg->limiter,
                                          .ceiling_db = (float)cfg->ceiling_db},
                                  .crossfade_ms = cfg->crossfade_ms};
    es_ir *ir = NULL; /* the first room, until its engine is built */
    es_session_taps_init(s);
    /* Every page mapped now and later is resident before anyone touches
     * it: the audio thread never takes a page fault, which would wait on
     * the address-space lock while another thread maps or unmaps memory
     * (the screen starting up, a room being prepared). */
    /* Engines come and go with every change. glibc raises its mmap
     * threshold to the size of each large block freed, after which blocks
     * that size come from the heap and, freed, stay mapped (and locked):
     * a fixed threshold keeps every engine-sized buffer a mapping of its
     * own, given back when the engine is destroyed. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory cannot be locked */
    char locked[300];
    if (es_rt_memory_lock(locked, sizeof locked) != 0)
        es_session_sayf(s, 0, "note: %s; the audio thread may take page faults", locked);
#endif
    char gpu_why[256];
    if (es_gpu_list_for(cfg->engine, &cfg->options.gpu.list, gpu_why, sizeof gpu_why) != 0)
        es_session_sayf(s, 0, "note: %s; the list is kept for a switch to one", gpu_why);
    es_room_loader_open(&s->rooms, cfg->rooms_dir);
    s->rooms.first_output = cfg->first_output;
    s->rooms.outputs = cfg->outputs;
    for (int m = 0; m < s->rooms.lib.message_count; m++)
        es_session_sayf(s, 1, "%s", s->rooms.lib.messages[m]);
    const char *room = cfg->room ? cfg->room : es_room_loader_default(&s->rooms);
    if (!room) {
        snprintf(err, n, "no room given and the shipped rooms are not found; use --room FILE");
        goto fail;
    }
    snprintf(s->room, sizeof s->room, "%s", room);
    if (open_source(s, cfg->source, &s->file, &s->inputs, err, n) != 0 ||
        !(ir = load_room(s, room, s->inputs, err, n)))
        goto fail;
    for (int w = 0; w < 2; w++) {
        const char *path = w == REC_OUTPUT ? cfg->record : cfg->record_input;
        if (!path)
            continue;
        const int channels = w == REC_OUTPUT ? ir->outputs : s->inputs;
        if (es_session_record_overwrites_input(s, path, err, n) ||
            !(s->recorder[w] = es_recorder_open(path, cfg->rate, channels, 0, 0, err, n)))
            goto fail;
        snprintf(s->record_path[w], sizeof s->record_path[w], "%s", path);
        s->live[w] = s->recorder[w];
        atomic_store(&s->taps, (es_recorder *const *)s->live);
    }
    const char *tries[ES_DEVICE_TRIES];
    const int n_tries = es_device_tries(cfg->device, tries);
    s->cfg.device = tries[0];
    for (int attempt = 0; attempt < n_tries && !s->player; attempt++) {
        s->cfg.device = tries[attempt];
        char why[512];
        es_processor *proc = build_processor(s, cfg->engine, &cfg->options, ir, cfg->block,
                                             why, sizeof why);
        if (!proc) {
            snprintf(err, n, "%s: %s", room, why);
            goto fail;
        }
        es_player_config plc;
        es_session_player_config(s, cfg->source, s->file, cfg->block, &plc);
        s->player = es_player_open(&plc, proc, why, sizeof why);
        if (!s->player && attempt + 1 < n_tries) {
            char line[800];
            es_device_try_note(tries[attempt], tries[attempt + 1], why, line, sizeof line);
            es_session_sayf(s, 0, "%s", line);
        } else if (!s->player) {
            snprintf(err, n, "%s", why);
            goto fail;
        }
    }
    snprintf(s->device_name, sizeof s->device_name, "%s", s->cfg.device);
    s->cfg.device = s->device_name;
    if (es_player_start(s->player, err, n) != 0)
        goto fail;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    if (!lp.known) /* said at once; a model standing in is said in the report */
        es_session_sayf(s, 1, "latency: %s", lp.note);
    /* The room list is the session's own copy, taken while the library
     * is still this thread's. */
    if (es_session_rooms_open(s, err, n) != 0)
        goto fail;
    /* From here on every slow thing happens on the preparer thread, which
     * owns the room loader: its cache, and the library it reads again. */
    if (!(s->preparer = es_preparer_create(&s->rooms, cfg->rate, err, n)))
        goto fail;
    es_ir_destroy(ir);
    ir = NULL;
    s->target = (es_prep_request){.engine = s->cfg.engine, .options = s->cfg.options,
                                  .block = s->cfg.block, .source = s->cfg.source,
                                  .file = s->cfg.file};
    snprintf(s->target.room, sizeof s->target.room, "%s", s->room);
    es_session_slots_init(s);
    clock_gettime(CLOCK_MONOTONIC, &s->started);
    s->since = s->progress_at = s->started;
    return s;
fail:
    es_ir_destroy(ir);
    es_session_close(s);
    return NULL;
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
        s->preparer_left = 1;
    }
    s->preparer = NULL;
}

int es_session_stop(es_session *s)
{
    if (s->stopped_yet)
        return 0;
    s->stopped_yet = 1;
    int rc = 0;
    if (s->stalled || s->lost) {
        if (!s->lost)
            es_player_abandon_device(s->player);
        es_session_sayf(s, 1, "device %s stopped answering; left as it is",
                        es_player_device(s->player));
        rc = -1;
    }
    es_player_stop(s->player);
    clock_gettime(CLOCK_MONOTONIC, &s->stopped);
    stop_preparing(s);
    es_processor_collect(es_player_processor(s->player));
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
    stop_preparing(s);
    es_player_close(s->player);
    for (int w = 0; w < 2; w++)
        es_recorder_free(s->recorder[w]);
    es_file_source_close(s->file);
    es_session_rooms_close(s);
    if (s->preparer_left) {
        /* Its thread still reads s->rooms: kept, and reachable from here
         * (so LeakSanitizer does not count it), until the process ends. */
        left_behind = s;
        return;
    }
    es_room_loader_close(&s->rooms);
    free(s);
}

/* The stream delivers no blocks: said once when it stops, once when it
 * comes back. A stream whose host API says it stopped (PortAudio's
 * stream-finished callback, Pa_IsStreamActive), or that stalls for
 * LOST_SECONDS, is lost: it is left alone from then on, because asking a
 * dead server to stop or reopen can hang, abort or fail with a misleading
 * error inside the host API. */
static void watch_device(es_session *s, const es_stats *st, const struct timespec *now)
{
    if (s->lost)
        return;
    if (st->blocks != s->progress_blocks) {
        if (s->stalled)
            es_session_sayf(s, 0, "device %s: audio running again",
                            es_player_device(s->player));
        s->stalled = 0;
        s->progress_blocks = st->blocks;
        s->progress_at = *now;
        return;
    }
    const double quiet = es_seconds_between(&s->progress_at, now);
    if (quiet <= STALL_SECONDS)
        return;
    if (!s->stalled) {
        es_session_sayf(s, 1, "device %s: no audio for %.0f s (device lost or stalled)",
                        es_player_device(s->player), STALL_SECONDS);
        s->stalled = 1;
    }
    const int active = es_player_device_active(s->player);
    if (!active || quiet > LOST_SECONDS) {
        es_session_sayf(s, 1, "device lost: %s %s; the meters show the %.1f s before it; "
                        "q quits", es_player_device(s->player),
                        active ? "has delivered no audio for 5 s"
                               : "stopped (its host API ended the stream)",
                        es_seconds_between(&s->started, &s->progress_at));
        es_player_abandon_device(s->player);
        s->lost = 1;
    }
}

int es_session_measure_latency(es_session *s)
{
    char why[256];
    if (s->lost) {
        es_session_sayf(s, 1, "latency: device %s is lost", s->device_name);
        return -1;
    }
    if (es_player_probe_start(s->player, 1.0, why, sizeof why) != 0) {
        es_session_sayf(s, 1, "latency: %s", why);
        return -1;
    }
    s->probing = 1;
    return 0;
}

static void watch_probe(es_session *s)
{
    int frames;
    if (!s->probing || !es_player_probe_poll(s->player, &frames))
        return;
    s->probing = 0;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    const int computed = lp.input + lp.output;
    if (!lp.known && frames >= 0)
        es_session_sayf(s, 0, "latency measured %d fr; computed: %s", frames, lp.note);
    else if (!lp.known)
        es_session_sayf(s, 1, "latency: the click did not come back within 1 s (is the "
                        "output looped back to the input?); computed: %s", lp.note);
    else if (frames < 0)
        es_session_sayf(s, 1, "latency: the click did not come back within 1 s (is the "
                        "output looped back to the input?); computed %d fr", computed);
    else
        es_session_sayf(s, 0, "latency measured %d fr (%.2f ms), computed %d fr (input %d + "
                        "output %d; the engine adds %d)", frames, 1e3 * frames / s->cfg.rate,
                        computed, lp.input, lp.output, lp.engine);
}

es_device_state es_session_device_state(const es_session *s)
{
    return s->lost ? ES_DEVICE_LOST : s->stalled ? ES_DEVICE_STALLED : ES_DEVICE_PLAYING;
}

const char *es_device_state_word(es_device_state st)
{
    return st == ES_DEVICE_LOST ? "device lost" : st == ES_DEVICE_STALLED ? "stalled" : "playing";
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
    if (s->preparer)
        es_processor_collect_with(proc, retire, s->preparer);
    else
        es_processor_collect(proc);
    if (s->preparer) {
        es_session_take_prepared(s);
    }
    if (s->file && !s->source_said && es_file_source_error(s->file)[0]) {
        es_session_sayf(s, 1, "input stopped: %s", es_file_source_error(s->file));
        s->source_said = 1;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    es_stats st;
    es_processor_stats(es_player_processor(s->player), &st);
    if (s->preparer)
        es_session_watch_engine(s, &st);
    if (!s->stopped_yet) {
        watch_device(s, &st, &now);
        watch_probe(s);
    }
    es_session_watch_recording(s);
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

const es_scope *es_session_scope(const es_session *s)
{
    return &s->scope;
}

const char *es_session_source_name(const es_session *s)
{
    return es_session_source_word(s, s->cfg.source);
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
