/* cuda-nonuniform: non-uniformly partitioned convolution on the GPU, zero
 * latency, for IR matrices of thousands of long paths.
 *
 * cuda-partitioned reads every filter spectrum every block: 1024 paths of
 * 10 s at block 128 stream 4 GB per block. Here, as in cpu-nonuniform, the
 * IR is cut into levels (gpu_nu_plan.c chooses them): partitions that grow
 * with their distance from the head are read once per their own period.
 *
 *   head   partitions of the block size, every block, in the callback's own
 *          job: one CUDA graph on the highest-priority stream,
 *            upload -> insert (segment and input history) -> R2C -> MAC
 *            -> sums -> C2R -> finish (+ the tail rings) -> download
 *   tails  level k, partitions P_k growing x4 or x8, once per P_k frames,
 *          each a CUDA graph on its own stream below the head's priority
 *          (deeper levels lower still), launched by the worker after the
 *          head's result is handed over:
 *            gather (block j-1 | j from the input history) -> R2C -> MAC
 *            -> sums -> C2R -> emit (into the level's output ring)
 *
 * Every level is a gpu_uniform.cu convolution: one forward transform per
 * input and one inverse per output per job, whatever the paths; NULL paths
 * cost nothing; the filter spectra are cut, padded and transformed on the
 * device. A tail MAC runs on a grid of half as many thread blocks as the
 * GPU has SMs, each looping over short tiles (at most 8 partitions a lane):
 * the head, on a higher-priority stream, finds SMs and memory bandwidth
 * free. Stream priority alone does not give that when the other work fills
 * every SM, and a full grid of short blocks still takes the whole bus.
 *
 * Deadlines: level k starts at offset S_k >= 2 P_k + B, so job j, launched
 * once frame (j + 1) P_k is in, is first needed at frame S_k + j P_k, at
 * least P_k + B frames later. Before each head launch the worker looks up
 * whether the jobs the launch needs have finished (their events): a job
 * that has not is late, counted once (late_levels, and in late_results),
 * and its frames are left out; the head never waits for it. When a level
 * has SLOTS jobs in flight, or its input has left the history, the next
 * job is dropped (late when needed) and the first job after it zeroes the
 * dropped blocks' delay-line slots, so the level is right again count_k
 * jobs later. Offline (render, tests) the worker waits instead.
 *
 * The worker thread (gpu_pipeline.c) makes every CUDA call after create;
 * process() never does. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "gpu_uniform.cuh"

extern "C" {
#include "classes.h"
#include "gpu_classes.h"
#include "gpu_device.h"
#include "gpu_nu_plan.h"
}

#define ES_ENGINE_NAME "cuda-nonuniform"

#define SLOTS 4 /* tail jobs of one level in flight at most */
/* Filter spectra are built for this many bytes of taps, and of padded
 * partitions, at a time. */
#define SPECTRA_SCRATCH_BYTES (512ull << 20)
/* Left free on the device beyond what an instance needs (cuFFT's work
 * areas, the graphs, other instances' growth). */
#define MEMORY_RESERVE (768ull << 20)

/* What a tail level's kernels know about their job; uploaded before it. */
struct gnu_job {
    int newest;  /* FDL slot of the job's block */
    int gap;     /* dropped blocks just before it: FDL ages 1..gap are zeroed */
    int history; /* history index of the window's first frame (block j - 1) */
    int ring;    /* ring index of the job's first output frame */
};

enum { JOB_LAUNCHED = 1, JOB_DONE, JOB_DROPPED };

