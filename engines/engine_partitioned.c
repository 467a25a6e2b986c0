/* cpu-partitioned: uniformly partitioned overlap-save (UPOLS) with FFTW3f,
 * zero latency at any call size.
 *
 * The IR is cut into `parts` partitions of P frames; each is zero-padded to
 * 2P and transformed once at create time (H_j). Each input keeps a 2P
 * segment [previous block | current block] and a frequency-domain delay
 * line (FDL) with the spectra of its last parts - 1 completed blocks.
 *
 * Zero latency for any call size (the scheme FFTConvolver and JUCE use):
 * while the current block fills, every call transforms the partly filled
 * segment (the unfilled rest is zero, and future samples cannot change past
 * outputs), multiplies it by H_0 and adds the "tail" sum over the older
 * blocks, sum_{j>=1} X_{k-j} H_j, computed once when the block began. When
 * calls are exactly P frames this is plain UPOLS: one FFT per input, one
 * MAC pass over all partitions and one inverse FFT per output per block.
 * Calls of other sizes pay one extra FFT/IFFT pair per call, not latency.
 *
 * Spectra are planar (split re/im) so the MAC loop needs no shuffles. FFTW
 * transforms interleaved complex, its fast path, and one streaming pass
 * converts (split after the forward FFT, join before the inverse).
 *
 * Time-blocked MAC passes: a filter whose spectra do not fit the cache
 * makes the plain MAC pass wait on memory (about 0.5 ns per complex
 * multiply-add for a 2 s stereo level of 22 x 4096, against 0.15 when the
 * spectra are cached). So an engine may sum `pass_blocks` blocks in one
 * pass: at block k it sums Y_k = sum_j X_{k-j} H_j and, reading each X
 * once, the part of Y_{k+t} known now, sum_{j>=t} X_{k+t-j} H_j, for t <
 * pass_blocks (later[]); block k+t then adds only its t newest terms. The
 * pass streams the spectra once for pass_blocks blocks; measured on
 * 2 x 22 x 4096 with AVX-512, 0.15 ns per product for 4 blocks a pass
 * against 0.49 for one. The work comes in one pass every pass_blocks
 * blocks. cpu-nonuniform's levels take 4 (its tail jobs have slack, and
 * its head's MACs are a few microseconds); this engine on its own takes
 * 2, and only when its spectra are larger than the cache, where a pass
 * costs about what a plain one did and the worst block does not grow.
 *
 * Silent input costs (almost) nothing: a segment that is all zeros has an
 * all-zero spectrum, so its FFT is skipped and its FDL slot is only marked
 * silent; the MAC passes step over silent slots, and an output with nothing
 * to add skips its inverse FFT. A gated microphone or the gaps in a file
 * then cost the scan for zeros only. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "fftw_planner.h"
#include "offline_plan.h"
#include "partition.h"
#include "partitioned.h"

static void clear_state(upols *u, int wipe);


static int upols_probe(char *why, size_t n)
{
    es_spectral_kernels k;
    es_spectral_select(&k);
    snprintf(why, n, "FFTW %s, %s MAC kernel", fftwf_version, k.name);
    return 1;
}

static void upols_destroy(es_engine *e)
{
    upols *u = (upols *)e;
    if (!u)
        return;
    if (u->forward || u->inverse) {
        es_fftw_planner_lock();
        if (u->forward)
            fftwf_destroy_plan(u->forward);
        if (u->inverse)
            fftwf_destroy_plan(u->inverse);
        es_fftw_planner_unlock();
    }
    upols_sets_free(u);
    for (int i = 0; i < u->inputs; i++) {
        if (u->fdl)
            es_free(u->fdl[i]);
        if (u->segment)
            es_free(u->segment[i]);
        if (u->silent)
            free(u->silent[i]);
    }
    es_free_channels(u->tail, u->outputs);
    es_free_channels(u->later, u->outputs);
    free(u->later_added);
    free(u->in_at);
    free(u->out_at);
    free(u->fdl);
    free(u->segment);
    free(u->silent);
    free(u->prev_silent);
    free(u->cur_sound);
    free(u->tail_silent);
    es_free(u->acc);
    es_free(u->time);
    es_free(u->cplx);
    es_free(u->chunk);
    free(u);
}

/* Measured plans come from the wisdom when it holds them; otherwise they
 * are measured, and the wisdom file is written at exit. */
