/* cpu-nonuniform: non-uniformly partitioned convolution, zero latency.
 *
 * The IR is cut into levels. The head, taps [0, S1), is a uniformly
 * partitioned engine with the host's block as its partition, run inside
 * process(): it gives the zero latency. Each tail level k covers taps
 * [S_k, S_k + n_k P_k) with partitions P_k that grow by 2 to 16, and is a
 * uniformly partitioned engine of its own, fed whole blocks of P_k frames.
 * Because S_k >= 2 P_k + max_block, a tail level's result for input block
 * j (frames [j P, (j+1) P)) is first needed P_k - max_block frames after
 * the block is complete: that is its deadline. A result not ready when its
 * first frame is due is a late result, counted (the processor counts it as
 * a miss) and left out; the level goes on in order, so the output is right
 * again once it has caught up.
 *
 * The plan (ratio, largest partition, partitions per level) is the one the
 * cost model in nonuniform_plan.c finds cheapest per sample. The tail
 * levels' jobs run on one scheduler (nonuniform_tails.c): workers started
 * in create(), at SCHED_FIFO just below the audio thread when the system
 * allows (status() says so), taking jobs earliest deadline first, in
 * slices. process() copies its input into the history, posts at most one
 * wakeup, runs the head and adds the finished tail results; it never waits
 * on anything, except offline, where it may run a tail job itself. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "nonuniform.h"
#include "nonuniform_tails.h"
#include "offline_plan.h"

/* The share of a block's budget the audio thread may spend running tail
 * jobs a held-up worker has not started. */
#define RESCUE_SHARE 0.25

typedef struct {
    es_engine base;
    es_format fmt;
    es_engine *head;
    es_tails tails;
    long long frames;        /* input frames so far (audio thread) */
    atomic_ullong late;
    char helpers[128];
    int helpers_realtime;
#ifdef ES_TESTING
    int no_rescue;           /* the audio thread never runs a tail job */
#endif
} nonuniform;

/* Adds level l's results for output frames [from, from + frames) into out.
 * Live, a job that is due and that no worker has started (a worker held up
 * by the machine) is run here when it should fit what is left of
 * `allowance_ns`, a share of the block's budget (es_tails_rescue). */
static ES_RT void add_level(nonuniform *u, es_tail_level *l, float *const *out, long long from,
                            int frames, long long *allowance_ns)
{
    const long long end = from + frames;
    long long t = from > l->offset ? from : l->offset;
    while (t < end) {
        const long long j = (t - l->offset) / l->part;
        const long long job_end = l->offset + (j + 1) * l->part;
        const int run = (int)((job_end < end ? job_end : end) - t);
        if (u->tails.offline || atomic_load_explicit(&u->tails.freewheel, memory_order_relaxed))
            es_tails_wait(&u->tails, l, j);
        else if (atomic_load_explicit(&l->done, memory_order_acquire) <= j)
            es_tails_rescue(&u->tails, l, j, allowance_ns);
        if (atomic_load_explicit(&l->done, memory_order_acquire) > j) {
            const size_t at = (size_t)(j % l->slots) * (size_t)l->part +
                              (size_t)(t - l->offset - j * l->part);
            for (int o = 0; o < u->fmt.outputs; o++) {
                const float *r = l->results[o] + at;
                float *y = out[o] + (t - from);
                for (int k = 0; k < run; k++)
                    y[k] += r[k];
            }
        } else if (l->late_job != j) {
            l->late_job = j; /* counted once; its part is left out */
            atomic_fetch_add_explicit(&u->late, 1, memory_order_relaxed);
        }
        t += run;
    }
}

