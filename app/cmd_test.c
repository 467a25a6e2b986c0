/* earshot test PLAN: a blind listening test (live/listening_test.h). The
 * plan names the sound, the stimuli (a room, an engine, a block and a
 * level each) and the comparisons (ab, abx, same/different); the session
 * plays them in a random order with hidden labels, on the workstation's
 * screen or headless, the subject answering with keys or over OSC (hear,
 * answer). Every answer is written as it comes; at the end a summary per
 * comparison: correct of N, the exact binomial p-value, the decision under
 * the plan's alpha. docs/EXPERIMENTS.md is the guide. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "app.h"
#include "core/args.h"
#include "commands.h"
#include "session.h"
#include "test_loudness.h"
#include "workstation.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char usage[] =
    "usage: earshot test PLAN [--answers PREFIX] [--seed N] [--headless] [options]\n"
    "\n"
    "Runs the blind listening test PLAN (docs/EXPERIMENTS.md): its trials in a random\n"
    "order, each stimulus a slot's room, engine, block and level, switched by the\n"
    "primed A/B switch. While it runs no room, engine, slot or meter that tells them\n"
    "apart is shown. The subject listens and answers with keys (a b x, 1 2; A B, S D)\n"
    "or over OSC (--osc PORT: /earshot/hear, /earshot/answer). Answers go to\n"
    "PREFIX.csv and PREFIX.jsonl as they come (synced to the disk each); at the end\n"
    "the summary per comparison: correct of N, the exact binomial p-value (one-sided\n"
    "for abx and same, two-sided for a preference), the decision under the plan's\n"
    "alpha. Headless, it plays until the last answer (or --seconds, or quit).\n"
    "\n"
    "Options (and play's: --device, --osc, --osc-bind, --log, --headless, ...):\n";

typedef struct {
    es_play_options play; /* first: play's entries write into it */
    const char *answers;
    const char *seed;
} test_options;

#define TABLE_MAX 64
static es_param params[TABLE_MAX];
#define OPT(f) offsetof(test_options, f)
static const es_param own_params[] = {
    {"answers", ES_PARAM_STRING, 0, 1000, NULL, "PREFIX",
     "the answers' files, PREFIX.csv and PREFIX.jsonl (never\n"
     "replaced; default: the plan's name and the time, here)", OPT(answers), NULL, NULL},
    {"seed", ES_PARAM_STRING, 0, 20, NULL, "N",
     "the trials' order and labels (default: the plan's seed,\n"
     "else a random one, written with the answers)", OPT(seed), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};
/* Play's options a test takes: the device and the stream, OSC, the log. */
static const char *const from_play[] = {
    "rooms", "rate", "device", "name", "connect-in", "connect-out", "no-connect", "outputs",
    "crossfade-ms", "trim", "limiter", "seconds", "headphone", "hrir", "decoder", "osc",
    "osc-bind", "log", "fps", "headless", NULL};

/* The session's lines: while blind only the test's own (the others name
 * rooms and engines); the rest as play says them. */
static void say(void *ctx, int problem, const char *line)
{
    es_session *const *s = ctx;
    if (*s && es_session_blind(*s) && strncmp(line, "test: ", 6) != 0)
        return;
    (void)problem;
    es_error("%s", line);
}

static int seed_of(const test_options *o, const es_plan *plan, uint64_t *seed, char *err,
                   size_t n)
{
    if (o->seed) {
        char *end;
        errno = 0;
        const unsigned long long v = strtoull(o->seed, &end, 10);
        if (end == o->seed || *end || errno || o->seed[0] == '-') {
            snprintf(err, n, "--seed %.40s: not a whole number from 0 to 2^64-1", o->seed);
            return -1;
        }
        *seed = v;
    } else if (plan->has_seed) {
        *seed = plan->seed;
    } else if (getrandom(seed, sizeof *seed, 0) != (ssize_t)sizeof *seed) {
        *seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
    }
    return 0;
}

/* PLANSTEM-YYYYMMDD-HHMMSS in the current folder. */
static void default_answers(const es_plan *plan, char *out, size_t n)
{
    const char *base = strrchr(plan->path, '/');
    base = base ? base + 1 : plan->path;
    const size_t stem = strcspn(base, ".");
    char when[32];
    const time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, n, "%.*s%s%s-%s", (int)(stem < 200 ? stem : 200), base,
             plan->subject[0] ? "-" : "", plan->subject, when);
}

