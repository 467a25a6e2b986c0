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
 * blocks, so only engines whose blocks have slack use 4 (cpu-nonuniform's
 * tail levels); in the callback, 2 and only when the spectra are larger
 * than the cache (a pass then costs about what a plain one did).
 *
 * Silent input costs (almost) nothing: a segment that is all zeros has an
 * all-zero spectrum, so its FFT is skipped and its FDL slot is only marked
 * silent; the MAC passes step over silent slots, and an output with nothing
 * to add skips its inverse FFT. A gated microphone or the gaps in a file
 * then cost the scan for zeros only. */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmac_kernel.h"
#include "classes.h"
#include "fftw_planner.h"
#include "offline_plan.h"
#include "partition.h"
#include "partitioned_steps.h"

typedef struct {
    es_engine base;
    int inputs, outputs;
    int part;          /* P: partition size in frames */
    int parts;         /* partitions per filter */
    int stride;        /* floats per half spectrum: P + 1 bins rounded up to 16 */
    int fill;          /* frames of the current block already taken, < P */
    int tail_ready;    /* tail[] holds the sum for the current block */
    int newest;        /* FDL slot of the block being filled; older ones follow */
    float **filter;    /* [in * out] parts spectra of 2*stride, scaled 1/(2P); NULL = no path */
    float **fdl;       /* [inputs] parts + pad slots of 2*stride, see fdl_slot() */
    float **segment;   /* [inputs] 2P frames: previous block | current block */
    unsigned char **silent; /* [inputs][parts]: 1 = that FDL slot's spectrum is zero */
    unsigned char *prev_silent, *cur_sound; /* [inputs]: the last complete block was
                                             * all zeros; the current one is not (yet) */
    unsigned char *tail_silent; /* [outputs]: tail[] is zero (nothing added) */
    float **tail;      /* [outputs] 2*stride: sum over j >= 1 for this block; in
                        * whole-block use, the block's own sum */
    int pass_blocks;   /* blocks one MAC pass sums (1 = plain), see the top */
    int phase;         /* blocks since the last pass that summed later blocks;
                        * pass_blocks (or more) when later[] holds nothing valid */
    float **later;     /* [outputs] pass_blocks - 1 spectra: the known part of the
                        * sums of the next blocks */
    unsigned char *later_added; /* [outputs] bit t - 1: later sum t has something */
    const float **in_at; /* [inputs], [outputs]: a whole block's place in a call */
    float **out_at;
    float *acc;        /* 2*stride scratch spectrum */
    float *chunk;      /* pass_blocks x 2*stride: one chunk's partial sums */
    float *time;       /* 2P scratch time signal */
    float *cplx;       /* P + 1 interleaved bins: FFTW's side of the transforms */
    fftwf_plan forward, inverse;
    es_spectral_kernels k;
} upols;

static void upols_reset(es_engine *e);

static int upols_probe(char *why, size_t n)
{
    es_spectral_kernels k;
    es_spectral_select(&k);
    snprintf(why, n, "FFTW %s, %s MAC kernel", fftwf_version, k.name);
    return 1;
}

/* Slot of the block `age` blocks older than the one being filled. The FDL is
 * stored newest-first so that ages 1, 2, 3... are ascending addresses, in
 * step with H_1, H_2, H_3...: the MAC streams both forward. */
