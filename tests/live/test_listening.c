/* A blind listening test's plan and trials (test_answers.c: the binomial
 * test and the answers): the plan read (a good one, its relative source
 * resolved; bad ones refused in one line at the line at fault, a FIFO
 * without blocking); the trials drawn (the same from the same seed, each
 * test's count, the hidden truth balanced). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listening_plan.h"
#include "listening_test_util.h"
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

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        printf("FAIL cannot write %s\n", path);
        exit(1);
    }
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

/* Bad plans whose text is a plain string: what, text, line at fault, what
 * the message holds. */
static const struct {
    const char *what, *text;
    int line;
    const char *needle;
} bad_plans[] = {
    {"an unknown keyword, named", HEAD "sauce x.wav\n", 4, "unknown keyword 'sauce'"},
    {"block 100", HEAD "stimulus c room=z block=100\n", 4, "block '100'"},
    {"block 16384", HEAD "stimulus c room=z block=16384\n", 4, "block"},
    {"level 99", HEAD "stimulus c room=z level=99\n", 4, "level '99'"},
    {"an unknown engine", HEAD "stimulus c room=z engine=warp\n", 4, "unknown engine 'warp'"},
    {"a stimulus without room=", HEAD "stimulus c block=64\n", 4, "room="},
    {"an unknown stimulus key", HEAD "stimulus c room=z colour=red\n", 4, "unknown key 'colour'"},
    {"a key given twice", HEAD "stimulus c room=z room=w\n", 4, "twice"},
    {"a duplicate stimulus", HEAD "stimulus a room=z\n", 4, "stimulus a is defined twice"},
    {"a test naming an unknown stimulus", HEAD "test abx a c\n", 4, "'c'"},
    {"a stimulus used before it is defined",
     "source s.wav\nstimulus a room=x\ntest ab a b\nstimulus b room=y\n", 3,
     "defined before the tests"},
    {"a test of a stimulus with itself", HEAD "test ab a a\n", 4, "with itself"},
    {"trials=0", HEAD "test ab a b trials=0\n", 4, "trials '0'"},
    {"trials=201", HEAD "test ab a b trials=201\n", 4, "trials '201'"},
    {"over 1000 trials in all",
     HEAD "test ab a b trials=200\ntest ab a b trials=200\ntest ab a b trials=200\n"
          "test ab a b trials=200\ntest ab a b trials=200\ntest abx a b trials=1\n",
     9, "at most 1000"},
    {"an unknown test kind", HEAD "test abc a b\n", 4, "test kind 'abc'"},
    {"a control character in a name, escaped", HEAD "stimulus c\033[2J room=z\n", 4,
     "\\x1b[2J"},
    {"a control character in a room", HEAD "stimulus c room=z\033]52\n", 4, "control"},
    {"alpha 0.6", "alpha 0.6\n" HEAD, 1, "alpha '0.6'"},
    {"alpha nan", "alpha nan\n" HEAD, 1, "alpha 'nan'"},
    {"a negative seed", "seed -1\n" HEAD, 1, "seed '-1'"},
    {"a seed past 64 bits", "seed 18446744073709551616\n" HEAD, 1, "seed"},
    {"loudness other than match|off", "loudness loud\n" HEAD, 1, "loudness 'loud'"},
    {"a bad subject", "subject a/b\n" HEAD, 1, "subject 'a/b'"},
    {"a second source", HEAD "source t.wav\n", 4, "source given twice (first on line 1)"},
    {"a value too many", "source a.wav b.wav\n", 1, "'b.wav' is one too many"},
    {"missing source, said at the end", "stimulus a room=x\nstimulus b room=y\ntest ab a b\n",
     3, "no source line"},
    {"no test, said at the end", HEAD "# nothing more\n", 4, "no test line"},
    {"comments only", "# a plan\n\n   # nothing\n", 3, "no source line"},
};

static void plan_bad_table(void)
{
    for (size_t k = 0; k < sizeof bad_plans / sizeof *bad_plans; k++)
        refused(bad_plans[k].what, bad_plans[k].text, strlen(bad_plans[k].text), bad_plans[k].line,
                bad_plans[k].needle);
}

/* Too many stimuli or tests, too long a line or title, a NUL byte, too
 * big a file, an empty one. */
static void plan_bad_sizes(void)
{
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
}

/* What is not a plan file: a folder, none, a FIFO, a device. */
static void plan_bad_files(void)
{
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

static void plan_bad(void)
{
    plan_bad_table();
    plan_bad_sizes();
    plan_bad_files();
}

/* ---- the trials ---- */

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

int main(void)
{
    test_dir_make("listening");
    plan_good();
    plan_bad();
    trials();
    return test_dir_done();
}
