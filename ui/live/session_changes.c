/* The live session's changes: a change sets the target and goes to the
 * preparer (submit); es_session_poll brings back what it built and plays
 * it (take_prepared: a crossfade, or a stream reopened), or says why not
 * and forgets it. session.c opens, watches and closes the stream. */
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "session_private.h"


static const char *source_word(es_source_kind k)
{
    return k == ES_SOURCE_MIC ? "microphone" : k == ES_SOURCE_FILE ? "file" : "test signal";
}

/* A source as a person names it: the file's name, or the kind. */
const char *es_session_source_word(const es_session *s, es_source_kind k)
{
    if (k == ES_SOURCE_FILE && s->cfg.file) {
        const char *slash = strrchr(s->cfg.file, '/');
        return slash ? slash + 1 : s->cfg.file;
    }
    return source_word(k);
}

/* What the stream keeps playing when a change fails, in words. */
static void still_playing(const es_session *s, const es_prep_request *q, char *out, size_t n)
{
    if (strcmp(q->room, s->room) != 0)
        snprintf(out, n, "still playing the previous room");
    else if (q->source != s->cfg.source)
        snprintf(out, n, "still playing the %s", source_word(s->cfg.source));
    else if (q->block != s->cfg.block)
        snprintf(out, n, "still playing at %d", s->cfg.block);
    else
        snprintf(out, n, "still playing as before");
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

/* A prepared change that needs a new stream. 0, or -1 with a message (the
 * processor is consumed either way). */
static int apply_reopen(es_session *s, es_prep_result *r, int restart, char *err, size_t n)
{
    const es_prep_request *q = &r->req;
    es_stats before; /* the slots' counts, which go with the old processor */
    es_processor_stats(es_player_processor(s->player), &before);
    es_file_source *file = q->source == s->cfg.source ? s->file : r->file;
    if (s->recorder[REC_INPUT] && r->inputs != s->inputs)
        es_session_finish_recording(s, REC_INPUT); /* its file has the old channels */
    es_player_config plc;
    es_session_player_config(s, q->source, file, q->block, &plc);
    es_processor *proc = r->proc;
    r->proc = NULL;
    if (reopen(s, &plc, proc, err, n) != 0)
        return -1;
    es_session_slots_carry(s, &before, restart ? q->ab : -1);
    if (file != s->file) { /* the stream no longer reads the old one */
        es_file_source *old = s->file;
        s->file = file;
        r->file = old; /* closed with the rest of the result */
        s->source_said = 0;
    }
    s->inputs = r->inputs;
    return 0;
}

/* Says what a change did, once it plays: every way it differs from what
 * played until now (two quick changes can arrive as one). */
static void say_done(es_session *s, const es_prep_result *r, int reopened, int restart)
{
    const es_prep_request *q = &r->req;
    es_latency_parts lp;
    es_player_latency_parts(s->player, &lp);
    char latency[224];
    es_latency_text(&lp, s->cfg.rate, latency, sizeof latency);
    char line[1600] = "";
    size_t used = 0;
#define ADD(...) used += (size_t)snprintf(line + used, sizeof line - (used < sizeof line ? used : sizeof line), __VA_ARGS__)
    if (q->ab != s->ab_active)
        ADD("slot %c plays", q->ab == ES_SLOT_A ? 'A' : 'B');
    const size_t start = used;
    /* Between the things that changed; after "slot B plays", a colon. */
#define SEP (used > start ? ", " : start ? ": " : "")
    if (q->fallback)
        ADD("%s%s", SEP, q->what);
    else {
        if (strcmp(q->room, s->room) != 0)
            ADD("%sroom %s", SEP, q->room);
        if (q->engine != s->cfg.engine)
            ADD("%sengine %s", SEP, q->engine->name);
        if (q->options.partition != s->cfg.options.partition)
            ADD("%spartition %d", SEP, q->options.partition);
        if (q->options.gpu_pipelined != s->cfg.options.gpu_pipelined)
            ADD("%spipelined %s", SEP,
                q->options.gpu_pipelined ? "on" : "off");
        if (q->source != s->cfg.source)
            ADD("%ssource: %s", SEP, es_session_source_word(s, q->source));
        if (q->block != s->cfg.block)
            ADD("%sblock %d", SEP, q->block);
        if (used == start)
            ADD("%s", start ? " (the same room, engine and block)" : q->what);
    }
    if (q->block != s->cfg.block)
        ADD(": latency now %s", latency);
    else if (reopened && q->source == s->cfg.source)
        ADD(": the stream reopened, latency now %s", latency);
    /* The slot holds something else now: its statistics start again. */
    if (restart && s->ab[q->ab].set)
        ADD(" (slot %c counts from now)", q->ab == ES_SLOT_A ? 'A' : 'B');
#undef SEP
#undef ADD
    es_session_sayf(s, 0, "%s", line);
}

/* A change that failed is no longer wanted: what later changes build on
 * goes back to what plays, where nothing newer has been asked for since. */
static void forget(es_session *s, const es_prep_request *q)
{
    es_prep_request *t = &s->target;
    if (!strcmp(t->room, q->room))
        snprintf(t->room, sizeof t->room, "%s", s->room);
    if (t->engine == q->engine)
        t->engine = s->cfg.engine;
    if (!memcmp(&t->options, &q->options, sizeof t->options))
        t->options = s->cfg.options;
    if (t->block == q->block)
        t->block = s->cfg.block;
    if (t->source == q->source)
        t->source = s->cfg.source;
    if (t->ab == q->ab)
        t->ab = s->ab_active;
}

/* Applies a prepared change. Returns 0 when done with it (played or
 * refused, and said), 1 when the processor cannot take a swap yet: the
 * caller keeps it and tries again on the next poll. */
static int apply(es_session *s, es_prep_result *r)
{
    const es_prep_request *q = &r->req;
    char why[768], tail[64];
    still_playing(s, q, tail, sizeof tail);
    if (r->err[0]) {
        forget(s, q);
        if (q->fallback)
            es_session_sayf(s, 1, "%s could not take over: %s", q->engine->name, r->err);
        else
            es_session_sayf(s, 1, "%s; %s", r->err, tail);
        return 0;
    }
    es_processor *proc = es_player_processor(s->player);
    int reopened = 0;
    const int restart = es_session_slot_restarts(s, q);
    if (r->engine) {
        /* One crossfade at a time: while one runs, the newest change waits
         * here, and a newer one replaces it. Queueing every change would
         * play a string of stale rooms, each held in memory until its turn.
         * The processor's own limit (can_swap) is the backstop. */
        if (es_processor_swap_pending(proc) || !es_processor_can_swap(proc))
            return 1;
        if (es_processor_swap_ab(proc, r->engine, &r->fmt, q->ab, restart, why,
                                 sizeof why) != 0) {
            es_session_sayf(s, 1, "%s: %s; %s", q->what, why, tail);
            return 0;
        }
        r->engine = NULL; /* the processor's now */
    } else {
        if (apply_reopen(s, r, restart, why, sizeof why) != 0) {
            es_session_sayf(s, 1, "%s: %s; %s", q->what, why, tail);
            return 0;
        }
        reopened = 1;
    }
    if (r->note[0] && strcmp(q->room, s->room) != 0)
        es_session_sayf(s, 0, "%s", r->note);
    say_done(s, r, reopened, restart); /* against what played until now */
    s->cfg.engine = q->engine;
    s->cfg.options = q->options;
    snprintf(s->room, sizeof s->room, "%s", q->room);
    es_session_rooms_played(s); /* a file joins the list, a gone room leaves it */
    s->cfg.source = q->source;
    s->cfg.block = q->block;
    es_session_slot_played(s, q, restart);
    return 0;
}

/* Takes what the preparer finished (or what waited for the processor) and
 * plays it. */
static void take_prepared(es_session *s)
{
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
    if (apply(s, r) == 1) {
        s->waiting = r;
        return;
    }
    es_preparer_discard_result(s->preparer, r);
}

/* Submits the target as it stands, against the stream as it plays. */
void es_session_submit(es_session *s, const char *what, int fallback)
{
    es_prep_request *q = &s->target;
    snprintf(q->what, sizeof q->what, "%.250s", what);
    q->fallback = fallback;
    es_processor *proc = es_player_processor(s->player);
    const es_format *fmt = es_processor_format(proc);
    q->rate = s->cfg.rate;
    q->inputs = s->inputs;
    q->outputs = fmt->outputs;
    q->latency = es_processor_latency(proc);
    q->block_now = s->cfg.block;
    q->source_now = s->cfg.source;
    q->file = s->cfg.file;
    q->pc = s->pc;
    q->pc.ab = q->ab; /* a new processor counts its first engine there */
    es_preparer_submit(s->preparer, q);
}

/* A failed engine (a GPU error): the preparer builds the fallback for the
 * same room, and it crossfades in like any change. Asked once per failure. */
/* A shard of a split engine that falls behind is named by its GPU in the
 * log, at most once a second, with its late blocks so far. A new instance
 * counts from 0 again. */
static void watch_shards(es_session *s, const es_stats *st)
{
    const double now = 1e-9 * (double)es_now_ns();
    const int quiet = now - s->shard_said_at < 1.0;
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

void es_session_watch_engine(es_session *s, const es_stats *st)
{
    watch_shards(s, st);
    if (!st->engine_failed) {
        s->fallback_asked = 0;
        return;
    }
    if (s->fallback_asked)
        return;
    s->fallback_asked = 1;
    const es_engine_class *k = es_engine_fallback(st->engine);
    es_session_sayf(s, 1, "%s failed (%s); switching to %s, same room", st->engine,
                    st->engine_error, k->name);
    s->target.engine = k;
    char what[128];
    snprintf(what, sizeof what, "engine %s (fallback)", k->name);
    es_session_submit(s, what, 1);
}

/* A change can be asked for while the stream plays. */
static int can_change(es_session *s, const char *what)
{
    if (s->lost) { /* reopening a dead server's stream fails with a wrong reason, or hangs */
        es_session_sayf(s, 1, "%s: device %s is lost: its stream stopped; nothing can "
                        "change until earshot starts again", what, s->device_name);
        return 0;
    }
    if (s->preparer)
        return 1;
    es_session_sayf(s, 1, "%s: the session has stopped", what);
    return 0;
}

int es_session_set_room(es_session *s, const char *room)
{
    char what[1100];
    snprintf(what, sizeof what, "room %s", room);
    if (!can_change(s, what))
        return -1;
    snprintf(s->target.room, sizeof s->target.room, "%s", room);
    es_session_submit(s, what, 0);
    return 0;
}

int es_session_set_engine(es_session *s, const es_engine_class *engine)
{
    char what[128];
    snprintf(what, sizeof what, "engine %s", engine->name);
    if (!can_change(s, what))
        return -1;
    s->target.engine = engine;
    es_session_submit(s, what, 0);
    return 0;
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
    if (!can_change(s, what))
        return -1;
    s->target.options = *options;
    es_session_submit(s, what, 0);
    return 0;
}

int es_session_set_block(es_session *s, int block)
{
    char what[64];
    snprintf(what, sizeof what, "block %d", block);
    if (block < ES_BLOCK_MIN || block > ES_BLOCK_MAX) {
        es_session_sayf(s, 1, "%s: out of range (%d..%d)", what, ES_BLOCK_MIN, ES_BLOCK_MAX);
        return -1;
    }
    if (!can_change(s, what))
        return -1;
    s->target.block = block;
    es_session_submit(s, what, 0);
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

int es_session_set_mix(es_session *s, const es_mix *mix)
{
    char why[256];
    if (!es_mix_check(mix, why, sizeof why)) {
        es_session_sayf(s, 1, "%s; the levels stay as they were", why);
        return -1;
    }
    if (es_processor_set_mix(es_player_processor(s->player), mix) != 0) {
        es_session_sayf(s, 1, "levels: too many changes queued; try again");
        return -1;
    }
    const es_mix was = s->pc.mix;
    s->pc.mix = *mix; /* kept across reopens */
    say_levels(s, &was, mix);
    return 0;
}

int es_session_reset_meters(es_session *s)
{
    if (es_processor_reset_stats(es_player_processor(s->player)) != 0) {
        es_session_sayf(s, 1, "reset: too many changes queued; try again");
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &s->since);
    es_session_slots_reset(s);
    return 0;
}

int es_session_set_source(es_session *s, es_source_kind kind)
{
    char what[64];
    snprintf(what, sizeof what, "source %s", source_word(kind));
    if (kind == ES_SOURCE_MIC && !es_device_can_capture(s->cfg.device)) {
        es_session_sayf(s, 1, "microphone: the null device has no microphone; play a file "
                        "or the test signal, or use a sound device; still playing the %s",
                        source_word(s->cfg.source));
        return -1;
    }
    if (kind == ES_SOURCE_FILE && !s->cfg.file) {
        es_session_sayf(s, 1, "file: no file to play (start with --input FILE); still "
                        "playing the %s", source_word(s->cfg.source));
        return -1;
    }
    if (!can_change(s, what))
        return -1;
    s->target.source = kind;
    es_session_submit(s, what, 0);
    return 0;
}

int es_session_preparing(es_session *s, char *what, size_t n)
{
    if (s->waiting) {
        snprintf(what, n, "%s", s->waiting->req.what);
        return 1;
    }
    if (!s->preparer) {
        if (n)
            what[0] = 0;
        return 0;
    }
    return es_preparer_busy(s->preparer, what, n);
}

es_session_wanted es_session_want(const es_session *s)
{
    return (es_session_wanted){.room = s->target.room, .engine = s->target.engine,
                               .options = s->target.options, .block = s->target.block,
                               .source = s->target.source};
}

void es_session_take_prepared(es_session *s)
{
    es_session_rooms_poll(s); /* a rescan first: it was read before the change it precedes */
    take_prepared(s);
}
