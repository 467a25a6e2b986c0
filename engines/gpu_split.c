/* A GPU engine's matrix split by outputs into shards, one per entry of
 * --gpu (an entry may repeat: --gpu 0,0 is two shards on one GPU, which
 * is how the split is tested where one GPU is lent).
 *
 * Each shard is a whole instance of the engine's class on its own device:
 * the spectra of its outputs' paths, its own head job and tail levels on
 * its own streams, its own worker thread. Every shard takes every input
 * (a path may run from any input to its outputs); the audio thread copies
 * the block into each shard's pinned staging, where its GPU reads it.
 *
 * One block, with one deadline for all shards:
 *   prepare all   (what the last block left; is each worker free?)
 *   begin all     the block goes to every shard, or, when one is still
 *                 busy with a late job, to none: their job numbers stay
 *                 equal, so a job's GPU time is the same job's on each
 *   finish all    each shard's outputs into its slice of out[], in turn;
 *                 the GPUs work at the same time, the waits overlap.
 * A block any shard was late for is one late block of the engine; each
 * shard counts its own too, reported with its GPU's ordinal. A shard that
 * fails fails the engine as one (status names its GPU), and the host falls
 * back to the class's CPU engine with the same room; until it does, the
 * other shards keep playing their outputs, and the failed shard's come
 * from its stand-by (make_standby), where it has one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "gpu_device.h"
#include "gpu_pipeline.h"
#include "gpu_split.h"

/* A shard's stand-by, the class's CPU fallback for the shard's outputs,
 * is built only up to this many taps (paths x length): a larger one would
 * hold gigabytes of host memory for a moment that may never come. */
#define STANDBY_MAX_TAPS (32L << 20)

typedef struct {
    es_engine *e;           /* NULL: no path into its outputs (silence) */
    es_engine *standby;     /* the CPU fallback for its outputs, idle until
                             * the shard fails; NULL: none (too large,
                             * offline, or another latency) */
    es_gpu_pipeline *pipe;
    int device, first, outputs;
    uint64_t late_seen;     /* audio thread: the pipeline's late count */
} shard;

typedef struct {
    es_engine base;         /* base.klass = &klass */
    es_engine_class klass;  /* the class split, with the functions below */
    const es_engine_class *inner;
    int shards;
    shard shard[ES_GPUS_MAX];
    unsigned long long late; /* blocks a shard was late for (atomic) */
} gpu_split;

/* One block on every shard. views == NULL: each shard's outputs copied
 * into its slice of out[]; else each shard's result left where its GPU
 * wrote it, views[] pointing there (or into out[] where a shard had
 * nothing to lend: late, pipelined, failed, silent). */
static ES_RT void split_run(gpu_split *s, const float *const *in, float *const *out,
                            float **views, int frames)
{
    long long deadline = 0;
    for (int k = 0; k < s->shards && !deadline; k++)
        if (s->shard[k].pipe)
            deadline = es_gpu_pipeline_deadline(s->shard[k].pipe, frames);
    /* Every prepare runs (a pipelined one collects the last result); a
     * failed shard does not hold the others back. */
    int go = 1;
    for (int k = 0; k < s->shards; k++) {
        shard *h = &s->shard[k];
        if (h->pipe && !es_gpu_pipeline_prepare(h->pipe, deadline) &&
            !es_gpu_pipeline_failed(h->pipe))
            go = 0;
    }
    for (int k = 0; k < s->shards; k++)
        if (s->shard[k].pipe)
            es_gpu_pipeline_begin(s->shard[k].pipe, in, frames, go);
    int late = 0;
    for (int k = 0; k < s->shards; k++) {
        shard *h = &s->shard[k];
        float *const *mine = out + h->first;
        float **seen_at = views ? views + h->first : NULL;
        if (seen_at)
            for (int o = 0; o < h->outputs; o++)
                seen_at[o] = mine[o];
        if (!h->pipe) {
            for (int o = 0; o < h->outputs; o++)
                memset(mine[o], 0, sizeof(float) * (size_t)frames);
            continue;
        }
        if (seen_at)
            es_gpu_pipeline_finish_views(h->pipe, mine, seen_at, frames, deadline);
        else
            es_gpu_pipeline_finish(h->pipe, mine, frames, deadline);
        /* A failed shard's outputs come from its stand-by, from the block
         * it failed in, until the host's fallback takes the whole room:
         * no gap, only the reverberation of what came before is missing. */
        if (h->standby && es_gpu_pipeline_failed(h->pipe)) {
            es_engine_process(h->standby, in, mine, frames);
            for (int o = 0; seen_at && o < h->outputs; o++)
                seen_at[o] = mine[o];
            continue;
        }
        const uint64_t seen = es_gpu_pipeline_late(h->pipe);
        late |= seen != h->late_seen;
        h->late_seen = seen;
    }
    if (late)
        __atomic_fetch_add(&s->late, 1ull, __ATOMIC_RELAXED);
}