static int make_plans(upols *u, int measure, char *err, size_t n)
{
    const int size = 2 * u->part;
    fftwf_complex *c = (fftwf_complex *)u->cplx;
    es_fftw_planner_lock();
    if (measure) {
        u->forward = fftwf_plan_dft_r2c_1d(size, u->time, c, FFTW_MEASURE | FFTW_WISDOM_ONLY);
        u->inverse = fftwf_plan_dft_c2r_1d(size, c, u->time, FFTW_MEASURE | FFTW_WISDOM_ONLY);
    }
    if (!u->forward || !u->inverse) {
        const unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
        if (!u->forward)
            u->forward = fftwf_plan_dft_r2c_1d(size, u->time, c, flags);
        if (!u->inverse)
            u->inverse = fftwf_plan_dft_c2r_1d(size, c, u->time, flags);
        if (measure)
            es_fftw_wisdom_learned();
    }
    es_fftw_planner_unlock();
    if (!u->forward || !u->inverse) {
        snprintf(err, n, "cpu-partitioned: FFTW could not plan a %d-point transform", size);
        return -1;
    }
    return 0;
}

/* The 1/2P folds FFTW's unnormalised inverse into the filter, so
 * process() never scales. */
void upols_transform_filter(const upols *u, const float *h, int length, float *spectra,
                            float *time, float *cplx)
{
    const float scale = 1.0f / (float)(2 * u->part);
    for (int j = 0; j < u->parts; j++) {
        memset(time, 0, (size_t)2 * u->part * sizeof(float));
        int from = j * u->part;
        int count = length - from < u->part ? length - from : u->part;
        for (int t = 0; t < count; t++)
            time[t] = h[from + t] * scale;
        fftwf_execute_dft_r2c(u->forward, time, (fftwf_complex *)cplx);
        u->k.split(spectra + (size_t)j * 2 * u->stride, cplx, u->part + 1, u->stride);
    }
}

/* Spectra one block's plain MAC pass streams, over which time-blocked
 * passes pay in the callback: more than a core's share of a 2020s cache. */
#define PASS_BLOCKS_OVER_BYTES (1024 * 1024)

/* Set s's spectra: a filter that repeats an earlier one of the set
 * shares its spectra. */
static int transform_set(upols *u, const es_ir *ir, int s)
{
    const size_t spectrum = (size_t)2 * u->stride;
    const int rows = u->inputs * u->outputs;
    int *like = malloc((size_t)rows * sizeof *like);
    float **filter = u->set_filter[s] = calloc((size_t)rows, sizeof *filter);
    unsigned char *shared = u->set_shared[s] = calloc((size_t)rows, 1);
    if (!like || !filter || !shared || es_ir_first_alike(ir, like) != 0) {
        free(like);
        return -1;
    }
    for (int r = 0; r < rows; r++) {
        if (like[r] < 0)
            continue;
        if (like[r] != r) {
            filter[r] = filter[like[r]];
            shared[r] = 1;
            continue;
        }
        if (!(filter[r] = es_alloc((size_t)u->parts * spectrum * sizeof(float)))) {
            free(like);
            return -1;
        }
        upols_transform_filter(u, ir->taps[r], ir->length, filter[r], u->time, u->cplx);
    }
    free(like);
    return 0;
}

