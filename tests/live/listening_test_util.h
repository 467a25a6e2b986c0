/* What the listening test's two programs share (test_listening.c: the plan
 * and the trials; test_answers.c: the binomial test and the answers): the
 * check that counts failures, the test's own folder under /tmp, a plan
 * made in memory. Each program is one file, so the statics are its own. */
#ifndef ES_TEST_LISTENING_UTIL_H
#define ES_TEST_LISTENING_UTIL_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listening_plan.h"

static int failures;
static char dir[64]; /* the test's own folder under /tmp */

static inline void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static inline int has_control(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 1;
    return 0;
}

/* Makes the test's folder, /tmp/es-NAME-XXXXXX; exits if it cannot. An
 * alarm (a read that blocks) ends the test by default. */
static inline void test_dir_make(const char *name)
{
    snprintf(dir, sizeof dir, "/tmp/es-%s-XXXXXX", name);
    if (!mkdtemp(dir)) {
        printf("FAIL mkdtemp\n");
        exit(1);
    }
    signal(SIGALRM, SIG_DFL);
}

/* Removes the test's folder; the exit status: 1 if any check failed. */
static inline int test_dir_done(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("     (left %s)\n", dir);
    return failures ? 1 : 0;
}

/* A plan made in memory: `tests` tests of `kind`, 200 trials each, between
 * stimuli 0 and 1. */
static inline void plan_of(es_plan *p, es_trial_kind kind, int tests)
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

#endif
