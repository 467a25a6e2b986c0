/* Late blocks sorted into engine misses and machine stalls (the rule is
 * es_bench_run's, in bench_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_judge.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double typical_job_us(judge *j)
{
    if (j->known && (j->known >= 2 * j->typical_of || j->known - j->typical_of > 1024)) {
        double *v = malloc((size_t)j->known * sizeof *v);
        long n = 0;
        for (long k = 1; v && k <= j->jobs; k++)
            if (j->device_by_job[k] >= 0)
                v[n++] = j->device_by_job[k];
        if (n) {
            qsort(v, (size_t)n, sizeof *v, compare_double);
            j->typical_us = v[n / 2];
            j->typical_of = j->known;
        }
        free(v);
    }
    return j->typical_us;
}

/* 1 engine miss, 0 machine stall, -1 not known yet (its job's time). */
static int classify(judge *j, const block_record *b)
{
    const double spare = 0.2 * j->budget_us;
    if (!j->gpu)
        return b->helper_late || b->cpu_us > j->budget_us - spare;
    if (b->took_us - b->cpu_us > spare)
        return 0; /* the measuring thread itself was off the CPU */
    if (b->job == 0 || (long)b->job > j->jobs)
        return j->last_class; /* no job of its own: the GPU was still busy */
    const double dev = j->device_by_job[b->job];
    if (dev < 0)
        return -1;
    /* Its own job fit in the budget, and was small (a quarter of it) or
     * usual (within twice the median): the rest was the machine's. */
    return !(dev <= j->budget_us - spare &&
             (dev <= 0.25 * j->budget_us || dev <= 2 * typical_job_us(j)));
}

void judge_until(judge *j, long upto, int final)
{
    for (; j->judged < upto; j->judged++) {
        const block_record *b = &j->blocks[j->judged];
        if (!b->late)
            continue;
        int c = classify(j, b);
        if (c < 0 && !final && upto - j->judged < 64)
            return;
        if (c != 0 && !j->misses) {
            const double dev = j->gpu && b->job > 0 && (long)b->job <= j->jobs
                                   ? j->device_by_job[b->job] : -1;
            snprintf(j->first_miss, sizeof j->first_miss, "block %ld: %.0f us (CPU %.0f us)%s",
                     j->judged, b->took_us, b->cpu_us, b->helper_late ? ", a helper late" : "");
            const size_t at = strlen(j->first_miss);
            if (j->gpu && b->job == 0)
                snprintf(j->first_miss + at, sizeof j->first_miss - at,
                         ", no GPU job of its own");
            else if (j->gpu && dev < 0)
                snprintf(j->first_miss + at, sizeof j->first_miss - at,
                         ", its GPU job's time unknown");
            else if (j->gpu)
                snprintf(j->first_miss + at, sizeof j->first_miss - at,
                         ", its GPU job %.0f us (median %.0f us)", dev,
                         typical_job_us(j));
        }
        c = c < 0 ? 1 : c;
        j->last_class = c;
        j->misses += c;
        j->stalls += !c;
    }
}

