/* A lock-free ring of fixed-size items for one producer thread and one
 * consumer thread (C11 atomics). Commands travel from the control side to
 * the audio callback through one; retired engine instances travel back
 * through another, to be freed off the audio thread.
 *
 * Capacity is a power of two. Push and pop copy one item, never block and
 * never allocate: both are real-time safe. */
#ifndef ES_SPSC_RING_H
#define ES_SPSC_RING_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    unsigned char *items;   /* capacity * item_size bytes, owned */
    size_t item_size, capacity;
    atomic_size_t head;     /* next slot to write, producer-owned */
    atomic_size_t tail;     /* next slot to read, consumer-owned */
} es_spsc_ring;

/* 0, or -1 when the storage cannot be allocated. capacity is rounded up to
 * a power of two. */
int es_spsc_init(es_spsc_ring *r, size_t item_size, size_t capacity);
void es_spsc_free(es_spsc_ring *r);

/* 1 when the item was copied in / out, 0 when the ring is full / empty. */
int es_spsc_push(es_spsc_ring *r, const void *item);
int es_spsc_pop(es_spsc_ring *r, void *item);
/* Consumer: copies the oldest item without removing it. 1, or 0 if empty. */
int es_spsc_peek(es_spsc_ring *r, void *item);

#endif
