/* The preparer thread (preparer.h says what it is for). A mutex and a
 * condition variable guard its mailboxes: this is the control side, never
 * the audio thread, and each hand-over is a pointer or two. A second
 * condition variable wakes es_preparer_wait when a result is done. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acoustics.h"
#include "core/clock.h"
#include "irfile.h"
#include "preparer.h"
#include "preparer_private.h"
#include "room_level.h"

/* What each kind of trash is destroyed with: a table, so a new kind is a
 * line. */
static void destroy_engine(void *item) { es_engine_destroy(item); }
static void destroy_processor(void *item) { es_processor_destroy(item); }
static void destroy_file(void *item) { es_file_source_close(item); }
static void destroy_priming(void *item)
{
    unused_priming *u = item;
    es_ringing_destroy(u->plan);
    es_free_channels(u->out, u->outputs);
    free(u);
}
static void (*const destroyers[])(void *) = {
    [TRASH_ENGINE] = destroy_engine, [TRASH_PROCESSOR] = destroy_processor,
    [TRASH_FILE] = destroy_file, [TRASH_PRIMING] = destroy_priming,
};

static void destroy_trash(trash t)
{
    destroyers[t.kind](t.item);
}

/* A priming's plan and buffer. */
void es_prep_free_priming(es_ringing *plan, float **out, int outputs)
{
    es_ringing_destroy(plan);
    es_free_channels(out, outputs);
}

static void free_result(es_prep_result *r)
{
    if (!r)
        return;
    es_prep_free_priming(r->ringing, r->ringing_out, r->fmt.outputs);
    es_engine_destroy(r->engine);
    es_processor_destroy(r->proc);
    es_file_source_close(r->file);
    free(r->poses);
    free(r);
}

/* Opens the request's source when it differs from what plays (always for
 * the first stream): its channels in r->inputs, its reader in r->file. */
static int open_source(es_preparer *p, const es_prep_request *q, es_prep_result *r)
{
    r->inputs = q->now.inputs;
    /* The microphone opens as many channels as asked, or as the room has
     * inputs: a room of other inputs takes a new stream. */
    const int mic = q->spec.source == ES_SOURCE_MIC;
    const int mic_inputs = q->mic_inputs > 0 ? q->mic_inputs
                                             : es_room_loader_inputs(p->rooms, q->spec.room);
    if (q->now.exists && q->spec.source == q->now.spec.source) {
        if (mic)
            r->inputs = mic_inputs;
        return 0;
    }
    r->inputs = mic ? mic_inputs : 1;
    if (q->spec.source == ES_SOURCE_MIC && !q->can_capture) {
        snprintf(r->err, sizeof r->err, "microphone: the null device has no microphone; play "
                 "a file or the test signal, or use a sound device");
        return -1;
    }
    if (q->spec.source != ES_SOURCE_FILE)
        return 0;
    if (!q->file) {
        snprintf(r->err, sizeof r->err, "file: no file to play (start with --input FILE)");
        return -1;
    }
    r->file = es_file_source_open(q->file, q->rate, &r->inputs, r->err, sizeof r->err);
    return r->file ? 0 : -1;
}

/* A test hook: a build held up this many seconds, as by a file on a
 * network share that stopped answering (app/files: quit does not wait for
 * it). */
static void test_stall(void)
{
    const char *stall = getenv("EARSHOT_TEST_PREPARE_STALL");
    if (stall && atof(stall) > 0) {
        const double t = atof(stall);
        const struct timespec held = {(time_t)t, (long)((t - floor(t)) * 1e9)};
        nanosleep(&held, NULL);
    }
}

double es_prep_ms_since(long long from_ns)
{
    return 1e-6 * (double)(es_now_ns() - from_ns);
}

/* The input a new stream keeps (preparer.h), for this many inputs and
 * the room it starts with (`past`: its length and the engine's latency). */
