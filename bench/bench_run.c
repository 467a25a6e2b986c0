#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include "ambisonic.h"
#include "bench_run.h"
#include "bench_judge.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The live path flushes denormals at the top of every callback; measure
 * under the same conditions. */
static void denormals_off(void)
{
#if defined(__x86_64__) || defined(__i386__)
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s;
}

static float noise(uint32_t *s)
{
    return (float)((double)lcg(s) / 4294967296.0 * 2.0 - 1.0);
}

static int bench_inputs(const es_bench_config *cfg)
{
    if (cfg->ambisonic > 0)
        return 1;
    return cfg->matrix > 0 ? cfg->matrix : cfg->fan_out > 0 ? 1 : cfg->true_stereo ? 2 : cfg->channels;
}

static int bench_outputs(const es_bench_config *cfg)
{
    if (cfg->ambisonic > 0) /* the room's SH channels; the stream has two */
        return ES_AMBI_CHANNELS(cfg->ambisonic);
    return cfg->matrix > 0    ? (cfg->matrix_outputs > 0 ? cfg->matrix_outputs : cfg->matrix)
           : cfg->fan_out > 0 ? cfg->fan_out
           : cfg->true_stereo ? 2
                              : cfg->channels;
}

int es_bench_paths(const es_bench_config *cfg)
{
    const int ins = bench_inputs(cfg), outs = bench_outputs(cfg);
    return cfg->matrix > 0 || cfg->true_stereo ? ins * outs : outs;
}

/* --ambisonic: a decoder of the length a binaural one has, from each SH
 * channel to two ears, decaying noise. */
static es_ir *synthetic_decoder(const es_bench_config *cfg)
{
    const int k = ES_AMBI_CHANNELS(cfg->ambisonic), taps = 1024;
    es_ir *ir = es_ir_create(k, 2, taps, cfg->rate);
    uint32_t seed = 99;
    for (int p = 0; ir && p < 2 * k; p++) {
        float *h = es_ir_path(ir, p / 2, p % 2);
        if (!h) {
            es_ir_destroy(ir);
            return NULL;
        }
        for (int t = 0; t < taps; t++)
            h[t] = 0.05f * noise(&seed) * (float)exp(-8.0 * t / taps);
    }
    return ir;
}

/* Noise under an exponential decay that falls 60 dB over the IR: a room
 * whose reverberation time equals the IR length. Layouts: C x C diagonal,
 * true stereo (2 x 2 full), a full N x N matrix, or fan-out (1 x N). */
