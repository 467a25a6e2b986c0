/* A blind listening test's data side alone: the plan read (a good one, its
 * relative source resolved; bad ones refused in one line at the line at
 * fault, a FIFO without blocking); the trials drawn (the same from the
 * same seed, each test's count, the hidden truth balanced); the exact
 * binomial test against scipy's values; the answers written (two new
 * files, never one that exists, each line parsed back) and summarised (a
 * subject always right, one at chance, a preference). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "answers.h"
#include "core/binomial.h"
#include "listening_plan.h"
#include "listening_trials.h"

#ifdef ES_TEST_ENGINE_STUB
/* Compiled alone, without the engines' library: the registry's lookup
 * for the two names this test uses. The build links the real one. */
static const es_engine_class stub_partitioned = {.name = "cpu-partitioned"};
static const es_engine_class stub_direct = {.name = "cpu-direct"};
const es_engine_class *es_engine_find(const char *name)
{
    return !strcmp(name, "cpu-partitioned") ? &stub_partitioned
           : !strcmp(name, "cpu-direct")    ? &stub_direct
                                            : NULL;
}
#endif

static int failures;
static char dir[64]; /* the test's own folder under /tmp */

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        printf("FAIL cannot write %s\n", path);
        exit(1);
    }
}

static int has_control(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 1;
    return 0;
}

/* ---- the plan ---- */

static const char good_plan[] =
    "# CPU against GPU\n"
    "title   CPU against GPU, partitioned   # the rest is a comment\n"
    "source  speech.wav\r\n"
    "alpha   0.01\n"
    "seed    18446744073709551615\n"
    "loudness match\n"
    "subject ann.b-1\n"
    "\n"
    "stimulus cpu room=hall engine=cpu-partitioned block=256\n"
    "stimulus direct\troom=/rooms/a_b.wav\tengine=cpu-direct  level=-3.5\n"
    "stimulus session room=hall\n"
    "test abx cpu direct trials=20\n"
    "test ab  cpu session\n"
    "test same direct session trials=200\n";

static void plan_good(void)
{
    char sub[128], path[160], want[200], err[512] = "";
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/plan.txt", sub);
    write_file(path, good_plan, strlen(good_plan));
    es_plan p;
    const int rc = es_plan_read(path, &p, err, sizeof err);
    check(rc == 0, "a good plan is read");
    if (rc != 0) {
        printf("     %s\n", err);
        return;
    }
    snprintf(want, sizeof want, "%s/speech.wav", sub);
    check(!strcmp(p.source, want), "a relative source is resolved against the plan's folder");
    check(!strcmp(p.path, path), "the plan's path is kept");
    check(!strcmp(p.title, "CPU against GPU, partitioned"), "title: the rest of the line, trimmed");
    check(p.alpha == 0.01 && p.has_seed && p.seed == UINT64_MAX && p.loudness_match == 1 &&
              !strcmp(p.subject, "ann.b-1"),
          "alpha, a 64-bit seed, loudness and subject");
    check(p.stimuli == 3 && p.tests == 3 && es_plan_trials(&p) == 230, "3 stimuli, 3 tests, 230 trials");
    check(p.stimulus[0].engine && !strcmp(p.stimulus[0].engine->name, "cpu-partitioned") &&
              p.stimulus[0].block == 256 && p.stimulus[0].level_db == 0,
          "a stimulus's engine and block; level 0 by default");
    check(!strcmp(p.stimulus[1].room, "/rooms/a_b.wav") && p.stimulus[1].level_db == -3.5 &&
              p.stimulus[1].engine && !strcmp(p.stimulus[1].engine->name, "cpu-direct"),
          "words split on tabs and runs of spaces");
    check(p.stimulus[2].engine == NULL && p.stimulus[2].block == 0,
          "no engine or block: the session's");
    check(p.test[0].kind == ES_TRIAL_ABX && p.test[0].first == 0 && p.test[0].second == 1 &&
              p.test[0].trials == 20 && p.test[1].kind == ES_TRIAL_AB && p.test[1].trials == 10 &&
              p.test[2].kind == ES_TRIAL_SAME && p.test[2].trials == 200,
          "tests: kinds, stimuli, trials (10 by default)");
    check(!strcmp(es_trial_kind_word(ES_TRIAL_AB), "ab") &&
              !strcmp(es_trial_kind_word(ES_TRIAL_ABX), "abx") &&
              !strcmp(es_trial_kind_word(ES_TRIAL_SAME), "same"),
          "the kinds' words");

    /* A plan with no folder in its name keeps its source as written. */
    char here[512];
    if (getcwd(here, sizeof here) && chdir(sub) == 0) {
        check(es_plan_read("plan.txt", &p, err, sizeof err) == 0 &&
                  !strcmp(p.source, "speech.wav"),
              "a plan named without a folder: its source as written");
        (void)chdir(here);
    }
}