static int history_frames(double rate, int inputs, int past)
{
    const double bytes = (double)inputs * sizeof(float);
    double frames = ES_HISTORY_SECONDS * rate;
    if (frames * bytes > (double)ES_HISTORY_MAX_BYTES)
        frames = (double)ES_HISTORY_MAX_BYTES / bytes;
    if (past > frames && past * bytes <= (double)ES_HISTORY_ROOM_MAX_BYTES)
        frames = past;
    return (int)frames;
}

/* A swap's priming: the plan of what the past rings and its buffer, or
 * why there is none in r->prime_note. */
void es_prep_plan_priming(const es_prep_request *q, const es_ir *ir, es_prep_result *r)
{
    const int past = ir->length + q->now.latency - 1;
    if (past > q->now.history_frames) {
        snprintf(r->prime_note, sizeof r->prime_note, "not primed: the room (%.1f s) is longer "
                 "than the %.1f s of input the stream keeps", ir->length / q->rate,
                 q->now.history_frames / q->rate);
        return;
    }
    char why[256];
    r->ringing = es_ringing_create(ir, q->now.latency, ES_PRIME_MAX_BYTES, why, sizeof why);
    if (r->ringing)
        r->ringing_out = es_alloc_channels(r->fmt.outputs,
                                           (size_t)es_ringing_frames(r->ringing) + 1);
    if (!r->ringing || !r->ringing_out) {
        snprintf(r->prime_note, sizeof r->prime_note, "not primed: %s",
                 r->ringing ? "out of memory" : why);
        es_prep_free_priming(r->ringing, r->ringing_out, r->fmt.outputs);
        r->ringing = NULL;
        r->ringing_out = NULL;
    }
}

/* Whether engine e, made for r->fmt, plays in the stream as it is (a
 * crossfade) rather than a new one. */
int es_prep_fits_stream(const es_prep_request *q, const es_prep_result *r, const es_engine *e)
{
    return q->now.exists && es_play_spec_cost(&q->now.spec, &q->spec) != ES_COST_REOPEN &&
           r->inputs == q->now.inputs && r->fmt.outputs == q->now.outputs &&
           es_engine_latency(e) <= q->now.latency;
}

/* The built engine into the result: alone when it fits the stream, else
 * in a new processor that keeps enough input to prime later swaps of a
 * room `length` frames long. */
void es_prep_place(const es_prep_request *q, es_prep_result *r, es_engine *e, int length)
{
    if (es_prep_fits_stream(q, r, e)) {
        r->engine = e;
        return;
    }
    /* A new stream: max_latency 0 lets the processor take the engine's. */
    es_processor_config pc = q->pc;
    pc.max_latency = 0;
    pc.history_frames = history_frames(q->rate, r->inputs, length + es_engine_latency(e) - 1);
    r->proc = es_processor_create(&r->fmt, e, &pc, r->err, sizeof r->err);
}

/* Builds the request's stream: the engine alone when it fits the stream
 * as it plays (a crossfade), else a new processor around it. */
