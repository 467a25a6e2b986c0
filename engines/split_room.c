/* A room of filter sets split in time (es_engine_create_split): the
 * heads, which switch with the listener's head, on an engine that holds
 * sets, and one tail for every set on an engine made for long filters.
 * The output is the sum of the two, as one engine over whole sets of
 * head + tail would give it.
 *
 * The tail starts `tail_at` samples into the room, so its filter leaves
 * out those samples of silence and its input is delayed by them instead;
 * a tail engine with latency of its own (a pipelined GPU) spends part of
 * that delay. The instance's latency is the larger of the two engines'
 * (the heads' input waits for the rest), so it is the latency the tail's
 * engine would have alone over the whole room: a host sees the engine it
 * asked for.
 *
 * The delays are rings on the inputs (rooms of this kind have few inputs
 * and two ears out), written and read in process(): real-time safe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"

typedef struct {
    float *ring;   /* `size` samples */
    float *block;  /* max_block: the delayed input, contiguous */
} delay_line;

typedef struct {
    es_engine base;
    es_engine_class klass; /* the tail class's name, caps and fallback, over these calls */
    es_engine *head, *tail;
    int inputs, outputs, max_block;
    int latency;
    int head_delay, tail_delay; /* frames each engine's input waits */
    int size, at;               /* the rings' length, where the next frame goes */
    delay_line *head_line, *tail_line; /* [inputs], NULL where the delay is 0 */
    const float **head_in, **tail_in;  /* [inputs] */
    float **tail_out;                  /* [outputs][max_block] */
    void (*gone)(void *ctx, es_engine *e); /* es_engine_watch */
    void *gone_ctx;
} split_room;

/* Writes `frames` of each input into its ring at s->at; then points in[]
 * at each input delayed by `delay`. */
static ES_RT void delayed(split_room *s, delay_line *lines, int delay, const float *const *in,
                          const float **to, int frames)
{
    for (int i = 0; i < s->inputs; i++) {
        if (!lines) {
            to[i] = in[i];
            continue;
        }
        delay_line *l = &lines[i];
        int from = s->at - delay;
        from += from < 0 ? s->size : 0;
        for (int t = 0; t < frames; t++) {
            int w = s->at + t, r = from + t;
            w -= w >= s->size ? s->size : 0;
            r -= r >= s->size ? s->size : 0;
            l->ring[w] = in[i][t];
            l->block[t] = l->ring[r];
        }
        to[i] = l->block;
    }
}

static ES_RT void split_process(es_engine *e, const float *const *in, float *const *out,
                                int frames)
{
    split_room *s = (split_room *)e;
    delayed(s, s->head_line, s->head_delay, in, s->head_in, frames);
    delayed(s, s->tail_line, s->tail_delay, in, s->tail_in, frames);
    s->at = (s->at + frames) % s->size;
    es_engine_process(s->head, s->head_in, out, frames);
    if (!s->tail)
        return;
    es_engine_process(s->tail, s->tail_in, s->tail_out, frames);
    for (int o = 0; o < s->outputs; o++)
        for (int t = 0; t < frames; t++)
            out[o][t] += s->tail_out[o][t];
}

static int split_latency(const es_engine *e)
{
    return ((const split_room *)e)->latency;
}

static void clear_lines(split_room *s, delay_line *lines)
{
    for (int i = 0; lines && i < s->inputs; i++)
        memset(lines[i].ring, 0, (size_t)s->size * sizeof(float));
}

static void split_reset(es_engine *e)
{
    split_room *s = (split_room *)e;
    es_engine_reset(s->head);
    if (s->tail)
        es_engine_reset(s->tail);
    clear_lines(s, s->head_line);
    clear_lines(s, s->tail_line);
    s->at = 0;
}

static void free_lines(delay_line *lines, int inputs)
{
    for (int i = 0; lines && i < inputs; i++) {
        es_free(lines[i].ring);
        es_free(lines[i].block);
    }
    free(lines);
}

static void split_destroy(es_engine *e)
{
    split_room *s = (split_room *)e;
    if (!s)
        return;
    if (s->gone)
        s->gone(s->gone_ctx, e);
    es_engine_destroy(s->head);
    es_engine_destroy(s->tail);
    free_lines(s->head_line, s->inputs);
    free_lines(s->tail_line, s->inputs);
    free(s->head_in);
    free(s->tail_in);
    if (s->tail_out)
        es_free_channels(s->tail_out, s->outputs);
    free(s);
}

/* What the two engines say, as one: the heads' set and switches, the
 * tail's helpers, both's late blocks, failures and device memory. */
