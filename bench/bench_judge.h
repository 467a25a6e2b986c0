/* Late blocks sorted into engine misses and machine stalls, for the
 * benchmark (es_bench_run in bench_run.h says the rule). Jobs' GPU times
 * come in as the worker finishes them, so a late GPU block may wait a few
 * blocks for its own. Internal to bench/. */
#ifndef ES_BENCH_JUDGE_H
#define ES_BENCH_JUDGE_H

#include <stdint.h>

/* What one measured block left to judge it by. */
typedef struct {
    double took_us, cpu_us;  /* wall and thread CPU time in process() */
    uint64_t job;            /* GPU engines: the job whose result it waited for */
    unsigned char late;      /* over budget, or the engine said its result was late */
    unsigned char helper_late; /* a CPU engine's helper (tail) was late */
} block_record;

typedef struct {
    const block_record *blocks;
    double *device_by_job;   /* [jobs + 1], < 0 not known */
    long jobs;
    double budget_us;
    int gpu;
    double typical_us;       /* median known job time, and how many it was of */
    long typical_of, known;
    long judged;             /* blocks judged so far */
    int last_class;          /* the last late block's: 1 miss, 0 stall (start at 1) */
    long misses, stalls;
    char first_miss[200];    /* what the first miss was, in words */
} judge;

/* Judges the late blocks up to `upto` (exclusive); a block whose job time
 * is still unknown 64 blocks on, or at the end (final), is an engine miss. */
void judge_until(judge *j, long upto, int final);

#endif
