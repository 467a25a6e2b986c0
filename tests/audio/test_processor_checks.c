/* What the processor refuses, and that refusing loses nothing.
 *
 *   test_processor_checks backpressure
 *     An audio thread plays while the control side swaps engines as fast
 *     as it can without collecting: the processor accepts
 *     ES_PROCESSOR_SWAPS_MAX swaps, then refuses (and says so, and
 *     es_processor_can_swap says 0) until es_processor_collect makes room,
 *     also once every crossfade is over. Then thousands of swaps with
 *     collecting only when refused. Every swap accepted completes, and
 *     every engine made is destroyed exactly once: a counting test double
 *     (wrap_engine.h) wraps each, and is first shown to see an engine left
 *     alive and one destroyed twice.
 *   test_processor_checks format
 *     A swap to an engine built for other outputs, inputs, sample rate or
 *     a smaller max_block is refused with a message, and the caller still
 *     owns the engine (it destroys it, and the census counts one destroy).
 *     A larger max_block fits.
 *   test_processor_checks mix
 *     NaN, infinite, negative and too large wet, dry or gain are refused by
 *     es_processor_set_mix and es_processor_create; nothing reaches the
 *     audio path: the output stays finite and equal, bit for bit, to a
 *     processor that was never sent them. Values at the limits pass. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "processor.h"
#include "reference.h"
#include "wrap_engine.h"

#define RATE 48000.0
#define BLOCK 64
#define TAPS 32
#define ROUNDS 20          /* fill-up rounds without collecting */
#define FAST_SWAPS 2000    /* then swaps collected only when refused */

static const es_format stream = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                                 .outputs = 2};

static es_ir *room(const es_format *f, uint64_t *rng)
{
    es_ir *ir = es_ir_create(f->inputs, f->outputs, TAPS, f->sample_rate);
    for (int i = 0; i < f->inputs; i++)
        for (int o = 0; o < f->outputs; o++) {
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < TAPS; t++)
                h[t] = (float)(0.2 * es_test_uniform(rng) * exp(-4.0 * t / TAPS));
        }
    return ir;
}

/* A counted cpu-direct engine for `f`, or NULL with a FAIL line. */
static es_engine *build(const es_format *f, const es_ir *ir)
{
    char err[256];
    es_engine *e = es_test_wrap_create(es_engine_find("cpu-direct"), f, ir, err, sizeof err);
    if (!e) {
        printf("FAIL create: %s\n", err);
        es_test_failures++;
    }
    return e;
}

static es_processor *processor(es_engine *e, es_mix mix)
{
    es_processor_config cfg = {.mix = mix, .crossfade_ms = 2};
    char err[256];
    es_processor *p = e ? es_processor_create(&stream, e, &cfg, err, sizeof err) : NULL;
    if (!p) {
        printf("FAIL processor: %s\n", e ? err : "no engine");
        es_test_failures++;
    }
    return p;
}

/* One block of a sine through p; t counts frames. */
static void block(es_processor *p, long *t, float *out0, float *out1)
{
    float x[BLOCK];
    for (int k = 0; k < BLOCK; k++, (*t)++)
        x[k] = (float)(0.5 * sin(2 * 3.14159265358979 * 440.0 * (double)*t / RATE));
    const float *in[1] = {x};
    float *out[2] = {out0, out1};
    es_processor_process(p, in, out, BLOCK);
}

/* ---- backpressure ---- */

static atomic_int stop_audio;

static void *audio(void *arg)
{
    es_processor *p = arg;
    float y0[BLOCK], y1[BLOCK];
    long t = 0;
    while (!atomic_load(&stop_audio))
        block(p, &t, y0, y1);
    return NULL;
}

static void nap_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits (the audio thread plays) until no crossfade is pending; 0 if it
 * takes more than 10 s. */
static int settle(es_processor *p)
{
    for (int k = 0; k < 10000 && es_processor_swap_pending(p); k++)
        nap_ms(1);
    return !es_processor_swap_pending(p);
}

