/* Filter sets: an engine over several sets of one shape, as a head-tracked
 * room holds one per orientation: cpu-partitioned (engines/partitioned_sets.c)
 * and cuda-partitioned (every set on the device; skipped, exit 77, without a
 * GPU).
 *
 *   test_sets [ENGINE]      (cpu-partitioned)
 *   test_sets --split [--cpu-heads] ENGINE
 *
 * --split: a room split in time (es_engine_create_split): each set a head
 * on the engine of ENGINE's kind that holds sets, and one tail shared by
 * every set, starting before or after the heads end, on ENGINE itself
 * (any of the six). The checks are the same, each set being its head
 * with the tail added at its start: the tail never switches, so only the
 * heads fade.
 *
 * On fresh random input and filters (the seed is printed), with switches
 * asked at random moments, the output is checked against the float64
 * direct convolution: every block plays the set asked for last before it
 * began, except that a block where the set changes is the fade, frame by
 * frame, from the old set's convolution of the whole input to the new
 * one's (the gains a raised cosine over the block, summing to one). So:
 *
 *   - the switch is within one block of the request, never later;
 *   - after it the new set sounds exactly as if it had always played
 *     (no priming, no hole): checked to -110 dB, and the last blocks
 *     against an engine of that set alone;
 *   - in whole-block calls, and in calls of random sizes where a switch
 *     asked in the middle of a block waits for the next;
 *   - switches on consecutive blocks, to the set playing (no switch),
 *     and to a set out of range (ignored);
 *   - status says the set playing and how many switches there were;
 *   - a set asked for before the first block (a head-tracked room that
 *     starts on the head's set) plays from it, with no fade and no
 *     switch counted;
 *   - a matrix with a path missing (2 x 2 with 1 -> 0 absent) as well as
 *     a mono source to two ears;
 *   - filters long enough for time-blocked MAC passes, whose sums ahead,
 *     made with the old set, a switch drops;
 *   - a set loaded while the engine plays another (es_engine_load_set, on
 *     a thread of its own while blocks are processed, as a head tracker's
 *     blender loads one): once asked for, the blocks after the switch are
 *     the float64 convolution of the whole input by the loaded filter;
 *     loading the set that plays, a set past the last, or a filter longer
 *     than the sets is refused in one line. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define SETS 5
#define FRAMES 12000

static const es_engine_class *engine;
/* --split: each set's head, the tail and where it starts; --cpu-heads:
 * the heads on cpu-partitioned whatever the tail's engine (as play puts
 * them under a GPU's tail to blend). */
static int split_mode, cpu_heads;

static const es_engine_class *heads_of(const es_engine_class *k)
{
    return cpu_heads ? es_engine_find("cpu-partitioned") : es_engine_heads_class(k);
}

typedef struct {
    es_ir *tail;
    int at;
} shared_tail;
/* The last split room's tail (make), for a set loaded into it. */
static shared_tail last_tail;

typedef struct {
    int at;  /* frame of the request: before the call that starts there */
    int set;
} request;

static es_ir *random_set(const char *layout, int length, uint64_t *rng)
{
    es_ir *ir = es_test_ir(layout, length, rng);
    /* The 2 x 2 matrix without its 1 -> 0 path. */
    if (ir && ir->inputs == 2 && ir->taps[1 * ir->outputs + 0]) {
        es_free(ir->taps[1 * ir->outputs + 0]);
        ir->taps[1 * ir->outputs + 0] = NULL;
    }
    return ir;
}

/* The set block b plays: the last request at or before its first frame. */
static int set_of_block(const request *r, int count, int b, int part)
{
    int set = 0;
    for (int k = 0; k < count; k++)
        if (r[k].at <= b * part && r[k].set >= 0 && r[k].set < SETS)
            set = r[k].set;
    return set;
}

/* Requests: random moments, some on consecutive blocks, one to the set
 * playing, one out of range. */
typedef struct {
    request at[41];
    int count;
    int first; /* the set asked before the first block; 0: none */
} requests;

