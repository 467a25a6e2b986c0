/* Aligned, zeroed buffers (core/memory.h says why 64 bytes). */
#include <stdint.h>
#include <stdlib.h>

#include "core/memory.h"

#define ALIGN 64

/* calloc, not posix_memalign and memset: a large block comes from the
 * kernel already zero and untouched, so memory a render never reaches
 * (an FDL's later slots, a swap slot's buffers) costs no resident
 * memory, and the rest is touched as the stream reaches it. Live play
 * locks its memory (mlockall), which brings every page in at once. The
 * block's own address is kept just below the aligned one. */
void *es_alloc(size_t bytes)
{
    const size_t extra = ALIGN + sizeof(void *);
    if (bytes > SIZE_MAX - extra)
        return NULL;
    void *raw = calloc(1, (bytes ? bytes : 1) + extra);
    if (!raw)
        return NULL;
    const uintptr_t at = ((uintptr_t)raw + sizeof(void *) + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    ((void **)at)[-1] = raw;
    return (void *)at;
}

void es_free(void *p)
{
    if (p)
        free(((void **)p)[-1]);
}

float **es_alloc_channels(int channels, size_t frames)
{
    float **c = calloc((size_t)(channels > 0 ? channels : 1), sizeof *c);
    for (int i = 0; c && i < channels; i++)
        if (!(c[i] = es_alloc(frames * sizeof(float)))) {
            es_free_channels(c, i);
            return NULL;
        }
    return c;
}

void es_free_channels(float **c, int channels)
{
    for (int i = 0; c && i < channels; i++)
        es_free(c[i]);
    free(c);
}
