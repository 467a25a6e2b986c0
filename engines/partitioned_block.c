/* One block of cpu-partitioned: the input's transform, the MAC sums
 * (plain, in chunks, or time-blocked), the output's inverse, and the same
 * as steps a scheduler can interleave (partitioned_steps.h). The scheme is
 * described at the top of engine_partitioned.c. */
#include <stdint.h>
#include <string.h>

#include "partitioned.h"

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

/* acc += part over n floats: a chunk's partial sum into its total. */
static ES_RT void add_spectrum(float *restrict acc, const float *restrict part, size_t n)
{
    for (size_t k = 0; k < n; k++)
        acc[k] += part[k];
}

/* The same, for any number of ages. A float sum over thousands of
 * partitions loses precision as it grows (-111.5 dB at 7500 partitions,
 * measured): so long filters are summed in chunks of MAC_CHUNK partitions,
 * each into a fresh accumulator added to acc, and the rounding error grows
 * with the number of chunks rather than of partitions. */
ES_RT int upols_mac_ages(const upols *u, float *acc, int i, const float *h, int from, int to)
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
        add_spectrum(acc, u->chunk, (size_t)n);
        added = 1;
    }
    return added;
}

/* tail[o] = sum over paths (i, o) and j = 1..parts-1 of X_{k-j} H_j. */
ES_RT void upols_tail_of(const upols *u, float *const *filter, float **tails,
                         unsigned char *tail_silent)
{
    const size_t spectrum = (size_t)2 * u->stride;
    for (int o = 0; o < u->outputs; o++) {
        float *tail = tails[o];
        if (!tail_silent[o])
            memset(tail, 0, spectrum * sizeof(float));
        int added = 0;
        for (int i = 0; i < u->inputs; i++) {
            const float *h = filter[i * u->outputs + o];
            if (h && u->parts > 1)
                added |= upols_mac_ages(u, tail, i, h, 1, u->parts);
        }
        tail_silent[o] = (unsigned char)!added;
    }
}

ES_RT void upols_compute_tail(upols *u)
{
    upols_tail_of(u, u->filter, u->tail, u->tail_silent);
    u->tail_ready = 1;
}

/* dst = src, and whether it held only zeros (of either sign): an OR of
 * the bits in the copy's own pass, which the compiler vectorises, rather
 * than a second pass or a compare per sample. */
static ES_RT int copy_all_zero(float *restrict dst, const float *restrict src, int n)
{
    uint32_t bits = 0;
    for (int t = 0; t < n; t++) {
        uint32_t b;
        memcpy(&b, src + t, sizeof b);
        dst[t] = src[t];
        bits |= b << 1; /* the sign bit does not count */
    }
    return bits == 0;
}

/* Takes frames of input i into the current block's segment and, unless the
 * last and the current block are both silent, transforms it into the
 * newest FDL slot. */
ES_RT void upols_take_input(upols *u, const float *x, int i, int frames)
{
    float *seg = u->segment[i];
    /* The block's first call: what it does not fill is silence until a
     * later call does (a whole block overwrites it all). */
    if (u->fill == 0 && frames < u->part)
        memset(seg + u->part + frames, 0, (size_t)(u->part - frames) * sizeof(float));
    u->cur_sound[i] |= !copy_all_zero(seg + u->part + u->fill, x, frames);
    const int silent = u->prev_silent[i] && !u->cur_sound[i];
    u->silent[i][u->newest] = (unsigned char)silent;
    if (!silent) {
        fftwf_execute_dft_r2c(u->forward, seg, (fftwf_complex *)u->cplx);
        u->k.split(fdl_slot(u, i, 0), u->cplx, u->part + 1, u->stride);
    }
}

/* y = the frames of the current block from the accumulated spectrum acc
 * (silence where nothing was added). */
ES_RT void upols_emit_output(upols *u, const float *acc, int added, float *y, int frames)
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
ES_RT void upols_advance(upols *u, int frames)
{
    u->fill += frames;
    if (u->fill < u->part)
        return;
    u->newest = (u->newest + u->parts - 1) % u->parts;
    for (int i = 0; i < u->inputs; i++) {
        float *seg = u->segment[i];
        memcpy(seg, seg + u->part, (size_t)u->part * sizeof(float));
        u->prev_silent[i] = !u->cur_sound[i];
        u->cur_sound[i] = 0;
    }
    u->fill = 0;
    u->tail_ready = 0;
    if (u->phase < u->pass_blocks)
        u->phase++;
}

/* A whole block in slices (partitioned_steps.h); run_chunk runs the same
 * steps back to back, so a sliced block and a whole one are the same
 * arithmetic in the same order. cmac adds partition after partition per
 * bin, so a run cut into pieces sums alike, and a slice never crosses a
 * MAC_CHUNK boundary, where a chunk's partial sum is added. The outputs
 * come one after another, each summed in acc (slices of other engines
 * may come between, never of another output of this one); tail[] is
 * compute_tail's alone, for calls shorter than a block.
 *
 * The block's MACs are one of three kinds, chosen when its inputs are in:
 * plain (every age into acc); a time-blocked pass (every age into acc and
 * later[o]); or, within pass_blocks blocks of such a pass, later[o]'s sum
 * for this block plus the `phase` newest ages. */
void es_partitioned_steps_begin(es_block_steps *s)
{
    *s = (es_block_steps){0};
}

/* Whether a time-blocked pass within the last pass_blocks blocks summed
 * the older ages of this one (its known part is in later[]). The phase
 * moves only when a block ends. */
static ES_RT int later_known(const upols *u)
{
    return u->phase >= 1 && u->phase < u->pass_blocks;
}

/* The sums a MAC slice of output o adds to: the block's own, then, in a
 * time-blocked pass, those of the next blocks. */
static ES_RT void sum_targets(const upols *u, int o, float **sums)
{
    const size_t spectrum = (size_t)2 * u->stride;
    sums[0] = u->acc;
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
    if (later_known(u)) { /* this block's known part is in later[o] */
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
        upols_take_input(u, in[s->input], s->input, u->part);
        if (++s->input == u->inputs) {
            s->stage = 1;
            s->input = s->output = s->age = 0;
            const int known = later_known(u);
            s->outs = known || u->pass_blocks == 1 ? 1 : u->pass_blocks;
            s->ages = known && u->phase < u->parts ? u->phase : u->parts;
        }
        return 0;
    }
    if (s->stage == 2) { /* output o's inverse transform */
        upols_emit_output(u, u->acc, (int)(s->added & 1), out[s->output], u->part);
        if (s->outs > 1)
            u->later_added[s->output] = (unsigned char)(s->added >> 1);
        if (++s->output == u->outputs) {
            if (s->outs > 1)
                u->phase = 0; /* upols_advance() makes it 1 */
            upols_advance(u, u->part);
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
                        add_spectrum(sums[t], chunk[t], spectrum);
                s->added |= s->chunk_added;
            }
        }
        s->age = to;
    }
    if (!h || s->age == s->ages) { /* the next input's paths, or this output is summed */
        s->age = 0;
        /* Straight past the inputs with no path to this output: a sparse
         * matrix (64 x 64 with only its diagonal) is not a step per empty
         * path. */
        const float *const *col = (const float *const *)u->filter + s->output;
        do
            s->input++;
        while (s->input < u->inputs && !col[(size_t)s->input * (size_t)u->outputs]);
        if (s->input == u->inputs)
            s->stage = 2;
    }
    return 0;
}