static requests make_requests(int part, int random_calls, uint64_t *rng)
{
    requests r = {.count = 0};
    r.first = es_test_int(rng, 0, SETS - 1);
    if (r.first)
        r.at[r.count++] = (request){0, r.first};
    for (int at = part; at < FRAMES - 6 * part && r.count < 37;) {
        r.at[r.count].at = random_calls ? at + es_test_int(rng, 0, part - 1) : at;
        r.at[r.count].set = es_test_int(rng, 0, SETS - 1);
        r.count++;
        at += part * (es_test_int(rng, 0, 3) == 0 ? 1 : es_test_int(rng, 2, 12));
    }
    r.at[r.count] = (request){r.at[r.count - 1].at + part, SETS + 3}; /* ignored */
    r.count++;
    return r;
}

/* A check's stream: the engine, what it hears and plays, how it is called. */
typedef struct {
    es_engine *e;
    float **in, **out;
    int ins, outs;
    int part, random_calls;
} stream;

/* The whole input through the engine, each request between two calls. */
static void play(const stream *s, const requests *r, uint64_t *rng)
{
    const float **ip = calloc((size_t)s->ins, sizeof *ip);
    float **op = calloc((size_t)s->outs, sizeof *op);
    int at = 0, next = 0;
    while (at < FRAMES) {
        while (next < r->count && r->at[next].at <= at)
            es_engine_select_set(s->e, r->at[next++].set);
        int n = s->random_calls ? es_test_int(rng, 1, s->part) : s->part;
        if (next < r->count && at + n > r->at[next].at)
            n = r->at[next].at - at; /* the request comes between two calls */
        n = at + n > FRAMES ? FRAMES - at : n;
        for (int i = 0; i < s->ins; i++)
            ip[i] = s->in[i] + at;
        for (int o = 0; o < s->outs; o++)
            op[o] = s->out[o] + at;
        es_engine_process(s->e, ip, op, n);
        at += n;
    }
    free(ip);
    free(op);
}

/* The expected output, block by block: the set asked last before the
 * block began, a block where it changes faded from the old set's
 * convolution of the whole input to the new one's. How many switches that
 * makes, and the set at the end, in *switches and *last. */
static double **expected(es_ir **sets, const stream *s, const requests *r, int *switches,
                         int *last)
{
    const int part = s->part;
    double **ref[SETS];
    for (int k = 0; k < SETS; k++)
        ref[k] = es_ref_convolve(sets[k], s->in, FRAMES, FRAMES);
    double **want = malloc((size_t)s->outs * sizeof *want);
    for (int o = 0; o < s->outs; o++)
        want[o] = calloc(FRAMES, sizeof(double));
    *switches = 0;
    for (int b = 0; b * part < FRAMES; b++) {
        const int now = set_of_block(r->at, r->count, b, part);
        /* Block 0 plays what was asked before it, unfaded. */
        const int was = b > 0 ? set_of_block(r->at, r->count, b - 1, part) : now;
        *switches += now != was;
        *last = now;
        for (int t = 0; t < part && b * part + t < FRAMES; t++) {
            const double g = sin(1.5707963267948966 * (t + 0.5) / part);
            const double w = now != was ? g * g : 1.0;
            const int n = b * part + t;
            for (int o = 0; o < s->outs; o++)
                want[o][n] = (1 - w) * ref[was][o][n] + w * ref[now][o][n];
        }
    }
    for (int k = 0; k < SETS; k++) {
        for (int o = 0; o < s->outs; o++)
            free(ref[k][o]);
        free(ref[k]);
    }
    return want;
}

/* Seamless: the tail end equals an engine of the last set alone. */
static void tail_as_set_alone(const stream *s, const es_format *fmt, const es_options *opt,
                              const es_ir *set, int last, const char *what, uint64_t *rng)
{
    char err[256], line[400];
    es_engine *alone = es_engine_create(engine, fmt, set, opt, err, sizeof err);
    float **y = es_test_run(alone, set, s->in, FRAMES, FRAMES,
                            (es_call_pattern){s->part, 0, rng});
    const int from = FRAMES - 4 * s->part;
    double peak = 0, diff = 0;
    for (int o = 0; o < s->outs; o++)
        for (int t = from; t < FRAMES; t++) {
            peak = fmax(peak, fabs(y[o][t]));
            diff = fmax(diff, fabs((double)y[o][t] - s->out[o][t]));
        }
    const double seam = diff > 0 ? 20 * log10(diff / peak) : -INFINITY;
    snprintf(line, sizeof line, "%s: the last 4 blocks, set %d, against an engine of that set "
             "alone: %.1f dB", what, last, seam);
    es_test_check(seam < -110, line);
    es_engine_destroy(alone);
    es_test_free_planar(y, s->outs);
}