/* Refused with "PATH:LINE: " (line 0: "PATH: "), the message holding
 * `needle`, in one line with no control byte. */
static void refused_file(const char *what, const char *path, int line, const char *needle)
{
    char err[2048] = "", prefix[300], label[300];
    es_plan p;
    const int rc = es_plan_read(path, &p, err, sizeof err);
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", path);
    const int ok = rc == -1 && !strncmp(err, prefix, strlen(prefix)) && strstr(err, needle) &&
                   !has_control(err);
    snprintf(label, sizeof label, "refused: %s", what);
    check(ok, label);
    if (!ok)
        printf("     got: %s\n", err);
}

static void refused(const char *what, const char *text, size_t len, int line, const char *needle)
{
    char path[160];
    snprintf(path, sizeof path, "%s/bad.txt", dir);
    unlink(path);
    write_file(path, text, len);
    refused_file(what, path, line, needle);
}

#define HEAD "source s.wav\nstimulus a room=x\nstimulus b room=y\n"
#define REFUSED(what, text, line, needle) refused(what, text, sizeof text - 1, line, needle)

static void plan_bad(void)
{
    REFUSED("an unknown keyword, named", HEAD "sauce x.wav\n", 4, "unknown keyword 'sauce'");
    REFUSED("block 100", HEAD "stimulus c room=z block=100\n", 4, "block '100'");
    REFUSED("block 16384", HEAD "stimulus c room=z block=16384\n", 4, "block");
    REFUSED("level 99", HEAD "stimulus c room=z level=99\n", 4, "level '99'");
    REFUSED("an unknown engine", HEAD "stimulus c room=z engine=warp\n", 4, "unknown engine 'warp'");
    REFUSED("a stimulus without room=", HEAD "stimulus c block=64\n", 4, "room=");
    REFUSED("an unknown stimulus key", HEAD "stimulus c room=z colour=red\n", 4, "unknown key 'colour'");
    REFUSED("a key given twice", HEAD "stimulus c room=z room=w\n", 4, "twice");
    REFUSED("a duplicate stimulus", HEAD "stimulus a room=z\n", 4, "stimulus a is defined twice");
    REFUSED("a test naming an unknown stimulus", HEAD "test abx a c\n", 4, "'c'");
    REFUSED("a stimulus used before it is defined",
            "source s.wav\nstimulus a room=x\ntest ab a b\nstimulus b room=y\n", 3,
            "defined before the tests");
    REFUSED("a test of a stimulus with itself", HEAD "test ab a a\n", 4, "with itself");
    REFUSED("trials=0", HEAD "test ab a b trials=0\n", 4, "trials '0'");
    REFUSED("trials=201", HEAD "test ab a b trials=201\n", 4, "trials '201'");
    REFUSED("over 1000 trials in all",
            HEAD "test ab a b trials=200\ntest ab a b trials=200\ntest ab a b trials=200\n"
                 "test ab a b trials=200\ntest ab a b trials=200\ntest abx a b trials=1\n",
            9, "at most 1000");
    REFUSED("an unknown test kind", HEAD "test abc a b\n", 4, "test kind 'abc'");
    REFUSED("a control character in a name, escaped", HEAD "stimulus c\033[2J room=z\n", 4,
            "\\x1b[2J");
    REFUSED("a control character in a room", HEAD "stimulus c room=z\033]52\n", 4, "control");
    REFUSED("alpha 0.6", "alpha 0.6\n" HEAD, 1, "alpha '0.6'");
    REFUSED("alpha nan", "alpha nan\n" HEAD, 1, "alpha 'nan'");
    REFUSED("a negative seed", "seed -1\n" HEAD, 1, "seed '-1'");
    REFUSED("a seed past 64 bits", "seed 18446744073709551616\n" HEAD, 1, "seed");
    REFUSED("loudness other than match|off", "loudness loud\n" HEAD, 1, "loudness 'loud'");
    REFUSED("a bad subject", "subject a/b\n" HEAD, 1, "subject 'a/b'");
    REFUSED("a second source", HEAD "source t.wav\n", 4, "source given twice (first on line 1)");
    REFUSED("a value too many", "source a.wav b.wav\n", 1, "'b.wav' is one too many");
    REFUSED("missing source, said at the end", "stimulus a room=x\nstimulus b room=y\ntest ab a b\n",
            3, "no source line");
    REFUSED("no test, said at the end", HEAD "# nothing more\n", 4, "no test line");
    REFUSED("comments only", "# a plan\n\n   # nothing\n", 3, "no source line");

    /* 17 stimuli, 33 tests. */
    char many[4096];
    size_t at = (size_t)snprintf(many, sizeof many, "source s.wav\n");
    for (int k = 0; k < 17; k++)
        at += (size_t)snprintf(many + at, sizeof many - at, "stimulus s%d room=r\n", k);
    refused("17 stimuli", many, at, 18, "at most 16 stimuli");
    at = (size_t)snprintf(many, sizeof many, HEAD);
    for (int k = 0; k < 33; k++)
        at += (size_t)snprintf(many + at, sizeof many - at, "test ab a b trials=1\n");
    refused("33 tests", many, at, 36, "at most 32 tests");

    /* A 5000-byte line; a title past 200 bytes. */
    static char text[8192];
    at = (size_t)snprintf(text, sizeof text, "source s.wav\n# ");
    memset(text + at, 'x', 5000);
    at += 5000;
    text[at++] = '\n';
    refused("a 5000-byte line", text, at, 2, "at most 4095");
    at = (size_t)snprintf(text, sizeof text, "title ");
    memset(text + at, 't', 201);
    at += 201;
    text[at++] = '\n';
    refused("a title of 201 bytes", text, at, 1, "at most 200");

    /* A NUL byte, in a comment too. */
    static const char nul[] = "source s.wav\n# a \0 b\n";
    refused("a NUL byte", nul, sizeof nul - 1, 2, "NUL");

    /* More than 1 MiB (comments only). */
    char *big = malloc(ES_PLAN_FILE_MAX + 100);
    memset(big, '#', ES_PLAN_FILE_MAX + 100);
    for (size_t k = 100; k < ES_PLAN_FILE_MAX + 100; k += 100)
        big[k] = '\n';
    refused("a file over 1 MiB", big, ES_PLAN_FILE_MAX + 100, 0, "at most");
    free(big);

    refused("an empty file", "", 0, 0, "empty");

    char path[160];
    refused_file("a folder", dir, 0, "a folder");
    snprintf(path, sizeof path, "%s/missing.txt", dir);
    refused_file("a file that does not exist", path, 0, "No such file");
    /* A FIFO no one writes: refused at once, never waited on (the alarm
     * fails the test if the read blocks). */
    snprintf(path, sizeof path, "%s/fifo", dir);
    if (mkfifo(path, 0600) == 0) {
        alarm(10);
        refused_file("a FIFO, without blocking", path, 0, "a FIFO");
        alarm(0);
    } else {
        check(0, "mkfifo");
    }
    refused_file("a character device", "/dev/zero", 0, "character device");
}

