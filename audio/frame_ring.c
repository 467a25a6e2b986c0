#include <stdlib.h>
#include <string.h>

#include "frame_ring.h"

int es_frame_ring_init(es_frame_ring *r, int channels, size_t frames)
{
    r->capacity = 1;
    while (r->capacity < frames)
        r->capacity <<= 1;
    r->channels = channels;
    r->frames = calloc(r->capacity * (size_t)channels, sizeof(float));
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return r->frames ? 0 : -1;
}

void es_frame_ring_free(es_frame_ring *r)
{
    free(r->frames);
    r->frames = NULL;
}

size_t es_frame_ring_space(es_frame_ring *r)
{
    /* Acquire: the consumer finished reading what it released. */
    return r->capacity - (atomic_load_explicit(&r->head, memory_order_relaxed) -
                          atomic_load_explicit(&r->tail, memory_order_acquire));
}

size_t es_frame_ring_available(es_frame_ring *r)
{
    /* Acquire: the producer's frames are visible before its head. */
    return atomic_load_explicit(&r->head, memory_order_acquire) -
           atomic_load_explicit(&r->tail, memory_order_relaxed);
}

static float *frame(es_frame_ring *r, size_t index)
{
    return r->frames + (index & (r->capacity - 1)) * (size_t)r->channels;
}

void es_frame_ring_write_planar(es_frame_ring *r, const float *const *src, size_t n)
{
    const size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (size_t t = 0; t < n; t++) {
        float *f = frame(r, head + t);
        for (int c = 0; c < r->channels; c++)
            f[c] = src[c][t];
    }
    /* Release: the frames are written before the consumer sees them. */
    atomic_store_explicit(&r->head, head + n, memory_order_release);
}

void es_frame_ring_write_interleaved(es_frame_ring *r, const float *src, size_t n)
{
    const size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    for (size_t t = 0; t < n; t++)
        memcpy(frame(r, head + t), src + t * (size_t)r->channels,
               sizeof(float) * (size_t)r->channels);
    atomic_store_explicit(&r->head, head + n, memory_order_release);
}

void es_frame_ring_read_planar(es_frame_ring *r, float *const *dst, size_t n)
{
    const size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (size_t t = 0; t < n; t++) {
        const float *f = frame(r, tail + t);
        for (int c = 0; c < r->channels; c++)
            dst[c][t] = f[c];
    }
    /* Release: done reading before the producer may overwrite. */
    atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}
