/* The searches of `earshot-bench --find-max` and `--find-max-paths`
 * (bench_search.h): trials of the engine at growing sizes until one
 * misses, then a bisection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_search.h"
#include "core/clock.h"

/* A trial passes when no block of `seconds` of audio was an engine miss
 * (a machine stall does not end the search: one would make the answer a
 * matter of luck). */
static int sustains(es_bench_config *c, double ir_seconds)
{
    es_bench_result r;
    c->ir_seconds = ir_seconds;
    c->ir_taps = 0;
    c->stop_on_miss = 1;
    const int ok = es_bench_run(c, &r) == 0 && r.misses == 0;
    if (!ok) /* what ended the trial, so a surprising answer can be read */
        fprintf(stderr, "bench: %s %.4g s: %s\n", c->engine->name, ir_seconds,
                r.error[0] ? r.error : r.first_miss);
    return ok;
}

/* The largest size a trial sustains: sizes double from `from` while trials
 * pass (up to `limit`), then the gap to the first failure is bisected until
 * `next` says the answer is close enough (it gives the next size to try,
 * or a negative number). 0 when even `from` fails. */
static double largest(es_bench_config *c, double from, double limit,
                      int (*held)(es_bench_config *, double),
                      double (*next)(double good, double bad))
{
    double good = 0, bad = from;
    for (; bad <= limit && held(c, bad); bad *= 2)
        good = bad;
    for (double mid; good > 0 && (mid = next(good, bad)) > 0;)
        if (held(c, mid))
            good = mid;
        else
            bad = mid;
    return good;
}

static double within_2_percent(double good, double bad)
{
    return bad - good > 0.02 * good ? 0.5 * (good + bad) : -1;
}

/* The longest IR with zero misses, to 2 %. */
void es_bench_find_max(es_bench_config *c, int json)
{
    const double good = largest(c, 0.125, 600, sustains, within_2_percent);
    if (json)
        printf("{\"engine\":\"%s\",\"block\":%d,\"paths\":%d,\"paced\":%s,"
               "\"max_ir_seconds\":%.4g,\"max_taps\":%.0f}\n", c->engine->name, c->block,
               es_bench_paths(c), c->paced ? "true" : "false", good, good * c->rate);
    else
        printf("%-17s block %5d  %d path%s: longest IR with zero misses %.3g s "
               "(%.0f taps)\n", c->engine->name, c->block, es_bench_paths(c),
               es_bench_paths(c) > 1 ? "s" : "", good, good * c->rate);
    fflush(stdout);
}

/* A search's trials share one room: at most POOL_PATHS distinct paths of
 * decaying noise (and POOL_BYTES), and each trial plays a view of it in
 * which path (i, o) is the pool's path (i, o mod the pool's outputs). The
 * engines copy their filters when built, so a trial costs what a room of
 * as many distinct paths costs, without a host room of tens of gigabytes
 * made again for every trial. */
#define POOL_PATHS 1024
#define POOL_BYTES (2.0 * (1 << 30))

typedef struct {
    es_ir *pool;
    es_ir view;            /* the trial's matrix over the pool's paths */
    size_t view_paths;     /* its table's room, in paths */
} search_room;

static int room_make(search_room *room, const es_bench_config *c)
{
    const double taps = c->ir_taps > 0 ? c->ir_taps : c->ir_seconds * c->rate;
    int outs = (POOL_PATHS + c->matrix - 1) / c->matrix;
    while (outs > 1 && 4.0 * taps * c->matrix * outs > POOL_BYTES)
        outs--;
    es_bench_config shape = *c;
    shape.matrix_outputs = outs;
    memset(room, 0, sizeof *room);
    room->pool = es_bench_synthetic_room(&shape, (int)llround(taps), 31337u);
    return room->pool ? 0 : -1;
}

/* The view of `outputs` outputs; NULL: no memory for its table. */
static const es_ir *room_view(search_room *room, int outputs)
{
    const es_ir *p = room->pool;
    const size_t paths = (size_t)p->inputs * (size_t)outputs;
    if (paths > room->view_paths) {
        float **grown = realloc(room->view.taps, paths * sizeof *grown);
        if (!grown)
            return NULL;
        room->view.taps = grown;
        room->view_paths = paths;
    }
    room->view = (es_ir){p->inputs, outputs, p->length, p->sample_rate, room->view.taps};
    for (int i = 0; i < p->inputs; i++)
        for (int o = 0; o < outputs; o++)
            room->view.taps[i * outputs + o] = p->taps[i * p->outputs + o % p->outputs];
    return &room->view;
}

static void room_free(search_room *room)
{
    es_ir_destroy(room->pool);
    free(room->view.taps);
}

/* One search's course: the most outputs that held, the fewest that did
 * not (0: none failed), the held trial's figures, and what it cost. */
typedef struct {
    int good, bad, trials, out_of_time;
    double seconds, trial_s;  /* the search's wall time; its last trial's */
    es_bench_result held;     /* the trial at `good` */
} search;

/* A trial of `outputs` outputs of the --matrix inputs: 1 when no block of
 * the configured seconds was an engine miss (the first miss ends it). */
static int trial_outputs(es_bench_config *c, search_room *room, int outputs, search *s)
{
    es_bench_result r;
    const long long t0 = es_now_ns();
    c->matrix_outputs = outputs;
    c->stop_on_miss = 1;
    c->build_once = 1;
    s->trials++;
    int ok = 0;
    if (!(c->room = room_view(room, outputs)))
        snprintf(r.error, sizeof r.error, "out of memory for the room's table");
    else
        ok = es_bench_run(c, &r) == 0 && r.misses == 0;
    c->room = NULL;
    s->trial_s = 1e-9 * (double)(es_now_ns() - t0);
    fprintf(stderr, "bench: %s %d x %d: %s (%.0f s)\n", c->engine->name, c->matrix, outputs,
            ok ? "held" : r.error[0] ? r.error : r.first_miss, s->trial_s);
    if (ok && outputs > s->good) {
        s->good = outputs;
        s->held = r;
    } else if (!ok && (s->bad == 0 || outputs < s->bad)) {
        s->bad = outputs;
    }
    return ok;
}