es_ir *es_bench_synthetic_room(const es_bench_config *cfg, int taps, uint32_t seed)
{
    const int ins = bench_inputs(cfg), outs = bench_outputs(cfg);
    es_ir *ir = es_ir_create(ins, outs, taps, cfg->rate);
    if (!ir)
        return NULL;
    /* exp(-decay * t) by repeated multiplication, renewed every 4096 taps
     * so rounding does not drift: a 1024-path room has 500 M taps. */
    const double decay = log(1000.0) / (double)taps;
    const float step = (float)exp(-decay);
    for (int i = 0; i < ins; i++)
        for (int o = 0; o < outs; o++) {
            if (ins == outs && !cfg->true_stereo && !cfg->matrix && i != o)
                continue;
            float *h = es_ir_path(ir, i, o);
            if (!h) {
                es_ir_destroy(ir);
                return NULL;
            }
            float env = 0.5f;
            for (int t = 0; t < taps; t++) {
                if (t % 4096 == 0)
                    env = 0.5f * (float)exp(-decay * t);
                h[t] = noise(&seed) * env;
                env *= step;
            }
        }
    return ir;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarise(double *us, long count, es_bench_result *r)
{
    double sum = 0;
    for (long b = 0; b < count; b++)
        sum += us[b];
    qsort(us, (size_t)count, sizeof *us, compare_double);
    r->blocks = count;
    r->mean_us = sum / (double)count;
    r->p50_us = us[count / 2];
    r->p99_us = us[(long)((double)(count - 1) * 0.99)];
    r->p999_us = us[(long)((double)(count - 1) * 0.999)];
    r->max_us = us[count - 1];
    r->realtime_factor = (double)count * r->budget_us / sum;
}

/* The device's own time per job over the measured jobs: with the wall
 * time per block beside it, what the host adds (launch, wake, copies) is
 * the difference. Sorts the known values to the front of `by_job`. */
static void device_percentiles(double *by_job, long jobs, es_bench_result *r)
{
    long n = 0;
    for (long k = 0; k < jobs; k++)
        if (by_job[k] >= 0)
            by_job[n++] = by_job[k];
    r->device_p50_us = r->device_p99_us = -1;
    if (n == 0)
        return;
    qsort(by_job, (size_t)n, sizeof *by_job, compare_double);
    r->device_p50_us = by_job[n / 2];
    r->device_p99_us = by_job[(long)((double)(n - 1) * 0.99)];
}

/* Blocks run unmeasured before the measured ones. */
#define WARMUP_BLOCKS 16

/* One measurement: the room's sets, the block buffers, the engine, and
 * the measuring loop's state from block to block. */
typedef struct {
    const es_bench_config *cfg;
    int ins, outs, sets;
    long blocks;                /* to measure, after the warm-up */
    es_ir **set;                /* [sets]: the room, a filter set each (split: its heads) */
    es_ir *tail;                /* split: the tail of every set */
    int tail_at;
    float **in, **out;          /* [ins], [outs]: the block buffers */
    float **views;              /* [outs]: where the engine left each output */
    double *us, *switch_us;     /* [blocks]: each measured block's time, and
                                 * those of the blocks a switch began in */
    double *field_us;           /* [blocks]: --ambisonic: rotation and decoding */
    es_ir *decoder;             /* --ambisonic: SH channels to two ears */
    long measured, switched;    /* how many of each */
    es_engine *e;
    block_record *rec;          /* [blocks]: what judges each measured block */
    double *device_by_job;      /* [jobs + 1]: the device's time per job */
    judge j;
    uint32_t seed;              /* the input noise */
    struct timespec next;       /* paced: when the next block is due */
    uint64_t late;              /* the engine's late results so far */
    double field_last_us;       /* the last block's rotation and decoding (-1: none) */
    long fields;                /* measured blocks with one */
} measurement;

/* The room in its sets (each the same shape, other noise), the block
 * buffers and the timings' arrays. */
static int allocate(measurement *m, es_bench_result *r)
{
    const int taps = r->taps;
    m->tail_at = m->sets > 1 && m->cfg->split_ms > 0
                     ? (int)llround(m->cfg->split_ms / 1000 * m->cfg->rate) : 0;
    if (m->tail_at >= taps)
        m->tail_at = 0; /* a room that ends before the split plays whole */
    const int head_taps = m->tail_at ? m->tail_at : taps;
    m->set = calloc((size_t)m->sets, sizeof *m->set);
    if (m->set && m->cfg->room) /* the caller's, one set, not ours to free */
        m->set[0] = (es_ir *)m->cfg->room;
    for (int k = 0; m->set && k < m->sets && taps >= 1 && !m->cfg->room; k++)
        m->set[k] = es_bench_synthetic_room(m->cfg, head_taps, 12345u + 7919u * (uint32_t)k);
    int rooms = m->set != NULL;
    if (m->tail_at)
        rooms &= (m->tail = es_bench_synthetic_room(m->cfg, taps - m->tail_at, 4242u)) != NULL;
    for (int k = 0; m->set && k < m->sets; k++)
        rooms &= m->set[k] != NULL;
    m->in = calloc((size_t)m->ins, sizeof *m->in);
    m->out = calloc((size_t)m->outs, sizeof *m->out);
    m->views = calloc((size_t)m->outs, sizeof *m->views);
    m->us = malloc((size_t)m->blocks * sizeof *m->us);
    m->switch_us = malloc((size_t)m->blocks * sizeof *m->switch_us);
    m->field_us = malloc((size_t)m->blocks * sizeof *m->field_us);
    if (m->cfg->ambisonic > 0)
        rooms &= (m->decoder = synthetic_decoder(m->cfg)) != NULL;
    if (!rooms || !m->in || !m->out || !m->views || !m->us || !m->switch_us || !m->field_us) {
        snprintf(r->error, sizeof r->error, "out of memory for a %d-tap room", taps);
        return -1;
    }
    const size_t bytes = (size_t)m->cfg->block * sizeof(float);
    for (int c = 0; c < m->ins || c < m->outs; c++) {
        if ((c < m->ins && !(m->in[c] = es_alloc(bytes))) ||
            (c < m->outs && !(m->out[c] = es_alloc(bytes)))) {
            snprintf(r->error, sizeof r->error, "out of memory for block buffers");
            return -1;
        }
    }
    r->paths = es_ir_path_count(m->set[m->sets - 1]);
    return 0;
}

/* The engine over the room, over its sets, or over their heads and one
 * tail (as play builds a SOFA room: the heads' engine of another class at
 * its own partition), or a field room with its decoder. Whole sets only
 * on an engine that holds them: the bench times the engine it names. */
static es_engine *make_engine(const es_bench_config *cfg, const es_format *fmt, es_ir **set,
                              int sets, const es_ir *tail, int tail_at, const es_ir *decoder,
                              es_bench_result *r)
{
    if (decoder)
        return es_engine_create_field(cfg->engine, fmt, set[0], &cfg->options, decoder,
                                      cfg->ambisonic, r->error, sizeof r->error);
    const es_engine_class *heads_k = es_engine_heads_class(cfg->engine);
    if (sets > 1 && tail) {
        es_options heads_opt = cfg->options;
        if (heads_k != cfg->engine)
            heads_opt.partition = 0;
        return es_engine_create_split(heads_k, cfg->engine, fmt, (const es_ir *const *)set, sets,
                                      &heads_opt, tail, tail_at, &cfg->options, r->error,
                                      sizeof r->error);
    }
    if (sets > 1)
        return es_engine_create_sets(cfg->engine, fmt, (const es_ir *const *)set, sets,
                                     &cfg->options, r->error, sizeof r->error);
    return es_engine_create(cfg->engine, fmt, set[0], &cfg->options, r->error, sizeof r->error);
}

/* The engine built twice, each timed: the first build pays for what
 * happens once per process, the second is what a room swap costs (a
 * search's trials build once: create_ms < 0). */
static int build_engine(measurement *m, es_bench_result *r)
{
    const es_format fmt = {.sample_rate = m->cfg->rate, .max_block = m->cfg->block,
                           .inputs = m->ins, .outputs = m->outs};
    r->create_ms = -1;
    for (int build = 0; build < (m->cfg->build_once ? 1 : 2); build++) {
        es_engine_destroy(m->e);
        const double t0 = now_s();
        m->e = make_engine(m->cfg, &fmt, m->set, m->sets, m->tail, m->tail_at, m->decoder, r);
        *(build ? &r->create_ms : &r->create_first_ms) = 1e3 * (now_s() - t0);
        if (!m->e)
            return -1;
    }
    r->latency = es_engine_latency(m->e);
    return 0;
}

/* The judge over a record per measured block and the device's time per
 * job, none known yet. */
static int start_judging(measurement *m, es_bench_result *r)
{
    const long jobs = WARMUP_BLOCKS + m->blocks + 2;
    m->rec = calloc((size_t)m->blocks, sizeof *m->rec);
    m->device_by_job = malloc((size_t)(jobs + 1) * sizeof *m->device_by_job);
    if (!m->rec || !m->device_by_job) {
        snprintf(r->error, sizeof r->error, "out of memory for %ld blocks", m->blocks);
        return -1;
    }
    for (long k = 0; k <= jobs; k++)
        m->device_by_job[k] = -1;
    m->j = (judge){.blocks = m->rec, .device_by_job = m->device_by_job, .jobs = jobs,
                   .budget_us = r->budget_us, .gpu = (m->cfg->engine->caps & ES_CAP_GPU) != 0,
                   .last_class = 1};
    return 0;
}

/* Sleeps until the next period begins on an absolute clock, as an audio
 * callback is woken; 1 when it woke over a quarter of the budget late. */
static int wait_for_period(struct timespec *next, long period_ns, double budget_us)
{
    next->tv_nsec += period_ns;
    while (next->tv_nsec >= 1000000000L) {
        next->tv_nsec -= 1000000000L;
        next->tv_sec++;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
        ;
    const double due = (double)next->tv_sec + 1e-9 * (double)next->tv_nsec;
    return now_s() - due > 0.25e-6 * budget_us;
}

/* The set block b switches to, or -1: with sets, every switch_every-th
 * block (0: every block). */
static int set_due(const measurement *m, long b)
{
    const int every = m->cfg->switch_every > 0 ? m->cfg->switch_every : 1;
    return m->sets > 1 && b % every == 0 ? (int)(b / every) % m->sets : -1;
}

/* The device's times of the jobs the engine's status lists, noted the
 * first time each is seen. */
static void note_device_times(measurement *m, const es_engine_status *st)
{
    for (int q = 0; q < ES_DEVICE_RECENT; q++)
        if (st->gpu.recent_seq[q] > 0 && (long)st->gpu.recent_seq[q] <= m->j.jobs &&
            m->device_by_job[st->gpu.recent_seq[q]] < 0) {
            m->device_by_job[st->gpu.recent_seq[q]] = st->gpu.recent_us[q];
            m->j.known++;
        }
}

/* One block through the engine: fresh input, the switch to `set` asked
 * first (-1: none), a field room turned on (block b), the call timed;
 * what judges the block. */
static block_record process_block(measurement *m, int set, long b, double budget_us)
{
    const es_bench_config *cfg = m->cfg;
    if (cfg->ambisonic > 0)
        es_engine_orient(m->e, (float)(fmod(360.0 * (double)b * cfg->block / cfg->rate, 360.0) -
                                       180.0),
                         0, 0);
    for (int c = 0; c < m->ins; c++)
        for (int t = 0; t < cfg->block; t++)
            m->in[c][t] = 0.1f * noise(&m->seed);
    /* The switch is asked between two calls, as the audio thread
     * hands a tracker's request over; its block is timed. */
    if (set >= 0)
        es_engine_select_set(m->e, set);
    const double cpu0 = thread_cpu_s(), a = now_s();
    if (cfg->copy_out)
        es_engine_process(m->e, (const float *const *)m->in, m->out, cfg->block);
    else
        es_engine_process_views(m->e, (const float *const *)m->in, m->out, m->views, m->outs,
                                cfg->block);
    const double took = 1e6 * (now_s() - a), cpu = 1e6 * (thread_cpu_s() - cpu0);
    /* A GPU engine gives up waiting before the budget runs out and plays
     * silence: that block is late even though it returned in time. */
    es_engine_status st;
    es_engine_get_status(m->e, &st);
    const int was_late = st.late_results != m->late;
    m->late = st.late_results;
    note_device_times(m, &st);
    m->field_last_us = st.field_order > 0 ? st.field_us : -1;
    return (block_record){.took_us = took, .cpu_us = cpu, .job = st.gpu.result_seq,
                          .late = took > budget_us || was_late,
                          .helper_late = was_late && !m->j.gpu};
}

/* The warm-up, then the measured blocks, each kept and judged as it
 * comes. Paced: block b starts at start + b * period on an absolute
 * clock, as an audio callback would; a pipelined GPU engine then has the
 * period to finish, which back-to-back calls never give it. */
static int measure(measurement *m, es_bench_result *r)
{
    const es_bench_config *cfg = m->cfg;
    const double start = now_s();
    if (start_judging(m, r) != 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &m->next);
    const long period_ns = (long)(1e9 * cfg->block / cfg->rate);
    for (long b = 0; b < WARMUP_BLOCKS + m->blocks; b++) {
        const int woke_late = cfg->paced && wait_for_period(&m->next, period_ns, r->budget_us);
        const int set = set_due(m, b);
        const block_record k = process_block(m, set, b, r->budget_us);
        if (b < WARMUP_BLOCKS)
            continue;
        r->late_wakes += woke_late;
        m->rec[m->measured] = k;
        m->us[m->measured++] = k.took_us;
        if (set >= 0)
            m->switch_us[m->switched++] = k.took_us;
        if (m->field_last_us >= 0)
            m->field_us[m->fields++] = m->field_last_us;
        judge_until(&m->j, m->measured, 0);
        if (cfg->stop_on_miss && m->j.misses > 0) {
            r->cut_short = 1;
            break;
        }
        if (cfg->max_wall > 0 && now_s() - start > cfg->max_wall) {
            r->cut_short = m->measured < m->blocks;
            break;
        }
    }
    return 0;
}

/* The blocks a switch began in (-1: none): what a switch adds to the
 * callback. */
static void switch_percentiles(double *switch_us, long switched, es_bench_result *r)
{
    r->switch_p50_us = r->switch_p99_us = -1;
    if (switched == 0)
        return;
    qsort(switch_us, (size_t)switched, sizeof *switch_us, compare_double);
    r->switch_p50_us = switch_us[switched / 2];
    r->switch_p99_us = switch_us[(long)((double)(switched - 1) * 0.99)];
}

/* What the measured blocks say: the judge's last word, the device's time
 * and the blocks' own, the switches', the work done per second. */
static void conclude(measurement *m, es_bench_result *r)
{
    judge_until(&m->j, m->measured, 1);
    device_percentiles(m->device_by_job + WARMUP_BLOCKS + 1, m->j.jobs - WARMUP_BLOCKS, r);
    r->misses = m->j.misses;
    r->stalls = m->j.stalls;
    snprintf(r->first_miss, sizeof r->first_miss, "%s", m->j.first_miss);
    summarise(m->us, m->measured, r);
    switch_percentiles(m->switch_us, m->switched, r);
    r->field_p50_us = r->field_p99_us = -1;
    if (m->fields > 0) {
        qsort(m->field_us, (size_t)m->fields, sizeof *m->field_us, compare_double);
        r->field_p50_us = m->field_us[m->fields / 2];
        r->field_p99_us = m->field_us[(long)((double)(m->fields - 1) * 0.99)];
    }
    /* Multiply-adds a direct convolution would need per block, per second. */
    r->gmacs = (double)r->paths * r->taps * m->cfg->block / (r->mean_us * 1e3);
}

/* What the engine says of itself at the end; 0 unless it failed. */
static int engine_report(es_engine *e, es_bench_result *r)
{
    es_engine_status st;
    es_engine_get_status(e, &st);
    r->late_results = st.late_results;
    r->late_levels = st.late_levels;
    r->device_bytes = st.gpu.bytes;
    r->device_max_us = st.gpu.max_us;
    r->shards = st.gpu.shards;
    memcpy(r->shard, st.gpu.shard, sizeof(es_shard_status) * (size_t)st.gpu.shards);
    r->helpers_realtime = st.helpers_realtime;
    snprintf(r->helpers, sizeof r->helpers, "%s", st.helpers);
    if (!st.failed)
        return 0;
    snprintf(r->error, sizeof r->error, "%s", st.message);
    return -1;
}

/* Everything the measurement holds, however far it got; an engine of sets
 * says first how many switches it made. */
static void release(measurement *m, es_bench_result *r)
{
    if (m->e && m->sets > 1) {
        es_engine_status st;
        es_engine_get_status(m->e, &st);
        r->set_switches = st.set_switches;
    }
    es_engine_destroy(m->e);
    for (int k = 0; m->set && k < m->sets && !m->cfg->room; k++)
        es_ir_destroy(m->set[k]);
    es_ir_destroy(m->tail);
    es_ir_destroy(m->decoder);
    free(m->field_us);
    free(m->set);
    for (int c = 0; m->in && c < m->ins; c++)
        es_free(m->in[c]);
    for (int c = 0; m->out && c < m->outs; c++)
        es_free(m->out[c]);
    free(m->in);
    free(m->out);
    free(m->views);
    free(m->us);
    free(m->switch_us);
    free(m->rec);
    free(m->device_by_job);
}

int es_bench_run(const es_bench_config *cfg, es_bench_result *r)
{
    memset(r, 0, sizeof *r);
    const long blocks = (long)ceil(cfg->seconds * cfg->rate / cfg->block);
    measurement m = {.cfg = cfg, .ins = bench_inputs(cfg),
                     .outs = cfg->ambisonic > 0 ? 2 : bench_outputs(cfg),
                     .sets = cfg->sets > 1 ? cfg->sets : 1, .blocks = blocks > 1 ? blocks : 1,
                     .seed = 777};
    r->taps = cfg->ir_taps > 0 ? cfg->ir_taps : (int)llround(cfg->ir_seconds * cfg->rate);
    r->budget_us = 1e6 * cfg->block / cfg->rate;
    denormals_off();
    int rc = -1;
    if (allocate(&m, r) == 0 && build_engine(&m, r) == 0 && measure(&m, r) == 0) {
        conclude(&m, r);
        rc = engine_report(m.e, r);
    }
    release(&m, r);
    return rc;
}