/* The census must see what it is there to catch. */
static void census_self_test(const es_ir *ir)
{
    es_test_census c;
    es_engine *e = build(&stream, ir);
    es_test_wrap_census(&c);
    const int sees_alive = c.created == 1 && c.alive == 1;
    es_engine_destroy(e);
    es_test_wrap_census(&c);
    const int sees_gone = c.alive == 0 && c.destroyed == 1 && c.destroyed_twice == 0;
    es_engine_destroy(e); /* the wrapper stays in its pool: counted, not freed twice */
    es_test_wrap_census(&c);
    const int sees_twice = c.destroyed_twice == 1;
    es_test_check(sees_alive && sees_gone && sees_twice,
          "the census sees an engine left alive, then destroyed, then destroyed twice");
    es_test_wrap_forget();
}

/* A backpressure run: the stream, and what it saw so far. */
typedef struct {
    es_processor *p;
    const es_ir *ir;
    long accepted, refused;
    int fill_ok, refuse_ok, settle_ok, full_ok, collect_ok;
} pressure;

/* Swaps until refused, as fast as possible; how many were taken (one more
 * than ES_PROCESSOR_SWAPS_MAX if the ring took more than it holds). */
static int swap_until_refused(pressure *s)
{
    char err[256];
    int taken = 0;
    for (;;) {
        es_engine *e = build(&stream, s->ir);
        if (!e)
            break;
        if (es_processor_swap(s->p, e, &stream, err, sizeof err) == 0) {
            taken++;
            if (taken > ES_PROCESSOR_SWAPS_MAX)
                break; /* accepted more than the ring can hold */
            continue;
        }
        s->refuse_ok &= strstr(err, "too many changes under way") != NULL &&
                        !es_processor_can_swap(s->p);
        es_engine_destroy(e); /* refused: still ours */
        break;
    }
    return taken;
}

/* One round of filling up without collecting; 0 when the rounds must stop. */
static int fill_round(pressure *s)
{
    char err[256];
    const int taken = swap_until_refused(s);
    s->accepted += taken;
    s->fill_ok &= taken == ES_PROCESSOR_SWAPS_MAX;
    if (taken > ES_PROCESSOR_SWAPS_MAX)
        return 0;
    /* Every crossfade over, every old engine retired: still full until
     * collected. */
    if (!settle(s->p)) {
        s->settle_ok = 0;
        return 0;
    }
    es_engine *e = build(&stream, s->ir);
    if (e && es_processor_swap(s->p, e, &stream, err, sizeof err) == 0) {
        s->full_ok = 0;
        s->accepted++;
    } else {
        es_engine_destroy(e);
    }
    const int got = es_processor_collect(s->p);
    s->collect_ok &= got == ES_PROCESSOR_SWAPS_MAX && es_processor_can_swap(s->p);
    return 1;
}

static void fill_without_collecting(pressure *s)
{
    for (int round = 0; round < ROUNDS; round++)
        if (!fill_round(s))
            break;
    printf("     %d rounds without collecting: %ld swaps accepted\n", ROUNDS, s->accepted);
    es_test_check(s->fill_ok, "exactly ES_PROCESSOR_SWAPS_MAX swaps accepted, then refused");
    es_test_check(s->refuse_ok, "a refusal says \"too many changes under way\" and can_swap says 0");
    es_test_check(s->settle_ok, "every accepted crossfade completes");
    es_test_check(s->full_ok, "with every crossfade over but nothing collected, still refused");
    es_test_check(s->collect_ok,
                  "collect hands back every one of them, and swaps are accepted again");
}

/* As fast as possible, collecting only when refused; how many swaps. */
static long swap_collecting_when_refused(pressure *s)
{
    char err[256];
    long fast = 0;
    while (s->settle_ok && fast < FAST_SWAPS) {
        es_engine *e = build(&stream, s->ir);
        if (!e)
            break;
        while (es_processor_swap(s->p, e, &stream, err, sizeof err) != 0) {
            s->refused++;
            if (!es_processor_can_swap(s->p) && es_processor_collect(s->p) == 0)
                sched_yield();
        }
        fast++;
    }
    s->accepted += fast;
    return fast;
}