static ES_RT void nu_process(es_engine *e, const float *const *in, float *const *out,
                             int frames)
{
    nonuniform *u = (nonuniform *)e;
    es_tails *t = &u->tails;
    const long long from = u->frames;
    if (t->levels > 0) {
        /* Into the ring in at most two runs. */
        const size_t at = (size_t)(from % t->hist);
        const size_t first = (size_t)t->hist - at < (size_t)frames ? (size_t)t->hist - at
                                                                   : (size_t)frames;
        for (int i = 0; i < u->fmt.inputs; i++) {
            memcpy(t->history[i] + at, in[i], first * sizeof(float));
            memcpy(t->history[i], in[i] + first, ((size_t)frames - first) * sizeof(float));
        }
    }
    u->frames += frames;
    es_tails_post(t, u->frames);
    es_engine_process(u->head, in, out, frames);
    long long allowance_ns = (long long)(RESCUE_SHARE * 1e9 * frames / u->fmt.sample_rate);
#ifdef ES_TESTING
    allowance_ns = u->no_rescue ? -1 : allowance_ns;
#endif
    for (int k = 0; k < t->levels; k++)
        add_level(u, &t->level[k], out, from, frames, &allowance_ns);
}

/* A matrix of the same paths as `ir`, taps [from, from + length). */
static es_ir *ir_segment(const es_ir *ir, int from, int length)
{
    es_ir *s = es_ir_create(ir->inputs, ir->outputs, length, ir->sample_rate);
    for (int r = 0; s && r < ir->inputs * ir->outputs; r++) {
        if (!ir->taps[r])
            continue;
        float *row = es_ir_path(s, r / ir->outputs, r % ir->outputs);
        if (!row) {
            es_ir_destroy(s);
            return NULL;
        }
        const int have = ir->length - from < length ? ir->length - from : length;
        if (have > 0)
            memcpy(row, ir->taps[r] + from, (size_t)have * sizeof(float));
    }
    return s;
}

static void nu_destroy(es_engine *e)
{
    nonuniform *u = (nonuniform *)e;
    if (!u)
        return;
    es_tails *t = &u->tails;
    es_tails_stop(t);
    for (int k = 0; k < t->levels; k++) {
        es_tail_level *l = &t->level[k];
        if (l->conv) /* built by the class, not es_engine_create: not counted */
            l->conv->klass->destroy(l->conv);
        es_free_channels(l->in, u->fmt.inputs);
        free(l->out);
        es_free_channels(l->results, u->fmt.outputs);
    }
    if (u->head)
        u->head->klass->destroy(u->head);
    es_free_channels(t->history, u->fmt.inputs);
    free(u);
}

/* Blocks one MAC pass sums (engine_partitioned.c), in every level. A tail
 * level's jobs have slack for a pass. The head's pass runs in the
 * callback, one block in four: its MACs take a few microseconds (the plan
 * keeps the head to a few dozen block-sized partitions), and four blocks a
 * pass saved 5-9 % of the engine's CPU time in build/earshot-zita-compare
 * against one, where the callback's share of a block grows by about as
 * many microseconds. */
#define NU_PASS_BLOCKS 4

/* Offline (a render) no callback waits on a pass, and four blocks a pass
 * measured no faster than two there while holding three sums ahead an
 * output (a stereo 2 s room: 0.4 MB): each level takes cpu-partitioned's
 * own choice, two blocks where its spectra outgrow the cache, else one. */
static int pass_blocks(const es_options *opt)
{
    return opt->offline ? 0 : NU_PASS_BLOCKS;
}

static es_engine *make_part(const es_ir *ir, const es_format *fmt, int from, int length,
                            int part, int pass_blocks, int fft_measure, char *err, size_t n)
{
    /* A segment is a view of the filters' rows (the engine transforms them
     * and keeps nothing of them): a copy of a 64 x 64 room's last level
     * would be as large as the room. A level that runs past the filters'
     * end sees only what is there: its partitions past the end would be
     * zeros, which add nothing to the sum and would only take memory
     * (stress3's last level: 50 MB of them). Only a level wholly past the
     * end (none is planned so) is a copy, of zeros. */
    const int paths = ir->inputs * ir->outputs, have = ir->length - from;
    es_ir view = *ir;
    view.length = have < length ? have : length;
    view.taps = have > 0 ? malloc((size_t)paths * sizeof *view.taps) : NULL;
    for (int r = 0; view.taps && r < paths; r++)
        view.taps[r] = ir->taps[r] ? ir->taps[r] + from : NULL;
    es_ir *seg = have > 0 ? (view.taps ? &view : NULL) : ir_segment(ir, from, part);
    if (!seg) {
        snprintf(err, n, "cpu-nonuniform: out of memory");
        return NULL;
    }
    es_format f = *fmt;
    f.max_block = part;
    es_options opt = {.partition = part, .fft_measure = fft_measure};
    es_engine *e = es_partitioned_create(&f, seg, &opt, pass_blocks, err, n);
    if (have > 0)
        free(view.taps);
    else
        es_ir_destroy(seg);
    return e;
}

