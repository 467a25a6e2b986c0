/* What a stream has heard (history.h says what it is for).
 *
 * A ring per input (exactly as long as asked: a power of two would
 * double a 64-input history's memory), written on the audio thread and read on
 * the builder's: the writer publishes the frames it wrote with a release
 * store of `heard`; a reader copies, then looks at `heard` again, and the
 * copy stands only if the writer cannot have reached those frames in the
 * meantime (a block it may be writing counts as written), as a seqlock's
 * reader does. The hand-over of a primed engine is a few tickets stored
 * and loaded atomically: nobody waits, nobody locks. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "history.h"

struct es_history {
    int inputs, max_block;
    size_t size;                  /* frames a channel holds */
    float **ring;                 /* [inputs] of size */
    atomic_uint_fast64_t heard;   /* frames written */
    atomic_uint_fast64_t forgotten_before; /* frames before this read as silence */
    atomic_uint_fast64_t adopted, adopted_start; /* the latest adopted swap, its frame */
    atomic_uint_fast64_t primed, failed;         /* the latest swap primed, or not */
    atomic_uint_fast64_t holding[2];             /* the swap each slot reads, 0 none */
    atomic_int writer_gone;
    atomic_int refs;
};

es_history *es_history_create(int inputs, int frames, int max_block)
{
    es_history *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->inputs = inputs;
    h->max_block = max_block;
    h->size = (size_t)frames + 2 * (size_t)max_block;
    if (!(h->ring = es_alloc_channels(inputs, h->size))) {
        free(h);
        return NULL;
    }
    atomic_init(&h->refs, 1);
    return h;
}

es_history *es_history_ref(es_history *h)
{
    if (h)
        atomic_fetch_add(&h->refs, 1);
    return h;
}

void es_history_unref(es_history *h)
{
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1)
        return;
    es_free_channels(h->ring, h->inputs);
    free(h);
}

int es_history_capacity(const es_history *h)
{
    /* A block being written and one of slack are not for reading. */
    return (int)(h->size - 2 * (size_t)h->max_block);
}

int es_history_inputs(const es_history *h)
{
    return h->inputs;
}

/* ---- the audio thread ---- */

ES_RT void es_history_write(es_history *h, const float *const *x, int frames)
{
    const uint64_t at = atomic_load_explicit(&h->heard, memory_order_relaxed);
    const size_t from = (size_t)(at % h->size);
    const size_t first = frames < (int)(h->size - from) ? (size_t)frames : h->size - from;
    for (int i = 0; i < h->inputs; i++) {
        memcpy(h->ring[i] + from, x[i], first * sizeof(float));
        memcpy(h->ring[i], x[i] + first, ((size_t)frames - first) * sizeof(float));
    }
    atomic_store_explicit(&h->heard, at + (uint64_t)frames, memory_order_release);
}

ES_RT void es_history_forget(es_history *h)
{
    atomic_store_explicit(&h->forgotten_before,
                          atomic_load_explicit(&h->heard, memory_order_relaxed),
                          memory_order_release);
}

ES_RT void es_history_adopted(es_history *h, uint64_t ticket, uint64_t start)
{
    atomic_store_explicit(&h->adopted_start, start, memory_order_relaxed);
    atomic_store_explicit(&h->adopted, ticket, memory_order_release);
}

ES_RT int es_history_primed(const es_history *h, uint64_t ticket)
{
    es_history *w = (es_history *)h;
    if (atomic_load_explicit(&w->primed, memory_order_acquire) == ticket)
        return 1;
    return atomic_load_explicit(&w->failed, memory_order_acquire) == ticket ? -1 : 0;
}

ES_RT void es_history_hold(es_history *h, int slot, uint64_t ticket)
{
    atomic_store_explicit(&h->holding[slot], ticket, memory_order_release);
}

/* ---- the other side ---- */

uint64_t es_history_heard(const es_history *h)
{
    return atomic_load_explicit(&((es_history *)h)->heard, memory_order_acquire);
}

int es_history_read(const es_history *h, int64_t from, int frames, float *const *out)
{
    es_history *w = (es_history *)h;
    const int64_t heard = (int64_t)es_history_heard(h);
    if (frames < 0 || (size_t)frames > h->size || from + frames > heard)
        return -1;
    /* Frames before the stream began are silence; the rest in at most
     * two runs of the ring. */
    const int before = from < 0 ? (int)(-from < frames ? -from : frames) : 0;
    const size_t at = before < frames ? (size_t)((from + before) % (int64_t)h->size) : 0;
    const size_t rest = (size_t)(frames - before);
    const size_t first = rest < h->size - at ? rest : h->size - at;
    for (int i = 0; i < h->inputs; i++) {
        memset(out[i], 0, (size_t)before * sizeof(float));
        memcpy(out[i] + before, h->ring[i] + at, first * sizeof(float));
        memcpy(out[i] + before + first, h->ring[i], (rest - first) * sizeof(float));
    }
    atomic_thread_fence(memory_order_acquire);
    /* The writer may be inside its next block already: up to max_block
     * frames past what it published. */
    const int64_t now = (int64_t)atomic_load_explicit(&w->heard, memory_order_relaxed);
    if (from < now + h->max_block - (int64_t)h->size && from + frames > 0)
        return -1;
    const int64_t forgotten =
        (int64_t)atomic_load_explicit(&w->forgotten_before, memory_order_acquire);
    for (int i = 0; i < h->inputs; i++)
        for (int t = 0; t < frames && from + t < forgotten; t++)
            out[i][t] = 0.0f;
    return 0;
}

int es_history_started(const es_history *h, uint64_t ticket, uint64_t *start)
{
    es_history *w = (es_history *)h;
    if (atomic_load_explicit(&w->adopted, memory_order_acquire) != ticket)
        return 0;
    *start = atomic_load_explicit(&w->adopted_start, memory_order_relaxed);
    return 1;
}

void es_history_set_primed(es_history *h, uint64_t ticket, int ok)
{
    atomic_store_explicit(ok ? &h->primed : &h->failed, ticket, memory_order_release);
}

int es_history_holds(const es_history *h, uint64_t ticket)
{
    es_history *w = (es_history *)h;
    if (atomic_load_explicit(&w->writer_gone, memory_order_acquire))
        return 0;
    /* Adopted (or a later one adopted): the slots say; else still queued.
     * A slot takes the ticket before the adoption is published. */
    if (atomic_load_explicit(&w->adopted, memory_order_acquire) < ticket)
        return 1;
    return atomic_load_explicit(&w->holding[0], memory_order_acquire) == ticket ||
           atomic_load_explicit(&w->holding[1], memory_order_acquire) == ticket;
}

void es_history_writer_gone(es_history *h)
{
    atomic_store_explicit(&h->writer_gone, 1, memory_order_release);
}