/* Once the audio thread has stopped. */
static void every_swap_completed(const pressure *s, long fast)
{
    es_stats st;
    es_processor_stats(s->p, &st);
    printf("     %ld more swaps, %ld refusals on the way; %llu crossfades completed of %ld "
           "accepted\n", fast, s->refused, (unsigned long long)st.swaps, s->accepted);
    es_test_check(s->settle_ok && st.swaps == (uint64_t)s->accepted,
          "every swap accepted completed its crossfade (none dropped)");
}

static void backpressure(void)
{
    uint64_t rng = 11;
    es_ir *ir = room(&stream, &rng);
    census_self_test(ir);
    pressure s = {.p = processor(build(&stream, ir), (es_mix){.wet = 1, .gain = 1}), .ir = ir,
                  .fill_ok = 1, .refuse_ok = 1, .settle_ok = 1, .full_ok = 1, .collect_ok = 1};
    if (!s.p)
        return;
    pthread_t th;
    atomic_store(&stop_audio, 0);
    pthread_create(&th, NULL, audio, s.p);
    fill_without_collecting(&s);
    const long fast = swap_collecting_when_refused(&s);
    s.settle_ok &= settle(s.p);
    es_processor_collect(s.p);
    atomic_store(&stop_audio, 1);
    pthread_join(th, NULL);
    every_swap_completed(&s, fast);
    es_processor_destroy(s.p);
    es_test_failures += !es_test_wrap_all_gone("every engine destroyed exactly once");
    es_ir_destroy(ir);
}

/* ---- format ---- */

static void format(void)
{
    uint64_t rng = 12;
    es_ir *ir = room(&stream, &rng);
    es_processor *p = processor(build(&stream, ir), (es_mix){.wet = 1, .gain = 1});
    if (!p)
        return;
    static const struct {
        const char *what;
        es_format fmt;
        int fits;
    } cases[] = {
        {"other outputs", {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 1}, 0},
        {"other inputs", {.sample_rate = RATE, .max_block = BLOCK, .inputs = 2, .outputs = 2}, 0},
        {"other rate", {.sample_rate = 44100, .max_block = BLOCK, .inputs = 1, .outputs = 2}, 0},
        {"smaller max_block",
         {.sample_rate = RATE, .max_block = BLOCK / 2, .inputs = 1, .outputs = 2}, 0},
        {"larger max_block",
         {.sample_rate = RATE, .max_block = BLOCK * 2, .inputs = 1, .outputs = 2}, 1},
        {"the same format", {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2}, 1},
    };
    int fitting = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        es_ir *r = room(&cases[k].fmt, &rng);
        es_engine *e = build(&cases[k].fmt, r);
        char err[256] = "";
        const int rc = e ? es_processor_swap(p, e, &cases[k].fmt, err, sizeof err) : -2;
        char line[400];
        if (cases[k].fits) {
            snprintf(line, sizeof line, "%s: accepted", cases[k].what);
            es_test_check(rc == 0, line);
            fitting += rc == 0;
        } else {
            snprintf(line, sizeof line, "%s: refused (%s)", cases[k].what, err);
            es_test_check(rc == -1 && err[0], line);
            if (rc == -1)
                es_engine_destroy(e); /* refused: the caller still owns it */
        }
        es_ir_destroy(r);
    }
    long t = 0;
    float y0[BLOCK], y1[BLOCK];
    for (int b = 0; b < 10000 && es_processor_swap_pending(p); b++)
        block(p, &t, y0, y1);
    block(p, &t, y0, y1);
    es_stats st;
    es_processor_stats(p, &st);
    es_test_check(st.swaps == (uint64_t)fitting && es_processor_collect(p) == fitting,
          "the fitting swaps completed and came back");
    es_processor_destroy(p);
    es_test_failures += !es_test_wrap_all_gone("every engine destroyed exactly once");
    es_ir_destroy(ir);
}

/* ---- mix ---- */