static es_engine *nu_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                            char *err, size_t n)
{
    es_nu_plan plan;
    es_nu_plan_choose(fmt, ir, opt->partition, &plan);
    nonuniform *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, n, "cpu-nonuniform: out of memory");
        return NULL;
    }
    u->base.klass = &es_engine_cpu_nonuniform;
    u->fmt = *fmt;
    const int head_len = plan.levels > 1 ? plan.level[1].offset : ir->length;
    if (!(u->head = make_part(ir, fmt, 0, head_len, plan.level[0].part, pass_blocks(opt),
                              opt->fft_measure, err, n)))
        goto fail;
    es_tails *t = &u->tails;
    t->inputs = fmt->inputs;
    t->outputs = fmt->outputs;
    t->max_block = fmt->max_block;
    t->offline = opt->offline;
    int largest = plan.level[0].part;
    for (int k = 1; k < plan.levels; k++)
        largest = plan.level[k].part > largest ? plan.level[k].part : largest;
    /* Room for a level's jobs to fall seven behind and still take their
     * input, exactly (a power of two would double it: 17 MB for 64 inputs
     * of a 4.3 s room). */
    t->hist = 8LL * largest + 2LL * fmt->max_block;
    if (plan.levels > 1 && !(t->history = es_alloc_channels(fmt->inputs, (size_t)t->hist)))
        goto nomem;
    for (int k = 1; k < plan.levels; k++) {
        es_tail_level *l = &t->level[t->levels];
        l->index = k;
        l->part = plan.level[k].part;
        l->offset = plan.level[k].offset;
        l->count = plan.level[k].count;
        l->slots = l->offset / l->part + 3;
        l->late_job = -1;
        atomic_store(&l->last_job_ns, LLONG_MAX);
        l->prev_job_ns = LLONG_MAX;
        /* The rescue's floor: a job the size of a time-blocked pass, which
         * one job in NU_PASS_BLOCKS is (about that many blocks' MACs). */
        l->model_job_ns = (long long)(NU_PASS_BLOCKS * l->part *
                                      es_nu_level_cost(ir->inputs + ir->outputs,
                                                       es_ir_path_count(ir), &plan.level[k], 1));
        if (!(l->conv = make_part(ir, fmt, l->offset, l->count * l->part, l->part,
                                  pass_blocks(opt), opt->fft_measure, err, n)))
            goto fail;
        l->in = es_alloc_channels(fmt->inputs, (size_t)l->part);
        l->out = calloc((size_t)fmt->outputs, sizeof *l->out);
        l->results = es_alloc_channels(fmt->outputs, (size_t)l->slots * l->part);
        if (!l->in || !l->out || !l->results)
            goto nomem;
        t->levels++;
    }
    if (es_tails_start(t, opt->workers, err, n) != 0)
        goto fail;
    int workers = 0, realtime = 0;
    es_tails_priority(t, &workers, &realtime);
    u->helpers_realtime = t->levels == 0 ? -1 : realtime == workers;
    if (t->levels == 0)
        snprintf(u->helpers, sizeof u->helpers, "no tail levels");
    else
        snprintf(u->helpers, sizeof u->helpers, "%d tail level%s on %d worker%s, %s", t->levels,
                 t->levels == 1 ? "" : "s", workers, workers == 1 ? "" : "s",
                 u->helpers_realtime ? "SCHED_FIFO" : "normal priority (real-time refused)");
    return &u->base;