static ES_RT void split_process(es_engine *e, const float *const *in, float *const *out,
                                int frames)
{
    split_run((gpu_split *)e, in, out, NULL, frames);
}

static ES_RT void split_process_views(es_engine *e, const float *const *in, float *const *own,
                                      float **views, int frames)
{
    split_run((gpu_split *)e, in, own, views, frames);
}

static int split_latency(const es_engine *e)
{
    const gpu_split *s = (const gpu_split *)e;
    for (int k = 0; k < s->shards; k++)
        if (s->shard[k].e)
            return es_engine_latency(s->shard[k].e);
    return 0;
}

static void split_reset(es_engine *e)
{
    gpu_split *s = (gpu_split *)e;
    for (int k = 0; k < s->shards; k++) {
        if (s->shard[k].e)
            es_engine_reset(s->shard[k].e);
        if (s->shard[k].standby)
            es_engine_reset(s->shard[k].standby);
    }
}

static void split_destroy(es_engine *e)
{
    gpu_split *s = (gpu_split *)e;
    if (!s)
        return;
    for (int k = 0; k < s->shards; k++) {
        if (s->shard[k].e)
            s->inner->destroy(s->shard[k].e);
        if (s->shard[k].standby)
            s->shard[k].standby->klass->destroy(s->shard[k].standby);
    }
    free(s);
}

static inline double larger(double a, double b)
{
    return a > b ? a : b;
}

/* The engine's condition from its shards': late blocks are the split's own
 * count (a block late on two shards is one late block) plus every shard's
 * late tail levels; a job's GPU time is its slowest shard's. */
static ES_RT void split_status(const es_engine *e, es_engine_status *st)
{
    const gpu_split *s = (const gpu_split *)e;
    int first = 1;
    st->gpu.shards = s->shards;
    st->helpers_realtime = 1;
    for (int k = 0; k < s->shards; k++) {
        const shard *h = &s->shard[k];
        st->gpu.shard[k].device = h->device;
        st->gpu.shard[k].first_output = h->first;
        st->gpu.shard[k].outputs = h->outputs;
        if (!h->e || !s->inner->status)
            continue;
        es_engine_status one;
        memset(&one, 0, sizeof one);
        s->inner->status(h->e, &one);
        st->gpu.shard[k].late = one.late_results;
        st->gpu.shard[k].device_max_us = one.gpu.max_us;
        st->gpu.shard[k].device_bytes = one.gpu.bytes;
        st->late_levels += one.late_levels;
        st->helpers_cpu_ns += one.helpers_cpu_ns;
        st->gpu.bytes += one.gpu.bytes;
        st->gpu.max_us = larger(st->gpu.max_us, one.gpu.max_us);
        if (one.helpers_realtime < st->helpers_realtime) {
            st->helpers_realtime = one.helpers_realtime;
            memcpy(st->helpers, one.helpers, sizeof st->helpers);
        }
        if (one.failed && !st->failed) {
            st->failed = 1;
            snprintf(st->message, sizeof st->message, "GPU %d (shard %d of %d%s): %.180s",
                     h->device, k + 1, s->shards,
                     h->standby ? ", its outputs now on the CPU" : "", one.message);
        }
        if (first) {
            st->gpu.us = one.gpu.us;
            st->gpu.seq = one.gpu.seq;
            st->gpu.result_seq = one.gpu.result_seq;
            memcpy(st->gpu.recent_seq, one.gpu.recent_seq, sizeof st->gpu.recent_seq);
            memcpy(st->gpu.recent_us, one.gpu.recent_us, sizeof st->gpu.recent_us);
            first = 0;
            continue;
        }
        if (one.gpu.seq == st->gpu.seq)
            st->gpu.us = larger(st->gpu.us, one.gpu.us);
        for (int j = 0; j < ES_DEVICE_RECENT; j++)
            if (one.gpu.recent_seq[j] == st->gpu.recent_seq[j])
                st->gpu.recent_us[j] = larger(st->gpu.recent_us[j], one.gpu.recent_us[j]);
    }
    st->late_results = __atomic_load_n(&s->late, __ATOMIC_RELAXED) + st->late_levels;
}

