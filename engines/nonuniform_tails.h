/* cpu-nonuniform's tail levels and the one scheduler that runs them
 * (internal to engines/).
 *
 * Each tail level k is a uniformly partitioned engine of partition P_k
 * whose job j convolves input frames [j P_k, (j+1) P_k); its result is due
 * at output frame offset_k + j P_k (its deadline). A small pool of workers
 * (one by default on a 2-core machine: one per core but the audio
 * thread's) takes posted jobs earliest deadline first. A job runs in slices
 * (partitioned_steps.h), and between two slices its worker runs any job
 * due earlier, so a short level never waits behind a long deep one for
 * more than a slice. The audio thread only stores counters and posts one
 * semaphore, and only when a worker sleeps: at most one wakeup per block.
 * Offline, the caller that needs a result nobody has started runs the job
 * itself rather than sleep until a worker does. */
#ifndef ES_NONUNIFORM_TAILS_H
#define ES_NONUNIFORM_TAILS_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "engine.h"
#include "nonuniform.h"
#include "partitioned_steps.h"

#define ES_TAIL_MAX_WORKERS 16

typedef struct {
    int index;                /* 1.. (0 is the head) */
    int part, offset, count;  /* P, S, n */
    int slots;                /* results kept: jobs j .. j + slots - 1 */
    es_engine *conv;          /* cpu-partitioned on taps [S, S + n P), block P */
    float **in;               /* [inputs][P]: the running job's input */
    float **out;              /* [outputs]: where the running job's result goes */
    float **results;          /* [outputs][slots * P]: job j's result at slot j % slots */
    atomic_llong posted;      /* jobs whose input is complete */
    atomic_llong done;        /* jobs finished (job `done` is the next) */
    atomic_int busy;          /* a thread holds the level: it runs (or will run) job `done` */
    es_block_steps steps;     /* the running job's progress, owned by the holder */
    atomic_llong last_job_ns; /* the shorter of its last two jobs, claim to done
                               * (LLONG_MAX until two have run) */
    long long prev_job_ns;    /* the last job's, owned by the holder */
    long long model_job_ns;   /* a time-blocked pass with sound in it by the cost
                               * model: jobs on silent input, and the jobs
                               * between two passes, cost far less and must
                               * not vouch for the next */
    long long late_job;       /* the last job the audio thread found late */
#ifdef ES_TESTING
    atomic_int slow_jobs;     /* the next jobs take slow_us longer ... */
    double slow_us;
    int slow_per_slice;       /* ... each slice (1) or the job as one piece (0) */
#endif
} es_tail_level;

typedef struct {
    int inputs, outputs, max_block, offline;
    int levels;
    es_tail_level level[ES_NU_MAX_LEVELS];
    float **history;          /* [inputs][hist]: the input, for the jobs */
    long long hist;           /* its frames a channel */
    atomic_llong published;   /* input frames written to the history */
    atomic_int stop;
    atomic_int idle;          /* workers asleep on `wake` (or about to be) */
    sem_t wake;               /* a job was posted while a worker slept */
    sem_t finished;           /* offline or freewheeling: a job finished */
    /* The host freewheels (es_engine_freewheel): the audio thread waits
     * for every result as offline, and workers post `finished` for it.
     * Sequentially consistent with `done`, so that a wait that begins as
     * it turns on always sees the post or the job done. */
    atomic_int freewheel;
    int workers, started, sems;
    pthread_t thread[ES_TAIL_MAX_WORKERS];
    atomic_int promoted;      /* workers that got SCHED_FIFO */
    atomic_int asked;         /* workers that have asked for it */
    atomic_llong cpu_ns;      /* the workers' CPU time, summed */
} es_tails;

/* Starts `workers` threads (clamped to 1..levels and ES_TAIL_MAX_WORKERS)
 * over the levels already filled in. 0, or -1 with a message. */
int es_tails_start(es_tails *t, int workers, char *err, size_t n);
/* Stops and joins the workers (safe on a partly started scheduler). */
void es_tails_stop(es_tails *t);
/* Workers that asked for SCHED_FIFO and how many got it (waits until every
 * worker has asked, up to 20 ms). */
void es_tails_priority(es_tails *t, int *workers, int *realtime);

/* Audio thread: the history holds the first `frames_now` input frames;
 * posts every job whose input is now complete. */
ES_RT void es_tails_post(es_tails *t, long long frames_now);
/* Live, audio thread: job j of level l is due and not done. When nobody
 * has started it (its worker was held up) and it should take at most
 * `*allowance_ns` (the shorter of its last two jobs, and the cost model's
 * figure for one with sound in it), runs it here and takes its time from
 * the allowance; never waits. 1 when it is done now. */
ES_RT int es_tails_rescue(es_tails *t, es_tail_level *l, long long j, long long *allowance_ns);
/* Offline only: returns once job j of level l is done, running it on the
 * calling thread when no worker has taken it. */
void es_tails_wait(es_tails *t, es_tail_level *l, long long j);
/* Waits until every posted job is done and nothing runs (reset, destroy). */
void es_tails_quiesce(es_tails *t);

#endif