static es_prep_result *build(es_preparer *p, const es_prep_request *q)
{
    es_prep_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    const long long started = es_now_ns();
    if (q->now.exists) /* the first stream is never held up */
        test_stall();
    r->req = *q;
    if (open_source(p, q, r) != 0)
        return r;
    const es_room *listed = es_library_find(&p->rooms->lib, q->spec.room);
    const char *sofa = listed ? listed->path : q->spec.room;
    if (es_sofa_is_file(sofa))
        return es_prep_build_sets(q, r, sofa, listed || !q->spec.raw ? ES_FILE_LEVELLED
                                                                      : ES_FILE_RAW,
                                  started);
    const long long room_from = es_now_ns();
    es_ir *ir = es_room_loader_get(p->rooms, q->spec.room, q->rate, r->inputs,
                                   q->spec.raw ? ES_FILE_RAW : ES_FILE_LEVELLED, &r->loud_db,
                                   r->note, sizeof r->note, r->err, sizeof r->err);
    r->room_ms = es_prep_ms_since(room_from);
    if (!ir)
        return r;
    r->room_loaded = 1;
    if (q->headphone && !(ir = es_prep_with_headphone(q, ir, r)))
        return r;
    if (!q->now.exists)
        es_room_loader_port_names(p->rooms, q->spec.room, &r->ports);
    /* A room of one output on a stream of more plays on each (dual mono);
     * any other count of outputs takes a new stream (below). */
    if (q->now.exists && ir->outputs == 1 && q->now.outputs > 1 &&
        !(ir = es_ir_repeat_output(ir, q->now.outputs))) {
        snprintf(r->err, sizeof r->err, "%.600s: out of memory", q->spec.room);
        return r;
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->spec.block,
                         .inputs = r->inputs, .outputs = ir->outputs};
    char why[512];
    const long long engine_from = es_now_ns();
    es_engine *e = es_engine_create(q->spec.engine, &r->fmt, ir, &q->spec.options, why,
                                    sizeof why);
    r->engine_ms = es_prep_ms_since(engine_from);
    const int same_stream = e && es_prep_fits_stream(q, r, e);
    if (same_stream && q->prime)
        es_prep_plan_priming(q, ir, r);
    const int length = ir->length;
    /* The engine holds the filters its own way now: the matrix goes before
     * anything else is made (a 64 x 64 room's is as large as its filters). */
    es_ir_destroy(ir);
    if (!e) {
        snprintf(r->err, sizeof r->err, "%s", why);
        return r;
    }
    es_prep_place(q, r, e, length);
    r->took_ms = es_prep_ms_since(started);
    return r;
}

/* Reads the library again; the loader takes it and the session gets a
 * copy. Called unlocked. */
static void rescan(es_preparer *p)
{
    es_library fresh;
    es_library_open(&fresh, p->rooms->lib.extra[0] ? p->rooms->lib.extra : NULL);
    es_library *copy = malloc(sizeof *copy);
    if (copy && es_library_copy(copy, &fresh) != 0) {
        free(copy);
        copy = NULL;
    }
    es_room_loader_replace(p->rooms, &fresh);
    pthread_mutex_lock(&p->lock);
    es_library *dropped = p->rescanned; /* not taken yet: this one says it all */
    p->rescanned = copy;
    pthread_mutex_unlock(&p->lock);
    if (dropped) {
        es_library_close(dropped);
        free(dropped);
    }
}

/* 1 when the manifests are due a look (and marks them looked at). */
static int look_due(es_preparer *p)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (es_seconds_between(&p->looked_at, &now) < LOOK_SECONDS)
        return 0;
    p->looked_at = now;
    return 1;
}