nomem:
    snprintf(err, n, "cpu-nonuniform: out of memory for %d taps x %d paths", ir->length,
             es_ir_path_count(ir));
fail:
    nu_destroy(&u->base);
    return NULL;
}

static int nu_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

static void nu_reset(es_engine *e)
{
    nonuniform *u = (nonuniform *)e;
    es_tails *t = &u->tails;
    /* Let the workers finish what is posted, then start from silence. */
    es_tails_quiesce(t);
    es_engine_reset(u->head);
    for (int i = 0; t->history && i < u->fmt.inputs; i++)
        memset(t->history[i], 0, (size_t)t->hist * sizeof(float));
    for (int k = 0; k < t->levels; k++) {
        es_tail_level *l = &t->level[k];
        es_engine_reset(l->conv);
        for (int o = 0; o < u->fmt.outputs; o++)
            memset(l->results[o], 0, (size_t)l->slots * l->part * sizeof(float));
        /* The clock continues: jobs before now are done, with silence. */
        atomic_store(&l->posted, u->frames / l->part);
        atomic_store(&l->done, u->frames / l->part);
        l->late_job = -1;
    }
}

static ES_RT void nu_status(const es_engine *e, es_engine_status *st)
{
    const nonuniform *u = (const nonuniform *)e;
    st->late_results = atomic_load_explicit(&((nonuniform *)u)->late, memory_order_relaxed);
    st->late_levels = st->late_results; /* every late result here is a tail's */
    st->helpers_realtime = u->helpers_realtime;
    memcpy(st->helpers, u->helpers, sizeof st->helpers);
    st->helpers_cpu_ns =
        atomic_load_explicit(&((nonuniform *)u)->tails.cpu_ns, memory_order_relaxed);
}

static int nu_probe(char *why, size_t n)
{
    snprintf(why, n, "head in the callback, growing tail partitions on worker threads");
    return 1;
}

#ifdef ES_TESTING
void es_nonuniform_no_rescue(es_engine *e)
{
    ((nonuniform *)e)->no_rescue = 1;
}

void es_nonuniform_slow_tail(es_engine *e, int level_index, int jobs, double us, int per_slice)
{
    nonuniform *u = (nonuniform *)e;
    for (int k = 0; k < u->tails.levels; k++) {
        es_tail_level *l = &u->tails.level[k];
        if (l->index == level_index) {
            l->slow_us = us;
            l->slow_per_slice = per_slice;
            atomic_store(&l->slow_jobs, jobs);
        }
    }
}
#endif

int es_nonuniform_describe(const es_engine *e, char *out, size_t n)
{
    const nonuniform *u = (const nonuniform *)e;
    const es_tails *t = &u->tails;
    int used = 0;
    out[0] = 0;
    for (int k = 0; k < t->levels && (size_t)used < n; k++)
        used += snprintf(out + used, n - (size_t)used, "%s%dx%d@%d", k ? " " : "",
                         t->level[k].count, t->level[k].part, t->level[k].offset);
    return t->levels;
}

/* A freewheeling host: the tail levels are waited for, as offline. */
static ES_RT void nu_freewheel(es_engine *e, int on)
{
    atomic_store(&((nonuniform *)e)->tails.freewheel, on);
}

const es_engine_class es_engine_cpu_nonuniform = {
    .name = "cpu-nonuniform",
    .summary = "non-uniformly partitioned, zero latency, tail levels on worker threads",
    .caps = ES_CAP_PARTITION | ES_CAP_HELPERS,
    .probe = nu_probe,
    .create = nu_create,
    .process = nu_process,
    .latency = nu_latency,
    .reset = nu_reset,
    .destroy = nu_destroy,
    .offline_block = es_nonuniform_offline_block,
    .status = nu_status,
    .freewheel = nu_freewheel,
};