struct gnu_level {
    es_upc u;
    int part, offset, count;
    cudaStream_t stream;
    cudaGraphExec_t exec;
    gnu_job *host_job;          /* pinned, [SLOTS]: job j uses j % SLOTS */
    gnu_job *dev_job;           /* the job being run */
    cudaEvent_t done[SLOTS];
    int have_events;
    long long slot_job[SLOTS];  /* the job in each slot, -1 none */
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
static int waits(const cunu *c)
{
    return c->offline || __atomic_load_n(&c->freewheel, __ATOMIC_RELAXED);
}

/* ---- tail kernels ---- */

/* The job's window, blocks j - 1 and j, from the input history into the
 * level's segment (row per input), and zeros into the delay-line slots of
 * blocks that were dropped. */
__global__ void gather_kernel(const gnu_job *job, const float *history, int history_mask,
                              es_upc u)
{
    const int i = blockIdx.y;
    const int first = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
    const size_t H = (size_t)history_mask + 1;
    for (int t = first; t < 2 * u.part; t += step)
        u.segment[(size_t)i * 2 * u.part + t] =
            history[(size_t)i * H + ((job->history + t) & history_mask)];
    for (int g = 1; g <= job->gap; g++) {
        const int slot = (job->newest + g) % u.parts;
        for (int k = first; k < u.stride; k += step)
            u.fdl[((size_t)i * u.parts + slot) * u.stride + k] = make_float2(0.0f, 0.0f);
    }
}

/* Output samples P.. of the inverse transform into the level's ring (rows
 * per output), and the job's spectrum into its delay-line slot (rows per
 * input, past the outputs). */
__global__ void emit_kernel(const gnu_job *job, es_upc u, float *ring, int ring_mask)
{
    const int row = blockIdx.y;
    const int first = blockIdx.x * blockDim.x + threadIdx.x, step = gridDim.x * blockDim.x;
    if (row < u.outputs) {
        float *r = ring + (size_t)row * ((size_t)ring_mask + 1);
        const float *y = u.time + (size_t)row * 2 * u.part + u.part;
        for (int t = first; t < u.part; t += step)
            r[(job->ring + t) & ring_mask] = y[t];
        return;
    }
    es_upc_commit(u, row - u.outputs, job->newest, first, step);
}

/* ---- worker side ---- */

/* 1 when tail job j of level l has finished, 0 when not (or it was
 * dropped), -1 on a device error. Offline it waits for a launched job. */
static int job_ready(cunu *c, gnu_level *l, long long j, char *err, size_t n)
{
    const int s = (int)(j % l->states);
    if (l->state_job[s] != j || l->state[s] == JOB_DROPPED)
        return 0;
    if (l->state[s] == JOB_DONE)
        return 1;
    cudaEvent_t ev = l->done[j % SLOTS];
    const cudaError_t rc = waits(c) ? cudaEventSynchronize(ev) : cudaEventQuery(ev);
    if (rc == cudaErrorNotReady)
        return 0;
    ES_CUDA_TRY(rc);
    l->state[s] = JOB_DONE;
    return 1;
fail:
    return -1;
}

/* Which of a head launch's frames [t, t + frames) get level l's output:
 * lo..hi, one run (a launch spans at most two of its jobs, and before the
 * level's offset there is nothing to add). A job that is not ready is late,
 * counted once. */
static int level_window(cunu *c, gnu_level *l, long long t, int frames, int *at, int *lo,
                        int *hi, char *err, size_t n)
{
    *at = (int)((t - l->offset) & (l->ring_frames - 1));
    *lo = *hi = 0;
    int have = 0;
    for (long long f = t > l->offset ? t : l->offset; f < t + frames;) {
        const long long j = (f - l->offset) / l->part;
        const long long end = l->offset + (j + 1) * l->part < t + frames
                                  ? l->offset + (j + 1) * l->part
                                  : t + frames;
        const int ready = job_ready(c, l, j, err, n);
        if (ready < 0)
            return -1;
        if (ready && (!have || *hi == (int)(f - t))) {
            if (!have)
                *lo = (int)(f - t);
            *hi = (int)(end - t);
            have = 1;
        } else if (!ready && l->late_job != j) {
            l->late_job = j;
            __atomic_fetch_add(&c->late_tail, 1ull, __ATOMIC_RELAXED);
        }
        f = end;
    }
    return 0;
}

/* Before each head launch: where its frames go in the input history, and
 * which frames of each tail level are ready to add. */
static int before_launch(void *ctx, es_gpu_header *h, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    h->history = (int)(c->time & (c->history_frames - 1));
    for (int k = 0; k < c->tails; k++)
        if (level_window(c, &c->level[k], c->time, h->frames, &h->level_at[k], &h->level_lo[k],
                         &h->level_hi[k], err, n))
            return -1;
    c->time += h->frames;
    return 0;
}

static int cunu_run(void *ctx, int frames, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    return es_upc_run(&c->head, &c->gpu, frames, before_launch, c, ES_ENGINE_NAME, err, n);
}

/* Launches (or drops) every tail job whose input block is complete. */
static int cunu_after(void *ctx, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    for (int k = 0; k < c->tails; k++) {
        gnu_level *l = &c->level[k];
        for (const long long ready = c->time / l->part; l->next < ready;) {
            const long long j = l->next++;
            const int slot = (int)(j % SLOTS), s = (int)(j % l->states);
            l->state_job[s] = j;
            l->state[s] = JOB_DROPPED;
            if (l->slot_job[slot] >= 0) { /* the slot's last job must be done */
                const cudaError_t rc = waits(c) ? cudaEventSynchronize(l->done[slot])
                                                : cudaEventQuery(l->done[slot]);
                if (rc == cudaErrorNotReady)
                    continue; /* SLOTS jobs in flight: this one is dropped */
                ES_CUDA_TRY(rc);
                const long long prev = l->slot_job[slot];
                if (l->state_job[prev % l->states] == prev)
                    l->state[prev % l->states] = JOB_DONE;
                l->slot_job[slot] = -1;
            }
            /* Its window starts at block j - 1: still in the history? */
            if (!waits(c) &&
                c->time - (j - 1) * l->part > c->history_frames - c->max_block)
                continue;
#ifdef ES_TESTING
            if (k == 0 && j >= c->drop_first && j < c->drop_first + c->drop_count)
                continue;
#endif
            gnu_job *job = &l->host_job[slot];
            job->newest = (int)((l->count - j % l->count) % l->count);
            const long long gap = j - l->last_run - 1;
            job->gap = (int)(gap < l->count ? gap : l->count);
            job->history = (int)(((j - 1) * l->part) & (c->history_frames - 1));
            job->ring = (int)((j * l->part) & (l->ring_frames - 1));
            ES_CUDA_TRY(cudaMemcpyAsync(l->dev_job, job, sizeof *job, cudaMemcpyHostToDevice,
                                        l->stream));
            ES_CUDA_TRY(cudaGraphLaunch(l->exec, l->stream));
            ES_CUDA_TRY(cudaEventRecord(l->done[slot], l->stream));
            l->slot_job[slot] = j;
            l->state[s] = JOB_LAUNCHED;
            l->last_run = j;
        }
    }
    return 0;
fail:
    return -1;
}

/* Thread blocks a tail level's MAC holds at once. Uncapped, a deep level
 * puts hundreds of thousands of short thread blocks and the whole memory
 * bandwidth between the head and the SMs whenever it runs; capped, it
 * takes longer (a 65536-frame job still ends in milliseconds, its deadline
 * is over a second away) and the head finds SMs and bandwidth free.
 * EARSHOT_GPU_TAIL_GRID=N sets another cap (0: none), for measuring it. */
static long tail_grid(int sms)
{
    if (const char *set = getenv("EARSHOT_GPU_TAIL_GRID")) {
        char *end;
        const long v = strtol(set, &end, 10);
        if (end != set && *end == 0 && v >= 0)
            return v;
    }
    return sms / 4 > 0 ? sms / 4 : 1;
}

static void forget_jobs(gnu_level *l)
{
    for (int s = 0; s < SLOTS; s++)
        l->slot_job[s] = -1;
    for (int s = 0; s < l->states; s++)
        l->state_job[s] = -1;
    l->next = 0;
    l->last_run = -1;
    l->late_job = -1;
}

static int cunu_device_reset(void *ctx, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    for (int k = 0; k < c->tails; k++)
        ES_CUDA_TRY(cudaStreamSynchronize(c->level[k].stream));
    ES_CUDA_TRY(es_upc_clear(&c->head, c->gpu.stream));
    ES_CUDA_TRY(cudaMemsetAsync(c->history, 0,
                                sizeof(float) * (size_t)c->inputs * c->history_frames,
                                c->gpu.stream));
    for (int k = 0; k < c->tails; k++) {
        gnu_level *l = &c->level[k];
        ES_CUDA_TRY(es_upc_clear(&l->u, c->gpu.stream));
        ES_CUDA_TRY(cudaMemsetAsync(l->ring, 0, sizeof(float) * (size_t)c->outputs * l->ring_frames,
                                    c->gpu.stream));
        forget_jobs(l);
    }
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    c->time = 0;
    return 0;
fail:
    return -1;
}

/* ---- create / destroy ---- */

static void cunu_destroy(es_engine *e)
{
    cunu *c = (cunu *)e;
    if (!c)
        return;
    es_gpu_pipeline_destroy(c->gpu.pipe); /* no more launches */
    c->gpu.pipe = NULL;
    cudaSetDevice(c->gpu.device);
    for (int k = 0; k < c->tails; k++) {
        gnu_level *l = &c->level[k];
        if (l->stream)
            cudaStreamSynchronize(l->stream);
        if (l->exec)
            cudaGraphExecDestroy(l->exec);
        for (int s = 0; l->have_events && s < SLOTS; s++)
            cudaEventDestroy(l->done[s]);
        if (l->stream)
            cudaStreamDestroy(l->stream);
        cudaFreeHost(l->host_job);
        cudaFree(l->dev_job);
        cudaFree(l->ring);
        free(l->state_job);
        free(l->state);
        es_upc_free(&l->u);
    }
    es_gpu_engine_release(&c->gpu);
    es_upc_free(&c->head);
    cudaFree(c->history);
    free(c);
}

/* A tail level's job, recorded once. Grids of 256-thread blocks that each
 * touch a few KB: short, like the MAC's. */
static int capture_level(cunu *c, gnu_level *l, char *err, size_t n)
{
    const int rows = (2 * l->part + 255) / 256;
    ES_CUDA_TRY(cudaStreamBeginCapture(l->stream, cudaStreamCaptureModeThreadLocal));
    gather_kernel<<<dim3(rows, c->inputs), 256, 0, l->stream>>>(
        l->dev_job, c->history, (int)(c->history_frames - 1), l->u);
    ES_CUDA_LAUNCHED();
    if (es_upc_record(&l->u, &c->gpu.pt, &l->dev_job->newest, l->stream, ES_ENGINE_NAME, err, n))
        goto fail;
    emit_kernel<<<dim3((l->u.bins + 255) / 256, c->outputs + c->inputs), 256, 0, l->stream>>>(
        l->dev_job, l->u, l->ring, (int)(l->ring_frames - 1));
    ES_CUDA_LAUNCHED();
    ES_CUDA_TRY(es_gpu_capture_finish(l->stream, &l->exec));
    return 0;
fail:
    es_gpu_capture_abandon(l->stream);
    return -1;
}

static int make_level(cunu *c, int k, int priority, const es_upc_layout *layout, char *err,
                      size_t n)
{
    gnu_level *l = &c->level[c->tails];
    const es_nu_level *p = &c->plan.level[k];
    l->part = p->part;
    l->offset = p->offset;
    l->count = p->count;
    l->ring_frames = es_gnu_ring_frames(p, c->max_block);
    /* A job's state is read until S_k + (j + 1) P_k, while later jobs
     * launch: S_k / P_k + 4 entries cover it. */
    l->states = l->offset / l->part + 4;
    l->state_job = (long long *)calloc((size_t)l->states, sizeof *l->state_job);
    l->state = (unsigned char *)calloc((size_t)l->states, 1);
    c->tails++; /* from here on, destroy frees it */
    if (!l->state_job || !l->state) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return -1;
    }
    forget_jobs(l);
    ES_CUDA_TRY(cudaStreamCreateWithPriority(&l->stream, cudaStreamNonBlocking, priority));
    for (int s = 0; s < SLOTS; s++)
        ES_CUDA_TRY(cudaEventCreateWithFlags(&l->done[s], cudaEventDisableTiming));
    l->have_events = 1;
    ES_CUDA_TRY(cudaHostAlloc((void **)&l->host_job, sizeof(gnu_job) * SLOTS, cudaHostAllocDefault));
    ES_CUDA_TRY(cudaMalloc(&l->dev_job, sizeof(gnu_job)));
    ES_CUDA_TRY(cudaMalloc(&l->ring, sizeof(float) * (size_t)c->outputs * l->ring_frames));
    ES_CUDA_TRY(cudaMemsetAsync(l->ring, 0, sizeof(float) * (size_t)c->outputs * l->ring_frames,
                                c->gpu.stream));
    if (es_upc_create(&l->u, &c->gpu.pt, c->inputs, c->outputs, l->part, l->count, layout,
                      c->gpu.stream, ES_ENGINE_NAME, err, n))
        return -1;
    c->gpu.held += l->u.bytes + sizeof(float) * (size_t)c->outputs * l->ring_frames +
                   sizeof(gnu_job);
    c->rings.ring[c->rings.count] = l->ring;
    c->rings.mask[c->rings.count++] = (int)(l->ring_frames - 1);
    return 0;
fail:
    return -1;
}

