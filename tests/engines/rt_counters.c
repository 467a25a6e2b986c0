/* Interposes the allocator and the blocking primitives. Allocation calls go
 * to glibc's __libc_* entry points, so no dlsym is needed for them; the
 * pthread and sleep functions are found with dlsym(RTLD_NEXT) on first use.
 * Counting is per thread, so only the thread under test is measured. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_counters.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Thread_local int counting;
static _Thread_local es_rt_counts counts;

void es_rt_count_begin(void)
{
    counts = (es_rt_counts){0};
    counting = 1;
}

es_rt_counts es_rt_count_end(void)
{
    counting = 0;
    return counts;
}

void *malloc(size_t n)
{
    counts.allocs += counting;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    counts.allocs += counting;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    counts.allocs += counting;
    return __libc_realloc(p, n);
}

void free(void *p)
{
    counts.frees += counting && p;
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    counts.allocs += counting;
    void *p = __libc_memalign(align, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    counts.allocs += counting;
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    counts.allocs += counting;
    return __libc_memalign(align, n);
}

/* The real function behind an interposed name, looked up once. ISO C has
 * no cast from dlsym's void * to a function pointer, so copy the bits. */
#define REAL(name, ret, args)                                \
    typedef ret(*name##_fn) args;                            \
    static name##_fn real_##name;                            \
    if (!real_##name) {                                      \
        void *sym = dlsym(RTLD_NEXT, #name);                 \
        memcpy(&real_##name, &sym, sizeof sym);              \
    }

int pthread_mutex_lock(pthread_mutex_t *m)
{
    REAL(pthread_mutex_lock, int, (pthread_mutex_t *));
    counts.locks += counting;
    return real_pthread_mutex_lock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    REAL(pthread_mutex_trylock, int, (pthread_mutex_t *));
    counts.locks += counting;
    return real_pthread_mutex_trylock(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    REAL(pthread_rwlock_rdlock, int, (pthread_rwlock_t *));
    counts.locks += counting;
    return real_pthread_rwlock_rdlock(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    REAL(pthread_rwlock_wrlock, int, (pthread_rwlock_t *));
    counts.locks += counting;
    return real_pthread_rwlock_wrlock(l);
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
    REAL(pthread_spin_lock, int, (pthread_spinlock_t *));
    counts.locks += counting;
    return real_pthread_spin_lock(l);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    REAL(pthread_cond_wait, int, (pthread_cond_t *, pthread_mutex_t *));
    counts.waits += counting;
    return real_pthread_cond_wait(c, m);
}

int sem_wait(sem_t *s)
{
    REAL(sem_wait, int, (sem_t *));
    counts.waits += counting;
    return real_sem_wait(s);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    REAL(nanosleep, int, (const struct timespec *, struct timespec *));
    counts.waits += counting;
    return real_nanosleep(req, rem);
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                    struct timespec *rem)
{
    REAL(clock_nanosleep, int, (clockid_t, int, const struct timespec *, struct timespec *));
    counts.waits += counting;
    return real_clock_nanosleep(clock, flags, req, rem);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write, ssize_t, (int, const void *, size_t));
    counts.waits += counting;
    return real_write(fd, buf, n);
}
