/* process() allocates nothing, frees nothing, takes no lock, sleeps and
 * writes nothing: counted over thousands of calls of random sizes for every
 * usable engine, alone (process() and process_views by turns) and inside
 * the processor, and inside the processor
 * through a primed swap (adopted, held, primed, its ringing added and let
 * go, crossfaded in, the old engine retired), and, for engines of filter
 * sets, switching sets every few calls. The counters are first
 * shown to work, so a zero means zero. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/clock.h"
#include "processor.h"
#include "reference.h"
#include "rt_counters.h"

#define CALLS 4000

static int failures;

static int report(const char *what, es_rt_counts c)
{
    int bad = c.allocs || c.frees || c.locks || c.waits;
    printf("%s %s: %ld allocs, %ld frees, %ld locks, %ld waits/sleeps/writes\n",
           bad ? "FAIL" : "ok  ", what, c.allocs, c.frees, c.locks, c.waits);
    failures += bad;
    return bad;
}

/* The counters must see what they are meant to see. */
static void self_test(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    es_rt_count_begin();
    void *volatile p = malloc(100);
    free(p);
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    es_rt_counts c = es_rt_count_end();
    if (c.allocs != 1 || c.frees != 1 || c.locks != 1) {
        printf("FAIL counters are blind: %ld allocs, %ld frees, %ld locks (want 1 each)\n",
               c.allocs, c.frees, c.locks);
        failures++;
    }
}

enum { ALONE, PROCESSOR, PRIMED };

/* What one run's counted calls play through. */
typedef struct {
    es_engine *e;
    es_processor *p;     /* NULL: the engine alone */
    es_history *history; /* a primed swap's, or NULL */
    uint64_t ticket;     /* the primed swap's */
    int inputs, outputs;
    float **in, **out, **views;
    int sizes[CALLS];    /* frames, each call */
} rig;

static void describe(char *what, size_t size, const es_engine_class *k, const char *layout,
                     int length, int max_block, int through_processor)
{
    snprintf(what, size, "%s %s ir=%d max_block=%d%s", k->name, layout, length, max_block,
             through_processor == PRIMED ? " via a primed swap"
             : through_processor         ? " via processor"
                                         : "");
}

/* A primed swap, queued before the count; its builder's part (the ringing
 * in place) happens at call 100, inside it. The swap's buffer. */
static float **queue_primed_swap(rig *r, const es_engine_class *k, const es_format *fmt,
                                 const es_ir *ir, const es_options *opt, int length,
                                 const char *what)
{
    char err[256];
    float **ringing = es_test_planar(ir->outputs, length);
    es_engine *next = es_engine_create(k, fmt, ir, opt, err, sizeof err);
    const es_swap_how how = {.ab = -1, .same_filter = 1, .ringing = ringing,
                             .ringing_frames = length};
    r->history = es_processor_history(r->p);
    if (!next || es_processor_swap_with(r->p, next, fmt, &how, &r->ticket, err, sizeof err)) {
        printf("FAIL %s: %s\n", what, err);
        failures++;
    }
    return ringing;
}

/* Random call sizes and input, and the buffers, all before the count. */
static void rig_buffers(rig *r, int max_block, uint64_t *rng)
{
    r->in = es_test_planar(r->inputs, max_block);
    r->out = es_test_planar(r->outputs, max_block);
    for (int c = 0; c < CALLS; c++)
        r->sizes[c] = es_test_int(rng, 1, max_block);
    for (int i = 0; i < r->inputs; i++)
        for (int t = 0; t < max_block; t++)
            r->in[i][t] = (float)es_test_uniform(rng);
    r->views = calloc((size_t)r->outputs, sizeof *r->views);
}

/* The calls counted: nothing here may allocate but what is under test. */
static void play_calls(const rig *r)
{
    for (int c = 0; c < CALLS; c++) {
        if (r->history && c == 100)
            es_history_set_primed(r->history, r->ticket, 1);
        /* The input held at silence and let in again, as a room measured
         * on the stream asks (its command taken inside the count). */
        if (r->p && (c == 200 || c == 400))
            es_processor_hold_input(r->p, c == 200);
        if (r->p)
            es_processor_process(r->p, (const float *const *)r->in, r->out, r->sizes[c]);
        else if (c % 2) /* both ways the engine is asked */
            es_engine_process_views(r->e, (const float *const *)r->in, r->out, r->views,
                                    r->outputs, r->sizes[c]);
        else
            es_engine_process(r->e, (const float *const *)r->in, r->out, r->sizes[c]);
    }
}

