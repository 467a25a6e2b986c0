/* A blind listening test's results (test_listening.c: the plan and the
 * trials): the exact binomial test against scipy's values; the answers
 * written (two new files, never one that exists, each line parsed back)
 * and summarised (a subject always right, one at chance, a preference). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answers.h"
#include "core/binomial.h"
#include "listening_plan.h"
#include "listening_test_util.h"
#include "listening_trials.h"

/* ---- the binomial test ---- */

/* From scipy.stats.binomtest(k, n, p, alternative).pvalue, scipy 1.10.1;
 * each also checked against the exact sum in rational arithmetic (Python's
 * fractions), which they match to 1e-14. */
static const struct {
    int k, n;
    double p;
    es_alternative alt;
    double want;
} scipy_values[] = {
    {10, 10, 0.5, ES_ALT_GREATER, 0.0009765625},
    {9, 10, 0.5, ES_ALT_GREATER, 0.0107421875},
    {8, 10, 0.5, ES_ALT_GREATER, 0.0546875},
    {5, 10, 0.5, ES_ALT_GREATER, 0.623046875},
    {0, 10, 0.5, ES_ALT_GREATER, 1},
    {12, 16, 0.5, ES_ALT_GREATER, 0.0384063720703125},
    {15, 20, 0.5, ES_ALT_GREATER, 0.020694732666015625},
    {60, 100, 0.5, ES_ALT_GREATER, 0.028443966820490441},
    {75, 100, 0.5, ES_ALT_GREATER, 2.8181410171027011e-07},
    {120, 200, 0.5, ES_ALT_GREATER, 0.0028425779983751532},
    {3, 15, 0.1, ES_ALT_GREATER, 0.18406106910639106},
    {17, 40, 1.0 / 3, ES_ALT_GREATER, 0.14442582459235689},
    {2, 10, 0.3, ES_ALT_LESS, 0.3827827863999998},
    {40, 100, 0.5, ES_ALT_LESS, 0.028443966820490441},
    {0, 25, 0.5, ES_ALT_LESS, 2.9802322387695312e-08},
    {7, 50, 0.25, ES_ALT_LESS, 0.045255846490164453},
    {8, 10, 0.5, ES_ALT_TWO_SIDED, 0.109375},
    {2, 10, 0.5, ES_ALT_TWO_SIDED, 0.109375},
    {5, 10, 0.5, ES_ALT_TWO_SIDED, 1},
    {0, 20, 0.5, ES_ALT_TWO_SIDED, 1.9073486328125e-06},
    {14, 20, 0.5, ES_ALT_TWO_SIDED, 0.11531829833984375},
    {60, 100, 0.5, ES_ALT_TWO_SIDED, 0.056887933640980881},
    {37, 100, 0.5, ES_ALT_TWO_SIDED, 0.012032975725363479},
    {3, 15, 0.1, ES_ALT_TWO_SIDED, 0.18406106910639106},
    {9, 30, 0.2, ES_ALT_TWO_SIDED, 0.17282973906604121},
    {1, 30, 0.2, ES_ALT_TWO_SIDED, 0.020015612508648244},
    {130, 200, 0.5, ES_ALT_TWO_SIDED, 2.6528755595268727e-05},
    {95, 200, 0.5, ES_ALT_TWO_SIDED, 0.52462235572231519},
    {11, 12, 0.75, ES_ALT_TWO_SIDED, 0.31602543592453003},
    {4, 12, 0.75, ES_ALT_TWO_SIDED, 0.0027815103530883789},
    {45, 60, 1.0 / 3, ES_ALT_TWO_SIDED, 7.6172173710247855e-11},
    {33, 200, 0.1, ES_ALT_TWO_SIDED, 0.004303975097087796},
    /* n = 1000: where a product of factors would have overflowed. */
    {1000, 1000, 0.5, ES_ALT_GREATER, 9.3326361850321888e-302},
    {550, 1000, 0.5, ES_ALT_TWO_SIDED, 0.0017305360849763024},
    {470, 1000, 0.5, ES_ALT_LESS, 0.03101159754918174},
};

