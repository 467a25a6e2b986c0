#include <string.h>

#include "scope.h"

#define MASK (ES_SCOPE_FRAMES - 1)

void es_scope_init(es_scope *s)
{
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < ES_SCOPE_FRAMES; i++)
            atomic_init(&s->ring[w][i], 0.0f);
        atomic_init(&s->written[w], 0);
    }
}

ES_RT void es_scope_write(es_scope *s, int which, const float *const *x, int channels,
                          int frames)
{
    const uint64_t at = atomic_load_explicit(&s->written[which], memory_order_relaxed);
    const float scale = 1.0f / (float)channels;
    for (int i = 0; i < frames; i++) {
        float sum = 0;
        for (int c = 0; c < channels; c++)
            sum += x[c][i];
        atomic_store_explicit(&s->ring[which][(at + (uint64_t)i) & MASK], sum * scale,
                              memory_order_relaxed);
    }
    /* Release: a reader that sees the new count sees the samples. */
    atomic_store_explicit(&s->written[which], at + (uint64_t)frames, memory_order_release);
}

uint64_t es_scope_written(const es_scope *s, int which)
{
    return atomic_load_explicit(&((es_scope *)s)->written[which], memory_order_acquire);
}

int es_scope_read(const es_scope *s, int which, float *out, int frames)
{
    es_scope *m = (es_scope *)s;
    for (;;) {
        const uint64_t end = atomic_load_explicit(&m->written[which], memory_order_acquire);
        const int have = end < (uint64_t)frames ? (int)end : frames;
        const int pad = frames - have;
        memset(out, 0, sizeof *out * (size_t)pad);
        for (int i = 0; i < have; i++)
            out[pad + i] = atomic_load_explicit(&m->ring[which][(end - (uint64_t)have +
                                                                (uint64_t)i) & MASK],
                                                memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        /* Overtaken while copying: the oldest samples may be newer ones. */
        const uint64_t now = atomic_load_explicit(&m->written[which], memory_order_relaxed);
        if (now - (end - (uint64_t)have) <= ES_SCOPE_FRAMES)
            return have;
    }
}
