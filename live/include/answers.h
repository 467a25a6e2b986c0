/* A listening test's answers, kept as they come: PREFIX.csv (a row per
 * answer, for a spreadsheet) and PREFIX.jsonl (a header line, a line per
 * answer, the summary at the end, for a script). Each record is written
 * with one write() and then fdatasync'd, so a run killed with -9, or a
 * machine that loses power, leaves every answer given before it whole and
 * at most the last one missing. Neither file is ever replaced: both are
 * made new (O_EXCL), and a prefix whose .csv or .jsonl exists, whatever
 * it is, is refused.
 *
 * Tests and trials are numbered from 1 in both files, as the summary
 * prints them. The JSONL header holds the plan, the seed (a string of
 * digits: a JSON number past 2^53 is rounded by most readers) and the
 * start; with the seed and the plan the trials can be drawn again. */
#ifndef ES_ANSWERS_H
#define ES_ANSWERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "listening_plan.h"
#include "listening_trials.h"

typedef struct es_answers es_answers;

/* Makes PREFIX.csv and PREFIX.jsonl and writes their headers: CSV's column
 * line; JSONL's first line {"plan", "title", "subject", "source",
 * "loudness", "seed", "alpha", "started" (ISO-8601 UTC), "stimuli":
 * [{name, room, engine, block, level_db}], "tests": [{test, kind, first,
 * second, trials}]}. NULL with one line in err[n] ("PATH: exists (a FIFO);
 * answers never replace a file"); nothing is left behind then. */
es_answers *es_answers_open(const char *prefix, const es_plan *plan, uint64_t seed, char *err,
                            size_t n);

typedef struct {
    const es_trial *trial;
    const char *answer;   /* "a", "b" (ab: the slot preferred; abx: X is A or B), "same", "different" */
    int correct;          /* abx/same: 1 or 0; ab: -1 */
    int preferred;        /* ab: the stimulus index preferred; else -1 */
    int listens;          /* switches the subject made in the trial */
    double seconds;       /* from the trial's start to the answer */
    double level_db[2];   /* the level each slot played at (after loudness matching) */
} es_answer;

/* One CSV row and one JSONL line (the fields of the row, names as strings,
 * plus "truth": abx "a"/"b" for X, same "same"/"different"), each with one
 * write() and fdatasync. An answer word that is not one of its kind's, or
 * a `correct` or `preferred` that disagrees with the trial's truth, is
 * refused (nothing written): the files hold what was played and said. A
 * value that is not finite is written empty (CSV) and null (JSON). 0, or
 * -1 with one line in err[n]. */
int es_answers_add(es_answers *a, const es_plan *plan, const es_answer *ans, char *err, size_t n);

/* One test's result: correct answers (abx, same) or preferences of the
 * test's first stimulus (ab), k of n; the p-value (abx and same: one-sided,
 * better than chance at 0.5; ab: two-sided at 0.5); significant when
 * p <= the plan's alpha; decision "different" / "not shown different"
 * (abx, same), "prefers NAME" / "no preference shown" (ab), "no answers"
 * (n = 0, p = 1). */
typedef struct {
    int test;             /* index into plan->test */
    int n, k;
    double p;
    int significant;
    char decision[96];
} es_test_summary;

/* The summary of every test of the plan into out[plan->tests], from the
 * `count` answers given so far (fewer than the trials when a run was
 * stopped). Pure: judged from each answer's word against its trial's
 * truth (an answer without a trial pointer is trials[i]'s; an answer
 * whose word is not its kind's is left out). Returns plan->tests. */
int es_answers_summary(const es_plan *plan, const es_trial *trials, const es_answer *answers,
                       int count, es_test_summary *out);

/* The summary as the JSONL file's last line, {"summary": [{test, kind,
 * first, second, n, k, p, alpha, significant, decision}...], "finished"},
 * one write() and fdatasync; the CSV gets nothing more. 0, or -1. */
int es_answers_finish(es_answers *a, const es_plan *plan, const es_test_summary *s, int tests,
                      char *err, size_t n);

/* Closes both files. NULL-safe. */
void es_answers_close(es_answers *a);

/* The summary as a table of text lines: test, kind, stimuli, k/N, p,
 * decision. */
void es_answers_print(const es_plan *plan, const es_test_summary *s, int tests, FILE *to);

#endif
