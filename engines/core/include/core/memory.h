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

/* Where a large buffer's pages come from (memory.c). Resident, the
 * default: every page is there when es_alloc returns, so that an audio
 * thread never takes a page fault on a buffer, whether or not memory
 * could be locked (the sanitizer build never can; a low RLIMIT_MEMLOCK
 * neither). Lazy (1), for a process that runs no audio thread, a render:
 * a page becomes resident when first used, and one never used costs
 * nothing. Set before the buffers are made. */
void es_alloc_lazy(int on);

#endif