static ES_RT void split_status(const es_engine *e, es_engine_status *st)
{
    const split_room *s = (const split_room *)e;
    es_engine_status head, tail;
    es_engine_get_status(s->head, &head);
    if (!s->tail) {
        *st = head;
        return;
    }
    es_engine_get_status(s->tail, &tail);
    *st = tail;
    st->late_results += head.late_results;
    st->late_levels += head.late_levels;
    if (head.failed && !tail.failed) {
        st->failed = 1;
        memcpy(st->message, head.message, sizeof st->message);
    }
    if (tail.helpers_realtime < 0) {
        st->helpers_realtime = head.helpers_realtime;
        memcpy(st->helpers, head.helpers, sizeof st->helpers);
    }
    st->helpers_cpu_ns += head.helpers_cpu_ns;
    st->gpu.bytes += head.gpu.bytes;
    st->gpu.max_us = head.gpu.max_us > st->gpu.max_us ? head.gpu.max_us : st->gpu.max_us;
    st->set = head.set;
    st->set_switches = head.set_switches;
}

static ES_RT void split_freewheel(es_engine *e, int on)
{
    split_room *s = (split_room *)e;
    es_engine_freewheel(s->head, on);
    if (s->tail)
        es_engine_freewheel(s->tail, on);
}

static ES_RT void split_select_set(es_engine *e, int set)
{
    es_engine_select_set(((split_room *)e)->head, set);
}

static int split_load_set(es_engine *e, int set, const es_ir *ir, char *err, size_t n)
{
    return es_engine_load_set(((split_room *)e)->head, set, ir, err, n);
}

static int split_set_settled(const es_engine *e)
{
    return es_engine_set_settled(((const split_room *)e)->head);
}

void es_engine_watch(es_engine *e, void (*gone)(void *ctx, es_engine *e), void *ctx)
{
    if (e->klass->destroy != split_destroy)
        return;
    split_room *s = (split_room *)e;
    s->gone = gone;
    s->gone_ctx = ctx;
}

static delay_line *make_lines(int inputs, int size, int max_block)
{
    delay_line *lines = calloc((size_t)inputs, sizeof *lines);
    for (int i = 0; lines && i < inputs; i++) {
        lines[i].ring = es_alloc((size_t)size * sizeof(float));
        lines[i].block = es_alloc((size_t)max_block * sizeof(float));
        if (!lines[i].ring || !lines[i].block) {
            free_lines(lines, inputs);
            return NULL;
        }
        memset(lines[i].ring, 0, (size_t)size * sizeof(float));
    }
    return lines;
}

es_engine *es_engine_create_split(const es_engine_class *head_k, const es_engine_class *tail_k,
                                  const es_format *fmt, const es_ir *const *heads, int count,
                                  const es_options *head_opt, const es_ir *tail, int tail_at,
                                  const es_options *tail_opt, char *err, size_t n)
{
    split_room *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    static const es_engine_class calls = {
        .process = split_process, .latency = split_latency, .reset = split_reset,
        .destroy = split_destroy, .status = split_status, .freewheel = split_freewheel,
        .select_set = split_select_set, .load_set = split_load_set,
        .set_settled = split_set_settled};
    s->klass = es_engine_class_over(tail_k, &calls);
    s->klass.caps |= ES_CAP_SETS;
    s->base.klass = &s->klass;
    s->inputs = fmt->inputs;
    s->outputs = fmt->outputs;
    s->max_block = fmt->max_block;
    char why[512];
    if (!(s->head = es_engine_create_sets(head_k, fmt, heads, count, head_opt, why, sizeof why))) {
        snprintf(err, n, "the heads on %s: %s", head_k->name, why);
        goto fail;
    }
    const int head_latency = es_engine_latency(s->head);
    int tail_latency = 0;
    if (tail) {
        if (!(s->tail = es_engine_create(tail_k, fmt, tail, tail_opt, why, sizeof why))) {
            snprintf(err, n, "the tail on %s: %s", tail_k->name, why);
            goto fail;
        }
        tail_latency = es_engine_latency(s->tail);
    }
    s->latency = head_latency > tail_latency ? head_latency : tail_latency;
    s->head_delay = s->latency - head_latency;
    s->tail_delay = tail ? s->latency - tail_latency + tail_at : 0;
    const int longest = s->head_delay > s->tail_delay ? s->head_delay : s->tail_delay;
    s->size = longest + fmt->max_block;
    s->head_in = calloc((size_t)s->inputs, sizeof *s->head_in);
    s->tail_in = calloc((size_t)s->inputs, sizeof *s->tail_in);
    if (!s->head_in || !s->tail_in)
        goto nomem;
    if (s->head_delay && !(s->head_line = make_lines(s->inputs, s->size, fmt->max_block)))
        goto nomem;
    if (s->tail_delay && !(s->tail_line = make_lines(s->inputs, s->size, fmt->max_block)))
        goto nomem;
    if (tail && !(s->tail_out = es_alloc_channels(s->outputs, (size_t)fmt->max_block)))
        goto nomem;
    es_engine_count_created();
    return &s->base;
nomem:
    snprintf(err, n, "out of memory for a split room's delays");
fail:
    split_destroy(&s->base);
    return NULL;
}
