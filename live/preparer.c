/* The preparer thread (preparer.h says what it is for). A mutex and a
 * condition variable guard its mailboxes: this is the control side, never
 * the audio thread, and each hand-over is a pointer or two. A second
 * condition variable wakes es_preparer_wait when a result is done. */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "preparer.h"
#include "preparer_private.h"

/* What each kind of trash is destroyed with: a table, so a new kind is a
 * line. */
static void destroy_engine(void *item) { es_engine_destroy(item); }
static void destroy_processor(void *item) { es_processor_destroy(item); }
static void destroy_file(void *item) { es_file_source_close(item); }
static void (*const destroyers[])(void *) = {
    [TRASH_ENGINE] = destroy_engine, [TRASH_PROCESSOR] = destroy_processor,
    [TRASH_FILE] = destroy_file, [TRASH_PRIMING] = es_prep_destroy_unused_priming,
};

static void destroy_trash(trash t)
{
    destroyers[t.kind](t.item);
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
    es_sofa_free(r->blend_heads);
    free(r);
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

/* The thread's jobs, one step each (lock held, let go while it works): 1
 * when there was one to do. */

/* Destroys one thing the stream let go of. */
static int empty_bin(es_preparer *p)
{
    if (!p->bin_count)
        return 0;
    const trash t = p->bin[--p->bin_count];
    pthread_mutex_unlock(&p->lock);
    destroy_trash(t);
    pthread_mutex_lock(&p->lock);
    return 1;
}

/* Reads the library again when asked, or when a manifest changed; before
 * the next change, so that `rescan` then `room NEW` finds NEW. */
static int step_rescan(es_preparer *p)
{
    if (!p->rescan_asked && (p->quit || !look_due(p)))
        return 0;
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
    return 1;
}

/* Builds the request waiting; its result is done unless a newer request
 * superseded it while it was built. */
static int step_build(es_preparer *p)
{
    if (!p->has_pending)
        return 0;
    const es_prep_request q = p->pending;
    p->has_pending = 0;
    p->building = q.id;
    snprintf(p->building_what, sizeof p->building_what, "%s", q.what);
    pthread_mutex_unlock(&p->lock);
    es_prep_result *r = es_prep_build(p, &q);
    /* What the build held for a moment (a room's files, its matrix, the
     * loudness pass) was freed into the heap, where a locked process keeps
     * it resident: back to the system. */
    malloc_trim(0);
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
    return 1;
}

static void *run(void *arg)
{
    es_preparer *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        /* First: an adopted engine runs unheard until it is primed. */
        if (!p->quit && es_prep_step_primings(p))
            continue;
        if (empty_bin(p) || step_rescan(p) || step_build(p))
            continue;
        if (p->quit)
            break;
        if (es_prep_step_measure(p))
            continue;
        /* Woken by work, or in time for a priming's next look, or the
         * manifests'. */
        const struct timespec until = es_time_after(CLOCK_MONOTONIC, es_prep_priming_poll(p));
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
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
    /* Named, so that a profiler, top -H and the tests tell it from the
     * audio path's threads: it builds streams, takes page faults doing it,
     * and never runs in real time. */
    if (es_thread_start_sized(&p->thread, "es-preparer", ES_LIBRARY_THREAD_STACK, run, p) != 0) {
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
    es_prep_drop_measures(p);
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
    es_prep_free_primings(p);
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
