/* A listening test's answers kept (answers.h). Each record is made whole
 * in memory (open_memstream) and written with one write() on a descriptor
 * opened O_APPEND, then fdatasync'd before the call returns: a kill -9
 * between two answers loses nothing, and a crash inside one can cut only
 * that one record's tail, never an earlier record. The files are made with
 * O_EXCL, so an existing file of any kind (a regular file, a link, a FIFO,
 * /dev/null) is never written into, and the folder is synced once they
 * exist so that their names survive a power loss too. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "answers.h"
#include "core/binomial.h"
#include "core/files.h"
#include "core/json.h"
#include "core/text.h"

struct es_answers {
    int csv, jsonl;        /* descriptors, O_APPEND */
    char csv_path[4200];   /* escaped, for messages */
    char jsonl_path[4200];
};

static const char csv_columns[] = "trial,test,kind,slot_a,slot_b,x,same,answer,correct,"
                                  "preferred,listens,seconds,level_a_db,level_b_db,time\r\n";

/* Now, UTC, ISO-8601 to the millisecond: 2024-05-01T12:00:00.123Z. */
static void utc_now(char out[40])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    const size_t len = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + len, 40 - len, ".%03uZ", (unsigned)(ts.tv_nsec / 1000000) % 1000u);
}

/* A record, made whole, to its file: one write(), then fdatasync. */
static int put_record(int fd, const char *shown_path, char *text, size_t len, char *err, size_t n)
{
    if (!text) {
        snprintf(err, n, "%s: out of memory", shown_path);
        return -1;
    }
    const int rc = es_fd_write_all(fd, text, len) != 0 || fdatasync(fd) != 0 ? -1 : 0;
    if (rc != 0)
        snprintf(err, n, "%s: %s", shown_path, strerror(errno));
    free(text);
    return rc;
}

/* A memory stream the record is made in; closed by record_end. */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} record;

static int record_begin(record *r)
{
    r->text = NULL;
    r->len = 0;
    r->f = open_memstream(&r->text, &r->len);
    return r->f ? 0 : -1;
}

/* The text made, or NULL when the stream failed (memory). */
static char *record_end(record *r)
{
    if (!r->f)
        return NULL;
    const int bad = ferror(r->f);
    fclose(r->f);
    r->f = NULL;
    if (bad) {
        free(r->text);
        r->text = NULL;
    }
    return r->text;
}

/* An RFC 4180 field: quoted, with its quotes doubled, when it holds a
 * comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number, or nothing (CSV) / null (JSON) when it is not finite: JSON has
 * no NaN, and a spreadsheet's empty cell is one. */
static void put_number(FILE *f, const char *format, double v, int json)
{
    if (isfinite(v))
        fprintf(f, format, v);
    else if (json)
        fputs("null", f);
}

/* A number as JSON, in the fewest digits that read back the same: 0.05,
 * not 0.050000000000000003 (null when it is not finite). */
static void put_exact(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char text[40];
    snprintf(text, sizeof text, "%.15g", v);
    if (strtod(text, NULL) != v)
        snprintf(text, sizeof text, "%.17g", v);
    fputs(text, f);
}

/* Makes `path` new, or says why not: one line naming it. */
static int make_new(const char *path, const char *shown_path, char *err, size_t n)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        snprintf(err, n, "%s: exists (%s); answers never replace a file", shown_path,
                 S_ISLNK(st.st_mode) ? "a symbolic link" : es_file_kind(st.st_mode));
        return -1;
    }
    const int fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            snprintf(err, n, "%s: exists; answers never replace a file", shown_path);
        else
            snprintf(err, n, "%s: %s", shown_path, strerror(errno));
    }
    return fd;
}

/* The folder's entries to the disk: the new files' names survive a power
 * loss. Best effort: some file systems refuse fsync on a folder. */
