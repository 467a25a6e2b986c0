/* Aligned buffers. 64 bytes: one cache line, and the widest SIMD load
 * (AVX-512) never splits a line from an aligned base. */
#ifndef ES_CORE_MEMORY_H
#define ES_CORE_MEMORY_H

#include <stddef.h>

/* 64-byte aligned, zeroed; freed with es_free. NULL on failure. */
void *es_alloc(size_t bytes);
void es_free(void *p);
/* `channels` buffers of `frames` floats each, aligned and zeroed; NULL when
 * any allocation fails (nothing is leaked). es_free_channels is NULL-safe. */
float **es_alloc_channels(int channels, size_t frames);
void es_free_channels(float **c, int channels);

#endif