static inline ES_RT float *fdl_slot(const upols *u, int input, int age)
{
    int slot = (u->newest + age) % u->parts;
    return u->fdl[input] + (size_t)slot * 2 * u->stride;
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
    if (u->filter)
        for (int r = 0; r < u->inputs * u->outputs; r++)
            es_free(u->filter[r]);
    for (int i = 0; i < u->inputs; i++) {
        if (u->fdl)
            es_free(u->fdl[i]);
        if (u->segment)
            es_free(u->segment[i]);
        if (u->silent)
            free(u->silent[i]);
    }
    for (int o = 0; u->tail && o < u->outputs; o++)
        es_free(u->tail[o]);
    for (int o = 0; u->later && o < u->outputs; o++)
        es_free(u->later[o]);
    free(u->later);
    free(u->later_added);
    free(u->in_at);
    free(u->out_at);
    free(u->filter);
    free(u->fdl);
    free(u->segment);
    free(u->silent);
    free(u->prev_silent);
    free(u->cur_sound);
    free(u->tail_silent);
    free(u->tail);
    es_free(u->acc);
    es_free(u->time);
    es_free(u->cplx);
    es_free(u->chunk);
    free(u);
}

static int make_plans(upols *u, int measure, char *err, size_t n)
{
    const int size = 2 * u->part;
    unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    fftwf_complex *c = (fftwf_complex *)u->cplx;
    es_fftw_planner_lock();
    u->forward = fftwf_plan_dft_r2c_1d(size, u->time, c, flags);
    u->inverse = fftwf_plan_dft_c2r_1d(size, c, u->time, flags);
    es_fftw_planner_unlock();
    if (!u->forward || !u->inverse) {
        snprintf(err, n, "cpu-partitioned: FFTW could not plan a %d-point transform", size);
        return ES_E_FFT;
    }
    return ES_OK;
}

/* H_j = FFT(h[jP .. jP+P) zero-padded to 2P) / 2P: the 1/2P folds FFTW's
 * unnormalised inverse into the filter, so process() never scales. */
static void transform_filter(upols *u, const float *h, int length, float *spectra)
{
    const float scale = 1.0f / (float)(2 * u->part);
    for (int j = 0; j < u->parts; j++) {
        memset(u->time, 0, (size_t)2 * u->part * sizeof(float));
        int from = j * u->part;
        int count = length - from < u->part ? length - from : u->part;
        for (int t = 0; t < count; t++)
            u->time[t] = h[from + t] * scale;
        fftwf_execute_dft_r2c(u->forward, u->time, (fftwf_complex *)u->cplx);
        u->k.split(spectra + (size_t)j * 2 * u->stride, u->cplx, u->part + 1, u->stride);
    }
}

/* Spectra one block's plain MAC pass streams, over which time-blocked
 * passes pay in the callback: more than a core's share of a 2020s cache. */
#define PASS_BLOCKS_OVER_BYTES (1024 * 1024)