static es_engine *create_sets(const es_format *fmt, const es_ir *const *sets, int count,
                              const es_options *opt, int pass_blocks, char *err, size_t n)
{
    const es_ir *ir = sets[0];
    int length = 0, paths = 0;
    for (int s = 0; s < count; s++) {
        length = sets[s]->length > length ? sets[s]->length : length;
        paths = es_ir_path_count(sets[s]) > paths ? es_ir_path_count(sets[s]) : paths;
    }
    upols *u = calloc(1, sizeof *u);
    if (!u)
        goto nomem;
    u->inputs = ir->inputs;
    u->outputs = ir->outputs;
    u->part = opt->partition > 0 ? opt->partition : es_default_partition(fmt->max_block);
    if (u->part > 65536) {
        snprintf(err, n, "cpu-partitioned: partition size %d is over 65536", u->part);
        goto fail;
    }
    u->parts = (length + u->part - 1) / u->part;
    u->stride = (u->part + 1 + 15) & ~15;
    es_spectral_select(&u->k);
    const size_t spectrum = (size_t)2 * u->stride;
    if (pass_blocks <= 0) { /* the engine's own choice */
        const double bytes = (double)(u->inputs + paths) * u->parts *
                             (double)spectrum * sizeof(float);
        /* Offline too: 4 blocks a pass measured no faster than 2 on a
         * render of 64 x 204800 taps (and slower on 64 x 4096), and
         * their sums ahead cost 3 spectra an output, not 1. */
        pass_blocks = bytes > PASS_BLOCKS_OVER_BYTES ? 2 : 1;
    }
    /* A pass sums blocks ahead only through older partitions: no more
     * blocks than partitions (one partition, plain passes). */
    pass_blocks = pass_blocks < u->parts ? pass_blocks : u->parts;
    u->pass_blocks = pass_blocks < ES_PASS_BLOCKS_MAX ? pass_blocks : ES_PASS_BLOCKS_MAX;
    u->fdl = calloc((size_t)u->inputs, sizeof *u->fdl);
    u->segment = calloc((size_t)u->inputs, sizeof *u->segment);
    /* One block each: tail[] is touched only by calls shorter than a
     * block (a render never makes one), later[] only by time-blocked
     * passes. */
    u->tail = es_alloc_channels(u->outputs, spectrum);
    u->later = u->pass_blocks > 1
                   ? es_alloc_channels(u->outputs, (size_t)(u->pass_blocks - 1) * spectrum)
                   : calloc((size_t)u->outputs, sizeof *u->later);
    u->silent = calloc((size_t)u->inputs, sizeof *u->silent);
    u->prev_silent = calloc((size_t)u->inputs, 1);
    u->cur_sound = calloc((size_t)u->inputs, 1);
    u->tail_silent = calloc((size_t)u->outputs, 1);
    u->later_added = calloc((size_t)u->outputs, 1);
    u->in_at = calloc((size_t)u->inputs, sizeof *u->in_at);
    u->out_at = calloc((size_t)u->outputs, sizeof *u->out_at);
    u->acc = es_alloc(spectrum * sizeof(float));
    u->time = es_alloc((size_t)2 * u->part * sizeof(float));
    u->cplx = es_alloc((size_t)2 * (u->part + 1) * sizeof(float));
    u->chunk = es_alloc((size_t)u->pass_blocks * spectrum * sizeof(float));
    if (upols_sets_alloc(u, count) != 0 || !u->fdl || !u->segment || !u->tail || !u->silent || !u->prev_silent ||
        !u->cur_sound || !u->tail_silent || !u->later || !u->later_added || !u->in_at ||
        !u->out_at || !u->acc || !u->time || !u->cplx || !u->chunk)
        goto nomem;
    for (int i = 0; i < u->inputs; i++) {
        u->fdl[i] = es_alloc((size_t)u->parts * spectrum * sizeof(float));
        u->segment[i] = es_alloc((size_t)2 * u->part * sizeof(float));
        u->silent[i] = malloc((size_t)u->parts);
        if (!u->fdl[i] || !u->segment[i] || !u->silent[i])
            goto nomem;
    }
    if (make_plans(u, opt->fft_measure, err, n) != 0)
        goto fail;
    for (int set = 0; set < count; set++)
        if (transform_set(u, sets[set], set) != 0)
            goto nomem;
    u->filter = u->set_filter[0];
    u->filter_shared = u->set_shared[0];
    clear_state(u, 0);
    u->base.klass = &es_engine_cpu_partitioned;
    return &u->base;
nomem:
    snprintf(err, n, "cpu-partitioned: out of memory for %d taps x %d paths%s", length, paths,
             count > 1 ? " a set" : "");
fail:
    upols_destroy(u ? &u->base : NULL);
    return NULL;
}

es_engine *es_partitioned_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                 int pass_blocks, char *err, size_t n)
{
    return create_sets(fmt, &ir, 1, opt, pass_blocks, err, n);
}

static es_engine *upols_create(const es_format *fmt, const es_ir *ir,
                               const es_options *opt, char *err, size_t n)
{
    return es_partitioned_create(fmt, ir, opt, 0, err, n);
}

static es_engine *upols_create_sets(const es_format *fmt, const es_ir *const *sets, int count,
                                    const es_options *opt, char *err, size_t n)
{
    return create_sets(fmt, sets, count, opt, 0, err, n);
}

static ES_RT void upols_select_set(es_engine *e, int set)
{
    upols *u = (upols *)e;
    if (set >= 0 && set < u->sets)
        u->set_next = set;
}

static int upols_set_settled(const es_engine *e)
{
    return atomic_load_explicit(&((const upols *)e)->settled, memory_order_acquire);
}

static int upols_load(es_engine *e, int set, const es_ir *ir, char *err, size_t n)
{
    return upols_load_set((upols *)e, set, ir, err, n);
}

