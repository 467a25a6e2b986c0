#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_thread.h"

int es_rt_helper_priority(void)
{
    int p = sched_get_priority_max(SCHED_FIFO) / 2 - ES_RT_HELPER_PRIORITY_DROP;
    return p < 1 ? 1 : p;
}

int es_rt_thread_promote(int priority, char *why, size_t n)
{
    const char *off = getenv("EARSHOT_NO_RT");
    if (off && *off && strcmp(off, "0") != 0) {
        snprintf(why, n, "real-time priority off (EARSHOT_NO_RT)");
        return 0;
    }
    const int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
    if (priority < lo)
        priority = lo;
    if (priority > hi)
        priority = hi;
    struct sched_param sp = {.sched_priority = priority};
    int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (rc == 0) {
        snprintf(why, n, "SCHED_FIFO priority %d", priority);
        return 1;
    }
    snprintf(why, n, "no real-time priority (%s); raise RLIMIT_RTPRIO or run with CAP_SYS_NICE",
             strerror(rc));
    return 0;
}

int es_thread_start(pthread_t *thread, const char *name, void *(*run)(void *), void *arg)
{
    return es_thread_start_sized(thread, name, ES_THREAD_STACK, run, arg);
}

int es_thread_start_sized(pthread_t *thread, const char *name, size_t stack,
                          void *(*run)(void *), void *arg)
{
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0)
        return rc;
    rc = pthread_attr_setstacksize(&attr, stack);
    if (rc == 0)
        rc = pthread_create(thread, &attr, run, arg);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        pthread_setname_np(*thread, name); /* a name it cannot take is no failure */
    return rc;
}
