/* A listening test's plan read (listening_plan.h says the format). The
 * file is checked before it is read: a FIFO would block a read for good
 * and /dev/zero never ends, so only a regular file of at most 1 MiB is
 * taken, whole, and then parsed line by line from memory. Each keyword is
 * a row of one table; every value is checked in full (strtod and strtoull
 * with their ends and errno, never sscanf), and every word an error quotes
 * is escaped: a plan may come from anyone. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "core/suggest.h"
#include "core/text.h"
#include "listening_plan.h"

#define LINE_MAX_CHARS 4095 /* a plan's lines are short; a longer one is no plan */
#define WORDS_MAX 64        /* a stimulus line has its name and four keys */

typedef struct {
    es_plan *plan;
    char where[4200];  /* the plan's path, escaped (1023 bytes at most, 4 each) */
    int line;          /* 1-based, of the line being read */
    int given[8];      /* the line a keyword given once was given on, by table row */
    int trials;        /* the trials of the tests so far */
    char *err;
    size_t n;
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line, "PATH:LINE: what is wrong" (no line for the file as a whole). */
static int fail(reader *r, const char *fmt, ...)
{
    char what[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->line > 0)
        snprintf(r->err, r->n, "%s:%d: %s", r->where, r->line, what);
    else
        snprintf(r->err, r->n, "%s: %s", r->where, what);
    return -1;
}

/* A word from the file for a message: its first 60 bytes, escaped, and
 * "..." when there was more. Never a control byte raw. */
static const char *shown(char out[256], const char *word)
{
    char head[61];
    snprintf(head, sizeof head, "%s", word);
    es_text_escape(out, 250, head);
    if (strlen(word) > 60)
        strcat(out, "...");
    return out;
}

/* [A-Za-z0-9_.-]{1,max}, tested byte by byte: no locale decides. */
static int name_ok(const char *s, size_t max)
{
    const size_t len = strlen(s);
    if (len < 1 || len > max)
        return 0;
    for (const char *c = s; *c; c++) {
        const int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                       (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' || *c == '-';
        if (!ok)
            return 0;
    }
    return 1;
}

/* A finite decimal number, the whole word. */
static int parse_double(const char *s, double *out)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A decimal integer in lo..hi, the whole word: digits only (strtol would
 * take spaces, a sign and a 0x). */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return -1;
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int stimulus_index(const es_plan *p, const char *name)
{
    for (int k = 0; k < p->stimuli; k++)
        if (!strcmp(p->stimulus[k].name, name))
            return k;
    return -1;
}

/* ---- the keywords: each takes its line's words (w[0] the keyword) ---- */

typedef int (*keyword_take)(reader *r, char **w, int count, const char *rest);

/* A keyword of one value: exactly one word after it. */
static int one_value(reader *r, char **w, int count)
{
    char a[256];
    if (count < 2)
        return fail(r, "%s needs a value", w[0]);
    if (count > 2)
        return fail(r, "%s takes one value: '%s' is one too many", w[0], shown(a, w[2]));
    return 0;
}

static int take_title(reader *r, char **w, int count, const char *rest)
{
    (void)w, (void)count;
    char why[200];
    if (!*rest)
        return fail(r, "title needs text");
    if (strlen(rest) > sizeof r->plan->title - 1)
        return fail(r, "the title is %zu bytes; at most %zu", strlen(rest),
                    sizeof r->plan->title - 1);
    if (es_text_check(rest, why, sizeof why) != 0)
        return fail(r, "the title holds %s", why);
    snprintf(r->plan->title, sizeof r->plan->title, "%s", rest);
    return 0;
}

static int take_source(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char why[200], dir[1024];
    if (one_value(r, w, count) != 0)
        return -1;
    if (es_text_check(w[1], why, sizeof why) != 0)
        return fail(r, "the source's path holds %s", why);
    /* Relative to the plan's folder, so that a plan and its sound move
     * together; a plan named without a folder leaves it as it is. */
    es_path_dir(r->plan->path, dir, sizeof dir);
    int len;
    if (w[1][0] == '/' || !strcmp(dir, "."))
        len = snprintf(r->plan->source, sizeof r->plan->source, "%s", w[1]);
    else
        len = snprintf(r->plan->source, sizeof r->plan->source, "%s%s%s", dir,
                       dir[strlen(dir) - 1] == '/' ? "" : "/", w[1]);
    if (len < 0 || (size_t)len >= sizeof r->plan->source)
        return fail(r, "the source's path, from the plan's folder, is longer than %zu bytes",
                    sizeof r->plan->source - 1);
    return 0;
}

static int take_alpha(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    double v;
    if (one_value(r, w, count) != 0)
        return -1;
    if (parse_double(w[1], &v) != 0 || !(v > 0 && v <= 0.5))
        return fail(r, "alpha '%s' is not a number in (0, 0.5]", shown(a, w[1]));
    r->plan->alpha = v;
    return 0;
}

static int take_seed(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    if (one_value(r, w, count) != 0)
        return -1;
    /* Digits only: strtoull reads "-1" as 2^64 - 1. */
    int digits = w[1][0] != 0;
    for (const char *c = w[1]; *c; c++)
        digits &= *c >= '0' && *c <= '9';
    char *end;
    errno = 0;
    const unsigned long long v = digits ? strtoull(w[1], &end, 10) : 0;
    if (!digits || *end || errno == ERANGE)
        return fail(r, "seed '%s' is not a whole number in 0..18446744073709551615",
                    shown(a, w[1]));
    r->plan->seed = (uint64_t)v;
    r->plan->has_seed = 1;
    return 0;
}

static int take_loudness(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    if (one_value(r, w, count) != 0)
        return -1;
    if (!strcmp(w[1], "match"))
        r->plan->loudness_match = 1;
    else if (!strcmp(w[1], "off"))
        r->plan->loudness_match = 0;
    else
        return fail(r, "loudness '%s': match or off", shown(a, w[1]));
    return 0;
}

static int take_subject(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    if (one_value(r, w, count) != 0)
        return -1;
    if (!name_ok(w[1], sizeof r->plan->subject - 1))
        return fail(r, "subject '%s': 1 to %zu of A-Z a-z 0-9 _ . -", shown(a, w[1]),
                    sizeof r->plan->subject - 1);
    snprintf(r->plan->subject, sizeof r->plan->subject, "%s", w[1]);
    return 0;
}

/* One key=value of a stimulus line. */
static int stimulus_key(reader *r, es_plan_stimulus *s, const char *key, const char *value)
{
    char a[256], why[200];
    if (!strcmp(key, "room")) {
        if (!*value)
            return fail(r, "stimulus %s: room= needs a room", s->name);
        if (strlen(value) > sizeof s->room - 1)
            return fail(r, "stimulus %s: the room is longer than %zu bytes", s->name,
                        sizeof s->room - 1);
        if (es_text_check(value, why, sizeof why) != 0)
            return fail(r, "stimulus %s: the room holds %s", s->name, why);
        snprintf(s->room, sizeof s->room, "%s", value);
    } else if (!strcmp(key, "engine")) {
        s->engine = es_engine_find(value);
        if (!s->engine)
            return fail(r, "stimulus %s: unknown engine '%s' (earshot engines lists them)",
                        s->name, shown(a, value));
    } else if (!strcmp(key, "block")) {
        int b;
        if (parse_int(value, 16, 8192, &b) != 0 || (b & (b - 1)) != 0)
            return fail(r, "stimulus %s: block '%s' is not a power of two in 16..8192",
                        s->name, shown(a, value));
        s->block = b;
    } else if (!strcmp(key, "level")) {
        double v;
        if (parse_double(value, &v) != 0 || v < -60 || v > 24)
            return fail(r, "stimulus %s: level '%s' is not a number of dB in -60..+24", s->name,
                        shown(a, value));
        s->level_db = v;
    } else {
        static const char *const keys[] = {"room", "engine", "block", "level"};
        es_suggestion sg = {0};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            es_suggest_consider(&sg, key, keys[k]);
        char hint[80];
        return fail(r, "stimulus %s: unknown key '%s'%s", s->name, shown(a, key),
                    sg.best ? es_suggest_text(&sg, "", hint, sizeof hint)
                            : " (the keys: room, engine, block, level)");
    }
    return 0;
}

static int take_stimulus(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    es_plan *p = r->plan;
    if (count < 2)
        return fail(r, "stimulus needs a name and room=ROOM");
    if (!name_ok(w[1], sizeof p->stimulus[0].name - 1))
        return fail(r, "stimulus name '%s': 1 to %zu of A-Z a-z 0-9 _ . -", shown(a, w[1]),
                    sizeof p->stimulus[0].name - 1);
    if (stimulus_index(p, w[1]) >= 0)
        return fail(r, "stimulus %s is defined twice", w[1]);
    if (p->stimuli == ES_PLAN_STIMULI_MAX)
        return fail(r, "stimulus %s: a plan has at most %d stimuli", w[1], ES_PLAN_STIMULI_MAX);
    es_plan_stimulus *s = &p->stimulus[p->stimuli];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", w[1]);
    static const char *const keys[] = {"room", "engine", "block", "level"};
    int seen[4] = {0}; /* each key once: a second would silently win */
    for (int k = 2; k < count; k++) {
        char *eq = strchr(w[k], '=');
        if (!eq || eq == w[k])
            return fail(r, "stimulus %s: '%s' is not key=value", s->name, shown(a, w[k]));
        *eq = 0;
        for (int j = 0; j < 4; j++)
            if (!strcmp(w[k], keys[j]) && seen[j]++)
                return fail(r, "stimulus %s: %s= given twice", s->name, keys[j]);
        if (stimulus_key(r, s, w[k], eq + 1) != 0)
            return -1;
    }
    if (!s->room[0])
        return fail(r, "stimulus %s needs room=ROOM (a library room or an IR file)", s->name);
    p->stimuli++;
    return 0;
}

/* A stimulus a test names: defined on a line above. */
static int test_stimulus(reader *r, const char *name, int *out)
{
    char a[256], hint[120];
    *out = stimulus_index(r->plan, name);
    if (*out >= 0)
        return 0;
    es_suggestion sg = {0};
    for (int k = 0; k < r->plan->stimuli; k++)
        es_suggest_consider(&sg, name, r->plan->stimulus[k].name);
    return fail(r, "test names stimulus '%s', which no stimulus line above defines%s; "
                   "a stimulus is defined before the tests that use it",
                shown(a, name), es_suggest_text(&sg, "", hint, sizeof hint));
}

static int take_test(reader *r, char **w, int count, const char *rest)
{
    (void)rest;
    char a[256];
    es_plan *p = r->plan;
    if (count < 4 || count > 5)
        return fail(r, "test takes ab|abx|same, two stimuli and trials=N (optional)");
    es_plan_test t = {.trials = 10};
    if (!strcmp(w[1], "ab"))
        t.kind = ES_TRIAL_AB;
    else if (!strcmp(w[1], "abx"))
        t.kind = ES_TRIAL_ABX;
    else if (!strcmp(w[1], "same"))
        t.kind = ES_TRIAL_SAME;
    else
        return fail(r, "test kind '%s': ab, abx or same", shown(a, w[1]));
    if (test_stimulus(r, w[2], &t.first) != 0 || test_stimulus(r, w[3], &t.second) != 0)
        return -1;
    if (t.first == t.second)
        return fail(r, "test compares stimulus %s with itself", w[2]);
    if (count == 5) {
        if (strncmp(w[4], "trials=", 7) != 0)
            return fail(r, "test: '%s' is not trials=N", shown(a, w[4]));
        if (parse_int(w[4] + 7, 1, ES_PLAN_TEST_TRIALS_MAX, &t.trials) != 0)
            return fail(r, "test: trials '%s' is not a whole number in 1..%d", shown(a, w[4] + 7),
                        ES_PLAN_TEST_TRIALS_MAX);
    }
    if (p->tests == ES_PLAN_TESTS_MAX)
        return fail(r, "a plan has at most %d tests", ES_PLAN_TESTS_MAX);
    if (r->trials + t.trials > ES_PLAN_TRIALS_MAX)
        return fail(r, "this test brings the trials to %d; a plan has at most %d",
                    r->trials + t.trials, ES_PLAN_TRIALS_MAX);
    r->trials += t.trials;
    p->test[p->tests++] = t;
    return 0;
}

static const struct {
    const char *name;
    keyword_take take;
    int once; /* 1: a second line of it is an error */
} keywords[] = {
    {"title", take_title, 1},       {"source", take_source, 1},   {"alpha", take_alpha, 1},
    {"seed", take_seed, 1},         {"loudness", take_loudness, 1}, {"subject", take_subject, 1},
    {"stimulus", take_stimulus, 0}, {"test", take_test, 0},
};

/* One line, without its newline (NUL-free, at most LINE_MAX_CHARS). */
static int parse_line(reader *r, char *s)
{
    char a[256];
    char *hash = strchr(s, '#');
    if (hash)
        *hash = 0;
    /* The rest of the line after the keyword, for title: its own spaces
     * kept, its ends trimmed; copied before the words are split in place. */
    char rest[LINE_MAX_CHARS + 1];
    const char *kw = s + strspn(s, " \t");
    const char *from = kw + strcspn(kw, " \t");
    from += strspn(from, " \t");
    size_t len = strlen(from);
    while (len && (from[len - 1] == ' ' || from[len - 1] == '\t'))
        len--;
    memcpy(rest, from, len);
    rest[len] = 0;

    char *w[WORDS_MAX];
    int count = 0;
    for (char *c = s;;) {
        c += strspn(c, " \t");
        if (!*c)
            break;
        if (count == WORDS_MAX)
            return fail(r, "more than %d words", WORDS_MAX);
        w[count++] = c;
        c += strcspn(c, " \t");
        if (*c)
            *c++ = 0;
    }
    if (!count)
        return 0;
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++) {
        if (strcmp(w[0], keywords[k].name) != 0)
            continue;
        if (keywords[k].once && r->given[k])
            return fail(r, "%s given twice (first on line %d)", w[0], r->given[k]);
        r->given[k] = r->line;
        return keywords[k].take(r, w, count, rest);
    }
    es_suggestion sg = {0};
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        es_suggest_consider(&sg, w[0], keywords[k].name);
    char hint[80];
    return fail(r, "unknown keyword '%s'%s", shown(a, w[0]),
                sg.best ? es_suggest_text(&sg, "", hint, sizeof hint)
                        : " (the keywords: title, source, alpha, seed, loudness, subject, "
                          "stimulus, test)");
}

/* The whole file into memory: a regular file of at most ES_PLAN_FILE_MAX
 * bytes, told apart without a blocking open (stat first, so a device is
 * never opened; O_NONBLOCK and fstat after, for what changed between).
 * The read stops one byte past the limit: a file that grew, or one that
 * says it is smaller than it reads (/proc), is still bounded. */
static char *read_whole(reader *r, const char *path, size_t *len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fail(r, "%s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(r, "%s, not a regular file: a plan is a text file", es_file_kind(st.st_mode));
        return NULL;
    }
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        fail(r, "%s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(r, "not a regular file: a plan is a text file");
        goto done;
    }
    if (st.st_size > ES_PLAN_FILE_MAX) {
        fail(r, "%lld bytes; a plan is at most %d", (long long)st.st_size, ES_PLAN_FILE_MAX);
        goto done;
    }
    buf = malloc(ES_PLAN_FILE_MAX + 2);
    if (!buf) {
        fail(r, "out of memory");
        goto done;
    }
    size_t got = 0;
    while (got <= ES_PLAN_FILE_MAX) {
        const ssize_t k = read(fd, buf + got, ES_PLAN_FILE_MAX + 1 - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            fail(r, "%s", strerror(errno));
            free(buf);
            buf = NULL;
            goto done;
        }
        if (k == 0)
            break;
        got += (size_t)k;
    }
    if (got > ES_PLAN_FILE_MAX) {
        fail(r, "more than %d bytes; a plan is at most that", ES_PLAN_FILE_MAX);
        free(buf);
        buf = NULL;
    } else if (got == 0) {
        fail(r, "the file is empty: a plan needs a source, stimuli and a test");
        free(buf);
        buf = NULL;
    } else {
        buf[got] = 0;
        *len = got;
    }
done:
    close(fd);
    return buf;
}

int es_plan_read(const char *path, es_plan *plan, char *err, size_t n)
{
    reader r = {.plan = plan, .err = err, .n = n};
    memset(plan, 0, sizeof *plan);
    plan->alpha = 0.05;
    {
        char head[1024];
        snprintf(head, sizeof head, "%s", path);
        es_text_escape(r.where, sizeof r.where - 4, head);
        if (strlen(path) >= sizeof plan->path) {
            strcat(r.where, "...");
            return fail(&r, "the path is longer than %zu bytes", sizeof plan->path - 1);
        }
    }
    snprintf(plan->path, sizeof plan->path, "%s", path);
    size_t len;
    char *text = read_whole(&r, path, &len);
    if (!text)
        return -1;
    int rc = 0;
    char line[LINE_MAX_CHARS + 1];
    for (size_t at = 0; at < len && rc == 0;) {
        const char *nl = memchr(text + at, '\n', len - at);
        const size_t raw = (nl ? (size_t)(nl - text) : len) - at;
        size_t line_len = raw;
        /* A file written on Windows: its \r\n is a newline too. */
        if (line_len && text[at + line_len - 1] == '\r')
            line_len--;
        r.line++;
        if (memchr(text + at, 0, raw))
            rc = fail(&r, "a NUL byte: a plan is text");
        else if (line_len > LINE_MAX_CHARS)
            rc = fail(&r, "the line is %zu bytes long; at most %d", line_len, LINE_MAX_CHARS);
        else {
            memcpy(line, text + at, line_len);
            line[line_len] = 0;
            rc = parse_line(&r, line);
        }
        at += raw + (nl ? 1 : 0);
    }
    free(text);
    if (rc != 0)
        return -1;
    /* What the plan lacks is said at its end, where it was looked for. */
    if (!plan->source[0])
        return fail(&r, "the plan has no source line (source FILE: the sound played)");
    if (!plan->tests)
        return fail(&r, "the plan has no test line (test ab|abx|same STIM1 STIM2)");
    return 0;
}

int es_plan_trials(const es_plan *plan)
{
    int sum = 0;
    for (int k = 0; k < plan->tests; k++)
        sum += plan->test[k].trials;
    return sum;
}

const char *es_trial_kind_word(es_trial_kind k)
{
    switch (k) {
    case ES_TRIAL_AB: return "ab";
    case ES_TRIAL_ABX: return "abx";
    case ES_TRIAL_SAME: return "same";
    }
    return "?";
}
