/* The monotonic clock, as every layer reads it: meters, deadlines, pacing. */
#ifndef ES_CORE_CLOCK_H
#define ES_CORE_CLOCK_H

#include <time.h>

/* Nanoseconds on CLOCK_MONOTONIC. Real-time safe (a vDSO read). */
long long es_now_ns(void);
/* CPU time the calling thread has used, ns (CLOCK_THREAD_CPUTIME_ID: a
 * system call, no lock, no allocation: real-time safe). What tells a
 * block that was slow from a thread that was not running. */
long long es_thread_cpu_ns(void);
/* Seconds on CLOCK_MONOTONIC, for control-side bookkeeping. */
double es_now_seconds(void);
/* b - a in seconds. */
double es_seconds_between(const struct timespec *a, const struct timespec *b);
/* The time `seconds` from now on `clock`, as the timed waits take it
 * (pthread_cond_timedwait on the condition's clock, pthread_timedjoin_np
 * on CLOCK_REALTIME). */
struct timespec es_time_after(clockid_t clock, double seconds);

#endif
