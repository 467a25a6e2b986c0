/* A lock-free ring of audio frames for one producer and one consumer:
 * interleaved inside, planar at the edges (what the callback has). The
 * recorder fills one from the callback and drains it on its writer thread;
 * the file source fills one on its reader thread and drains it in the
 * callback. Both sides are real-time safe: copies, no waiting. */
#ifndef ES_FRAME_RING_H
#define ES_FRAME_RING_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    float *frames;            /* capacity * channels, interleaved */
    size_t capacity;          /* frames, power of two */
    int channels;
    atomic_size_t head, tail; /* frames written / read so far */
} es_frame_ring;

/* 0, or -1 when the storage cannot be allocated; at least `frames` frames. */
int es_frame_ring_init(es_frame_ring *r, int channels, size_t frames);
void es_frame_ring_free(es_frame_ring *r);

size_t es_frame_ring_space(es_frame_ring *r);     /* producer: room left */
size_t es_frame_ring_available(es_frame_ring *r); /* consumer: frames waiting */

/* Producer. Writes all n frames (the caller checked the space). */
void es_frame_ring_write_planar(es_frame_ring *r, const float *const *src, size_t n);
void es_frame_ring_write_interleaved(es_frame_ring *r, const float *src, size_t n);
/* Consumer. Reads n frames (the caller checked they are there). */
void es_frame_ring_read_planar(es_frame_ring *r, float *const *dst, size_t n);

#endif
