/* The preparer thread (preparer.h says what it is for). A mutex and a
 * condition variable guard its mailboxes: this is the control side, never
 * the audio thread, and each hand-over is a pointer or two. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"
#include "preparer.h"

#define MEASURE_QUEUE 64
#define TRASH 256

typedef enum { TRASH_ENGINE, TRASH_PROCESSOR, TRASH_IR, TRASH_FILE } trash_kind;

typedef struct {
    trash_kind kind;
    void *item;
} trash;

struct es_preparer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int started, quit;
    es_room_loader *rooms;
    double rate;

    es_prep_request pending;
    int has_pending;
    uint64_t building;         /* id of the request being built, 0 none */
    char building_what[256];
    uint64_t newest;           /* id of the newest request submitted */
    es_prep_result *done;      /* finished, not yet taken */

    int measure[MEASURE_QUEUE];
    int measure_count;
    es_room_info measured[MEASURE_QUEUE];
    int measured_count;

    trash bin[TRASH];
    int bin_count;
};

static void destroy_trash(trash t)
{
    switch (t.kind) {
    case TRASH_ENGINE: es_engine_destroy(t.item); break;
    case TRASH_PROCESSOR: es_processor_destroy(t.item); break;
    case TRASH_IR: es_ir_destroy(t.item); break;
    case TRASH_FILE: es_file_source_close(t.item); break;
    }
}

static void free_result(es_prep_result *r)
{
    if (!r)
        return;
    es_engine_destroy(r->engine);
    es_processor_destroy(r->proc);
    es_ir_destroy(r->ir);
    es_file_source_close(r->file);
    free(r);
}

/* Opens the request's source when it differs from what plays: its channels
 * in r->inputs, its reader in r->file. */
static int open_source(const es_prep_request *q, es_prep_result *r)
{
    r->inputs = q->inputs;
    if (q->source == q->source_now)
        return 0;
    r->inputs = 1;
    if (q->source != ES_SOURCE_FILE)
        return 0;
    if (!q->file) {
        snprintf(r->err, sizeof r->err, "file: no file to play (start with --input FILE)");
        return -1;
    }
    r->file = es_file_source_open(q->file, q->rate, &r->inputs, r->err, sizeof r->err);
    return r->file ? 0 : -1;
}

static es_prep_result *build(es_preparer *p, const es_prep_request *q)
{
    es_prep_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->req = *q;
    if (open_source(q, r) != 0)
        return r;
    if (!(r->ir = es_room_loader_get(p->rooms, q->room, q->rate, r->inputs, r->note,
                                     sizeof r->note, r->err, sizeof r->err)))
        return r;
    if (r->ir->outputs != q->outputs) {
        snprintf(r->err, sizeof r->err, "%.600s: %d output channels for %d input%s, the stream "
                 "has %d", q->room, r->ir->outputs, r->inputs, r->inputs == 1 ? "" : "s",
                 q->outputs);
        return r;
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->block,
                         .inputs = r->inputs, .outputs = r->ir->outputs};
    char why[512];
    es_engine *e = es_engine_create(q->engine, &r->fmt, r->ir, &q->options, why, sizeof why);
    if (!e) {
        snprintf(r->err, sizeof r->err, "%s", why);
        return r;
    }
    const int same_stream = q->block == q->block_now && q->source == q->source_now &&
                            r->inputs == q->inputs && es_engine_latency(e) <= q->latency;
    if (same_stream) {
        r->engine = e;
        return r;
    }
    /* A new stream: max_latency 0 lets the processor take the engine's. */
    es_processor_config pc = q->pc;
    pc.max_latency = 0;
    r->proc = es_processor_create(&r->fmt, e, &pc, r->err, sizeof r->err);
    return r;
}

static void measure(es_preparer *p, int index, es_room_info *info)
{
    const es_room *room = &p->rooms->lib.rooms[index];
    *info = (es_room_info){.index = index};
    char err[512];
    const es_prepared_room *pr = es_room_cache_get(&p->rooms->cache, room, p->rate, err,
                                                   sizeof err);
    if (!pr) {
        snprintf(info->error, sizeof info->error, "%s", err);
        info->measured = -1;
        return;
    }
    info->seconds = pr->frames / pr->rate;
    info->channels = pr->channels;
    info->gain_db = pr->gain_db;
    if (es_acoustics_measure(pr->ch[0], pr->frames, pr->rate, &info->a) != 0 ||
        es_acoustics_decay_curve(pr->ch[0], pr->frames, pr->rate, info->decay,
                                 ES_DECAY_POINTS) != 0) {
        snprintf(info->error, sizeof info->error, "%s: silent", room->name);
        info->measured = -1;
        return;
    }
    info->measured = 1;
}

static void *run(void *arg)
{
    es_preparer *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (p->bin_count) {
            const trash t = p->bin[--p->bin_count];
            pthread_mutex_unlock(&p->lock);
            destroy_trash(t);
            pthread_mutex_lock(&p->lock);
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
            }
            if (dropped) {
                pthread_mutex_unlock(&p->lock);
                free_result(dropped);
                pthread_mutex_lock(&p->lock);
            }
        } else if (p->quit) {
            break;
        } else if (p->measure_count && p->measured_count < MEASURE_QUEUE) {
            const int index = p->measure[0];
            memmove(p->measure, p->measure + 1, (size_t)--p->measure_count * sizeof(int));
            pthread_mutex_unlock(&p->lock);
            es_room_info info;
            measure(p, index, &info);
            pthread_mutex_lock(&p->lock);
            p->measured[p->measured_count++] = info;
        } else {
            pthread_cond_wait(&p->wake, &p->lock);
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
    pthread_cond_init(&p->wake, NULL);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        snprintf(err, n, "cannot start the preparer thread");
        es_preparer_destroy(p);
        return NULL;
    }
    p->started = 1;
    return p;
}

void es_preparer_destroy(es_preparer *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    p->has_pending = 0;
    p->newest++; /* whatever is being built is dropped when it finishes */
    p->measure_count = 0;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->started)
        pthread_join(p->thread, NULL);
    for (int i = 0; i < p->bin_count; i++)
        destroy_trash(p->bin[i]);
    free_result(p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void es_preparer_submit(es_preparer *p, const es_prep_request *req)
{
    pthread_mutex_lock(&p->lock);
    p->pending = *req;
    p->pending.id = ++p->newest;
    p->has_pending = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
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
    const int busy = p->has_pending || p->building || p->done;
    if (what && n)
        snprintf(what, n, "%s", p->has_pending ? p->pending.what
                                : p->building  ? p->building_what
                                : p->done      ? p->done->req.what
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

void es_preparer_discard_ir(es_preparer *p, es_ir *ir)
{
    discard(p, TRASH_IR, ir);
}

void es_preparer_discard_result(es_preparer *p, es_prep_result *r)
{
    if (!r)
        return;
    es_preparer_discard_engine(p, r->engine);
    es_preparer_discard_processor(p, r->proc);
    es_preparer_discard_ir(p, r->ir);
    discard(p, TRASH_FILE, r->file);
    free(r);
}

void es_preparer_measure(es_preparer *p, int room_index)
{
    pthread_mutex_lock(&p->lock);
    int queued = 0;
    for (int i = 0; i < p->measure_count; i++)
        queued |= p->measure[i] == room_index;
    if (!queued && p->measure_count < MEASURE_QUEUE) {
        p->measure[p->measure_count++] = room_index;
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
