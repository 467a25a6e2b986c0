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
    return cfg->matrix > 0 ? cfg->matrix : cfg->fan_out > 0 ? 1 : cfg->true_stereo ? 2 : cfg->channels;
}

static int bench_outputs(const es_bench_config *cfg)
{
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

/* Noise under an exponential decay that falls 60 dB over the IR: a room
 * whose reverberation time equals the IR length. Layouts: C x C diagonal,
 * true stereo (2 x 2 full), a full N x N matrix, or fan-out (1 x N). */
static es_ir *synthetic_room(const es_bench_config *cfg, int taps, uint32_t seed)
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

/* The engine over the room, or over its sets. */
static es_engine *make_engine(const es_bench_config *cfg, const es_format *fmt, es_ir **set,
                              int sets, es_bench_result *r)
{
    if (sets > 1)
        return es_engine_create_sets(cfg->engine, fmt, (const es_ir *const *)set, sets,
                                     &cfg->options, r->error, sizeof r->error);
    return es_engine_create(cfg->engine, fmt, set[0], &cfg->options, r->error, sizeof r->error);
}

int es_bench_run(const es_bench_config *cfg, es_bench_result *r)
{
    memset(r, 0, sizeof *r);
    const int ins = bench_inputs(cfg), outs = bench_outputs(cfg);
    const int taps = cfg->ir_taps > 0 ? cfg->ir_taps : (int)llround(cfg->ir_seconds * cfg->rate);
    const long warmup = 16;
    long blocks = (long)ceil(cfg->seconds * cfg->rate / cfg->block);
    if (blocks < 1)
        blocks = 1;
    r->taps = taps;
    r->budget_us = 1e6 * cfg->block / cfg->rate;

    denormals_off();
    const int sets = cfg->sets > 1 ? cfg->sets : 1;
    es_ir **set = calloc((size_t)sets, sizeof *set);
    for (int k = 0; set && k < sets && taps >= 1; k++)
        set[k] = synthetic_room(cfg, taps, 12345u + 7919u * (uint32_t)k);
    es_ir *ir = set ? set[sets - 1] : NULL;
    float **in = calloc((size_t)ins, sizeof *in), **out = calloc((size_t)outs, sizeof *out);
    float **views = calloc((size_t)outs, sizeof *views);
    double *us = malloc((size_t)blocks * sizeof *us);
    double *switch_us = malloc((size_t)blocks * sizeof *switch_us);
    long switched = 0;
    es_engine *e = NULL;
    int rc = -1;
    for (int k = 0; set && k < sets; k++)
        ir = set[k] ? ir : NULL;
    if (!ir || !in || !out || !views || !us || !switch_us) {
        snprintf(r->error, sizeof r->error, "out of memory for a %d-tap room", taps);
        goto done;
    }
    for (int c = 0; c < ins || c < outs; c++) {
        if ((c < ins && !(in[c] = es_alloc((size_t)cfg->block * sizeof(float)))) ||
            (c < outs && !(out[c] = es_alloc((size_t)cfg->block * sizeof(float))))) {
            snprintf(r->error, sizeof r->error, "out of memory for block buffers");
            goto done;
        }
    }
    r->paths = es_ir_path_count(ir);
    es_format fmt = {.sample_rate = cfg->rate, .max_block = cfg->block,
                     .inputs = ins, .outputs = outs};
    double t0 = now_s();
    e = make_engine(cfg, &fmt, set, sets, r);
    r->create_first_ms = 1e3 * (now_s() - t0);
    if (!e)
        goto done;
    es_engine_destroy(e);
    t0 = now_s();
    e = make_engine(cfg, &fmt, set, sets, r);
    r->create_ms = 1e3 * (now_s() - t0);
    if (!e)
        goto done;
    r->latency = es_engine_latency(e);

    uint32_t seed = 777;
    const double start = now_s();
    long measured = 0;
    es_engine_status st;
    uint64_t late = 0;
    const long jobs = warmup + blocks + 2;
    block_record *rec = calloc((size_t)blocks, sizeof *rec);
    double *device_by_job = malloc((size_t)(jobs + 1) * sizeof *device_by_job);
    if (!rec || !device_by_job) {
        free(rec);
        free(device_by_job);
        snprintf(r->error, sizeof r->error, "out of memory for %ld blocks", blocks);
        goto done;
    }
    for (long k = 0; k <= jobs; k++)
        device_by_job[k] = -1;
    judge j = {.blocks = rec, .device_by_job = device_by_job, .jobs = jobs,
               .budget_us = r->budget_us, .gpu = (cfg->engine->caps & ES_CAP_GPU) != 0,
               .last_class = 1};
    /* Paced: block b starts at start + b * period on an absolute clock, as an
     * audio callback would; a pipelined GPU engine then has the period to
     * finish, which back-to-back calls never give it. */
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    const long period_ns = (long)(1e9 * cfg->block / cfg->rate);
    for (long b = 0; b < warmup + blocks; b++) {
        int woke_late = 0;
        if (cfg->paced) {
            next.tv_nsec += period_ns;
            while (next.tv_nsec >= 1000000000L) {
                next.tv_nsec -= 1000000000L;
                next.tv_sec++;
            }
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                ;
            const double due = (double)next.tv_sec + 1e-9 * (double)next.tv_nsec;
            woke_late = now_s() - due > 0.25e-6 * r->budget_us;
        }
        for (int c = 0; c < ins; c++)
            for (int t = 0; t < cfg->block; t++)
                in[c][t] = 0.1f * noise(&seed);
        /* The switch is asked between two calls, as the audio thread
         * hands a tracker's request over; its block is timed. */
        const int every = cfg->switch_every > 0 ? cfg->switch_every : 1;
        const int switching = sets > 1 && b % every == 0;
        if (switching)
            es_engine_select_set(e, (int)(b / every) % sets);
        const double cpu0 = thread_cpu_s(), a = now_s();
        if (cfg->copy_out)
            es_engine_process(e, (const float *const *)in, out, cfg->block);
        else
            es_engine_process_views(e, (const float *const *)in, out, views, outs, cfg->block);
        const double took = 1e6 * (now_s() - a), cpu = 1e6 * (thread_cpu_s() - cpu0);
        /* A GPU engine gives up waiting before the budget runs out and plays
         * silence: that block is late even though it returned in time. */
        es_engine_get_status(e, &st);
        const int was_late = st.late_results != late;
        late = st.late_results;
        for (int q = 0; q < ES_DEVICE_RECENT; q++)
            if (st.gpu.recent_seq[q] > 0 && (long)st.gpu.recent_seq[q] <= jobs &&
                device_by_job[st.gpu.recent_seq[q]] < 0) {
                device_by_job[st.gpu.recent_seq[q]] = st.gpu.recent_us[q];
                j.known++;
            }
        if (b < warmup)
            continue;
        r->late_wakes += woke_late;
        block_record *k = &rec[measured];
        *k = (block_record){.took_us = took, .cpu_us = cpu, .job = st.gpu.result_seq,
                            .late = took > r->budget_us || was_late,
                            .helper_late = was_late && !j.gpu};
        us[measured++] = took;
        if (switching)
            switch_us[switched++] = took;
        judge_until(&j, measured, 0);
        if (cfg->stop_on_miss && j.misses > 0) {
            r->cut_short = 1;
            break;
        }
        if (cfg->max_wall > 0 && now_s() - start > cfg->max_wall) {
            r->cut_short = measured < blocks;
            break;
        }
    }
    judge_until(&j, measured, 1);
    device_percentiles(device_by_job + warmup + 1, jobs - warmup, r);
    r->misses = j.misses;
    r->stalls = j.stalls;
    snprintf(r->first_miss, sizeof r->first_miss, "%s", j.first_miss);
    free(rec);
    free(device_by_job);
    summarise(us, measured, r);
    r->switch_p50_us = r->switch_p99_us = -1;
    if (switched > 0) {
        qsort(switch_us, (size_t)switched, sizeof *switch_us, compare_double);
        r->switch_p50_us = switch_us[switched / 2];
        r->switch_p99_us = switch_us[(long)((double)(switched - 1) * 0.99)];
    }
    /* Multiply-adds a direct convolution would need per block, per second. */
    r->gmacs = (double)r->paths * taps * cfg->block / (r->mean_us * 1e3);
    es_engine_get_status(e, &st);
    r->late_results = st.late_results;
    r->late_levels = st.late_levels;
    r->device_bytes = st.gpu.bytes;
    r->device_max_us = st.gpu.max_us;
    r->shards = st.gpu.shards;
    memcpy(r->shard, st.gpu.shard, sizeof(es_shard_status) * (size_t)st.gpu.shards);
    r->helpers_realtime = st.helpers_realtime;
    snprintf(r->helpers, sizeof r->helpers, "%s", st.helpers);
    if (st.failed)
        snprintf(r->error, sizeof r->error, "%s", st.message);
    else
        rc = 0;
done:
    if (e && sets > 1) {
        es_engine_status st_sets;
        es_engine_get_status(e, &st_sets);
        r->set_switches = st_sets.set_switches;
    }
    es_engine_destroy(e);
    for (int k = 0; set && k < sets; k++)
        es_ir_destroy(set[k]);
    free(set);
    for (int c = 0; in && c < ins; c++)
        es_free(in[c]);
    for (int c = 0; out && c < outs; c++)
        es_free(out[c]);
    free(in);
    free(out);
    free(views);
    free(us);
    free(switch_us);
    return rc;
}
