/* Aligned, zeroed buffers (core/memory.h says why 64 bytes). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core/memory.h"

#define ALIGN 64
/* From here up a buffer is pages of its own. */
#define OWN_PAGES (256 * 1024)
/* Lazy, from four pages: a block-sized buffer at a render's partitions (16
 * to 64 KB a channel) is then never recycled heap (below). A stereo render
 * at block 8192 held 0.5 MB of untouched buffers resident through calloc
 * at 256 KB. */
#define OWN_PAGES_LAZY (16 * 1024)

static int lazy;

void es_alloc_lazy(int on)
{
    lazy = on;
}

/* Zeroed memory. A large buffer is mapped fresh, its pages the kernel's
 * zero pages, each made resident when first touched, and given back whole
 * when freed; a small one comes from calloc, which writes recycled heap
 * with zeros (resident for good). Lazy, buffers from 16 KB up are mapped:
 * a render's second slot and trim buffers, or a long filter's delay-line
 * slots the input has not reached, cost nothing. Not lazy, only from 256
 * KB: the buffers an engine swapped in (or made again after a server
 * restart) touches in its first callbacks are mostly calloc's, already
 * resident, and fewer mappings go (munmap stops every thread of the
 * process for a moment) when an engine is freed beside the audio thread.
 * With 16 KB there, where memory could not be locked (ulimit -l 0), the
 * engine app/ab-slots swaps in missed blocks in 1 run of 2. Below the
 * aligned address: the block's own address and, for a mapping, its length
 * (0 for calloc's). */
void *es_alloc(size_t bytes)
{
    const size_t head = ALIGN; /* the two words, keeping the alignment */
    if (bytes > SIZE_MAX - head - ALIGN)
        return NULL;
    void *raw;
    size_t mapped = 0;
    if (bytes >= (lazy ? OWN_PAGES_LAZY : OWN_PAGES)) {
        mapped = bytes + head;
        raw = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            return NULL;
    } else if (!(raw = calloc(1, (bytes ? bytes : 1) + head + ALIGN))) {
        return NULL;
    }
    const uintptr_t at = ((uintptr_t)raw + head + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
    ((void **)at)[-1] = raw;
    ((size_t *)at)[-2] = mapped;
    return (void *)at;
}

void es_free(void *p)
{
    if (!p)
        return;
    void *raw = ((void **)p)[-1];
    const size_t mapped = ((size_t *)p)[-2];
    if (mapped)
        munmap(raw, mapped);
    else
        free(raw);
}

/* One block for all the channels, each row a whole number of lines: one
 * allocation (a mapping of its own when large), whose rows a stream
 * touches only as it uses them. */
float **es_alloc_channels(int channels, size_t frames)
{
    float **c = calloc((size_t)(channels > 0 ? channels : 1), sizeof *c);
    if (!c || channels < 1)
        return c;
    const size_t row = (frames * sizeof(float) + ALIGN - 1) / ALIGN * ALIGN;
    if (row && (size_t)channels > SIZE_MAX / row) {
        free(c);
        return NULL;
    }
    char *block = es_alloc(row ? row * (size_t)channels : 1);
    if (!block) {
        free(c);
        return NULL;
    }
    for (int i = 0; i < channels; i++)
        c[i] = (float *)(block + (size_t)i * row);
    return c;
}

void es_free_channels(float **c, int channels)
{
    if (c && channels > 0)
        es_free(c[0]);
    free(c);
}