static void mix(void)
{
    uint64_t rng = 13;
    es_ir *ir = room(&stream, &rng);
    const es_mix start = {.wet = 0.7f, .dry = 0.3f, .gain = 1};
    es_processor *p = processor(build(&stream, ir), start);
    es_processor *ref = processor(build(&stream, ir), start);
    if (!p || !ref)
        return;
    const float inf = INFINITY, nan = NAN;
    const es_mix bad[] = {
        {.wet = nan, .dry = 0.3f, .gain = 1},   {.wet = 0.7f, .dry = nan, .gain = 1},
        {.wet = 0.7f, .dry = 0.3f, .gain = nan}, {.wet = inf, .dry = 0.3f, .gain = 1},
        {.wet = 0.7f, .dry = inf, .gain = 1},   {.wet = 0.7f, .dry = 0.3f, .gain = inf},
        {.wet = 0.7f, .dry = 0.3f, .gain = -inf}, {.wet = -0.5f, .dry = 0.3f, .gain = 1},
        {.wet = 0.7f, .dry = -1e-6f, .gain = 1}, {.wet = 0.7f, .dry = 0.3f, .gain = -1},
        {.wet = ES_MIX_WET_MAX * 1.01f, .dry = 0.3f, .gain = 1},
        {.wet = 0.7f, .dry = ES_MIX_DRY_MAX * 1.01f, .gain = 1},
        {.wet = 0.7f, .dry = 0.3f, .gain = ES_MIX_GAIN_MAX * 1.01f},
        {.wet = 0.7f, .dry = 0.3f, .gain = 1e30f},
    };
    const int n_bad = (int)(sizeof bad / sizeof bad[0]);
    int refused = 0, checked = 0;
    long t = 0, tr = 0;
    float y0[BLOCK], y1[BLOCK], r0[BLOCK], r1[BLOCK];
    int same = 1, finite = 1;
    for (int k = 0; k < n_bad; k++) {
        char err[256] = "";
        refused += es_processor_set_mix(p, &bad[k]) == -1;
        checked += !es_mix_check(&bad[k], err, sizeof err) && err[0];
        if (k == 0)
            printf("     e.g. %s\n", err);
        /* A few blocks after each: whatever was queued would show. */
        for (int b = 0; b < 4; b++) {
            block(p, &t, y0, y1);
            block(ref, &tr, r0, r1);
            for (int i = 0; i < BLOCK; i++) {
                finite &= isfinite(y0[i]) && isfinite(y1[i]);
                same &= y0[i] == r0[i] && y1[i] == r1[i];
            }
        }
    }
    char line[200];
    snprintf(line, sizeof line, "set_mix refuses all %d bad mixes (NaN, Inf, negative, too "
             "large); es_mix_check says why", n_bad);
    es_test_check(refused == n_bad && checked == n_bad, line);
    es_test_check(finite && same, "nothing of them reaches the audio: output finite, and the same "
          "as a processor never sent them");

    /* The limits themselves pass, and do reach the audio. */
    const es_mix top = {.wet = ES_MIX_WET_MAX, .dry = ES_MIX_DRY_MAX, .gain = ES_MIX_GAIN_MAX};
    const es_mix zero = {.wet = 0, .dry = 0, .gain = 0};
    const int ok_top = es_processor_set_mix(p, &top) == 0 && es_mix_check(&zero, NULL, 0);
    block(p, &t, y0, y1);
    block(ref, &tr, r0, r1);
    int differs = 0;
    finite = 1;
    for (int i = 0; i < BLOCK; i++) {
        differs |= y0[i] != r0[i];
        finite &= isfinite(y0[i]) && isfinite(y1[i]);
    }
    es_test_check(ok_top && differs && finite, "a mix at the limits (and all zero) is accepted and heard");
    es_processor_destroy(p);
    es_processor_destroy(ref);

    /* create checks its config's mix, and destroys the engine it was given. */
    char err[256] = "";
    es_processor_config cfg = {.mix = {.wet = 1, .dry = 0, .gain = nan}};
    es_processor *q = es_processor_create(&stream, build(&stream, ir), &cfg, err, sizeof err);
    snprintf(line, sizeof line, "create refuses a NaN gain (%s)", err);
    es_test_check(!q && err[0], line);
    es_processor_destroy(q);
    es_test_failures += !es_test_wrap_all_gone("every engine destroyed exactly once");
    es_ir_destroy(ir);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "backpressure"))
        backpressure();
    else if (!strcmp(what, "format"))
        format();
    else if (!strcmp(what, "mix"))
        mix();
    else {
        fprintf(stderr, "usage: test_processor_checks backpressure|format|mix\n");
        return 2;
    }
    printf("%s: %s\n", what, es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