/* EARSHOT_GPU_CREATE_TIMES=1: where an instance's build time goes, one
 * line on stderr (for measuring, as `scripts/gpu-check create` does). */
static double create_stamp_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static es_engine *cunu_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                              char *err, size_t n)
{
    const double t0 = create_stamp_ms();
    double t_alloc = 0, t_spectra = 0, t_capture = 0;
    cunu *c = (cunu *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, n, "%s: out of memory", ES_ENGINE_NAME);
        return NULL;
    }
    c->gpu.device = opt->gpu.device;
    c->inputs = ir->inputs;
    c->outputs = ir->outputs;
    c->max_block = fmt->max_block;
    c->offline = opt->offline != 0;
#ifdef ES_TESTING
    if (const char *drop = getenv("EARSHOT_GPU_DROP_TAIL"))
        if (sscanf(drop, "%lld,%d", &c->drop_first, &c->drop_count) != 2)
            c->drop_count = 0;
#endif
    const es_gnu_shape shape = {ir->inputs, ir->outputs, es_ir_path_count(ir), ir->length,
                                fmt->max_block, opt->partition};
    /* A shard of a split plans as the whole matrix: the same levels give
     * its outputs the same samples, bit for bit. */
    es_gnu_shape plan_shape = shape;
    if (opt->gpu.plan_outputs > 0) {
        plan_shape.outputs = opt->gpu.plan_outputs;
        plan_shape.paths = opt->gpu.plan_paths;
    }
    es_gnu_plan_choose(&plan_shape, &c->plan);
