/* Primed swaps in the processor, for every engine that runs here (the GPU
 * engines through their offline path, where there is a GPU), against the
 * float64 convolution of the whole input:
 *   - engine switches: a true-stereo room of 0.5 s, fresh random input in
 *     blocks of 256, each engine in turn swapped in every 0.4 s, primed by
 *     a builder (here, between two blocks: the ringing of what the
 *     stream heard, from history.h, into the swap's buffer); the output
 *     follows the convolution of the whole input through every swap and
 *     crossfade, below -110 dB of its peak (an unprimed swap is near
 *     0 dB: the new engine starts empty);
 *   - a room switch, primed: after the crossfade, the output is the new
 *     room's convolution of the whole input, below -110 dB;
 *   - a builder that never answers: after ES_PRIME_WAIT_MS the engine
 *     plays unprimed (prime_late 1) and the processor lets go of the
 *     buffer;
 *   - a panic's history reads as silence.
 * Every other engine made lends its outputs (wrap_engine.h's lender, as a
 * GPU engine lends its mapped staging), so swaps and crossfades run
 * between one that lends and one that does not, the ringing added where
 * the engine lent.
 *
 *   test_primed_swaps */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "processor.h"
#include "reference.h"
#include "ringing.h"
#include "wrap_engine.h"

#define RATE 48000.0
#define BLOCK 256
#define SWAP_EVERY 75 /* blocks: 0.4 s */

typedef struct {
    float **ringing;   /* the swap's buffer */
    es_ringing *plan;
    uint64_t ticket;   /* 0: none under way */
} priming;

/* Primings under way: a slot's buffer is held until its ringing played
 * out, which may outlast the next swap. */
#define PRIMINGS 4
typedef struct {
    priming at[PRIMINGS];
} builder;

static const es_engine_class *usable[16];
static int usable_count;

static es_engine *make(const es_engine_class *k, const es_ir *ir)
{
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    es_options opt = {.offline = 1};
    char err[256];
    es_engine *e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err);
    if (!e) {
        printf("FAIL %s: %s\n", k->name, err);
        exit(1);
    }
    static int made;
    if (made++ % 2 && !(e = es_test_lender(e, ir->outputs, BLOCK))) {
        printf("FAIL %s: out of memory for a lender\n", k->name);
        exit(1);
    }
    return e;
}

/* Queues a primed swap to `k` on `ir`; the priming it is. */
static int unprimed; /* the control: swaps without their ringing */

static priming *swap(es_processor *p, builder *bs, const es_engine_class *k, const es_ir *ir,
                     int same_filter)
{
    priming *b = &bs->at[0];
    while (b->ticket)
        b++; /* (the tests keep fewer under way than PRIMINGS) */
    const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = ir->inputs,
                           .outputs = ir->outputs};
    char err[256];
    b->plan = es_ringing_create(ir, es_processor_latency(p), (size_t)1 << 30, err, sizeof err);
    b->ringing = es_test_planar(ir->outputs, es_ringing_frames(b->plan) + 1);
    const es_swap_how how = {.ab = -1, .same_filter = same_filter,
                             .ringing = unprimed ? NULL : b->ringing,
                             .ringing_frames = es_ringing_frames(b->plan)};
    if (es_processor_swap_with(p, make(k, ir), &fmt, &how, &b->ticket, err, sizeof err)) {
        printf("FAIL swap to %s: %s\n", k->name, err);
        exit(1);
    }
    if (unprimed) { /* nothing for the builder to do */
        es_ringing_destroy(b->plan);
        es_test_free_planar(b->ringing, 2);
        *b = (priming){0};
    }
    return b;
}

/* The builder's turn between two blocks: primes an adopted swap; frees
 * the buffer of one the processor let go of. */