/* The output against the fades expected, and status against the requests. */
static void plays_what_was_asked(es_ir **sets, const stream *s, const requests *r,
                                 const char *what, int *last)
{
    char line[400];
    int switches;
    double **want = expected(sets, s, r, &switches, last);
    const double db = es_test_error_db(sets[0], s->out, want, FRAMES);
    snprintf(line, sizeof line, "%s: %d requests (set %d before the first block), %d switches, "
             "error %.1f dB against the float64 convolutions faded per block", what, r->count,
             r->first, switches, db);
    es_test_check(db < -110, line);
    es_engine_status st;
    es_engine_get_status(s->e, &st);
    snprintf(line, sizeof line, "%s: status says set %d after %llu switches (want %d after %d)",
             what, st.set, (unsigned long long)st.set_switches, *last, switches);
    es_test_check(st.set == *last && st.set_switches == (uint64_t)switches, line);
    for (int o = 0; o < s->outs; o++)
        free(want[o]);
    free(want);
}

/* The head with the tail added from frame `at`: the set it plays. */
static es_ir *joined(const es_ir *head, const shared_tail *t)
{
    const int length = t->at + t->tail->length > head->length ? t->at + t->tail->length
                                                               : head->length;
    es_ir *j = es_ir_create(head->inputs, head->outputs, length, head->sample_rate);
    for (int r = 0; r < head->inputs * head->outputs; r++) {
        if (!head->taps[r] && !t->tail->taps[r])
            continue;
        float *y = es_ir_path(j, r / head->outputs, r % head->outputs);
        for (int k = 0; head->taps[r] && k < head->length; k++)
            y[k] = head->taps[r][k];
        for (int k = 0; t->tail->taps[r] && k < t->tail->length; k++)
            y[t->at + k] += t->tail->taps[r][k];
    }
    return j;
}

/* The engine over the sets; with --split, over heads and a random tail,
 * the sets then each head joined to it. */
static es_engine *make(es_ir **sets, const es_format *fmt, const es_options *opt,
                       const char *layout, int part, uint64_t *rng, char *err, size_t n)
{
    if (!split_mode)
        return es_engine_create_sets(engine, fmt, (const es_ir *const *)sets, SETS, opt, err, n);
    shared_tail t = {.tail = random_set(layout, es_test_int(rng, 2 * part, 30 * part), rng),
                     .at = es_test_int(rng, sets[0]->length / 2, sets[0]->length + part)};
    /* The engine asked for picks its own partition for the tail. */
    const es_options tail_opt = {.offline = 1};
    es_engine *e = es_engine_create_split(heads_of(engine), engine, fmt,
                                          (const es_ir *const *)sets, SETS, opt, t.tail, t.at,
                                          &tail_opt, err, n);
    printf("     a tail of %d taps from frame %d, on %s; the heads on %s\n", t.tail->length,
           t.at, engine->name, heads_of(engine)->name);
    for (int k = 0; k < SETS; k++) {
        es_ir *whole = joined(sets[k], &t);
        es_ir_destroy(sets[k]);
        sets[k] = whole;
    }
    es_ir_destroy(last_tail.tail);
    last_tail = t;
    return e;
}

/* length 0: random, 3 to 40 partitions. */
static void check(const char *layout, int part, int random_calls, int length, uint64_t *rng)
{
    char err[256], what[200];
    length = length > 0 ? length : es_test_int(rng, 3 * part, 40 * part);
    es_ir *sets[SETS];
    for (int k = 0; k < SETS; k++)
        sets[k] = random_set(layout, length - es_test_int(rng, 0, part), rng);
    stream s = {.ins = sets[0]->inputs, .outs = sets[0]->outputs, .part = part,
                .random_calls = random_calls};
    es_format fmt = {.sample_rate = 48000, .max_block = part, .inputs = s.ins,
                     .outputs = s.outs};
    /* offline: a GPU engine's result is waited for, never dropped late. */
    es_options opt = {.partition = part, .offline = 1};
    snprintf(what, sizeof what, "%s%s: %s, %d sets of %d taps, partition %d, %s calls",
             split_mode ? "split, tail on " : "", engine->name, layout, SETS, length, part,
             random_calls ? "random" : "whole-block");
    s.e = make(sets, &fmt, &opt, layout, part, rng, err, sizeof err);
    if (!s.e) {
        printf("FAIL %s: %s\n", what, err);
        es_test_failures++;
        return;
    }
    const requests r = make_requests(part, random_calls, rng);
    s.in = es_test_planar(s.ins, FRAMES);
    s.out = es_test_planar(s.outs, FRAMES);
    for (int i = 0; i < s.ins; i++)
        for (int t = 0; t < FRAMES; t++)
            s.in[i][t] = (float)es_test_uniform(rng);
    play(&s, &r, rng);
    int last = 0;
    plays_what_was_asked(sets, &s, &r, what, &last);
    tail_as_set_alone(&s, &fmt, &opt, sets[last], last, what, rng);
    for (int k = 0; k < SETS; k++)
        es_ir_destroy(sets[k]);
    es_test_free_planar(s.in, s.ins);
    es_test_free_planar(s.out, s.outs);
    es_engine_destroy(s.e);
}

