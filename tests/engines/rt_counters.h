/* Counts calls that must never happen on the audio thread: allocation,
 * freeing, locking, sleeping, writing. The test program defines malloc,
 * pthread_mutex_lock and friends itself (rt_counters.c), so every such call
 * made from the thread inside a counting window is seen, whether it comes
 * from our code, FFTW or libc's public entry points. */
#ifndef ES_RT_COUNTERS_H
#define ES_RT_COUNTERS_H

typedef struct {
    long allocs, frees, locks, waits;
} es_rt_counts;

/* Starts counting on the calling thread only. */
void es_rt_count_begin(void);
/* Stops counting and returns what was seen since es_rt_count_begin(). */
es_rt_counts es_rt_count_end(void);

#endif
