/* The searches of `earshot-bench --find-max` and `--find-max-paths`
 * (bench_search.h): trials of the engine at growing sizes until one
 * misses, then a bisection. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* A trial of `outputs` outputs of the --matrix inputs at the IR length
 * set: as sustains(), for the paths; its figures in *r. */
static int trial_outputs(es_bench_config *c, int outputs, es_bench_result *r, int *trials)
{
    memset(r, 0, sizeof *r);
    c->matrix_outputs = outputs;
    c->stop_on_miss = 1;
    (*trials)++;
    /* The synthetic room is made in host memory first: past half of it the
     * machine would swap or kill the run before the engine could refuse. */
    const double taps = c->ir_taps > 0 ? c->ir_taps : c->ir_seconds * c->rate;
    const double bytes = 4.0 * taps * c->matrix * outputs;
    const double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (bytes > 0.5 * host) {
        fprintf(stderr, "bench: %s %d x %d: the room's taps would take %.1f GB of the host's "
                "%.1f GB\n", c->engine->name, c->matrix, outputs, bytes / 1e9, host / 1e9);
        return 0;
    }
    const int ok = es_bench_run(c, r) == 0 && r->misses == 0;
    fprintf(stderr, "bench: %s %d x %d: %s\n", c->engine->name, c->matrix, outputs,
            ok ? "held" : r->error[0] ? r->error : r->first_miss);
    return ok;
}

/* The search's answer is close enough: within 2 % (or one output). */
static int close_enough(int good, int bad)
{
    return bad - good <= (good / 50 > 1 ? good / 50 : 1);
}

/* Bisects between an output count that held and one that did not. */
static int bisect_outputs(es_bench_config *c, int good, int bad, int *trials)
{
    es_bench_result r;
    while (!close_enough(good, bad)) {
        const int mid = good + (bad - good) / 2;
        if (trial_outputs(c, mid, &r, trials))
            good = mid;
        else
            bad = mid;
    }
    return good;
}

/* The most outputs whose synthetic room fits half the host's memory (a
 * trial past it is refused at once, not run). */
static int host_outputs(const es_bench_config *c)
{
    const double taps = c->ir_taps > 0 ? c->ir_taps : c->ir_seconds * c->rate;
    const double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    return (int)(0.5 * host / (4.0 * taps * c->matrix));
}

/* Where the block's p99 reaches 85 % of the budget, on the line through
 * two trials' (a launch's fixed cost and a cost per path): the first
 * guess, kept within 1.15 and 2 times the larger trial (a GPU's misses
 * come from rare long jobs more than from its p99: a guess far out would
 * build a large engine only to see it miss) and within the host's memory. */
static int guess_outputs(const es_bench_config *c, const es_bench_result *r1, int n1,
                         const es_bench_result *r2, int n2)
{
    const double per = (r2->p99_us - r1->p99_us) / (n2 - n1);
    const double fixed = r1->p99_us - per * n1;
    double guess = per > 0 ? (0.85 * r2->budget_us - fixed) / per : 2.0 * n2;
    guess = guess < 1.15 * n2 ? 1.15 * n2 : guess > 2.0 * n2 ? 2.0 * n2 : guess;
    return (int)guess < host_outputs(c) ? (int)guess : host_outputs(c);
}

/* The most outputs of the matrix's inputs with zero engine misses. Each
 * trial builds an engine of up to tens of thousands of paths, which takes
 * most of a search's time, so the search makes few: the outputs given and
 * twice as many, a guess from their times (guess_outputs), steps of 15 %
 * up from the guess (doubling where the guess is only its cap) until one
 * fails, then a bisection to 2 %. One that
 * fails early is bisected below. The trials made and the wall time are
 * given with the answer. */
void es_bench_find_max_paths(es_bench_config *c, int json)
{
    const long long started = es_now_ns();
    const int n1 = c->matrix_outputs > 0 ? c->matrix_outputs : c->matrix, n2 = 2 * n1;
    int trials = 0, good, bad;
    es_bench_result r1, r2, r;
    if (!trial_outputs(c, n1, &r1, &trials)) {
        good = 0, bad = n1;
        while (bad > 1 && !trial_outputs(c, bad / 2, &r, &trials))
            bad /= 2;
        good = bad > 1 ? bisect_outputs(c, bad / 2, bad, &trials) : 0;
    } else if (!trial_outputs(c, n2, &r2, &trials)) {
        good = bisect_outputs(c, n1, n2, &trials);
    } else {
        good = n2;
        bad = guess_outputs(c, &r1, n1, &r2, n2);
        /* Near a guess the line put there, 15 % steps; where the guess was
         * only the cap (the line says nothing yet), doubling. */
        const double step = bad >= 2 * n2 ? 2.0 : 1.15;
        while (trial_outputs(c, bad, &r, &trials) && bad < 64 * n2) {
            good = bad;
            bad = (int)(bad * step) + 1;
        }
        good = bisect_outputs(c, good, bad, &trials);
    }
    const double seconds = 1e-9 * (double)(es_now_ns() - started);
    char gpus[96];
    es_gpu_list_text(&c->options.gpu.list, gpus, sizeof gpus);
    if (json)
        printf("{\"engine\":\"%s\",\"block\":%d,\"ir_seconds\":%g,\"inputs\":%d,"
               "\"max_outputs\":%d,\"max_paths\":%d,\"paced\":%s,\"gpus\":\"%s\","
               "\"trials\":%d,\"search_s\":%.1f}\n",
               c->engine->name, c->block, c->ir_seconds, c->matrix, good, good * c->matrix,
               c->paced ? "true" : "false", gpus, trials, seconds);
    else
        printf("%-17s block %5d  %g s IR, %d inputs: most outputs with zero misses %d "
               "(%d paths)%s%s; %d trials, %.0f s\n", c->engine->name, c->block,
               c->ir_seconds, c->matrix, good, good * c->matrix, gpus[0] ? ", --gpu " : "",
               gpus, trials, seconds);
    fflush(stdout);
}