static void binomial(void)
{
    const int count = (int)(sizeof scipy_values / sizeof *scipy_values);
    int matched = 0;
    for (int k = 0; k < count; k++) {
        const double got =
            es_binomial_p(scipy_values[k].k, scipy_values[k].n, scipy_values[k].p, scipy_values[k].alt);
        const double rel = fabs(got - scipy_values[k].want) / scipy_values[k].want;
        if (rel <= 1e-9)
            matched++;
        else
            printf("     k=%d n=%d p=%g: %.17g, scipy %.17g\n", scipy_values[k].k,
                   scipy_values[k].n, scipy_values[k].p, got, scipy_values[k].want);
    }
    char what[80];
    snprintf(what, sizeof what, "binomial p-values: %d of %d match scipy to 1e-9", matched, count);
    check(matched == count, what);
    check(isnan(es_binomial_p(3, 2, 0.5, ES_ALT_GREATER)) &&
              isnan(es_binomial_p(1, 0, 0.5, ES_ALT_GREATER)) &&
              isnan(es_binomial_p(1, 2, 1.5, ES_ALT_LESS)),
          "binomial: k > n, n = 0, p > 1 are NaN");
    check(es_binomial_p(0, 5, 0.0, ES_ALT_TWO_SIDED) == 1 &&
              es_binomial_p(5, 5, 1.0, ES_ALT_GREATER) == 1 &&
              es_binomial_p(4, 5, 1.0, ES_ALT_GREATER) == 1 &&
              es_binomial_p(4, 5, 1.0, ES_ALT_LESS) == 0,
          "binomial: p at 0 and 1");
}

/* ---- the answers ---- */

static long file_lines(const char *path, char *first, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[8192];
    long count = 0;
    while (fgets(line, sizeof line, f)) {
        if (count == 0 && first) {
            const size_t len = strlen(line) < n ? strlen(line) : n - 1;
            memcpy(first, line, len);
            first[len] = 0;
        }
        count++;
    }
    fclose(f);
    return count;
}

/* Each line one JSON object: braces and brackets balanced outside strings,
 * no raw control byte in a string; and, where Python is, json.loads. */
static int jsonl_sound(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[16384];
    int ok = 1;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        ok &= len > 2 && line[len - 1] == '\n' && line[0] == '{' && line[len - 2] == '}';
        int depth = 0, in_string = 0;
        for (size_t k = 0; k + 1 < len; k++) {
            const char c = line[k];
            if (in_string) {
                if (c == '\\')
                    k++;
                else if (c == '"')
                    in_string = 0;
                else if ((unsigned char)c < 0x20)
                    ok = 0;
            } else if (c == '"') {
                in_string = 1;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                ok &= --depth >= 0;
                ok &= depth > 0 || k + 2 == len;
            }
        }
        ok &= depth == 0 && !in_string;
    }
    fclose(f);
    if (ok && access("/usr/bin/python3", X_OK) == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c 'import json,sys\n"
                 "for l in open(sys.argv[1]): json.loads(l)' %s",
                 path);
        ok = system(cmd) == 0;
    }
    return ok;
}

/* Every CSV row has the header's 15 fields (no field here is quoted). */
static int csv_sound(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int ok = 1;
    while (fgets(line, sizeof line, f)) {
        int commas = 0;
        for (char *c = line; *c; c++)
            commas += *c == ',';
        ok &= commas == 14 && strstr(line, "\r\n") != NULL;
    }
    fclose(f);
    return ok;
}

/* The answer a subject gives: always right (abx, same), the first
 * stimulus always preferred (ab); or, `chance`, right every other time. */
static es_answer answer_to(const es_plan *p, const es_trial *t, int chance, int k)
{
    es_answer a = {.trial = t, .correct = -1, .preferred = -1, .listens = 3, .seconds = 2.5,
                   .level_db = {-1.25, 0.5}};
    const es_plan_test *pt = &p->test[t->test];
    const int right = !chance || k % 2 == 0;
    if (pt->kind == ES_TRIAL_ABX) {
        a.answer = (t->x == 0) == right ? "a" : "b";
        a.correct = right;
    } else if (pt->kind == ES_TRIAL_SAME) {
        a.answer = (t->same == 1) == right ? "same" : "different";
        a.correct = right;
    } else {
        const int slot = t->slot_stimulus[0] == pt->first ? 0 : 1;
        a.answer = slot == 0 ? "a" : "b";
        a.preferred = pt->first;
    }
    return a;
}