/* Headless: until the last answer, a signal, quit or --seconds. */
static int run_headless(const es_session_config *sc, const es_test_config *tc,
                        const test_options *o)
{
    static es_session *s;
    char err[1024];
    s = es_session_open(sc, say, &s, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    if (es_session_test_start(s, tc, err, sizeof err) != 0) {
        es_error("test: %s", err);
        es_session_close(s);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    es_test_view v;
    do {
        es_app_wait(s, 10);
        es_session_poll(s);
        es_session_test_view(s, &v);
    } while (v.running && !interrupted && !es_session_quit_asked(s) &&
             (o->play.seconds <= 0 || es_session_snapshot(s)->elapsed < o->play.seconds));
    es_session_stop(s);
    const es_test_summary *sum;
    const int tests = es_session_test_summary(s, &sum);
    if (tests > 0)
        es_answers_print(tc->plan, sum, tests, stdout);
    else
        es_error("test: stopped after %d of %d answers (kept in %s)", v.answered, v.trials,
                 v.summary_path);
    es_session_close(s);
    return v.done ? 0 : 1;
}

int es_cmd_test(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    es_app_params_with_play(params, TABLE_MAX, from_play, own_params);
    static test_options o;
    char err[1200];
    int help = 0;
    const char *plan_path = NULL;
    int positional = 0;
    if (es_play_options_default(&o.play, err, sizeof err) != 0 ||
        es_params_parse_argv(params, argc, argv, &o, &plan_path, 1, &positional, &help, err,
                             sizeof err) != 0) {
        es_error("test: %s (see earshot test --help)", err);
        return 2;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        return 0;
    }
    if (!plan_path) {
        es_error("test: which plan? earshot test PLAN (docs/EXPERIMENTS.md has one)");
        return 2;
    }
    if (o.play.headless && !o.play.osc) {
        es_error("test: --headless needs --osc PORT: a headless subject answers over OSC "
                 "(docs/EXPERIMENTS.md)");
        return 2;
    }
    static es_plan plan;
    if (es_plan_read(plan_path, &plan, err, sizeof err) != 0) {
        es_error("test: %s", err);
        return 2;
    }
    static es_test_config tc;
    tc = (es_test_config){.plan = &plan};
    if (seed_of(&o, &plan, &tc.seed, err, sizeof err) != 0) {
        es_error("test: %s", err);
        return 2;
    }
    static char answers[1100];
    if (o.answers)
        snprintf(answers, sizeof answers, "%s", o.answers);
    else
        default_answers(&plan, answers, sizeof answers);
    tc.answers = answers;
    for (int k = 0; k < plan.stimuli; k++)
        tc.level_db[k] = plan.stimulus[k].level_db;
    es_app_route_device(o.play.device);
    /* The plan's source plays, through its first stimulus's room. */
    o.play.input = plan.source;
    o.play.room = plan.stimulus[0].room;
    if (plan.stimulus[0].engine)
        o.play.spec.engine = plan.stimulus[0].engine;
    if (plan.stimulus[0].block)
        o.play.spec.block = plan.stimulus[0].block;
    es_session_config sc;
    if (es_play_options_session(&o.play, &sc, err, sizeof err) != 0) {
        es_error("test: %s", err);
        return 2;
    }
    if (plan.loudness_match &&
        es_test_match_loudness(&plan, &sc, tc.level_db, err, sizeof err) != 0) {
        es_error("test: loudness matching: %s", err);
        return 2;
    }
    if (o.play.headless)
        return run_headless(&sc, &tc, &o);
    const es_ui_options ui = {.fps = o.play.fps, .seconds = o.play.seconds, .test = &tc};
    return es_workstation_run(&sc, &ui);
}
