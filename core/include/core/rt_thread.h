/* Real-time scheduling for the threads earshot starts itself (the GPU
 * worker, the tail workers of a non-uniform engine). The audio thread is the
 * host's; its priority is set by the audio server or the null device.
 *
 * A helper thread that has to finish within the audio period must not be
 * preempted by ordinary work, so it asks for SCHED_FIFO just below the audio
 * thread. Whether the system grants it depends on RLIMIT_RTPRIO or
 * CAP_SYS_NICE; when it does not, the thread runs at normal priority and the
 * caller gets the reason, to show once rather than fail. */
#ifndef ES_RT_THREAD_H
#define ES_RT_THREAD_H

#include <pthread.h>
#include <stddef.h>

/* Priority of the helper threads relative to SCHED_FIFO's maximum: the null
 * device's audio thread runs at max/2, JACK's at about 70-80 of 99. */
#define ES_RT_HELPER_PRIORITY_DROP 2

/* Raises the calling thread to SCHED_FIFO at `priority` (1..99, clamped).
 * Returns 1 when granted; 0 with a one-line reason in `why` when not.
 * EARSHOT_NO_RT=1 in the environment keeps normal priority (for
 * comparisons). */
int es_rt_thread_promote(int priority, char *why, size_t n);

/* The priority a helper thread should ask for: just below the null
 * device's audio thread. */
int es_rt_helper_priority(void);

/* The stack of the threads earshot starts for audio work (helpers, the
 * null device's clock, file readers and writers). The live session locks
 * all its memory, so a thread's whole stack is resident from its start:
 * glibc's default of 8 MiB per thread, and the freed stacks glibc keeps
 * for reuse, would hold tens of MiB for threads that need a few KiB. */
#define ES_THREAD_STACK (512 * 1024)

/* The stack of a thread that runs libraries deep (decoders, SOFA readers,
 * FFT planners: the preparer), still far below glibc's 8 MiB. */
#define ES_LIBRARY_THREAD_STACK (2 * 1024 * 1024)

/* pthread_create with an ES_THREAD_STACK stack, named `name` (at most 15
 * characters: what top -H, a profiler and /proc/PID/task/TID/comm show,
 * and how the tests find the thread whose CPU time they read). 0, or an
 * errno value. */
int es_thread_start(pthread_t *thread, const char *name, void *(*run)(void *), void *arg);
/* The same with a stack of `stack` bytes. */
int es_thread_start_sized(pthread_t *thread, const char *name, size_t stack,
                          void *(*run)(void *), void *arg);

#endif
