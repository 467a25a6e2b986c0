/* cuda-nonuniform's tail levels (engine_cuda_nonuniform.cu says how they
 * run beside the head): each made with its own stream, events, job
 * buffers and output ring, its job recorded once as a graph of the gather
 * and emit kernels around its convolution; on the worker, its jobs
 * launched or dropped as their input completes, and looked up before each
 * head launch. */
#include <cstdio>
#include <cstdlib>

#include "gpu_nonuniform.cuh"

enum { JOB_LAUNCHED = 1, JOB_DONE, JOB_DROPPED };

/* ---- kernels ---- */

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

/* ---- made, cleared, freed ---- */

/* Thread blocks a tail level's MAC holds at once. Uncapped, a deep level
 * puts hundreds of thousands of short thread blocks and the whole memory
 * bandwidth between the head and the SMs whenever it runs; capped, it
 * takes longer (a 65536-frame job still ends in milliseconds, its deadline
 * is over a second away) and the head finds SMs and bandwidth free.
 * EARSHOT_GPU_TAIL_GRID=N sets another cap (0: none), for measuring it. */
long es_gnu_tail_grid(int sms)
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
    for (int s = 0; s < ES_GNU_SLOTS; s++)
        l->slot_job[s] = -1;
    for (int s = 0; s < l->states; s++)
        l->state_job[s] = -1;
    l->next = 0;
    l->last_run = -1;
    l->late_job = -1;
}

/* A tail level's job, recorded once. Grids of 256-thread blocks that each
 * touch a few KB: short, like the MAC's. */
int es_gnu_level_capture(cunu *c, gnu_level *l, char *err, size_t n)
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

int es_gnu_level_make(cunu *c, int k, int priority, const es_upc_layout *layout, char *err,
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
    for (int s = 0; s < ES_GNU_SLOTS; s++)
        ES_CUDA_TRY(cudaEventCreateWithFlags(&l->done[s], cudaEventDisableTiming));
    l->have_events = 1;
    ES_CUDA_TRY(cudaHostAlloc((void **)&l->host_job, sizeof(gnu_job) * ES_GNU_SLOTS,
                              cudaHostAllocDefault));
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

int es_gnu_level_clear(cunu *c, gnu_level *l, char *err, size_t n)
{
    ES_CUDA_TRY(es_upc_clear(&l->u, c->gpu.stream));
    ES_CUDA_TRY(cudaMemsetAsync(l->ring, 0, sizeof(float) * (size_t)c->outputs * l->ring_frames,
                                c->gpu.stream));
    forget_jobs(l);
    return 0;
fail:
    return -1;
}

void es_gnu_level_free(gnu_level *l)
{
    if (l->stream)
        cudaStreamSynchronize(l->stream);
    if (l->exec)
        cudaGraphExecDestroy(l->exec);
    for (int s = 0; l->have_events && s < ES_GNU_SLOTS; s++)
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
    cudaEvent_t ev = l->done[j % ES_GNU_SLOTS];
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
int es_gnu_level_window(cunu *c, gnu_level *l, long long t, int frames, int *at, int *lo,
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

/* Launches (or drops) every tail job whose input block is complete. */
int es_gnu_after_head(void *ctx, char *err, size_t n)
{
    cunu *c = (cunu *)ctx;
    for (int k = 0; k < c->tails; k++) {
        gnu_level *l = &c->level[k];
        for (const long long ready = c->time / l->part; l->next < ready;) {
            const long long j = l->next++;
            const int slot = (int)(j % ES_GNU_SLOTS), s = (int)(j % l->states);
            l->state_job[s] = j;
            l->state[s] = JOB_DROPPED;
            if (l->slot_job[slot] >= 0) { /* the slot's last job must be done */
                const cudaError_t rc = waits(c) ? cudaEventSynchronize(l->done[slot])
                                                : cudaEventQuery(l->done[slot]);
                if (rc == cudaErrorNotReady)
                    continue; /* ES_GNU_SLOTS jobs in flight: this one is dropped */
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