static void build_one(es_history *h, priming *b, int answer)
{
    uint64_t start;
    if (b->plan && answer && es_history_started(h, b->ticket, &start)) {
        const int past = es_ringing_past_frames(b->plan);
        float **x = es_test_planar(es_history_inputs(h), past);
        const int ok = es_history_read(h, (int64_t)start - past, past, x) == 0;
        if (ok)
            es_ringing_run(b->plan, (const float *const *)x, b->ringing);
        es_history_set_primed(h, b->ticket, ok);
        es_test_free_planar(x, es_history_inputs(h));
        es_ringing_destroy(b->plan);
        b->plan = NULL;
    }
    if (b->ringing && !b->plan && !es_history_holds(h, b->ticket)) {
        es_test_free_planar(b->ringing, 2);
        b->ringing = NULL;
        b->ticket = 0;
    }
}

static void build(es_history *h, builder *bs, int answer)
{
    for (int k = 0; k < PRIMINGS; k++)
        build_one(h, &bs->at[k], answer);
}

/* What is left once the processor is gone. */
static void builder_free(builder *bs)
{
    for (int k = 0; k < PRIMINGS; k++) {
        es_ringing_destroy(bs->at[k].plan);
        if (bs->at[k].ringing)
            es_test_free_planar(bs->at[k].ringing, 2);
    }
    *bs = (builder){0};
}

static es_processor *make_processor(const es_ir *ir, int latency)
{
    const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = ir->inputs,
                           .outputs = ir->outputs};
    const es_processor_config pc = {.mix = {.wet = 1, .gain = 1}, .max_latency = latency,
                                    .history_frames = 4 * (int)RATE};
    char err[256];
    es_processor *p = es_processor_create(&fmt, make(usable[0], ir), &pc, err, sizeof err);
    if (!p) {
        printf("FAIL processor: %s\n", err);
        exit(1);
    }
    return p;
}

/* The worst error, in dB of the reference's peak, of y against ref
 * delayed by `latency`, over frames from..to-1. */
static double error_db(float **y, double **ref, int latency, int from, int to)
{
    double peak = 0, err = 0;
    for (int o = 0; o < 2; o++)
        for (int t = from; t < to; t++) {
            const double want = t >= latency ? ref[o][t - latency] : 0;
            peak = fmax(peak, fabs(want));
            err = fmax(err, fabs(y[o][t] - want));
        }
    return err == 0 ? -300 : 20 * log10(err / peak);
}

/* Runs x through p, block by block, the builder between blocks, calling
 * at(block) first each block. */
static void run(es_processor *p, es_history *h, builder *b, float **x, float **y, int frames,
                void (*at)(es_processor *, builder *, int, void *), void *ctx, int answer)
{
    float **out = es_test_planar(2, BLOCK);
    for (int blk = 0; blk * BLOCK < frames; blk++) {
        if (at)
            at(p, b, blk, ctx);
        const float *in[2] = {x[0] + blk * BLOCK, x[1] + blk * BLOCK};
        es_processor_process(p, in, out, BLOCK);
        for (int o = 0; o < 2; o++)
            memcpy(y[o] + blk * BLOCK, out[o], BLOCK * sizeof(float));
        build(h, b, answer);
        es_processor_collect(p);
    }
    es_test_free_planar(out, 2);
}

typedef struct {
    const es_ir *ir, *other;
    int swaps;
} plan_ctx;

/* Every SWAP_EVERY blocks the next engine, the same room. */
static void engine_turns(es_processor *p, builder *b, int blk, void *ctx)
{
    plan_ctx *c = ctx;
    if (blk == 0 || blk % SWAP_EVERY)
        return;
    const es_engine_class *k = usable[(blk / SWAP_EVERY) % usable_count];
    swap(p, b, k, c->ir, 1);
    c->swaps++;
}

/* Once, at block 3 * SWAP_EVERY: the other room. */
static void room_turn(es_processor *p, builder *b, int blk, void *ctx)
{
    plan_ctx *c = ctx;
    if (blk == 3 * SWAP_EVERY)
        swap(p, b, usable[usable_count - 1], c->other, 0), c->swaps++;
}

