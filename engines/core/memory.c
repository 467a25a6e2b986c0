/* Aligned, zeroed buffers (core/memory.h says why 64 bytes). */
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

void *es_alloc(size_t bytes)
{
    void *p = NULL;
    size_t rounded = (bytes + 63) & ~(size_t)63;
    if (rounded == 0)
        rounded = 64;
    if (posix_memalign(&p, 64, rounded) != 0)
        return NULL;
    memset(p, 0, rounded);
    return p;
}

void es_free(void *p)
{
    free(p);
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
