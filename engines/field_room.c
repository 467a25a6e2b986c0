/* A room recorded in spherical harmonics, turned with the head and
 * decoded (es_engine_create_field, ambisonic.h).
 *
 * The room is convolved once, into its SH channels, whichever way the
 * head turns: turning is a rotation of those channels, a block-diagonal
 * matrix (a square per degree) computed on the audio thread when the
 * orientation changes (es_sh_rotation allocates nothing, about 20 us at
 * order 7) and interpolated sample by sample across the block from the
 * last block's, so a turning head hears a continuous field. An engine
 * that has played nothing since it was made or reset starts at the
 * orientation asked, as an engine of sets starts on its set. The decoder
 * (two ears from every SH channel, or a loudspeaker array's feeds) runs
 * after it on cpu-partitioned; a decoder of one tap a path (AllRAD's
 * gains) is applied as a matrix.
 *
 * The orientation arrives through one atomic word (es_orientation_pack),
 * so any thread may set it and the audio thread never waits. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ambisonic.h"
#include "classes.h"
#include "core/clock.h"

typedef struct {
    es_engine base;
    es_engine_class klass; /* the room class's name and caps over these calls */
    es_engine *room, *decoder;
    const float *gains;    /* a decoder of one tap a path: [K * outputs]; else NULL */
    int order, channels, outputs, max_block;
    int latency;
    _Atomic uint64_t asked; /* the newest orientation (packed), 0: none yet */
    uint64_t applied;       /* the one `now` holds */
    double *now, *next;     /* ES_AMBI_BLOCKS(order) each */
    float **sh, **turned;   /* [channels][max_block] */
    float *ramp;            /* [max_block] */
    float angles[3];
    uint64_t turns;
    double us, us_max;
    int played; /* a block since it was made or reset: a turn is ramped */
} field_room;

static ES_RT void field_orient(es_engine *e, float yaw, float pitch, float roll)
{
    atomic_store_explicit(&((field_room *)e)->asked, es_orientation_pack(yaw, pitch, roll),
                          memory_order_relaxed);
}

/* turned = the rotation of sh, each coefficient moving from `now`'s to
 * `next`'s across the block (next NULL: `now` throughout). */
static ES_RT void rotate(field_room *f, const double *next, int frames)
{
    const double *b = f->now, *c = next;
    for (int l = 0; l <= f->order; l++) {
        const int first = l * l, side = 2 * l + 1;
        for (int i = 0; i < side; i++) {
            float *y = f->turned[first + i];
            memset(y, 0, sizeof(float) * (size_t)frames);
            for (int j = 0; j < side; j++) {
                const float from = (float)b[i * side + j];
                const float *x = f->sh[first + j];
                if (!c) {
                    if (from != 0.0f)
                        for (int t = 0; t < frames; t++)
                            y[t] += from * x[t];
                    continue;
                }
                const float step = (float)c[i * side + j] - from;
                if (from == 0.0f && step == 0.0f)
                    continue;
                for (int t = 0; t < frames; t++)
                    y[t] += (from + step * f->ramp[t]) * x[t];
            }
        }
        b += side * side;
        if (c)
            c += side * side;
    }
}

/* out = gains applied to turned (a decoder of one tap a path). */
static ES_RT void apply_gains(const field_room *f, float *const *out, int frames)
{
    for (int o = 0; o < f->outputs; o++) {
        memset(out[o], 0, sizeof(float) * (size_t)frames);
        for (int k = 0; k < f->channels; k++) {
            const float g = f->gains[k * f->outputs + o];
            if (g != 0.0f)
                for (int t = 0; t < frames; t++)
                    out[o][t] += g * f->turned[k][t];
        }
    }
}

static ES_RT void field_process(es_engine *e, const float *const *in, float *const *out,
                                int frames)
{
    field_room *f = (field_room *)e;
    es_engine_process(f->room, in, f->sh, frames);
    const long long from = es_now_ns();
    const uint64_t asked = atomic_load_explicit(&f->asked, memory_order_relaxed);
    if (asked && asked != f->applied) {
        es_orientation_unpack(asked, f->angles);
        es_rotation m;
        es_head_field_matrix(f->angles[0], f->angles[1], f->angles[2], &m);
        es_sh_rotation(f->order, &m, f->next);
        for (int t = 0; t < frames; t++)
            f->ramp[t] = (float)(t + 1) / (float)frames;
        /* Nothing heard yet: it starts turned, as if it always was. */
        if (!f->played)
            memcpy(f->now, f->next, sizeof(double) * ES_AMBI_BLOCKS(f->order));
        rotate(f, f->played ? f->next : NULL, frames);
        memcpy(f->now, f->next, sizeof(double) * ES_AMBI_BLOCKS(f->order));
        f->applied = asked;
        f->turns++;
    } else {
        rotate(f, NULL, frames);
    }
    if (f->gains)
        apply_gains(f, out, frames);
    else
        es_engine_process(f->decoder, (const float *const *)f->turned, out, frames);
    f->played = 1;
    f->us = 1e-3 * (double)(es_now_ns() - from);
    f->us_max = f->us > f->us_max ? f->us : f->us_max;
}

static int field_latency(const es_engine *e)
{
    return ((const field_room *)e)->latency;
}