#ifdef ES_TESTING
    /* EARSHOT_GPU_NU_PLAN=RATIO,MAX_PART: that plan instead of the
     * cheapest, so the tests reach tail levels with short IRs. */
    int ratio = 0, max_part = 0;
    if (const char *forced = getenv("EARSHOT_GPU_NU_PLAN"))
        if (sscanf(forced, "%d,%d", &ratio, &max_part) == 2)
            es_gnu_plan_make(&plan_shape, ratio, max_part, &c->plan);
#endif
    ES_CUDA_TRY(cudaSetDevice(c->gpu.device));
    {
        /* Refuse, in one line, what cannot fit, before allocating any of it. */
        size_t free_bytes = 0, total = 0;
        char why[160];
        ES_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
        const uint64_t need = es_gnu_plan_device_bytes(&shape, &c->plan) + 2 * SPECTRA_SCRATCH_BYTES;
        if (es_gnu_memory_check(need, free_bytes, MEMORY_RESERVE, why, sizeof why)) {
            snprintf(err, n, "%s: %d x %d paths of %d taps at block %d %s", ES_ENGINE_NAME,
                     ir->inputs, ir->outputs, ir->length, fmt->max_block, why);
            free(c);
            return NULL;
        }
    }
    {
        int least = 0, greatest = 0;
        es_gpu_priorities(&least, &greatest);
        ES_CUDA_TRY(es_gpu_stream_create(&c->gpu, greatest));
        if (es_staging_alloc(&c->gpu.st, c->inputs, c->outputs, c->max_block, ES_ENGINE_NAME, err,
                             n) ||
            es_gpu_paths_make(&c->gpu.pt, ir, c->gpu.stream, ES_ENGINE_NAME, err, n))
            goto fail;
        const int sms = es_gpu_multiprocessors();
        /* The head: one pass, a thread block per output; the tails: short
         * tiles, on a grid of a few thread blocks that loop over them. */
        const es_upc_layout head = {1, 0, 0, 0, 0}, tail = {0, 1, 4L * sms, 8, tail_grid(sms)};
        const es_nu_level *l0 = &c->plan.level[0];
        if (es_upc_create(&c->head, &c->gpu.pt, c->inputs, c->outputs, l0->part, l0->count, &head,
                          c->gpu.stream, ES_ENGINE_NAME, err, n))
            goto fail;
        c->gpu.held += c->head.bytes;
        /* Each tail level below the one before it: a deep level's job reads
         * gigabytes, and a shallow level, whose deadline is much nearer,
         * must not wait behind it. Past the device's range they share the
         * least priority. */
        for (int k = 1; k < c->plan.levels; k++)
            if (make_level(c, k, greatest + k < least ? greatest + k : least, &tail, err, n))
                goto fail;
    }
    c->history_frames = es_gnu_history_frames(&c->plan, c->max_block);
    t_alloc = create_stamp_ms();
    {
        const size_t bytes = sizeof(float) * (size_t)c->inputs * c->history_frames;
        ES_CUDA_TRY(cudaMalloc(&c->history, bytes));
        ES_CUDA_TRY(cudaMemsetAsync(c->history, 0, bytes, c->gpu.stream));
        c->gpu.held += bytes;
    }
    {
        /* Every level's filter spectra from one upload of the taps; then
         * the head's per-launch work, recorded once. */
        es_upc *all[ES_GNU_MAX_LEVELS] = {&c->head};
        int from[ES_GNU_MAX_LEVELS] = {0};
        for (int k = 0; k < c->tails; k++) {
            all[k + 1] = &c->level[k].u;
            from[k + 1] = c->level[k].offset;
        }
        if (es_upc_build_spectra(all, from, c->tails + 1, ir, 0, &c->gpu.pt, SPECTRA_SCRATCH_BYTES,
                                 c->gpu.stream, ES_ENGINE_NAME, err, n))
            goto fail;
        t_spectra = create_stamp_ms();
        if (es_upc_capture_block(&c->head, &c->gpu, c->max_block, c->history,
                                 (int)(c->history_frames - 1), &c->rings, ES_ENGINE_NAME, err, n))
            goto fail;
    }
    for (int k = 0; k < c->tails; k++)
        if (capture_level(c, &c->level[k], err, n))
            goto fail;
    ES_CUDA_TRY(cudaStreamSynchronize(c->gpu.stream));
    t_capture = create_stamp_ms();
    if (es_gpu_engine_start(&c->gpu, c, cunu_run, cunu_device_reset, cunu_after,
                            &es_engine_cuda_nonuniform, fmt, opt, err, n))
        goto fail;
    if (const char *say = getenv("EARSHOT_GPU_CREATE_TIMES"))
        if (*say == '1') {
            const double t1 = create_stamp_ms();
            fprintf(stderr,
                    "%s create: %.1f ms: plan and allocation %.1f, spectra %.1f, "
                    "graphs %.1f, worker %.1f\n",
                    ES_ENGINE_NAME, t1 - t0, t_alloc - t0, t_spectra - t_alloc,
                    t_capture - t_spectra, t1 - t_capture);
        }
    return &c->gpu.base;
