/* cpu-partitioned over several filter sets (es_engine_create_sets): a
 * head-tracked room's set per orientation, all transformed at create and
 * resident, one playing.
 *
 * Every set convolves the same input, so they share everything the input
 * makes: the segments and the frequency-domain delay line. What one set
 * would output at block k is sum_j X_{k-j} H_j with its own H, whatever
 * set played before. A switch therefore needs no priming and no history
 * replayed: the block it begins in is computed twice, with the old set's
 * spectra and with the new one's (each a tail over the older blocks plus
 * the newest block's product, as calls shorter than a block already do),
 * and faded frame by frame over the block, a raised cosine from old to
 * new whose two gains sum to one (the two outputs are of one input through
 * similar filters: coherent, so amplitudes add). From the next block on the
 * new set alone plays, exactly what it would have played had it always
 * been the one. The switch block costs one more MAC pass and one more
 * inverse transform per output; time-blocked sums ahead (later[]) were
 * made with the old set and are dropped.
 *
 * A switch asked for in the middle of a block (calls shorter than the
 * partition) begins with the next block: the wait is at most the rest of
 * the partition, which a host sets to its block for tracking. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partitioned.h"

int upols_sets_alloc(upols *u, int sets)
{
    const size_t spectrum = (size_t)2 * u->stride;
    u->sets = sets;
    u->set_filter = calloc((size_t)sets, sizeof *u->set_filter);
    u->set_shared = calloc((size_t)sets, sizeof *u->set_shared);
    if (!u->set_filter || !u->set_shared)
        return -1;
    if (sets == 1)
        return 0;
    u->tail_old = es_alloc_channels(u->outputs, spectrum);
    u->tail_old_silent = calloc((size_t)u->outputs, 1);
    u->fade = es_alloc((size_t)u->part * sizeof(float));
    u->y_old = es_alloc((size_t)u->part * sizeof(float));
    if (!u->tail_old || !u->tail_old_silent || !u->fade || !u->y_old)
        return -1;
    const double quarter = 1.5707963267948966;
    for (int t = 0; t < u->part; t++) {
        const double s = sin(quarter * (t + 0.5) / u->part);
        u->fade[t] = (float)(s * s);
    }
    return 0;
}

void upols_sets_free(upols *u)
{
    for (int s = 0; u->set_filter && s < u->sets; s++) {
        float **filter = u->set_filter[s];
        for (int r = 0; filter && r < u->inputs * u->outputs; r++)
            if (!u->set_shared[s] || !u->set_shared[s][r])
                es_free(filter[r]);
        free(filter);
        free(u->set_shared[s]);
    }
    free(u->set_filter);
    free(u->set_shared);
    if (u->tail_old)
        es_free_channels(u->tail_old, u->outputs);
    free(u->tail_old_silent);
    es_free(u->fade);
    es_free(u->y_old);
}

ES_RT void upols_begin_block(upols *u)
{
    const int heard = u->heard;
    u->heard = 1;
    if (u->set_next == u->set_now)
        return;
    if (!heard) { /* nothing played yet: as if made with that set */
        u->filter = u->set_filter[u->set_next];
        u->filter_shared = u->set_shared[u->set_next];
        u->set_now = u->set_next;
        return;
    }
    u->filter_old = u->filter;
    u->filter = u->set_filter[u->set_next];
    u->filter_shared = u->set_shared[u->set_next];
    u->set_now = u->set_next;
    u->switching = 1;
    u->switches++;
    u->tail_ready = 0;
    /* Sums ahead were made with the old set's spectra. */
    u->phase = u->pass_blocks;
    /* tail_old is fresh: its silence flags say what it holds. */
    for (int o = 0; o < u->outputs; o++)
        u->tail_old_silent[o] = 0;
}

/* y = frames of output o through `filter`: its tail (computed at the
 * block's start) plus the newest block's product. */