static void field_reset(es_engine *e)
{
    field_room *f = (field_room *)e;
    f->played = 0;
    es_engine_reset(f->room);
    if (f->decoder)
        es_engine_reset(f->decoder);
}

static void field_destroy(es_engine *e)
{
    field_room *f = (field_room *)e;
    if (!f)
        return;
    es_engine_destroy(f->room);
    es_engine_destroy(f->decoder);
    free((void *)f->gains);
    free(f->now);
    free(f->next);
    if (f->sh)
        es_free_channels(f->sh, f->channels);
    if (f->turned)
        es_free_channels(f->turned, f->channels);
    es_free(f->ramp);
    free(f);
}

static ES_RT void field_status(const es_engine *e, es_engine_status *st)
{
    const field_room *f = (const field_room *)e;
    es_engine_get_status(f->room, st);
    if (f->decoder) {
        es_engine_status d;
        es_engine_get_status(f->decoder, &d);
        st->late_results += d.late_results;
        if (d.failed && !st->failed) {
            st->failed = 1;
            memcpy(st->message, d.message, sizeof st->message);
        }
    }
    st->field_order = f->order;
    st->field_yaw = f->angles[0];
    st->field_pitch = f->angles[1];
    st->field_roll = f->angles[2];
    st->field_turns = f->turns;
    st->field_us = f->us;
    st->field_us_max = f->us_max;
}

static ES_RT void field_freewheel(es_engine *e, int on)
{
    field_room *f = (field_room *)e;
    es_engine_freewheel(f->room, on);
    if (f->decoder)
        es_engine_freewheel(f->decoder, on);
}

/* The decoder: gains when every path is one tap, else an engine. */
static int make_decoder(field_room *f, const es_format *fmt, const es_ir *decoder,
                        const es_options *opt, char *err, size_t n)
{
    if (decoder->length == 1) {
        float *g = calloc((size_t)f->channels * (size_t)f->outputs, sizeof *g);
        if (!g) {
            snprintf(err, n, "out of memory");
            return -1;
        }
        for (int k = 0; k < f->channels; k++)
            for (int o = 0; o < f->outputs; o++)
                g[k * f->outputs + o] = decoder->taps[k * f->outputs + o]
                                            ? decoder->taps[k * f->outputs + o][0]
                                            : 0.0f;
        f->gains = g;
        return 0;
    }
    const es_format dfmt = {.sample_rate = fmt->sample_rate, .max_block = fmt->max_block,
                            .inputs = f->channels, .outputs = fmt->outputs};
    const es_options dopt = {.offline = opt ? opt->offline : 0};
    char why[400];
    if (!(f->decoder = es_engine_create(&es_engine_cpu_partitioned, &dfmt, decoder, &dopt, why,
                                        sizeof why))) {
        snprintf(err, n, "the decoder: %s", why);
        return -1;
    }
    return 0;
}

es_engine *es_engine_create_field(const es_engine_class *room_k, const es_format *fmt,
                                  const es_ir *room, const es_options *opt, const es_ir *decoder,
                                  int order, char *err, size_t n)
{
    const int channels = ES_AMBI_CHANNELS(order);
    if (order < 0 || order > ES_AMBI_ORDER_MAX || room->outputs != channels ||
        decoder->inputs != channels || decoder->outputs != fmt->outputs) {
        snprintf(err, n, "a field room of order %d needs %d SH channels; the room has %d "
                 "outputs, the decoder %d inputs and %d outputs (the stream %d)", order,
                 channels, room->outputs, decoder->inputs, decoder->outputs, fmt->outputs);
        return NULL;
    }
    field_room *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    static const es_engine_class calls = {
        .process = field_process, .latency = field_latency, .reset = field_reset,
        .destroy = field_destroy, .status = field_status, .freewheel = field_freewheel,
        .orient = field_orient};
    f->klass = es_engine_class_over(room_k, &calls);
    f->klass.caps &= ~ES_CAP_SETS;
    f->base.klass = &f->klass;
    f->order = order;
    f->channels = channels;
    f->outputs = fmt->outputs;
    f->max_block = fmt->max_block;
    const es_format rfmt = {.sample_rate = fmt->sample_rate, .max_block = fmt->max_block,
                            .inputs = fmt->inputs, .outputs = channels};
    char why[400];
    if (!(f->room = es_engine_create(room_k, &rfmt, room, opt, why, sizeof why))) {
        snprintf(err, n, "%s", why);
        goto fail;
    }
    if (make_decoder(f, fmt, decoder, opt, err, n) != 0)
        goto fail;
    f->latency = es_engine_latency(f->room) + (f->decoder ? es_engine_latency(f->decoder) : 0);
    f->now = calloc(ES_AMBI_BLOCKS(order), sizeof(double));
    f->next = calloc(ES_AMBI_BLOCKS(order), sizeof(double));
    f->sh = es_alloc_channels(channels, (size_t)fmt->max_block);
    f->turned = es_alloc_channels(channels, (size_t)fmt->max_block);
    f->ramp = es_alloc(sizeof(float) * (size_t)fmt->max_block);
    if (!f->now || !f->next || !f->sh || !f->turned || !f->ramp) {
        snprintf(err, n, "out of memory for a field room's channels");
        goto fail;
    }
    const es_rotation ahead = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    es_sh_rotation(order, &ahead, f->now);
    es_engine_count_created();
    return &f->base;
fail:
    field_destroy(&f->base);
    return NULL;
}