/* ---- the trials ---- */

/* A plan made in memory: `tests` tests of `kind`, 200 trials each, between
 * stimuli 0 and 1. */
static void plan_of(es_plan *p, es_trial_kind kind, int tests)
{
    memset(p, 0, sizeof *p);
    p->alpha = 0.05;
    p->stimuli = 3;
    snprintf(p->stimulus[0].name, sizeof p->stimulus[0].name, "cpu");
    snprintf(p->stimulus[1].name, sizeof p->stimulus[1].name, "gpu");
    snprintf(p->stimulus[2].name, sizeof p->stimulus[2].name, "ref");
    p->tests = tests;
    for (int k = 0; k < tests; k++)
        p->test[k] = (es_plan_test){.kind = kind, .first = 0, .second = 1, .trials = 200};
}

static void trials(void)
{
    static es_trial a[ES_PLAN_TRIALS_MAX], b[ES_PLAN_TRIALS_MAX];
    es_plan p;
    plan_of(&p, ES_TRIAL_ABX, 5);
    p.test[1] = (es_plan_test){.kind = ES_TRIAL_AB, .first = 2, .second = 0, .trials = 7};
    p.test[2] = (es_plan_test){.kind = ES_TRIAL_SAME, .first = 1, .second = 2, .trials = 13};
    const int total = es_plan_trials(&p);
    const int na = es_trials_make(&p, 42, a, ES_PLAN_TRIALS_MAX);
    const int nb = es_trials_make(&p, 42, b, ES_PLAN_TRIALS_MAX);
    check(na == total && nb == total && !memcmp(a, b, sizeof a[0] * (size_t)na),
          "the same seed gives the same trials");
    es_trials_make(&p, 43, b, ES_PLAN_TRIALS_MAX);
    check(memcmp(a, b, sizeof a[0] * (size_t)na) != 0, "another seed gives other trials");
    check(es_trials_make(&p, 42, a, total - 1) == -1, "too small an array: -1");

    int per_test[ES_PLAN_TESTS_MAX] = {0}, sound = 1, numbered = 1, mixed = 0;
    for (int k = 0; k < na; k++) {
        const es_trial *t = &a[k];
        const es_plan_test *pt = &p.test[t->test];
        per_test[t->test]++;
        numbered &= t->number == k + 1;
        mixed += k > 0 && t->test != a[k - 1].test;
        const int s0 = t->slot_stimulus[0], s1 = t->slot_stimulus[1];
        const int pair = (s0 == pt->first && s1 == pt->second) ||
                         (s0 == pt->second && s1 == pt->first);
        if (pt->kind == ES_TRIAL_AB)
            sound &= pair && t->x == -1 && t->same == -1;
        else if (pt->kind == ES_TRIAL_ABX)
            sound &= pair && (t->x == 0 || t->x == 1) && t->same == -1 &&
                     es_trial_x_stimulus(t) == t->slot_stimulus[t->x];
        else
            sound &= t->x == -1 && (t->same == 1 ? s0 == s1 && (s0 == pt->first || s0 == pt->second)
                                    : t->same == 0 && pair);
    }
    int counts = 1;
    for (int k = 0; k < p.tests; k++)
        counts &= per_test[k] == p.test[k].trials;
    check(counts, "each test's trial count");
    check(numbered, "numbered 1.. in the run's order");
    check(sound, "each trial's slots hold its test's stimuli; x and same where they belong");
    check(mixed > na / 3, "the tests interleaved");

    /* The hidden truth balanced: 1000 abx trials, 1000 same trials. */
    plan_of(&p, ES_TRIAL_ABX, 5);
    int x_a = 0, first_in_a = 0;
    const int nx = es_trials_make(&p, 7, a, ES_PLAN_TRIALS_MAX);
    for (int k = 0; k < nx; k++) {
        x_a += a[k].x == 0;
        first_in_a += a[k].slot_stimulus[0] == 0;
    }
    check(nx == 1000 && x_a >= 400 && x_a <= 600, "abx: X is A in 400..600 of 1000");
    check(first_in_a >= 400 && first_in_a <= 600, "abx: the first stimulus in A in 400..600");
    plan_of(&p, ES_TRIAL_SAME, 5);
    int same = 0, same_first = 0;
    es_trials_make(&p, 7, a, ES_PLAN_TRIALS_MAX);
    for (int k = 0; k < 1000; k++) {
        same += a[k].same == 1;
        same_first += a[k].same == 1 && a[k].slot_stimulus[0] == 0;
    }
    check(same >= 400 && same <= 600, "same: the same in 400..600 of 1000");
    check(same_first >= same * 4 / 10 && same_first <= same * 6 / 10,
          "same: either stimulus doubled, about half each");
}

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