static void *run(void *arg)
{
    es_preparer *p = arg;
    /* Named, so that a profiler, top -H and the tests tell it from the
     * audio path's threads: it builds streams, takes page faults doing it,
     * and never runs in real time. */
    pthread_setname_np(pthread_self(), "es-preparer");
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (!p->quit && es_prep_step_primings(p)) {
            /* First: an adopted engine runs unheard until it is primed. */
        } else if (p->bin_count) {
            const trash t = p->bin[--p->bin_count];
            pthread_mutex_unlock(&p->lock);
            destroy_trash(t);
            pthread_mutex_lock(&p->lock);
        } else if (p->rescan_asked || (!p->quit && look_due(p))) {
            /* Before the next change: `rescan` then `room NEW` finds NEW. */
            const int asked = p->rescan_asked;
            p->rescan_asked = 0;
            p->rescanning = asked; /* a look that finds nothing is no rescan */
            pthread_mutex_unlock(&p->lock);
            const int go = asked || es_library_changed(&p->rooms->lib);
            pthread_mutex_lock(&p->lock);
            p->rescanning = go;
            if (go) {
                pthread_mutex_unlock(&p->lock);
                rescan(p);
                pthread_mutex_lock(&p->lock);
                p->rescanning = 0;
            }
        } else if (p->has_pending) {
            const es_prep_request q = p->pending;
            p->has_pending = 0;
            p->building = q.id;
            snprintf(p->building_what, sizeof p->building_what, "%s", q.what);
            pthread_mutex_unlock(&p->lock);
            es_prep_result *r = build(p, &q);
            pthread_mutex_lock(&p->lock);
            p->building = 0;
            es_prep_result *dropped = NULL;
            if (!r || q.id != p->newest) {
                dropped = r; /* superseded while it was built */
            } else {
                dropped = p->done;
                p->done = r;
                pthread_cond_broadcast(&p->done_cond);
            }
            if (dropped) {
                pthread_mutex_unlock(&p->lock);
                free_result(dropped);
                pthread_mutex_lock(&p->lock);
            }
        } else if (p->quit) {
            break;
        } else if (p->measure_count && p->measured_count < MEASURE_QUEUE) {
            es_room *room = p->measure[0].room;
            const int from = p->measure[0].from, step = p->measure[0].step;
            --p->measure_count;
            memmove(p->measure, p->measure + 1, (size_t)p->measure_count * sizeof p->measure[0]);
            pthread_mutex_unlock(&p->lock);
            es_room_info info;
            es_prep_measure(p, room, from, step, &info);
            free(room);
            pthread_mutex_lock(&p->lock);
            p->measured[p->measured_count++] = info;
        } else {
            /* Woken by work, or in time for a priming's next look, or the
             * manifests'. */
            const struct timespec until = es_time_after(CLOCK_MONOTONIC, es_prep_priming_poll(p));
            pthread_cond_timedwait(&p->wake, &p->lock, &until);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

es_preparer *es_preparer_create(es_room_loader *rooms, double rate, char *err, size_t n)
{
    es_preparer *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory for the preparer");
        return NULL;
    }
    p->rooms = rooms;
    p->rate = rate;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the timed wait's clock */
    pthread_cond_init(&p->wake, &ca);
    pthread_cond_init(&p->done_cond, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &p->looked_at);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        snprintf(err, n, "cannot start the preparer thread");
        es_preparer_destroy(p, 0);
        return NULL;
    }
    p->started = 1;
    return p;
}

int es_preparer_destroy(es_preparer *p, double wait_s)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    p->has_pending = 0;
    p->newest++; /* whatever is being built is dropped when it finishes */
    for (int i = 0; i < p->measure_count; i++)
        free(p->measure[i].room);
    p->measure_count = 0;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->started) {
        const struct timespec until = es_time_after(CLOCK_REALTIME, wait_s); /* the join's clock */
        if (pthread_timedjoin_np(p->thread, NULL, &until) != 0) {
            pthread_detach(p->thread); /* it ends by itself once its job returns */
            return -1;
        }
    }
    for (int i = 0; i < p->bin_count; i++)
        destroy_trash(p->bin[i]);
    /* A buffer a processor may still read (a stream left as it was, whose
     * callback may yet return) is left for the process's life, never freed
     * under it. */
    for (int k = 0; k < PRIMES; k++) {
        prime_job *j = &p->primes[k];
        if (!j->used || es_history_holds(j->history, j->ticket))
            continue;
        es_prep_free_priming(j->plan, j->out, j->outputs);
        es_history_unref(j->history);
    }
    free_result(p->done);
    if (p->rescanned) {
        es_library_close(p->rescanned);
        free(p->rescanned);
    }
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done_cond);
    pthread_mutex_destroy(&p->lock);
    free(p);
    return 0;
}

uint64_t es_preparer_submit(es_preparer *p, const es_prep_request *req)
{
    pthread_mutex_lock(&p->lock);
    p->pending = *req;
    const uint64_t id = p->pending.id = ++p->newest;
    p->has_pending = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    return id;
}