static void primed_swap_played(const rig *r, const char *what)
{
    es_stats st;
    es_processor_stats(r->p, &st);
    char line[400];
    snprintf(line, sizeof line, "%s: the swap was primed and played (primed %llu, swaps "
             "%llu), its buffer let go", what, (unsigned long long)st.primed,
             (unsigned long long)st.swaps);
    const int ok = st.primed == 1 && st.swaps == 1 && !es_history_holds(r->history, r->ticket);
    printf("%s %s\n", ok ? "ok  " : "FAIL", line);
    failures += !ok;
}

static void rig_free(rig *r)
{
    free(r->views);
    if (r->history)
        es_history_unref(r->history);
    if (r->p)
        es_processor_destroy(r->p);
    else
        es_engine_destroy(r->e);
    es_test_free_planar(r->in, r->inputs);
    es_test_free_planar(r->out, r->outputs);
}

static void run(const es_engine_class *k, const char *layout, int length, int max_block,
                int through_processor, uint64_t *rng)
{
    char err[256], what[160];
    es_ir *ir = es_test_ir(layout, length, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = max_block,
                     .inputs = ir->inputs, .outputs = ir->outputs};
    es_options opt = {.partition = 128};
    rig r = {.e = es_engine_create(k, &fmt, ir, &opt, err, sizeof err), .inputs = ir->inputs,
             .outputs = ir->outputs};
    describe(what, sizeof what, k, layout, length, max_block, through_processor);
    if (!r.e) {
        printf("FAIL %s: %s\n", what, err);
        failures++;
        es_ir_destroy(ir);
        return;
    }
    if (through_processor) {
        es_processor_config pc = {.mix = {.wet = 0.7f, .dry = 0.3f, .gain = 0.9f},
                                  .history_frames = through_processor == PRIMED ? 48000 : 0};
        r.p = es_processor_create(&fmt, r.e, &pc, err, sizeof err);
    }
    float **ringing = through_processor == PRIMED
                          ? queue_primed_swap(&r, k, &fmt, ir, &opt, length, what)
                          : NULL;
    rig_buffers(&r, max_block, rng);
    es_rt_count_begin();
    play_calls(&r);
    report(what, es_rt_count_end());
    if (r.history)
        primed_swap_played(&r, what);
    rig_free(&r);
    if (ringing)
        es_test_free_planar(ringing, ir->outputs);
    es_ir_destroy(ir);
}

/* The engine over the sets: of class k, or with `tail` a split room
 * (the sets its heads on k's engine of sets, the tail on k). */
static es_engine *make_sets(const es_engine_class *k, const es_format *fmt, es_ir **sets,
                            int count, const es_options *opt, const es_ir *tail, char *err,
                            size_t n)
{
    if (!tail)
        return es_engine_create_sets(k, fmt, (const es_ir *const *)sets, count, opt, err, n);
    return es_engine_create_split(es_engine_heads_class(k), k, fmt, (const es_ir *const *)sets,
                                  count, opt, tail, 4000, opt, err, n);
}

/* An engine of filter sets (ES_CAP_SETS), or a split room whose heads
 * are such an engine's and whose tail is k's, switching every few calls,
 * in calls of random sizes: the switch blocks' second pass and fade too,
 * the split's delays. */
