/* Aligned buffers. 64 bytes: one cache line, and the widest SIMD load
 * (AVX-512) never splits a line from an aligned base. */
#ifndef ES_CORE_MEMORY_H
#define ES_CORE_MEMORY_H

#include <stddef.h>

/* 64-byte aligned, zeroed; freed with es_free. NULL on failure. */
void *es_alloc(size_t bytes);
void es_free(void *p);
/* `channels` buffers of `frames` floats each, aligned and zeroed, rows of
 * one block; NULL when out of memory (nothing is leaked). The rows stay
 * where they are: es_free_channels frees the block through row 0, and is
 * NULL-safe. */
float **es_alloc_channels(int channels, size_t frames);
void es_free_channels(float **c, int channels);

/* Lazy (1), for a process that runs no audio thread, a render: buffers
 * from 16 KB up are fresh pages, each resident when first used, and one
 * never used costs nothing (memory.c). The default keeps the smaller
 * buffers on the heap, zeroed and resident when made, so that an audio
 * thread whose memory could not be locked (the sanitizer build; a low
 * RLIMIT_MEMLOCK) takes no page fault on them. Set before the buffers
 * are made. */
void es_alloc_lazy(int on);

#endif