/* A fresh processor on `room` through x into y, at(block) each block, the
 * builder answering or not; its stats at the end. */
static void play_through(const es_ir *room, int latency, float **x, float **y, int frames,
                         void (*at)(es_processor *, builder *, int, void *), plan_ctx *c,
                         int answer, es_stats *st)
{
    es_processor *p = make_processor(room, latency);
    es_history *h = es_processor_history(p);
    builder b = {0};
    run(p, h, &b, x, y, frames, at, c, answer);
    es_processor_stats(p, st);
    es_history_unref(h);
    es_processor_destroy(p);
    builder_free(&b);
}

/* What every check plays: two rooms, the input, its convolution by each,
 * and the processor's latency. */
typedef struct {
    es_ir *room, *other;
    int frames, latency;
    float **x, **y;
    double **ref, **ref_other;
} scene;

static void find_usable_engines(void)
{
    for (int k = 0; es_engines[k] && usable_count < 16; k++) {
        char why[256];
        if (es_engines[k]->probe(why, sizeof why))
            usable[usable_count++] = es_engines[k];
        else
            printf("skip %s: %s\n", es_engines[k]->name, why);
    }
}

/* The processor's latency: the largest engine's, so that every engine fits
 * (each is delayed to it). */
static int largest_latency(const es_ir *room)
{
    int latency = 0;
    for (int k = 0; k < usable_count; k++) {
        es_engine *e = make(usable[k], room);
        latency = es_engine_latency(e) > latency ? es_engine_latency(e) : latency;
        es_engine_destroy(e);
    }
    return latency;
}

static scene scene_create(uint64_t *rng)
{
    scene s = {.room = es_test_ir("true-stereo", 24000, rng),
               .other = es_test_ir("true-stereo", 15000, rng),
               .frames = 6 * SWAP_EVERY * BLOCK};
    s.x = es_test_planar(2, s.frames);
    s.y = es_test_planar(2, s.frames);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < s.frames; t++)
            s.x[i][t] = (float)es_test_uniform(rng) * 0.001f; /* output near -20 dBFS */
    s.latency = largest_latency(s.room);
    s.ref = es_ref_convolve(s.room, s.x, s.frames, s.frames);
    s.ref_other = es_ref_convolve(s.other, s.x, s.frames, s.frames);
    return s;
}

static void scene_free(scene *s)
{
    es_test_free_planar(s->ref, 2);
    es_test_free_planar(s->ref_other, 2);
    es_test_free_planar(s->x, 2);
    es_test_free_planar(s->y, 2);
    es_ir_destroy(s->room);
    es_ir_destroy(s->other);
}

/* 1. Engine switches. */
static void engine_switches_follow_convolution(const scene *s)
{
    es_stats st;
    plan_ctx c = {.ir = s->room};
    play_through(s->room, s->latency, s->x, s->y, s->frames, engine_turns, &c, 1, &st);
    const double db = error_db(s->y, s->ref, s->latency, 0, s->frames);
    char what[300];
    snprintf(what, sizeof what, "%d primed engine swaps through %d engines (primed %llu, "
             "swaps %llu): the output is the whole input's convolution, %.1f dB",
             c.swaps, usable_count, (unsigned long long)st.primed,
             (unsigned long long)st.swaps, db);
    es_test_check(c.swaps >= 4 && st.primed == (uint64_t)c.swaps &&
                      st.swaps == (uint64_t)c.swaps && db < -110,
                  what);
}

/* The control: the same swaps unprimed miss the past; the check sees it. */
static void unprimed_swaps_miss_the_past(const scene *s)
{
    es_stats st;
    unprimed = 1;
    plan_ctx c = {.ir = s->room};
    play_through(s->room, s->latency, s->x, s->y, s->frames, engine_turns, &c, 0, &st);
    const double db = error_db(s->y, s->ref, s->latency, 0, s->frames);
    char what[300];
    snprintf(what, sizeof what, "the same swaps unprimed (the control): %.1f dB", db);
    es_test_check(db > -20, what);
    unprimed = 0;
}