/* The shard's stand-by, where it is worth having: live (offline waits for
 * every result, so nothing is late to cover), small enough, and with the
 * shard's own latency (a pipelined shard's is a block more), so that it
 * takes over in place. Without one, a failed shard is silent until the
 * host's fallback plays. */
static void make_standby(shard *h, const es_engine_class *k, const es_format *f,
                         const es_ir *sub, const es_options *opt)
{
    const es_engine_class *cpu = es_engine_fallback(k->name);
    if (opt->offline || !cpu || (long)es_ir_path_count(sub) * sub->length > STANDBY_MAX_TAPS)
        return;
    const es_options o = {0}; /* FFTW's estimated plans: built in milliseconds */
    char why[256];
    es_engine *e = cpu->create(f, sub, &o, why, sizeof why);
    if (e && es_engine_latency(e) != es_engine_latency(h->e)) {
        cpu->destroy(e);
        e = NULL;
    }
    h->standby = e;
}

/* Every shard, and its CPU standby, waits for its results while the host
 * freewheels. */
static ES_RT void split_freewheel(es_engine *e, int on)
{
    gpu_split *s = (gpu_split *)e;
    for (int k = 0; k < s->shards; k++) {
        if (s->shard[k].e)
            es_engine_freewheel(s->shard[k].e, on);
        if (s->shard[k].standby)
            es_engine_freewheel(s->shard[k].standby, on);
    }
}

es_engine *es_gpu_split_create(const es_engine_class *k, const es_format *fmt, const es_ir *ir,
                               const es_options *opt, const es_gpu_list *gpus, char *err,
                               size_t n)
{
    if (gpus->count > ir->outputs) {
        snprintf(err, n, "--gpu lists %d GPUs for %d outputs: a shard needs an output",
                 gpus->count, ir->outputs);
        return NULL;
    }
    gpu_split *s = calloc(1, sizeof *s);
    float **taps = calloc((size_t)ir->inputs * ir->outputs, sizeof *taps);
    if (!s || !taps) {
        free(s);
        free(taps);
        snprintf(err, n, "%s: out of memory", k->name);
        return NULL;
    }
    s->inner = k;
    static const es_engine_class calls = {
        .process = split_process, .process_views = split_process_views,
        .latency = split_latency, .reset = split_reset, .destroy = split_destroy,
        .status = split_status, .freewheel = split_freewheel};
    s->klass = es_engine_class_over(k, &calls);
    s->klass.caps &= ~ES_CAP_SETS; /* its shards hold one filter matrix */
    s->base.klass = &s->klass;
    s->shards = gpus->count;
#ifdef ES_TESTING
    /* EARSHOT_GPU_FAIL_SHARD=K: only shard K (from 1) takes the simulated
     * fault of EARSHOT_GPU_FAIL_AFTER. */
    const char *only = getenv("EARSHOT_GPU_FAIL_SHARD");
#endif
    /* Outputs in order, the first shards one more when they do not divide. */
    const int each = ir->outputs / s->shards, extra = ir->outputs % s->shards;
    for (int c = 0, first = 0; c < s->shards; c++) {
        shard *h = &s->shard[c];
        h->device = gpus->device[c];
        h->first = first;
        h->outputs = each + (c < extra);
        first += h->outputs;
        es_ir sub = {ir->inputs, h->outputs, ir->length, ir->sample_rate, taps};
        for (int i = 0; i < ir->inputs; i++)
            for (int o = 0; o < h->outputs; o++)
                taps[i * h->outputs + o] = ir->taps[i * ir->outputs + h->first + o];
        if (es_ir_path_count(&sub) == 0)
            continue; /* nothing reaches these outputs */
        es_format f = *fmt;
        f.outputs = h->outputs;
        es_options o = *opt;
        o.gpu.device = h->device;
        o.gpu.list.count = 0;
        o.gpu.plan_outputs = ir->outputs;
        o.gpu.plan_paths = es_ir_path_count(ir);
        char why[512] = "";
        if (!k->probe(why, sizeof why) ||
            !(h->e = k->create(&f, &sub, &o, why, sizeof why))) {
            snprintf(err, n, "GPU %d (shard %d of %d): %s", h->device, c + 1, s->shards, why);
            goto fail;
        }
        h->pipe = es_gpu_engine_pipeline(h->e);
        make_standby(h, k, &f, &sub, opt);
#ifdef ES_TESTING
        if (only && atoi(only) != c + 1)
            es_gpu_engine_fault_off(h->e);
#endif
    }
    free(taps);
    return &s->base;
fail:
    free(taps);
    split_destroy(&s->base);
    return NULL;
}