fail:
    cunu_destroy(&c->gpu.base);
    return NULL;
}

static void cunu_status(const es_engine *e, es_engine_status *st)
{
    const cunu *c = (const cunu *)e;
    es_gpu_engine_status(e, st);
    const unsigned long long late = __atomic_load_n(&c->late_tail, __ATOMIC_RELAXED);
    st->late_results += late;
    st->late_levels = late;
}

/* A freewheeling host: the head's result and every tail job waited for. */
static void cunu_freewheel(es_engine *e, int on)
{
    __atomic_store_n(&((cunu *)e)->freewheel, on, __ATOMIC_RELAXED);
    es_gpu_engine_freewheel(e, on);
}

extern "C" const es_engine_class es_engine_cuda_nonuniform = {
    ES_CUDA_NONUNIFORM_DESCRIPTOR, /* name, summary, caps: gpu_classes.h */
    es_gpu_engine_probe,
    cunu_create,
    es_gpu_engine_process,
    es_gpu_engine_latency,
    es_gpu_engine_reset,
    cunu_destroy,
    cunu_status,
    ES_CUDA_NONUNIFORM_FALLBACK,
    NULL, /* no offline plan: render runs the live default block */
    cunu_freewheel,
    es_gpu_engine_process_views, /* the outputs read where the GPU wrote them */
};