/* 2. A room switch. */
static void room_switch_follows_convolution(const scene *s)
{
    es_stats st;
    plan_ctx c = {.ir = s->room, .other = s->other};
    play_through(s->room, s->latency, s->x, s->y, s->frames, room_turn, &c, 1, &st);
    const int switched = 3 * SWAP_EVERY * BLOCK;
    const int faded = switched + (int)(0.05 * RATE) + 2 * BLOCK; /* the default crossfade */
    const double before = error_db(s->y, s->ref, s->latency, 0, switched);
    const double after = error_db(s->y, s->ref_other, s->latency, faded, s->frames);
    char what[300];
    snprintf(what, sizeof what, "a primed room switch: before it the first room, %.1f dB; after "
             "the crossfade the second room's convolution of the whole input, %.1f dB",
             before, after);
    es_test_check(before < -110 && after < -110, what);
}

/* 3. A builder that never answers. */
static void unanswered_priming_lets_go(es_processor *p, es_history *h, const scene *s)
{
    builder b = {0};
    priming *never = swap(p, &b, usable[0], s->room, 1);
    const int wait_blocks = (int)(ES_PRIME_WAIT_MS * 1e-3 * RATE) / BLOCK + 30;
    float **out = es_test_planar(2, BLOCK);
    for (int blk = 0; blk < wait_blocks; blk++) {
        const float *in[2] = {s->x[0] + blk * BLOCK % (s->frames - BLOCK),
                              s->x[1] + blk * BLOCK % (s->frames - BLOCK)};
        es_processor_process(p, in, out, BLOCK);
        es_processor_collect(p);
    }
    es_stats st;
    es_processor_stats(p, &st);
    char what[300];
    snprintf(what, sizeof what, "an unanswered priming: played unprimed after %.0f ms "
             "(prime_late %llu, swaps %llu), its buffer let go", ES_PRIME_WAIT_MS,
             (unsigned long long)st.prime_late, (unsigned long long)st.swaps);
    es_test_check(st.prime_late == 1 && st.swaps == 1 && !es_history_holds(h, never->ticket),
                  what);
    builder_free(&b);
    es_test_free_planar(out, 2);
}

/* 4. A panic forgets. */
static void panic_forgets_the_past(es_processor *p, es_history *h, const scene *s)
{
    float **out = es_test_planar(2, BLOCK);
    es_processor_mute(p, 1);
    const float *in[2] = {s->x[0], s->x[1]};
    es_processor_process(p, in, out, BLOCK);
    float **past = es_test_planar(2, 4 * BLOCK);
    const uint64_t heard = es_history_heard(h);
    const int read = es_history_read(h, (int64_t)heard - 4 * BLOCK, 4 * BLOCK, past);
    double before_panic = 0, after_panic = 0;
    for (int t = 0; t < 4 * BLOCK; t++)
        *(t < 3 * BLOCK ? &before_panic : &after_panic) += fabs(past[0][t]);
    es_test_check(read == 0 && before_panic == 0 && after_panic > 0,
                  "a panic: what was heard before it reads as silence, what came after not");
    es_test_free_planar(past, 2);
    es_test_free_planar(out, 2);
}

int main(void)
{
    uint64_t rng = es_test_seed();
    find_usable_engines();
    scene s = scene_create(&rng);

    engine_switches_follow_convolution(&s);
    unprimed_swaps_miss_the_past(&s);
    room_switch_follows_convolution(&s);
    /* The panic comes on the processor the unanswered priming left. */
    es_processor *p = make_processor(s.room, s.latency);
    es_history *h = es_processor_history(p);
    unanswered_priming_lets_go(p, h, &s);
    panic_forgets_the_past(p, h, &s);
    es_history_unref(h);
    es_processor_destroy(p);

    scene_free(&s);
    return es_test_failures ? 1 : 0;
}