/* The run the answers are of: abx always right (10 trials), abx at chance
 * (40), ab with the first preferred (12), same always right (20); a path,
 * title and room with quotes and a backslash to escape. */
static es_plan p;
static es_trial t[ES_PLAN_TRIALS_MAX];
static es_answer given[ES_PLAN_TRIALS_MAX];
static int count;

static void answers_plan(void)
{
    plan_of(&p, ES_TRIAL_ABX, 3);
    p.test[0].trials = 10;                      /* always right */
    p.test[1].trials = 40;                      /* at chance */
    p.test[2] = (es_plan_test){.kind = ES_TRIAL_AB, .first = 2, .second = 1, .trials = 12};
    p.test[3] = (es_plan_test){.kind = ES_TRIAL_SAME, .first = 0, .second = 2, .trials = 20};
    p.tests = 4;
    snprintf(p.path, sizeof p.path, "%s/plan \"quoted\".txt", dir);
    snprintf(p.title, sizeof p.title, "a title, with \"quotes\"");
    snprintf(p.stimulus[0].room, sizeof p.stimulus[0].room, "hall\\with a backslash");
    count = es_trials_make(&p, 99, t, ES_PLAN_TRIALS_MAX);
}

/* Every answer added; a word not of its kind, and an answer against the
 * truth, refused. */
static void answers_add(es_answers *a)
{
    char err[512] = "";
    int added = 0, k_chance = 0;
    for (int k = 0; k < count; k++) {
        const int chance = t[k].test == 1;
        given[k] = answer_to(&p, &t[k], chance, chance ? k_chance++ : 0);
        added += es_answers_add(a, &p, &given[k], err, sizeof err) == 0;
    }
    check(added == count, "answers: every answer written");
    es_answer wrong = given[0];
    wrong.answer = "maybe";
    check(es_answers_add(a, &p, &wrong, err, sizeof err) == -1 && strstr(err, "'maybe'"),
          "answers: a word not of its kind refused");
    wrong = given[0];
    wrong.correct = !wrong.correct;
    if (p.test[t[0].test].kind == ES_TRIAL_AB)
        wrong.preferred = p.test[t[0].test].second;
    check(es_answers_add(a, &p, &wrong, err, sizeof err) == -1,
          "answers: `correct` or `preferred` against the truth refused");
}

/* One summary per test, each as the subject answered; a stopped run's. */
static void summaries(es_test_summary s[ES_PLAN_TESTS_MAX])
{
    check(es_answers_summary(&p, t, given, count, s) == 4, "summary: one per test");
    check(s[0].n == 10 && s[0].k == 10 && fabs(s[0].p - pow(0.5, 10)) < 1e-15 &&
              s[0].significant && !strcmp(s[0].decision, "different"),
          "summary: abx always right, 10 of 10, p = 0.5^10, different");
    check(s[1].n == 40 && s[1].k == 20 && s[1].p > 0.5 && !s[1].significant &&
              !strcmp(s[1].decision, "not shown different"),
          "summary: abx at chance, 20 of 40, not shown different");
    check(s[2].n == 12 && s[2].k == 12 && fabs(s[2].p - 2 * pow(0.5, 12)) < 1e-15 &&
              !strcmp(s[2].decision, "prefers ref"),
          "summary: ab, the first always preferred, two-sided, prefers it");
    check(s[3].n == 20 && s[3].k == 20 && !strcmp(s[3].decision, "different"),
          "summary: same/different always right");
    /* A run stopped after 5 answers. */
    es_test_summary part[ES_PLAN_TESTS_MAX];
    es_answers_summary(&p, t, given, 5, part);
    int n5 = 0;
    for (int k = 0; k < 4; k++)
        n5 += part[k].n;
    check(n5 == 5, "summary of a stopped run: only the answers given");
}