static void run_sets(const es_engine_class *k, int split, uint64_t *rng)
{
    enum { SETS = 6, MAX_BLOCK = 128 };
    char err[256], what[160];
    es_ir *sets[SETS];
    for (int s = 0; s < SETS; s++)
        sets[s] = es_test_ir("mono-stereo", 5000, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = MAX_BLOCK, .inputs = 1, .outputs = 2};
    /* A GPU engine waits for every block (offline: the same polling as
     * live, without the deadline): back to back, calls of one frame have
     * deadlines shorter than a launch, and a block the device never
     * computed switches nothing there (3998 of 4000 late on an H100 with
     * three other tests beside it). */
    es_options opt = {.partition = 64, .offline = (k->caps & ES_CAP_GPU) != 0};
    es_ir *tail = split ? es_test_ir("mono-stereo", 20000, rng) : NULL;
    es_engine *e = make_sets(k, &fmt, sets, SETS, &opt, tail, err, sizeof err);
    snprintf(what, sizeof what, "%s%s, %d filter sets switching every 1 to 8 calls",
             split ? "a split room, its tail on " : "", k->name, SETS);
    float **in = es_test_planar(1, MAX_BLOCK), **out = es_test_planar(2, MAX_BLOCK);
    for (int t = 0; t < MAX_BLOCK; t++)
        in[0][t] = (float)es_test_uniform(rng);
    int sizes[CALLS], picks[CALLS];
    for (int c = 0; c < CALLS; c++) {
        sizes[c] = es_test_int(rng, 1, MAX_BLOCK);
        picks[c] = es_test_int(rng, 0, 7) == 0 ? es_test_int(rng, 0, SETS - 1) : -1;
    }
    if (e) {
        es_rt_count_begin();
        for (int c = 0; c < CALLS; c++) {
            if (picks[c] >= 0)
                es_engine_select_set(e, picks[c]);
            es_engine_process(e, (const float *const *)in, out, sizes[c]);
        }
        report(what, es_rt_count_end());
        es_engine_status st;
        es_engine_get_status(e, &st);
        /* A pick every 8 calls on average, about 7 in 8 of them another
         * set: over 1 in 16 calls switch. */
        const int ok = st.set_switches > CALLS / 16;
        /* The same through a processor, the requests made between
         * callbacks (lock-free themselves: counted too). */
        es_processor_config pc = {.mix = {.wet = 0.01f, .gain = 1}};
        es_engine *e2 = make_sets(k, &fmt, sets, SETS, &opt, tail, err, sizeof err);
        es_processor *p = e2 ? es_processor_create(&fmt, e2, &pc, err, sizeof err) : NULL;
        if (p) {
            char via[200];
            snprintf(via, sizeof via, "%s via processor requests", what);
            es_rt_count_begin();
            for (int c = 0; c < CALLS; c++) {
                if (picks[c] >= 0)
                    es_processor_select_set(p, picks[c], es_now_ns());
                es_processor_process(p, (const float *const *)in, out, sizes[c]);
            }
            report(via, es_rt_count_end());
            es_processor_destroy(p);
        } else {
            printf("FAIL %s via processor: %s\n", what, err);
            failures++;
        }
        printf("%s %s: %llu switches made (set %d playing; %llu blocks late%s%s)\n",
               ok ? "ok  " : "FAIL", what, (unsigned long long)st.set_switches, st.set,
               (unsigned long long)st.late_results, st.failed ? "; failed: " : "",
               st.failed ? st.message : "");
        failures += !ok;
    } else {
        printf("FAIL %s: %s\n", what, err);
        failures++;
    }
    es_engine_destroy(e);
    es_test_free_planar(in, 1);
    es_test_free_planar(out, 2);
    for (int s = 0; s < SETS; s++)
        es_ir_destroy(sets[s]);
    es_ir_destroy(tail);
}

int main(void)
{
    uint64_t rng = es_test_seed();
    self_test();
    int engines = 0;
    for (int k = 0; es_engines[k]; k++) {
        char why[256];
        if (!es_engines[k]->probe(why, sizeof why)) {
            printf("skip %s: %s\n", es_engines[k]->name, why);
            continue;
        }
        engines++;
        run(es_engines[k], "true-stereo", 3000, 512, 0, &rng);
        run(es_engines[k], "mono", 700, 64, 0, &rng);
        run(es_engines[k], "stereo", 2000, 256, PROCESSOR, &rng);
        run(es_engines[k], "stereo", 2000, 256, PRIMED, &rng);
        if (es_engines[k]->caps & ES_CAP_SETS)
            run_sets(es_engines[k], 0, &rng);
        if (es_engine_heads_class(es_engines[k])->probe(why, sizeof why))
            run_sets(es_engines[k], 1, &rng);
    }
    printf("%d engines, %d failed\n", engines, failures);
    return failures ? 1 : 0;
}