static void answers(void)
{
    es_plan p;
    plan_of(&p, ES_TRIAL_ABX, 3);
    p.test[0].trials = 10;                      /* always right */
    p.test[1].trials = 40;                      /* at chance */
    p.test[2] = (es_plan_test){.kind = ES_TRIAL_AB, .first = 2, .second = 1, .trials = 12};
    p.test[3] = (es_plan_test){.kind = ES_TRIAL_SAME, .first = 0, .second = 2, .trials = 20};
    p.tests = 4;
    snprintf(p.path, sizeof p.path, "%s/plan \"quoted\".txt", dir);
    snprintf(p.title, sizeof p.title, "a title, with \"quotes\"");
    snprintf(p.stimulus[0].room, sizeof p.stimulus[0].room, "hall\\with a backslash");
    static es_trial t[ES_PLAN_TRIALS_MAX];
    static es_answer given[ES_PLAN_TRIALS_MAX];
    const int count = es_trials_make(&p, 99, t, ES_PLAN_TRIALS_MAX);

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

    es_test_summary s[ES_PLAN_TESTS_MAX];
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
    check(es_answers_finish(a, &p, s, 4, err, sizeof err) == 0, "answers: the summary written");
    es_answers_close(a);

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

    /* What exists is never replaced: the prefix again, a FIFO, a folder. */
    const long before = file_lines(csv, NULL, 0);
    const off_t size = stat(csv, &st) == 0 ? st.st_size : -1;
    a = es_answers_open(prefix, &p, 99, err, sizeof err);
    check(!a && strstr(err, "run1.csv: exists") && !has_control(err),
          "answers: an existing prefix refused, naming the file");
    check(file_lines(csv, NULL, 0) == before && stat(csv, &st) == 0 && st.st_size == size,
          "answers: the existing file untouched");
    es_answers_close(a);
    char fifo[200], left[200];
    snprintf(prefix, sizeof prefix, "%s/run2", dir);
    snprintf(fifo, sizeof fifo, "%s.jsonl", prefix);
    snprintf(left, sizeof left, "%s.csv", prefix);
    mkfifo(fifo, 0600);
    alarm(10);
    a = es_answers_open(prefix, &p, 99, err, sizeof err);
    alarm(0);
    check(!a && strstr(err, "run2.jsonl: exists (a FIFO)") && access(left, F_OK) != 0,
          "answers: a FIFO refused, nothing left behind");
    snprintf(prefix, sizeof prefix, "%s/run3", dir);
    snprintf(left, sizeof left, "%s.csv", prefix);
    mkdir(left, 0755);
    a = es_answers_open(prefix, &p, 99, err, sizeof err);
    check(!a && strstr(err, "run3.csv: exists (a folder)"), "answers: a folder refused");

    /* The table. */
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

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/es-listening-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("FAIL mkdtemp\n");
        return 1;
    }
    signal(SIGALRM, SIG_DFL);
    plan_good();
    plan_bad();
    trials();
    binomial();
    answers();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("     (left %s)\n", dir);
    return failures ? 1 : 0;
}