static void sync_folder(const char *path)
{
    char dir[4200];
    es_path_dir(path, dir, sizeof dir);
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* The JSONL header: the plan as run, with the seed that draws its trials. */
static char *header_line(const es_plan *plan, uint64_t seed, size_t *len)
{
    record r;
    if (record_begin(&r) != 0)
        return NULL;
    char now[40];
    utc_now(now);
    FILE *f = r.f;
    fputs("{\"plan\":", f);
    es_json_string(f, plan->path);
    fputs(",\"title\":", f);
    es_json_string(f, plan->title);
    fputs(",\"subject\":", f);
    es_json_string(f, plan->subject);
    fputs(",\"source\":", f);
    es_json_string(f, plan->source);
    fprintf(f, ",\"loudness\":\"%s\",\"seed\":\"%llu\",\"alpha\":",
            plan->loudness_match ? "match" : "off", (unsigned long long)seed);
    put_exact(f, plan->alpha);
    fprintf(f, ",\"started\":\"%s\"", now);
    fputs(",\"stimuli\":[", f);
    for (int k = 0; k < plan->stimuli; k++) {
        const es_plan_stimulus *s = &plan->stimulus[k];
        fputs(k ? ",{\"name\":" : "{\"name\":", f);
        es_json_string(f, s->name);
        fputs(",\"room\":", f);
        es_json_string(f, s->room);
        fputs(",\"engine\":", f);
        es_json_string(f, s->engine ? s->engine->name : NULL);
        fprintf(f, ",\"block\":%d,\"level_db\":", s->block);
        put_exact(f, s->level_db);
        fputc('}', f);
    }
    fputs("],\"tests\":[", f);
    for (int k = 0; k < plan->tests; k++) {
        const es_plan_test *t = &plan->test[k];
        fprintf(f, "%s{\"test\":%d,\"kind\":\"%s\",\"first\":", k ? "," : "", k + 1,
                es_trial_kind_word(t->kind));
        es_json_string(f, plan->stimulus[t->first].name);
        fputs(",\"second\":", f);
        es_json_string(f, plan->stimulus[t->second].name);
        fprintf(f, ",\"trials\":%d}", t->trials);
    }
    fputs("]}\n", f);
    char *text = record_end(&r);
    *len = r.len;
    return text;
}

es_answers *es_answers_open(const char *prefix, const es_plan *plan, uint64_t seed, char *err,
                            size_t n)
{
    char csv[4100], jsonl[4100];
    if (snprintf(csv, sizeof csv, "%s.csv", prefix) >= (int)sizeof csv ||
        snprintf(jsonl, sizeof jsonl, "%s.jsonl", prefix) >= (int)sizeof jsonl) {
        char head[200];
        snprintf(head, sizeof head, "%s", prefix);
        char shown_prefix[800];
        es_text_escape(shown_prefix, sizeof shown_prefix, head);
        snprintf(err, n, "%s...: the answers' prefix is too long", shown_prefix);
        return NULL;
    }
    es_answers *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    a->csv = a->jsonl = -1;
    es_text_escape(a->csv_path, sizeof a->csv_path, csv);
    es_text_escape(a->jsonl_path, sizeof a->jsonl_path, jsonl);
    a->csv = make_new(csv, a->csv_path, err, n);
    if (a->csv >= 0)
        a->jsonl = make_new(jsonl, a->jsonl_path, err, n);
    int ok = a->csv >= 0 && a->jsonl >= 0;
    if (ok) {
        sync_folder(csv);
        size_t len = 0;
        char *head = header_line(plan, seed, &len);
        ok = put_record(a->csv, a->csv_path, strdup(csv_columns), strlen(csv_columns), err,
                        n) == 0;
        if (ok)
            ok = put_record(a->jsonl, a->jsonl_path, head, len, err, n) == 0;
        else
            free(head);
    }
    if (!ok) {
        /* Only what this call made is removed: both files are new. */
        if (a->csv >= 0)
            unlink(csv);
        if (a->jsonl >= 0)
            unlink(jsonl);
        es_answers_close(a);
        return NULL;
    }
    return a;
}

/* The slot an answer word names: 0 "a", 1 "b", -1 another. */
static int answer_slot(const char *answer)
{
    return !strcmp(answer, "a") ? 0 : !strcmp(answer, "b") ? 1 : -1;
}

/* What an answer means against its trial's truth: *correct (abx, same; -1
 * for ab) and *preferred (ab; -1 for the others). -1 when the word is not
 * one of its kind's. */
static int judge(const es_plan *plan, const es_trial *t, const char *answer, int *correct,
                 int *preferred)
{
    *correct = *preferred = -1;
    if (!answer || t->test < 0 || t->test >= plan->tests)
        return -1;
    switch (plan->test[t->test].kind) {
    case ES_TRIAL_AB:
        if (answer_slot(answer) < 0)
            return -1;
        *preferred = t->slot_stimulus[answer_slot(answer)];
        return 0;
    case ES_TRIAL_ABX:
        if (answer_slot(answer) < 0)
            return -1;
        *correct = answer_slot(answer) == t->x;
        return 0;
    case ES_TRIAL_SAME:
        if (strcmp(answer, "same") != 0 && strcmp(answer, "different") != 0)
            return -1;
        *correct = !strcmp(answer, "same") == (t->same == 1);
        return 0;
    }
    return -1;
}

/* The fields of an answer's CSV row or JSONL line (json: 0 or 1). */
static void answer_fields(FILE *f, const es_plan *plan, const es_answer *ans, int json,
                          const char *now)
{
    const es_trial *t = ans->trial;
    const es_trial_kind kind = plan->test[t->test].kind;
    const char *slot[2] = {plan->stimulus[t->slot_stimulus[0]].name,
                           plan->stimulus[t->slot_stimulus[1]].name};
    const char *x = t->x == 0 ? "a" : t->x == 1 ? "b" : NULL;
    const char *preferred = ans->preferred >= 0 ? plan->stimulus[ans->preferred].name : NULL;
    if (!json) {
        fprintf(f, "%d,%d,%s,", t->number, t->test + 1, es_trial_kind_word(kind));
        csv_field(f, slot[0]);
        fputc(',', f);
        csv_field(f, slot[1]);
        fprintf(f, ",%s,%s,", x ? x : "", t->same < 0 ? "" : t->same ? "1" : "0");
        csv_field(f, ans->answer);
        fprintf(f, ",%s,", ans->correct < 0 ? "" : ans->correct ? "1" : "0");
        csv_field(f, preferred ? preferred : "");
        fprintf(f, ",%d,", ans->listens);
        put_number(f, "%.3f", ans->seconds, 0);
        fputc(',', f);
        put_number(f, "%.3f", ans->level_db[0], 0);
        fputc(',', f);
        put_number(f, "%.3f", ans->level_db[1], 0);
        fprintf(f, ",%s\r\n", now);
        return;
    }
    static const char *const booleans[] = {"false", "true"};
    fprintf(f, "{\"trial\":%d,\"test\":%d,\"kind\":\"%s\",\"slot_a\":", t->number, t->test + 1,
            es_trial_kind_word(kind));
    es_json_string(f, slot[0]);
    fputs(",\"slot_b\":", f);
    es_json_string(f, slot[1]);
    fputs(",\"x\":", f);
    es_json_string(f, x);
    fprintf(f, ",\"same\":%s,\"answer\":", t->same < 0 ? "null" : booleans[t->same == 1]);
    es_json_string(f, ans->answer);
    fprintf(f, ",\"correct\":%s,\"preferred\":",
            ans->correct < 0 ? "null" : booleans[ans->correct == 1]);
    es_json_string(f, preferred);
    fprintf(f, ",\"listens\":%d,\"seconds\":", ans->listens);
    put_number(f, "%.3f", ans->seconds, 1);
    fputs(",\"level_a_db\":", f);
    put_number(f, "%.3f", ans->level_db[0], 1);
    fputs(",\"level_b_db\":", f);
    put_number(f, "%.3f", ans->level_db[1], 1);
    fprintf(f, ",\"time\":\"%s\",\"truth\":", now);
    es_json_string(f, kind == ES_TRIAL_ABX    ? x
                      : kind == ES_TRIAL_SAME ? (t->same == 1 ? "same" : "different")
                                              : NULL);
    fputs("}\n", f);
}

int es_answers_add(es_answers *a, const es_plan *plan, const es_answer *ans, char *err, size_t n)
{
    const es_trial *t = ans->trial;
    if (!t || t->test < 0 || t->test >= plan->tests || t->slot_stimulus[0] < 0 ||
        t->slot_stimulus[0] >= plan->stimuli || t->slot_stimulus[1] < 0 ||
        t->slot_stimulus[1] >= plan->stimuli) {
        snprintf(err, n, "an answer to no trial of this plan");
        return -1;
    }
    const char *kind = es_trial_kind_word(plan->test[t->test].kind);
    char said[64];
    es_text_escape(said, sizeof said, ans->answer ? ans->answer : "(none)");
    int correct, preferred;
    if (judge(plan, t, ans->answer, &correct, &preferred) != 0) {
        snprintf(err, n, "trial %d: '%s' is no answer to a%s %s trial", t->number, said,
                 kind[0] == 'a' ? "n" : "", kind);
        return -1;
    }
    if (correct != ans->correct || preferred != ans->preferred) {
        snprintf(err, n,
                 "trial %d (%s): the answer '%s' makes correct %d and preferred %d, not %d "
                 "and %d",
                 t->number, kind, said, correct, preferred, ans->correct, ans->preferred);
        return -1;
    }
    char now[40];
    utc_now(now);
    record row, line;
    if (record_begin(&row) != 0) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    answer_fields(row.f, plan, ans, 0, now);
    char *row_text = record_end(&row);
    if (put_record(a->csv, a->csv_path, row_text, row.len, err, n) != 0)
        return -1;
    if (record_begin(&line) != 0) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    answer_fields(line.f, plan, ans, 1, now);
    char *line_text = record_end(&line);
    return put_record(a->jsonl, a->jsonl_path, line_text, line.len, err, n);
}

int es_answers_summary(const es_plan *plan, const es_trial *trials, const es_answer *answers,
                       int count, es_test_summary *out)
{
    for (int k = 0; k < plan->tests; k++)
        out[k] = (es_test_summary){.test = k, .p = 1};
    for (int i = 0; i < count; i++) {
        const es_trial *t = answers[i].trial ? answers[i].trial : trials ? &trials[i] : NULL;
        int correct, preferred;
        if (!t || judge(plan, t, answers[i].answer, &correct, &preferred) != 0)
            continue;
        es_test_summary *s = &out[t->test];
        s->n++;
        s->k += plan->test[t->test].kind == ES_TRIAL_AB ? preferred == plan->test[t->test].first
                                                        : correct == 1;
    }
    for (int k = 0; k < plan->tests; k++) {
        es_test_summary *s = &out[k];
        const es_plan_test *t = &plan->test[k];
        if (!s->n) {
            snprintf(s->decision, sizeof s->decision, "no answers");
            continue;
        }
        /* abx and same ask whether the subject does better than chance;
         * ab whether either stimulus is preferred, so both tails. */
        const int ab = t->kind == ES_TRIAL_AB;
        s->p = es_binomial_p(s->k, s->n, 0.5, ab ? ES_ALT_TWO_SIDED : ES_ALT_GREATER);
        s->significant = s->p <= plan->alpha;
        if (ab && s->significant)
            snprintf(s->decision, sizeof s->decision, "prefers %s",
                     plan->stimulus[2 * s->k > s->n ? t->first : t->second].name);
        else
            snprintf(s->decision, sizeof s->decision, "%s",
                     ab               ? "no preference shown"
                     : s->significant ? "different"
                                      : "not shown different");
    }
    return plan->tests;
}

int es_answers_finish(es_answers *a, const es_plan *plan, const es_test_summary *s, int tests,
                      char *err, size_t n)
{
    record r;
    if (record_begin(&r) != 0) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    char now[40];
    utc_now(now);
    fputs("{\"summary\":[", r.f);
    for (int k = 0; k < tests; k++) {
        const es_plan_test *t = &plan->test[s[k].test];
        fprintf(r.f, "%s{\"test\":%d,\"kind\":\"%s\",\"first\":", k ? "," : "", s[k].test + 1,
                es_trial_kind_word(t->kind));
        es_json_string(r.f, plan->stimulus[t->first].name);
        fputs(",\"second\":", r.f);
        es_json_string(r.f, plan->stimulus[t->second].name);
        fprintf(r.f, ",\"n\":%d,\"k\":%d,\"p\":", s[k].n, s[k].k);
        put_exact(r.f, s[k].p);
        fputs(",\"alpha\":", r.f);
        put_exact(r.f, plan->alpha);
        fprintf(r.f, ",\"significant\":%s,\"decision\":", s[k].significant ? "true" : "false");
        es_json_string(r.f, s[k].decision);
        fputc('}', r.f);
    }
    fprintf(r.f, "],\"finished\":\"%s\"}\n", now);
    char *text = record_end(&r);
    return put_record(a->jsonl, a->jsonl_path, text, r.len, err, n);
}

void es_answers_close(es_answers *a)
{
    if (!a)
        return;
    if (a->csv >= 0)
        close(a->csv);
    if (a->jsonl >= 0)
        close(a->jsonl);
    free(a);
}

void es_answers_print(const es_plan *plan, const es_test_summary *s, int tests, FILE *to)
{
    /* The stimuli column as wide as its widest pair. Names are
     * [A-Za-z0-9_.-] (the plan checked them): printed as they are. */
    int width = (int)strlen("stimuli");
    for (int k = 0; k < tests; k++) {
        const es_plan_test *t = &plan->test[s[k].test];
        const int w = (int)(strlen(plan->stimulus[t->first].name) +
                            strlen(plan->stimulus[t->second].name) + 4);
        if (w > width)
            width = w;
    }
    fprintf(to, "%4s  %-4s  %-*s  %9s  %-9s  %s\n", "test", "kind", width, "stimuli", "k/N",
            "p", "decision");
    for (int k = 0; k < tests; k++) {
        const es_plan_test *t = &plan->test[s[k].test];
        char pair[80], kn[24];
        snprintf(pair, sizeof pair, "%s vs %s", plan->stimulus[t->first].name,
                 plan->stimulus[t->second].name);
        snprintf(kn, sizeof kn, "%d/%d", s[k].k, s[k].n);
        fprintf(to, "%4d  %-4s  %-*s  %9s  %-9.3g  %s%s\n", s[k].test + 1,
                es_trial_kind_word(t->kind), width, pair, kn, s[k].p, s[k].decision,
                s[k].significant ? " *" : "");
    }
    fprintf(to, "(ab: k prefers the first; abx, same: k correct. * p <= alpha %g)\n",
            plan->alpha);
}
