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

#endif