static ES_RT void upols_status(const es_engine *e, es_engine_status *st)
{
    const upols *u = (const upols *)e;
    st->set = u->set_now;
    st->set_switches = u->switches;
}

/* Runs frames <= P - fill through the partly filled block. A whole block
 * in one call (the usual case, and always so inside cpu-nonuniform) runs
 * the steps below one after another: one MAC pass, time-blocked or not,
 * and no separate tail. A partial block computes the tail, sum_{j>=1}
 * X_{k-j} H_j, once for its later calls. */
static ES_RT void run_chunk(upols *u, const float *const *in, float *const *out,
                            int offset, int frames)
{
    const size_t spectrum = (size_t)2 * u->stride;
    if (u->fill == 0)
        upols_begin_block(u);
    if (u->switching) {
        upols_switch_chunk(u, in, out, offset, frames);
        return;
    }
    if (u->fill == 0 && frames == u->part) {
        for (int i = 0; i < u->inputs; i++)
            u->in_at[i] = in[i] + offset;
        for (int o = 0; o < u->outputs; o++)
            u->out_at[o] = out[o] + offset;
        es_block_steps s;
        es_partitioned_steps_begin(&s);
        while (!es_partitioned_step(&u->base, u->in_at, u->out_at, &s))
            ;
        return;
    }
    if (!u->tail_ready)
        upols_compute_tail(u);
    for (int i = 0; i < u->inputs; i++)
        upols_take_input(u, in[i] + offset, i, frames);
    for (int o = 0; o < u->outputs; o++) {
        int added = !u->tail_silent[o];
        if (added)
            memcpy(u->acc, u->tail[o], spectrum * sizeof(float));
        else
            memset(u->acc, 0, spectrum * sizeof(float));
        for (int i = 0; i < u->inputs; i++) {
            const float *h = u->filter[i * u->outputs + o];
            if (h)
                added |= upols_mac_ages(u, u->acc, i, h, 0, 1);
        }
        upols_emit_output(u, u->acc, added, out[o] + offset, frames);
    }
    upols_advance(u, frames);
}

static ES_RT void upols_process(es_engine *e, const float *const *in,
                                float *const *out, int frames)
{
    upols *u = (upols *)e;
    int done = 0;
    while (done < frames) {
        int chunk = u->part - u->fill;
        if (chunk > frames - done)
            chunk = frames - done;
        run_chunk(u, in, out, done, chunk);
        done += chunk;
    }
    atomic_store_explicit(&u->settled, u->switching ? -1 : u->set_now, memory_order_release);
}

static int upols_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

/* The state of an engine that has heard nothing. The FDL is never wiped:
 * a slot marked silent is never read, and every slot is marked so here
 * (a long filter's FDL is then touched only as the input fills it). The
 * segments and tail sums are read as they are: `wipe` 0 when they are
 * as es_alloc made them (zero). */
static void clear_state(upols *u, int wipe)
{
    const size_t spectrum = (size_t)2 * u->stride;
    for (int i = 0; i < u->inputs; i++) {
        if (wipe)
            memset(u->segment[i], 0, (size_t)2 * u->part * sizeof(float));
        memset(u->silent[i], 1, (size_t)u->parts);
        u->prev_silent[i] = 1;
        u->cur_sound[i] = 0;
    }
    for (int o = 0; o < u->outputs; o++) {
        if (wipe)
            memset(u->tail[o], 0, spectrum * sizeof(float));
        u->tail_silent[o] = 1;
    }
    u->fill = 0;
    u->newest = 0;
    u->tail_ready = 0;
    u->switching = 0; /* the set asked for last plays from the first block */
    u->heard = 0;
    u->phase = u->pass_blocks; /* later[] holds nothing yet */
}

static void upols_reset(es_engine *e)
{
    clear_state((upols *)e, 1);
}

const es_engine_class es_engine_cpu_partitioned = {
    .name = "cpu-partitioned",
    .summary = "uniformly partitioned overlap-save, FFTW3f, zero latency",
    .caps = ES_CAP_PARTITION | ES_CAP_SETS,
    .probe = upols_probe,
    .create = upols_create,
    .create_sets = upols_create_sets,
    .select_set = upols_select_set,
    .load_set = upols_load,
    .set_settled = upols_set_settled,
    .status = upols_status,
    .process = upols_process,
    .latency = upols_latency,
    .reset = upols_reset,
    .destroy = upols_destroy,
    .offline_block = es_partitioned_offline_block,
};