typedef struct {
    es_engine *e;
    const es_ir *ir;
    int set, rc;
    char err[256];
} load_job;

static void *load_thread(void *arg)
{
    load_job *j = arg;
    j->rc = es_engine_load_set(j->e, j->set, j->ir, j->err, sizeof j->err);
    return NULL;
}

static void load_refusals(es_engine *e, const es_ir *loaded, uint64_t *rng);

/* A set loaded on another thread while set 0 plays, then asked for. */
static void loads(uint64_t *rng)
{
    enum { PART = 64, LENGTH = 1500 };
    char err[256], what[600];
    es_ir *sets[SETS];
    for (int k = 0; k < SETS; k++)
        sets[k] = random_set("mono-stereo", LENGTH, rng);
    es_ir *loaded = random_set("mono-stereo", LENGTH - 100, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = PART, .inputs = 1, .outputs = 2};
    es_options opt = {.partition = PART, .offline = 1};
    es_engine *e = make(sets, &fmt, &opt, "mono-stereo", PART, rng, err, sizeof err);
    if (!e) {
        printf("FAIL loads: %s\n", err);
        es_test_failures++;
        return;
    }
    /* With --split the sets are now each head with the tail: the loaded
     * head plays with the same tail, which make() put at the start of
     * the heads' length or later. */
    stream s = {.e = e, .ins = 1, .outs = 2, .part = PART};
    s.in = es_test_planar(1, FRAMES);
    s.out = es_test_planar(2, FRAMES);
    for (int t = 0; t < FRAMES; t++)
        s.in[0][t] = (float)es_test_uniform(rng);
    const float *ip[1];
    float *op[2];
    load_job job = {.e = e, .ir = loaded, .set = SETS - 1};
    pthread_t loader;
    const int switch_at = FRAMES / 2 / PART * PART;
    for (int at = 0; at < FRAMES; at += PART) {
        if (at == 8 * PART)
            pthread_create(&loader, NULL, load_thread, &job);
        if (at == switch_at) {
            pthread_join(loader, NULL);
            es_engine_select_set(e, SETS - 1);
        }
        ip[0] = s.in[0] + at;
        op[0] = s.out[0] + at, op[1] = s.out[1] + at;
        es_engine_process(e, ip, op, FRAMES - at < PART ? FRAMES - at : PART);
    }
    /* The loaded filter as the room plays it: with --split, the loaded
     * head with the room's tail. */
    es_ir *want_ir = split_mode ? joined(loaded, &last_tail) : loaded;
    double **ref = es_ref_convolve(want_ir, s.in, FRAMES, FRAMES);
    const int from = switch_at + PART;
    double peak = 0, diff = 0;
    for (int o = 0; o < 2; o++)
        for (int t = from; t < FRAMES; t++) {
            peak = fmax(peak, fabs(ref[o][t]));
            diff = fmax(diff, fabs(s.out[o][t] - ref[o][t]));
        }
    const double err_db = diff > 0 ? 20 * log10(diff / peak) : -300;
    snprintf(what, sizeof what, "%s%s: a set loaded on another thread while set 1 played (%s), "
             "asked for: after the switch block %.1f dB from the float64 convolution by it",
             split_mode ? "split, tail on " : "", engine->name, job.rc ? job.err : "loaded",
             err_db);
    es_test_check(job.rc == 0 && err_db < -110, what);
    for (int o = 0; o < 2; o++)
        free(ref[o]);
    free(ref);
    if (want_ir != loaded)
        es_ir_destroy(want_ir);
    load_refusals(e, loaded, rng);
    es_ir_destroy(loaded);
    for (int k = 0; k < SETS; k++)
        es_ir_destroy(sets[k]);
    es_test_free_planar(s.in, 1);
    es_test_free_planar(s.out, 2);
    es_engine_destroy(e);
}