/* The search's answer is close enough: within 2 % (or one output). */
static int close_enough(int good, int bad)
{
    return bad - good <= (good / 50 > 1 ? good / 50 : 1);
}

static inline double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The next size while every trial has held (up from `n`, by what the held
 * trial's p99.9 leaves of the budget, as if the time grew with the paths:
 * 1.1 to 2 times) or while every trial has failed (15 % down); between a
 * hold and a failure, their middle. 0: the answer is close enough. */
static int next_outputs(const search *s, int n)
{
    if (s->good && s->bad)
        return close_enough(s->good, s->bad) ? 0 : s->good + (s->bad - s->good) / 2;
    if (s->good) {
        const double tail = s->held.p999_us > 0 ? s->held.p999_us : s->held.max_us;
        const double up = tail > 0 ? clamp(0.8 * s->held.budget_us / tail, 1.1, 2.0) : 2.0;
        return (int)(n * up) > n ? (int)(n * up) : n + 1;
    }
    return n > 1 ? (int)(n / 1.15) : 0;
}

/* One search of the most outputs with zero engine misses, from `from`
 * outputs: steps out from there until a trial's outcome turns, then
 * bisects to 2 %. With `wall` > 0 it ends before a trial that would not
 * finish in that many seconds (as long as the last took), and says so:
 * its answer is then the bracket it reached. */
static void search_once(es_bench_config *c, search_room *room, int from, double wall,
                        search *s)
{
    const long long started = es_now_ns();
    memset(s, 0, sizeof *s);
    for (int n = from; n > 0; n = next_outputs(s, n)) {
        const double spent = 1e-9 * (double)(es_now_ns() - started);
        if (wall > 0 && s->trials > 0 && spent + s->trial_s > wall) {
            s->out_of_time = 1;
            break;
        }
        trial_outputs(c, room, n, s);
    }
    s->seconds = 1e-9 * (double)(es_now_ns() - started);
}

static void print_search(const es_bench_config *c, const search *s, int run, int json)
{
    char gpus[96];
    es_gpu_list_text(&c->options.gpu.list, gpus, sizeof gpus);
    const es_bench_result *h = &s->held;
    if (json) {
        printf("{\"engine\":\"%s\",\"block\":%d,\"ir_seconds\":%g,\"inputs\":%d,"
               "\"run\":%d,\"max_outputs\":%d,\"max_paths\":%d,\"failed_outputs\":%d,"
               "\"out_of_time\":%s,\"paced\":%s,\"gpus\":\"%s\",\"seconds\":%g,"
               "\"p50_us\":%.1f,\"p99_us\":%.1f,\"p999_us\":%.1f,\"device_bytes\":%llu,"
               "\"create_ms\":%.0f,\"trials\":%d,\"search_s\":%.1f}\n",
               c->engine->name, c->block, c->ir_seconds, c->matrix, run, s->good,
               s->good * c->matrix, s->bad, s->out_of_time ? "true" : "false",
               c->paced ? "true" : "false", gpus, c->seconds, h->p50_us, h->p99_us,
               h->p999_us, (unsigned long long)h->device_bytes, h->create_first_ms, s->trials,
               s->seconds);
    } else {
        printf("%-17s block %5d  %g s IR, %d inputs, %g s trials: most outputs with zero "
               "misses %d (%d paths)%s%s", c->engine->name, c->block, c->ir_seconds, c->matrix,
               c->seconds, s->good, s->good * c->matrix, gpus[0] ? ", --gpu " : "", gpus);
        if (s->bad)
            printf(", %d missed", s->bad);
        printf("%s; %d trials, %.0f s\n", s->out_of_time ? " (out of time)" : "", s->trials,
               s->seconds);
    }
    fflush(stdout);
}

static int compare_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The most outputs of the matrix's inputs with zero engine misses, `runs`
 * times over one shared room (room_make), each search printed as it ends,
 * then their answers' spread. */
void es_bench_find_max_paths(es_bench_config *c, int json, int runs, double wall)
{
    const int from = c->matrix_outputs > 0 ? c->matrix_outputs : c->matrix;
    search_room room;
    if (room_make(&room, c) != 0) {
        fprintf(stderr, "bench: %s: out of memory for the search's room\n", c->engine->name);
        return;
    }
    int answer[64];
    runs = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    for (int k = 0; k < runs; k++) {
        search s;
        search_once(c, &room, from, wall, &s);
        print_search(c, &s, k + 1, json);
        answer[k] = s.good;
    }
    room_free(&room);
    if (runs < 2)
        return;
    qsort(answer, (size_t)runs, sizeof *answer, compare_int);
    const int lo = answer[0], mid = answer[runs / 2], hi = answer[runs - 1];
    if (json)
        printf("{\"engine\":\"%s\",\"inputs\":%d,\"runs\":%d,\"max_outputs_min\":%d,"
               "\"max_outputs_median\":%d,\"max_outputs_max\":%d}\n",
               c->engine->name, c->matrix, runs, lo, mid, hi);
    else
        printf("%-17s %d searches: most outputs %d (median), %d to %d (%d to %d paths)\n",
               c->engine->name, runs, mid, lo, hi, lo * c->matrix, hi * c->matrix);
    fflush(stdout);
}