es_prep_result *es_preparer_wait(es_preparer *p, uint64_t id, double wait_s)
{
    const struct timespec until = es_time_after(CLOCK_MONOTONIC, wait_s); /* the condition's */
    pthread_mutex_lock(&p->lock);
    while (!(p->done && p->done->req.id == id) && p->newest == id &&
           pthread_cond_timedwait(&p->done_cond, &p->lock, &until) == 0)
        ;
    es_prep_result *r = NULL;
    if (p->done && p->done->req.id == id) {
        r = p->done;
        p->done = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    return r;
}

es_prep_result *es_preparer_take(es_preparer *p)
{
    pthread_mutex_lock(&p->lock);
    es_prep_result *r = p->done;
    p->done = NULL;
    pthread_mutex_unlock(&p->lock);
    return r;
}

int es_preparer_busy(es_preparer *p, char *what, size_t n)
{
    pthread_mutex_lock(&p->lock);
    const int rescan = p->rescan_asked || p->rescanning || p->rescanned;
    const int busy = p->has_pending || p->building || p->done || rescan;
    if (what && n)
        snprintf(what, n, "%s", p->has_pending ? p->pending.what
                                : p->building  ? p->building_what
                                : p->done      ? p->done->req.what
                                : rescan       ? "rescan"
                                               : "");
    pthread_mutex_unlock(&p->lock);
    return busy;
}

static void discard(es_preparer *p, trash_kind kind, void *item)
{
    if (!item)
        return;
    pthread_mutex_lock(&p->lock);
    if (p->bin_count < TRASH) {
        p->bin[p->bin_count++] = (trash){kind, item};
        item = NULL;
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    if (item) /* the bin is full: the caller's thread does it, late but never lost */
        destroy_trash((trash){kind, item});
}

void es_preparer_discard_engine(es_preparer *p, es_engine *e)
{
    discard(p, TRASH_ENGINE, e);
}

void es_preparer_discard_processor(es_preparer *p, es_processor *proc)
{
    discard(p, TRASH_PROCESSOR, proc);
}

void es_preparer_discard_file(es_preparer *p, es_file_source *file)
{
    discard(p, TRASH_FILE, file);
}

void es_preparer_discard_result(es_preparer *p, es_prep_result *r)
{
    if (!r)
        return;
    es_preparer_discard_engine(p, r->engine);
    es_preparer_discard_processor(p, r->proc);
    if (r->ringing || r->ringing_out) {
        unused_priming *u = malloc(sizeof *u);
        if (u) {
            *u = (unused_priming){r->ringing, r->ringing_out, r->fmt.outputs};
            discard(p, TRASH_PRIMING, u);
        } else { /* no memory for the note: freed here, late but never lost */
            es_prep_free_priming(r->ringing, r->ringing_out, r->fmt.outputs);
        }
    }
    discard(p, TRASH_FILE, r->file);
    free(r->poses); /* the head tracker took a copy */
    free(r);
}

void es_preparer_measure(es_preparer *p, const es_room *room, int from, int step)
{
    pthread_mutex_lock(&p->lock);
    int queued = -1;
    for (int i = 0; i < p->measure_count; i++)
        if (!strcmp(p->measure[i].room->name, room->name) &&
            !strcmp(p->measure[i].room->path, room->path))
            queued = i;
    /* The session's list may be read again before the thread gets to it:
     * the queue keeps copies of its own. One queued already measures the
     * channel asked last. */
    const int at = queued >= 0 ? queued : p->measure_count;
    es_room *copy = queued < 0 && p->measure_count < MEASURE_QUEUE ? es_room_dup(room) : NULL;
    if (copy)
        p->measure[p->measure_count++].room = copy;
    if (copy || queued >= 0) {
        p->measure[at].from = from;
        p->measure[at].step = step;
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
}

int es_preparer_take_measurement(es_preparer *p, es_room_info *out)
{
    pthread_mutex_lock(&p->lock);
    const int got = p->measured_count > 0;
    if (got) {
        *out = p->measured[0];
        memmove(p->measured, p->measured + 1,
                (size_t)--p->measured_count * sizeof *p->measured);
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}

void es_preparer_rescan(es_preparer *p)
{
    pthread_mutex_lock(&p->lock);
    p->rescan_asked = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

es_library *es_preparer_take_rescan(es_preparer *p)
{
    pthread_mutex_lock(&p->lock);
    es_library *lib = p->rescanned;
    p->rescanned = NULL;
    pthread_mutex_unlock(&p->lock);
    return lib;
}