/* What es_engine_load_set refuses, in one line each: the set that plays
 * (the last loaded), a set past the last, a filter longer than the sets. */
static void load_refusals(es_engine *e, const es_ir *loaded, uint64_t *rng)
{
    char err[256], what[600];
    const int playing = es_engine_set_settled(e);
    const int rc_playing = es_engine_load_set(e, playing, loaded, err, sizeof err);
    snprintf(what, sizeof what, "loading set %d, which plays, refused: %s", playing + 1,
             rc_playing ? err : "(loaded)");
    es_test_check(playing == SETS - 1 && rc_playing != 0 && strstr(err, "plays now"), what);
    const int rc_past = es_engine_load_set(e, SETS, loaded, err, sizeof err);
    snprintf(what, sizeof what, "loading a set past the last refused: %s",
             rc_past ? err : "(loaded)");
    es_test_check(rc_past != 0, what);
    es_ir *longer = random_set("mono-stereo", 40 * loaded->length, rng);
    const int rc_long = es_engine_load_set(e, 0, longer, err, sizeof err);
    snprintf(what, sizeof what, "a set longer than the sets refused: %s",
             rc_long ? err : "(loaded)");
    es_test_check(rc_long != 0 && strstr(err, "does not fit"), what);
    es_ir_destroy(longer);
}

/* What es_engine_create_sets refuses, in one line each. */
static void refusals(uint64_t *rng)
{
    char err[256];
    es_ir *a = es_test_ir("mono-stereo", 500, rng), *b = es_test_ir("stereo", 500, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = 64, .inputs = 1, .outputs = 2};
    const es_ir *mixed[2] = {a, b};
    es_engine *e = es_engine_create_sets(engine, &fmt, mixed, 2,
                                         NULL, err, sizeof err);
    char line[400];
    snprintf(line, sizeof line, "sets of two shapes refused: %s", e ? "(made)" : err);
    es_test_check(!e && strstr(err, "set 2 of 2"), line);
    es_engine_destroy(e);
    const es_ir *one[1] = {a};
    e = es_engine_create_sets(es_engine_find("cpu-direct"), &fmt, one, 1, NULL, err, sizeof err);
    snprintf(line, sizeof line, "an engine without sets refused: %s", e ? "(made)" : err);
    es_test_check(!e && strstr(err, "does not switch filter sets"), line);
    es_engine_destroy(e);
    es_ir_destroy(a);
    es_ir_destroy(b);
}

int main(int argc, char **argv)
{
    split_mode = argc > 2 && !strcmp(argv[1], "--split");
    cpu_heads = argc > 3 && !strcmp(argv[2], "--cpu-heads");
    engine = es_engine_find(argc > 1 ? argv[argc - 1] : "cpu-partitioned");
    if (!engine) {
        fprintf(stderr, "usage: test_sets [ENGINE] | --split ENGINE\n");
        return 2;
    }
    char why[256];
    if (!engine->probe(why, sizeof why) ||
        (split_mode && !heads_of(engine)->probe(why, sizeof why))) {
        printf("SKIP %s: %s\n", engine->name, why);
        return 77;
    }
    uint64_t rng = es_test_seed();
    check("mono-stereo", 64, 0, 0, &rng);
    check("mono-stereo", 64, 1, 0, &rng);
    check("true-stereo", 128, 0, 0, &rng);
    check("true-stereo", 32, 1, 0, &rng);
    /* Over 1 MB of spectra a set: time-blocked passes, whose sums ahead
     * a switch drops (the output is longer than the input's frames). */
    if (!split_mode)
        check("mono-stereo", 256, 0, 48000, &rng);
    else /* heads of 50 ms, as a room's are */
        check("mono-stereo", 64, 0, 2400, &rng);
    if (!split_mode)
        refusals(&rng);
    if (heads_of(engine)->load_set)
        loads(&rng);
    es_ir_destroy(last_tail.tail);
    return es_test_failures ? 1 : 0;
}
