/* cuda-nonuniform's instance (internal; CUDA C++ only): the head, the
 * tail levels and the worker's state, shared by the engine
 * (engine_cuda_nonuniform.cu: the head, create, destroy, the class) and its
 * tail levels (gpu_nu_tails.cu: their kernels, graphs and jobs). */
#ifndef ES_GPU_NONUNIFORM_CUH
#define ES_GPU_NONUNIFORM_CUH

#include "gpu_uniform.cuh"

extern "C" {
#include "gpu_nu_plan.h"
}

#define ES_ENGINE_NAME "cuda-nonuniform"

#define ES_GNU_SLOTS 4 /* tail jobs of one level in flight at most */

/* What a tail level's kernels know about their job; uploaded before it. */
struct gnu_job {
    int newest;  /* FDL slot of the job's block */
    int gap;     /* dropped blocks just before it: FDL ages 1..gap are zeroed */
    int history; /* history index of the window's first frame (block j - 1) */
    int ring;    /* ring index of the job's first output frame */
};

struct gnu_level {
    es_upc u;
    int part, offset, count;
    cudaStream_t stream;
    cudaGraphExec_t exec;
    gnu_job *host_job;          /* pinned, [ES_GNU_SLOTS]: job j uses j % ES_GNU_SLOTS */
    gnu_job *dev_job;           /* the job being run */
    cudaEvent_t done[ES_GNU_SLOTS];
    int have_events;
    long long slot_job[ES_GNU_SLOTS]; /* the job in each slot, -1 none */
    float *ring;                /* [outputs][ring_frames] */
    long ring_frames;
    /* Worker-side: what became of job j, at j % states, for the head. */
    int states;
    long long *state_job;
    unsigned char *state;
    long long next;             /* the next job to launch (or drop) */
    long long last_run;         /* the last job launched, -1 none */
    long long late_job;         /* the last job counted late, -1 none */
};

struct cunu {
    es_gpu_engine gpu;          /* first: head stream, graph, staging, paths */
    int inputs, outputs, max_block, offline;
    int freewheel;              /* the host freewheels: the worker waits as offline (atomic) */
    es_gnu_plan plan;
    es_upc head;
    int tails;
    gnu_level level[ES_GNU_MAX_LEVELS - 1];
    float *history;             /* [inputs][history_frames] */
    long history_frames;
    es_upc_rings rings;
#ifdef ES_TESTING
    long long drop_first;       /* EARSHOT_GPU_DROP_TAIL=FIRST,COUNT: level 1 */
    int drop_count;             /* drops those jobs, as if it were behind */
#endif
    /* Worker-side state. */
    long long time;             /* frames the head has taken */
    unsigned long long late_tail; /* tail jobs late when needed (atomic) */
};

/* Whether the worker waits for a tail job rather than count it late:
 * offline, or while the host freewheels (es_engine_freewheel). */
static inline int waits(const cunu *c)
{
    return c->offline || __atomic_load_n(&c->freewheel, __ATOMIC_RELAXED);
}

/* Tail level k of the plan made as the instance's next level, its
 * stream at `priority`: its job buffers, events, output ring and
 * convolution, its memory counted in c->gpu.held, its ring added to the
 * head's. From its first allocation on, es_gnu_level_free frees it. */
int es_gnu_level_make(cunu *c, int k, int priority, const es_upc_layout *layout, char *err,
                      size_t n);
/* A tail level's job recorded once as its graph: gather, es_upc_record,
 * emit. */
int es_gnu_level_capture(cunu *c, gnu_level *l, char *err, size_t n);
/* Its convolution's state and its ring zeroed on the head's stream, and
 * no job known (the device reset). */
int es_gnu_level_clear(cunu *c, gnu_level *l, char *err, size_t n);
/* Waits for its stream, then frees what it holds (NULL-safe parts). */
void es_gnu_level_free(gnu_level *l);

/* Thread blocks a tail level's MAC holds at once, on a GPU of `sms`
 * multiprocessors. */
long es_gnu_tail_grid(int sms);

/* Which of a head launch's frames [t, t + frames) get level l's output:
 * [lo, hi) at ring index at. A job that is not ready is late, counted
 * once. 0, or -1 on a device error. */
int es_gnu_level_window(cunu *c, gnu_level *l, long long t, int frames, int *at, int *lo,
                        int *hi, char *err, size_t n);
/* The pipeline's `after` hook: launches (or drops) every tail job whose
 * input block is complete. */
int es_gnu_after_head(void *ctx, char *err, size_t n);

#endif