es_engine *es_partitioned_create(const es_format *fmt, const es_ir *ir, const es_options *opt,
                                 int pass_blocks, char *err, size_t n)
{
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
    u->parts = (ir->length + u->part - 1) / u->part;
    u->stride = (u->part + 1 + 15) & ~15;
    es_spectral_select(&u->k);
    const size_t spectrum = (size_t)2 * u->stride;
    if (pass_blocks <= 0) { /* the callback's choice */
        const double bytes = (double)(u->inputs + es_ir_path_count(ir)) * u->parts *
                             (double)spectrum * sizeof(float);
        pass_blocks = bytes > PASS_BLOCKS_OVER_BYTES ? 2 : 1;
    }
    u->pass_blocks = pass_blocks < ES_PASS_BLOCKS_MAX ? pass_blocks : ES_PASS_BLOCKS_MAX;
    u->filter = calloc((size_t)u->inputs * u->outputs, sizeof *u->filter);
    u->fdl = calloc((size_t)u->inputs, sizeof *u->fdl);
    u->segment = calloc((size_t)u->inputs, sizeof *u->segment);
    u->tail = calloc((size_t)u->outputs, sizeof *u->tail);
    u->silent = calloc((size_t)u->inputs, sizeof *u->silent);
    u->prev_silent = calloc((size_t)u->inputs, 1);
    u->cur_sound = calloc((size_t)u->inputs, 1);
    u->tail_silent = calloc((size_t)u->outputs, 1);
    u->later = calloc((size_t)u->outputs, sizeof *u->later);
    u->later_added = calloc((size_t)u->outputs, 1);
    u->in_at = calloc((size_t)u->inputs, sizeof *u->in_at);
    u->out_at = calloc((size_t)u->outputs, sizeof *u->out_at);
    u->acc = es_alloc(spectrum * sizeof(float));
    u->time = es_alloc((size_t)2 * u->part * sizeof(float));
    u->cplx = es_alloc((size_t)2 * (u->part + 1) * sizeof(float));
    u->chunk = es_alloc((size_t)u->pass_blocks * spectrum * sizeof(float));
    if (!u->filter || !u->fdl || !u->segment || !u->tail || !u->silent || !u->prev_silent ||
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
    for (int o = 0; o < u->outputs; o++)
        if (!(u->tail[o] = es_alloc(spectrum * sizeof(float))) ||
            (u->pass_blocks > 1 &&
             !(u->later[o] = es_alloc((size_t)(u->pass_blocks - 1) * spectrum * sizeof(float)))))
            goto nomem;
    if (make_plans(u, opt->fft_measure, err, n) != ES_OK)
        goto fail;
    for (int r = 0; r < u->inputs * u->outputs; r++) {
        if (!ir->taps[r])
            continue;
        if (!(u->filter[r] = es_alloc((size_t)u->parts * spectrum * sizeof(float))))
            goto nomem;
        transform_filter(u, ir->taps[r], ir->length, u->filter[r]);
    }
    upols_reset(&u->base);
    u->base.klass = &es_engine_cpu_partitioned;
    return &u->base;
nomem:
    snprintf(err, n, "cpu-partitioned: out of memory for %d taps x %d paths",
             ir->length, es_ir_path_count(ir));
fail:
    upols_destroy(u ? &u->base : NULL);
    return NULL;
}

static es_engine *upols_create(const es_format *fmt, const es_ir *ir,
                               const es_options *opt, char *err, size_t n)
{
    return es_partitioned_create(fmt, ir, opt, 0, err, n);
}

/* sums[t] += X_{k-age} H_{age+t} for ages [from, to) of input i's FDL and
 * t < outs (outs 1: the plain sum), in runs of consecutive slots that are
 * not silent. Returns a mask: bit t, sums[t] got something. */
static ES_RT unsigned mac_run(const upols *u, float *const *sums, int outs, int i,
                              const float *h, int from, int to)
{
    const size_t spectrum = (size_t)2 * u->stride;
    const unsigned char *silent = u->silent[i];
    unsigned added = 0;
    int age = from;
    while (age < to) {
        int slot = (u->newest + age) % u->parts;
        if (silent[slot]) {
            age++;
            continue;
        }
        /* The run goes on while slots are sound, up to the wrap or `to`. */
        int run = 1;
        while (age + run < to && slot + run < u->parts && !silent[slot + run])
            run++;
        const float *x = u->fdl[i] + (size_t)slot * spectrum, *hh = h + (size_t)age * spectrum;
        if (outs == 1) {
            u->k.cmac(sums[0], x, hh, run, u->stride);
            added |= 1;
        } else {
            u->k.cmac_ahead(sums, outs, x, hh, run, u->parts - age, u->stride);
            for (int t = 0; t < outs && age + t < u->parts; t++)
                added |= 1u << t;
        }
        age += run;
    }
    return added;
}

/* The same, for any number of ages. A float sum over thousands of
 * partitions loses precision as it grows (-111.5 dB at 7500 partitions,
 * measured): so long filters are summed in chunks of MAC_CHUNK partitions,
 * each into a fresh accumulator added to acc, and the rounding error grows
 * with the number of chunks rather than of partitions. */
#define MAC_CHUNK 32
static ES_RT int mac_ages(const upols *u, float *acc, int i, const float *h, int from, int to)
{
    if (to - from <= MAC_CHUNK)
        return (int)mac_run(u, &acc, 1, i, h, from, to);
    const int n = 2 * u->stride;
    int added = 0;
    for (int a = from; a < to; a += MAC_CHUNK) {
        const int b = a + MAC_CHUNK < to ? a + MAC_CHUNK : to;
        memset(u->chunk, 0, (size_t)n * sizeof(float));
        if (!mac_run(u, &u->chunk, 1, i, h, a, b))
            continue;
        for (int k = 0; k < n; k++)
            acc[k] += u->chunk[k];
        added = 1;
    }
    return added;
}

/* tail[o] = sum over paths (i, o) and j = 1..parts-1 of X_{k-j} H_j. */
static ES_RT void compute_tail(upols *u)
{
    const size_t spectrum = (size_t)2 * u->stride;
    for (int o = 0; o < u->outputs; o++) {
        float *tail = u->tail[o];
        if (!u->tail_silent[o])
            memset(tail, 0, spectrum * sizeof(float));
        int added = 0;
        for (int i = 0; i < u->inputs; i++) {
            const float *h = u->filter[i * u->outputs + o];
            if (h && u->parts > 1)
                added |= mac_ages(u, tail, i, h, 1, u->parts);
        }
        u->tail_silent[o] = !added;
    }
    u->tail_ready = 1;
}

/* Whether x holds only zeros (of either sign): an OR of the bits, which
 * the compiler vectorises, rather than a compare per sample. */
static ES_RT int all_zero(const float *x, int n)
{
    uint32_t bits = 0;
    for (int t = 0; t < n; t++) {
        uint32_t b;
        memcpy(&b, x + t, sizeof b);
        bits |= b << 1; /* the sign bit does not count */
    }
    return bits == 0;
}

/* Takes frames of input i into the current block's segment and, unless the
 * last and the current block are both silent, transforms it into the
 * newest FDL slot. */
static ES_RT void take_input(upols *u, const float *x, int i, int frames)
{
    float *seg = u->segment[i];
    memcpy(seg + u->part + u->fill, x, (size_t)frames * sizeof(float));
    u->cur_sound[i] |= !all_zero(x, frames);
    const int silent = u->prev_silent[i] && !u->cur_sound[i];
    u->silent[i][u->newest] = (unsigned char)silent;
    if (!silent) {
        fftwf_execute_dft_r2c(u->forward, seg, (fftwf_complex *)u->cplx);
        u->k.split(fdl_slot(u, i, 0), u->cplx, u->part + 1, u->stride);
    }
}

/* y = the frames of the current block from the accumulated spectrum acc
 * (silence where nothing was added). */
static ES_RT void emit_output(upols *u, const float *acc, int added, float *y, int frames)
{
    if (!added) { /* no path, or all of its input silent */
        memset(y, 0, (size_t)frames * sizeof(float));
        return;
    }
    u->k.join(u->cplx, acc, u->part + 1, u->stride);
    fftwf_execute_dft_c2r(u->inverse, (fftwf_complex *)u->cplx, u->time);
    memcpy(y, u->time + u->part + u->fill, (size_t)frames * sizeof(float));
}

/* After `frames` more of the current block: once it is complete its
 * spectrum stays in its slot and the next block takes the slot of the
 * oldest, which no partition needs. */
static ES_RT void advance(upols *u, int frames)
{
    u->fill += frames;
    if (u->fill < u->part)
        return;
    u->newest = (u->newest + u->parts - 1) % u->parts;
    for (int i = 0; i < u->inputs; i++) {
        float *seg = u->segment[i];
        memcpy(seg, seg + u->part, (size_t)u->part * sizeof(float));
        memset(seg + u->part, 0, (size_t)u->part * sizeof(float));
        u->prev_silent[i] = !u->cur_sound[i];
        u->cur_sound[i] = 0;
    }
    u->fill = 0;
    u->tail_ready = 0;
    if (u->phase < u->pass_blocks)
        u->phase++;
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
        compute_tail(u);
    for (int i = 0; i < u->inputs; i++)
        take_input(u, in[i] + offset, i, frames);
    for (int o = 0; o < u->outputs; o++) {
        int added = !u->tail_silent[o];
        if (added)
            memcpy(u->acc, u->tail[o], spectrum * sizeof(float));
        else
            memset(u->acc, 0, spectrum * sizeof(float));
        for (int i = 0; i < u->inputs; i++) {
            const float *h = u->filter[i * u->outputs + o];
            if (h)
                added |= mac_ages(u, u->acc, i, h, 0, 1);
        }
        emit_output(u, u->acc, added, out[o] + offset, frames);
    }
    advance(u, frames);
}

/* A whole block in slices (partitioned_steps.h); run_chunk runs the same
 * steps back to back, so a sliced block and a whole one are the same
 * arithmetic in the same order. cmac adds partition after partition per
 * bin, so a run cut into pieces sums alike, and a slice never crosses a
 * MAC_CHUNK boundary, where a chunk's partial sum is added. Output o's
 * spectrum is summed in tail[o] because slices of other outputs may come
 * between; tail_silent[o] keeps saying whether it holds anything, for
 * compute_tail.
 *
 * The block's MACs are one of three kinds, chosen when its inputs are in:
 * plain (every age into tail[o]); a time-blocked pass (every age into
 * tail[o] and later[o]); or, within pass_blocks blocks of such a pass,
 * later[o]'s sum for this block plus the `phase` newest ages. */
int es_partitioned_next_is_light(const es_engine *e)
{
    const upols *u = (const upols *)e;
    return u->phase >= 1 && u->phase < u->pass_blocks;
}

void es_partitioned_steps_begin(es_block_steps *s)
{
    *s = (es_block_steps){0};
}

/* The sums a MAC slice of output o adds to: the block's own, then, in a
 * time-blocked pass, those of the next blocks. */
static ES_RT void sum_targets(const upols *u, int o, float **sums)
{
    const size_t spectrum = (size_t)2 * u->stride;
    sums[0] = u->tail[o];
    for (int t = 1; t < u->pass_blocks; t++)
        sums[t] = u->later[o] + (size_t)(t - 1) * spectrum;
}

/* Output o's sums before its first MAC slice. */
static ES_RT void begin_output(upols *u, int o, es_block_steps *s)
{
    const size_t spectrum = (size_t)2 * u->stride;
    float *sums[ES_PASS_BLOCKS_MAX];
    sum_targets(u, o, sums);
    s->added = 0;
    if (s->known) { /* this block's known part is in later[o] */
        const int t = u->phase;
        if (u->later_added[o] >> (t - 1) & 1) {
            memcpy(sums[0], sums[t], spectrum * sizeof(float));
            s->added = 1;
        } else {
            memset(sums[0], 0, spectrum * sizeof(float));
        }
        return;
    }
    for (int t = 0; t < s->outs; t++)
        memset(sums[t], 0, spectrum * sizeof(float));
}

ES_RT int es_partitioned_step(es_engine *e, const float *const *in, float *const *out,
                              es_block_steps *s)
{
    upols *u = (upols *)e;
    const size_t spectrum = (size_t)2 * u->stride;
    if (s->stage == 0) { /* one input's transform */
        take_input(u, in[s->input], s->input, u->part);
        if (++s->input == u->inputs) {
            s->stage = 1;
            s->input = s->output = s->age = 0;
            const int known = u->phase >= 1 && u->phase < u->pass_blocks;
            s->known = known;
            s->outs = known || u->pass_blocks == 1 ? 1 : u->pass_blocks;
            s->ages = known && u->phase < u->parts ? u->phase : u->parts;
        }
        return 0;
    }
    if (s->stage == 2) { /* output o's inverse transform */
        emit_output(u, u->tail[s->output], (int)(s->added & 1), out[s->output], u->part);
        u->tail_silent[s->output] = (unsigned char)!(s->added & 1);
        if (s->outs > 1)
            u->later_added[s->output] = (unsigned char)(s->added >> 1);
        if (++s->output == u->outputs) {
            if (s->outs > 1)
                u->phase = 0; /* advance() makes it 1 */
            advance(u, u->part);
            return 1;
        }
        s->stage = 1;
        s->input = s->age = 0;
    }
    /* MACs of output o: input `input`, ages from `age` on. */
    if (s->input == 0 && s->age == 0)
        begin_output(u, s->output, s);
    const float *h = u->filter[s->input * u->outputs + s->output];
    if (h) {
        float *sums[ES_PASS_BLOCKS_MAX];
        sum_targets(u, s->output, sums);
        const int chunked = s->ages > MAC_CHUNK;
        int chunk_end = chunked ? (s->age / MAC_CHUNK + 1) * MAC_CHUNK : s->ages;
        chunk_end = chunk_end < s->ages ? chunk_end : s->ages;
        /* A slice's ages: about ES_SLICE_BINS products, in whole groups of
         * four for the time-blocked kernels. */
        int ages = ES_SLICE_BINS / ((u->part + 1) * s->outs);
        ages = ages > 0 ? ages : 1;
        ages = s->outs > 1 ? (ages + 3) / 4 * 4 : ages;
        const int to = s->age + ages < chunk_end ? s->age + ages : chunk_end;
        if (!chunked) {
            s->added |= mac_run(u, sums, s->outs, s->input, h, s->age, to);
        } else {
            float *chunk[ES_PASS_BLOCKS_MAX];
            for (int t = 0; t < s->outs; t++)
                chunk[t] = u->chunk + (size_t)t * spectrum;
            if (s->age % MAC_CHUNK == 0) {
                memset(u->chunk, 0, (size_t)s->outs * spectrum * sizeof(float));
                s->chunk_added = 0;
            }
            s->chunk_added |= mac_run(u, chunk, s->outs, s->input, h, s->age, to);
            if (to == chunk_end) {
                for (int t = 0; t < s->outs; t++)
                    if (s->chunk_added >> t & 1)
                        for (size_t k = 0; k < spectrum; k++)
                            sums[t][k] += chunk[t][k];
                s->added |= s->chunk_added;
            }
        }
        s->age = to;
    }
    if (!h || s->age == s->ages) { /* the next input's paths, or this output is summed */
        s->age = 0;
        if (++s->input == u->inputs)
            s->stage = 2;
    }
    return 0;
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
}

static int upols_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

static void upols_reset(es_engine *e)
{
    upols *u = (upols *)e;
    const size_t spectrum = (size_t)2 * u->stride;
    for (int i = 0; i < u->inputs; i++) {
        memset(u->fdl[i], 0, (size_t)u->parts * spectrum * sizeof(float));
        memset(u->segment[i], 0, (size_t)2 * u->part * sizeof(float));
        memset(u->silent[i], 1, (size_t)u->parts);
        u->prev_silent[i] = 1;
        u->cur_sound[i] = 0;
    }
    for (int o = 0; o < u->outputs; o++) {
        memset(u->tail[o], 0, spectrum * sizeof(float));
        u->tail_silent[o] = 1;
    }
    u->fill = 0;
    u->newest = 0;
    u->tail_ready = 0;
    u->phase = u->pass_blocks; /* later[] holds nothing yet */
}

const es_engine_class es_engine_cpu_partitioned = {
    .name = "cpu-partitioned",
    .summary = "uniformly partitioned overlap-save, FFTW3f, zero latency",
    .caps = ES_CAP_PARTITION,
    .probe = upols_probe,
    .create = upols_create,
    .process = upols_process,
    .latency = upols_latency,
    .reset = upols_reset,
    .destroy = upols_destroy,
    .offline_block = es_partitioned_offline_block,
};
