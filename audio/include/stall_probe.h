/* The stall probe: a thread beside the audio thread, at real-time priority
 * when the system allows, that wakes every period (as cyclictest does) and
 * measures how late it woke. It tells the machine's share of the misses
 * from the engine's: a machine that wakes a real-time thread a whole
 * period late loses that block whatever the engine does.
 *
 * It only sleeps and reads the clock, so it costs a wakeup per period. */
#ifndef ES_STALL_PROBE_H
#define ES_STALL_PROBE_H

#include <stdint.h>

#include "core/rt.h"

typedef struct es_stall_probe es_stall_probe;

#define ES_STALL_RECENT 16

typedef struct {
    uint64_t wakes;     /* periods it woke for since it started or was reset */
    uint64_t late;      /* of those: woken more than a whole period late */
    double worst_us;    /* its latest wake-up, us after the time it asked for */
    double period_us;
    double seconds;     /* since it started or was reset */
    int realtime;       /* 1: it runs at SCHED_FIFO; 0: at normal priority
                         * (the system refused), so it measures that */
    /* When the last min(late, ES_STALL_RECENT) late wakes were, seconds
     * since the start or reset, oldest first: to line up with the
     * processor's misses (miss_at_s). */
    double late_at_s[ES_STALL_RECENT];
} es_stall_stats;

/* Starts it with a period of `period_s` seconds. NULL when the thread
 * cannot start (the caller plays on without it). */
es_stall_probe *es_stall_probe_start(double period_s);
void es_stall_probe_read(const es_stall_probe *p, es_stall_stats *out);
/* Real-time safe: 1 when the probe was held up for more than a quarter of
 * its period at some time in [from_ns, to_ns] (es_now_ns() clock), or is
 * held up now: a real-time thread beside the audio could not run then
 * either. */
ES_RT int es_stall_probe_held_during(const es_stall_probe *p, long long from_ns, long long to_ns);
/* Counts from zero again (asynchronously: within a period). */
void es_stall_probe_reset(es_stall_probe *p);
/* Stops, joins and frees it; NULL-safe. */
void es_stall_probe_stop(es_stall_probe *p);

#endif
