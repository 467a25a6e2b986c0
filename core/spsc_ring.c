#include <stdlib.h>
#include <string.h>

#include "core/spsc_ring.h"

int es_spsc_init(es_spsc_ring *r, size_t item_size, size_t capacity)
{
    size_t cap = 1;
    while (cap < capacity)
        cap <<= 1;
    r->items = calloc(cap, item_size);
    r->item_size = item_size;
    r->capacity = cap;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    return r->items ? 0 : -1;
}

void es_spsc_free(es_spsc_ring *r)
{
    free(r->items);
    r->items = NULL;
}

int es_spsc_push(es_spsc_ring *r, const void *item)
{
    const size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    /* Acquire: the consumer's read of the slot we are about to reuse
     * happened before it advanced tail. */
    const size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (head - tail == r->capacity)
        return 0;
    memcpy(r->items + (head & (r->capacity - 1)) * r->item_size, item, r->item_size);
    /* Release: the item's bytes are visible before the consumer sees head. */
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    return 1;
}

int es_spsc_peek(es_spsc_ring *r, void *item)
{
    const size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* Acquire: pairs with the producer's release of head. */
    const size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (head == tail)
        return 0;
    memcpy(item, r->items + (tail & (r->capacity - 1)) * r->item_size, r->item_size);
    return 1;
}

int es_spsc_pop(es_spsc_ring *r, void *item)
{
    if (!es_spsc_peek(r, item))
        return 0;
    const size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* Release: our read of the slot is done before the producer reuses it. */
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
    return 1;
}
