/* Memory the audio thread never waits for. A page fault on the audio
 * thread waits on the address-space lock while another thread maps or
 * unmaps memory (the screen starting up, a room being prepared): every
 * page it may touch is made resident and locked first.
 *
 * Not the GPU libraries: the CUDA runtime and cuFFT map hundreds of MB of
 * GPU kernels (cuFFT alone 270 MB) that only a GPU engine's own worker
 * thread ever reads, so they are left to be paged in on that thread. */
#ifndef ES_CORE_RT_MEMORY_H
#define ES_CORE_RT_MEMORY_H

#include <stddef.h>

/* Locks every mapping there is now (but the GPU libraries') and every
 * mapping made from now on (engines' buffers: resident as they are
 * made). Under a finite RLIMIT_MEMLOCK (an ordinary user) only what is
 * mapped now, the audio path's first, as far as the limit goes: never
 * the future mappings, whose locks would make every allocation past the
 * limit fail. 0; or -1 and what was not locked in why[n] (a note, not a
 * failure: everything goes on). */
int es_rt_memory_lock(char *why, size_t n);

/* 1 when a mapping of this file is left unlocked (a GPU library). */
int es_rt_memory_skipped(const char *path);

#endif