/* The two files as written: their lines, each parsed, their mode. */
static void answers_files(const char *csv, const char *jsonl)
{
    char first[512] = "";
    check(file_lines(csv, first, sizeof first) == count + 1 &&
              !strcmp(first, "trial,test,kind,slot_a,slot_b,x,same,answer,correct,preferred,"
                             "listens,seconds,level_a_db,level_b_db,time\r\n"),
          "CSV: the column line and a row per answer");
    check(csv_sound(csv), "CSV: every row has 15 fields, CRLF-ended");
    check(file_lines(jsonl, NULL, 0) == count + 2, "JSONL: a header, a line per answer, the summary");
    check(jsonl_sound(jsonl), "JSONL: every line parses (Python's json where it is)");
    struct stat st;
    const mode_t mask = umask(022);
    umask(mask);
    check(stat(csv, &st) == 0 && (st.st_mode & 0777) == (0644 & ~mask),
          "answers: mode 0644 (less the umask)");
}

/* What exists is never replaced: the prefix again, a FIFO, a folder. */
static void answers_refused(const char *prefix, const char *csv)
{
    char err[512] = "", other[160], fifo[200], left[200];
    struct stat st;
    const long before = file_lines(csv, NULL, 0);
    const off_t size = stat(csv, &st) == 0 ? st.st_size : -1;
    es_answers *a = es_answers_open(prefix, &p, 99, err, sizeof err);
    check(!a && strstr(err, "run1.csv: exists") && !has_control(err),
          "answers: an existing prefix refused, naming the file");
    check(file_lines(csv, NULL, 0) == before && stat(csv, &st) == 0 && st.st_size == size,
          "answers: the existing file untouched");
    es_answers_close(a);
    snprintf(other, sizeof other, "%s/run2", dir);
    snprintf(fifo, sizeof fifo, "%s.jsonl", other);
    snprintf(left, sizeof left, "%s.csv", other);
    mkfifo(fifo, 0600);
    alarm(10);
    a = es_answers_open(other, &p, 99, err, sizeof err);
    alarm(0);
    check(!a && strstr(err, "run2.jsonl: exists (a FIFO)") && access(left, F_OK) != 0,
          "answers: a FIFO refused, nothing left behind");
    snprintf(other, sizeof other, "%s/run3", dir);
    snprintf(left, sizeof left, "%s.csv", other);
    mkdir(left, 0755);
    a = es_answers_open(other, &p, 99, err, sizeof err);
    check(!a && strstr(err, "run3.csv: exists (a folder)"), "answers: a folder refused");
}

/* The table printed at the end. */
static void answers_table(const es_test_summary *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *to = open_memstream(&text, &len);
    es_answers_print(&p, s, 4, to);
    fclose(to);
    check(text && strstr(text, "10/10") && strstr(text, "prefers ref") &&
              strstr(text, "not shown different") && strstr(text, "cpu vs gpu"),
          "the table: k/N, stimuli, decisions");
    if (text)
        fputs(text, stdout);
    free(text);
}

static void answers(void)
{
    answers_plan();
    char prefix[160], csv[200], jsonl[200], err[512] = "";
    snprintf(prefix, sizeof prefix, "%s/run1", dir);
    snprintf(csv, sizeof csv, "%s.csv", prefix);
    snprintf(jsonl, sizeof jsonl, "%s.jsonl", prefix);
    es_answers *a = es_answers_open(prefix, &p, 99, err, sizeof err);
    check(a != NULL, "answers: PREFIX.csv and PREFIX.jsonl made");
    if (!a) {
        printf("     %s\n", err);
        return;
    }
    answers_add(a);
    es_test_summary s[ES_PLAN_TESTS_MAX];
    summaries(s);
    check(es_answers_finish(a, &p, s, 4, err, sizeof err) == 0, "answers: the summary written");
    es_answers_close(a);
    answers_files(csv, jsonl);
    answers_refused(prefix, csv);
    answers_table(s);
}

int main(void)
{
    test_dir_make("answers");
    binomial();
    answers();
    return test_dir_done();
}