static ES_RT void emit_with(upols *u, float *const *filter, const float *tail, int tail_silent,
                            int o, float *y, int frames)
{
    const size_t spectrum = (size_t)2 * u->stride;
    int added = !tail_silent;
    if (added)
        memcpy(u->acc, tail, spectrum * sizeof(float));
    else
        memset(u->acc, 0, spectrum * sizeof(float));
    for (int i = 0; i < u->inputs; i++) {
        const float *h = filter[i * u->outputs + o];
        if (h)
            added |= upols_mac_ages(u, u->acc, i, h, 0, 1);
    }
    upols_emit_output(u, u->acc, added, y, frames);
}

ES_RT void upols_switch_chunk(upols *u, const float *const *in, float *const *out, int offset,
                              int frames)
{
    if (!u->tail_ready) {
        upols_tail_of(u, u->filter_old, u->tail_old, u->tail_old_silent);
        upols_compute_tail(u);
    }
    for (int i = 0; i < u->inputs; i++)
        upols_take_input(u, in[i] + offset, i, frames);
    const float *fade = u->fade + u->fill;
    for (int o = 0; o < u->outputs; o++) {
        float *y = out[o] + offset;
        emit_with(u, u->filter_old, u->tail_old[o], u->tail_old_silent[o], o, u->y_old, frames);
        emit_with(u, u->filter, u->tail[o], u->tail_silent[o], o, y, frames);
        for (int t = 0; t < frames; t++)
            y[t] = u->y_old[t] + fade[t] * (y[t] - u->y_old[t]);
    }
    upols_advance(u, frames);
    if (u->fill == 0)
        u->switching = 0;
}

/* A set's rows replaced while the engine plays others (a blend between
 * measured sets, made for where the head is now): the new spectra are
 * made with scratch of their own, then the set's row table is swapped
 * and the old freed. The audio thread reads a set's table only when it
 * switches to it, after taking the request the caller publishes once this
 * returns (a release store, its acquire), so it sees the whole new set. */
int upols_load_set(upols *u, int set, const es_ir *ir, char *err, size_t n)
{
    if (set < 0 || set >= u->sets || u->sets < 2) {
        snprintf(err, n, "no set %d to load (the engine holds %d)", set + 1, u->sets);
        return -1;
    }
    if (ir->inputs != u->inputs || ir->outputs != u->outputs ||
        ir->length > u->parts * u->part) {
        snprintf(err, n, "a %d x %d set of %d taps does not fit sets of %d x %d and %d taps",
                 ir->inputs, ir->outputs, ir->length, u->inputs, u->outputs,
                 u->parts * u->part);
        return -1;
    }
    if (atomic_load_explicit(&u->settled, memory_order_acquire) == set) {
        snprintf(err, n, "set %d plays now", set + 1);
        return -1;
    }
    const size_t spectrum = (size_t)2 * u->stride;
    const int rows = u->inputs * u->outputs;
    float **filter = calloc((size_t)rows, sizeof *filter);
    unsigned char *shared = calloc((size_t)rows, 1);
    float *time = es_alloc((size_t)2 * u->part * sizeof(float));
    float *cplx = es_alloc((size_t)2 * (u->part + 1) * sizeof(float));
    int ok = filter && shared && time && cplx;
    for (int r = 0; ok && r < rows; r++) {
        if (!ir->taps[r])
            continue;
        if (!(filter[r] = es_alloc((size_t)u->parts * spectrum * sizeof(float))))
            ok = 0;
        else
            upols_transform_filter(u, ir->taps[r], ir->length, filter[r], time, cplx);
    }
    es_free(time);
    es_free(cplx);
    if (!ok) {
        for (int r = 0; filter && r < rows; r++)
            es_free(filter[r]);
        free(filter);
        free(shared);
        snprintf(err, n, "out of memory for a set of %d taps", ir->length);
        return -1;
    }
    float **old = u->set_filter[set];
    unsigned char *old_shared = u->set_shared[set];
    u->set_filter[set] = filter;
    u->set_shared[set] = shared;
    for (int r = 0; old && r < rows; r++)
        if (!old_shared || !old_shared[r])
            es_free(old[r]);
    free(old);
    free(old_shared);
    return 0;
}
