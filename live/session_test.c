/* A blind listening test run by the session (listening_test.h): a state
 * machine over the plan's trials. Each trial loads its two stimuli into
 * the A/B slots (the one playing by a change, the other held until it
 * plays), waits until what plays is what was asked (preparing done), then
 * takes the subject's listens (a slot switch each) and answer, written at
 * once, and moves on. The lines it says are its own, neutral ones: the
 * session's lines name rooms and engines, and the views hide them while
 * blind. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/clock.h"
#include "session_log.h"
#include "session_private.h"

typedef enum { TEST_LOADING, TEST_LISTENING, TEST_DONE, TEST_STOPPED } test_state;

typedef struct es_listening_test es_listening_test;
struct es_listening_test {
    es_plan plan;
    es_test_config cfg;
    es_trial trials[ES_PLAN_TRIALS_MAX];
    es_answer answers[ES_PLAN_TRIALS_MAX];
    char words[ES_PLAN_TRIALS_MAX][12]; /* each answer's word, as given */
    int count, at;                      /* trials, the one under way */
    test_state state;
    int hearing;                        /* the slot playing for the subject */
    es_play_spec want[2];               /* what each slot must play in this trial */
    char label[4];                      /* the label the subject heard last */
    int listens;
    long long started_ns;               /* the trial's first sound */
    es_answers *files;
    es_test_summary summary[ES_PLAN_TESTS_MAX];
    int summaries;
    char line[300];
    char answers_path[1100];
    /* The session's own engine and block: a stimulus that names none. */
    const es_engine_class *engine;
    int block;
};

static const es_trial *trial_now(const es_listening_test *t)
{
    return &t->trials[t->at];
}

static es_trial_kind kind_now(const es_listening_test *t)
{
    return t->plan.test[trial_now(t)->test].kind;
}

/* What slot `slot` holds in this trial, as a spec on the stream's. */
static es_play_spec stimulus_spec(es_session *s, const es_listening_test *t, int slot)
{
    const int k = trial_now(t)->slot_stimulus[slot];
    const es_plan_stimulus *st = &t->plan.stimulus[k];
    es_play_spec spec = s->target;
    es_play_spec_set_room(&spec, st->room);
    spec.engine = st->engine ? st->engine : t->engine;
    spec.block = st->block ? st->block : t->block;
    spec.level_db = t->cfg.level_db[k];
    spec.raw = 0;
    spec.options.partition = 0;
    return spec;
}

/* The test's line: kept for the views and said, a problem (a refusal) as
 * it is, else after "test: " (what a blind session lets through). */
static void vline(es_session *s, es_listening_test *t, int problem, const char *fmt,
                  va_list ap)
{
    vsnprintf(t->line, sizeof t->line, fmt, ap);
    es_session_sayf(s, problem, problem ? "%s" : "test: %s", t->line);
}

static void test_say(es_session *s, es_listening_test *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void test_say(es_session *s, es_listening_test *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(s, t, 0, fmt, ap);
    va_end(ap);
}

/* Loads trial t->at: A plays (its stimulus by a change), B holds its own. */
static void load_trial(es_session *s, es_listening_test *t)
{
    const es_trial *tr = trial_now(t);
    const es_play_spec a = stimulus_spec(s, t, 0), b = stimulus_spec(s, t, 1);
    t->want[0] = a;
    t->want[1] = b;
    if (s->target_slot != 0) {
        es_slots_hold(&s->slots, 0, &a);
        es_session_switch_slot(s, 0);
    } else {
        es_session_change(s, &a, "test: the next trial");
    }
    es_slots_hold(&s->slots, 1, &b);
    t->state = TEST_LOADING;
    t->hearing = 0;
    t->listens = 0;
    t->label[0] = 0;
    /* The experimenter's record of what stands behind each label. */
    char fields[600];
    snprintf(fields, sizeof fields,
             "\"trial\":%d,\"of\":%d,\"test\":%d,\"kind\":\"%s\",\"a\":\"%s\",\"b\":\"%s\","
             "\"x\":%s,\"same\":%s", tr->number, t->count, tr->test + 1,
             es_trial_kind_word(kind_now(t)), t->plan.stimulus[tr->slot_stimulus[0]].name,
             t->plan.stimulus[tr->slot_stimulus[1]].name,
             tr->x < 0 ? "null" : tr->x ? "\"b\"" : "\"a\"",
             tr->same < 0 ? "null" : tr->same ? "true" : "false");
    es_session_log_event(s->log_file, "trial", fields);
    test_say(s, t, "trial %d of %d (%s): preparing", tr->number, t->count,
             es_trial_kind_word(kind_now(t)));
}

/* Each stimulus can play here: its room is the library's or a file, its
 * engine runs on this machine. A stimulus that could not would leave the
 * trial on what played before, or on a fallback engine: compared, but
 * not what the plan names. 0, or -1 with one line. */
static int stimuli_playable(es_session *s, const es_plan *plan, char *err, size_t n)
{
    for (int k = 0; k < plan->stimuli; k++) {
        const es_plan_stimulus *st = &plan->stimulus[k];
        struct stat file;
        if (es_session_room_index(s, st->room) < 0 &&
            !(stat(st->room, &file) == 0 && S_ISREG(file.st_mode))) {
            snprintf(err, n, "%s: stimulus %s: room '%.300s' is neither in the library nor a "
                     "file", plan->path, st->name, st->room);
            return -1;
        }
        for (int e = 0; st->engine && e < s->snap.engine_count; e++)
            if (s->snap.engines[e].engine == st->engine && !s->snap.engines[e].usable) {
                snprintf(err, n, "%s: stimulus %s: %s cannot run here (%s)", plan->path,
                         st->name, st->engine->name, s->snap.engines[e].why);
                return -1;
            }
    }
    return 0;
}

int es_session_test_start(es_session *s, const es_test_config *cfg, char *err, size_t n)
{
    if (stimuli_playable(s, cfg->plan, err, n) != 0)
        return -1;
    if (s->test) {
        snprintf(err, n, "a test is running already");
        return -1;
    }
    es_listening_test *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    t->plan = *cfg->plan;
    t->cfg = *cfg;
    t->cfg.plan = &t->plan;
    t->engine = s->target.engine;
    t->block = s->target.block;
    t->count = es_trials_make(&t->plan, cfg->seed, t->trials, ES_PLAN_TRIALS_MAX);
    if (t->count <= 0) {
        snprintf(err, n, "%s: no trials", t->plan.path);
        free(t);
        return -1;
    }
    if (!(t->files = es_answers_open(cfg->answers, &t->plan, cfg->seed, err, n))) {
        free(t);
        return -1;
    }
    snprintf(t->answers_path, sizeof t->answers_path, "%s.jsonl", cfg->answers);
    s->test = t;
    char fields[1400];
    snprintf(fields, sizeof fields, "\"plan\":\"%.900s\",\"seed\":%llu,\"trials\":%d",
             t->plan.path, (unsigned long long)cfg->seed, t->count);
    es_session_log_event(s->log_file, "test", fields);
    load_trial(s, t);
    return 0;
}

/* The labels of this trial's kind, and the slot each plays. */
static int label_slot(const es_listening_test *t, const char *label)
{
    const es_trial_kind k = kind_now(t);
    if (k == ES_TRIAL_SAME)
        return !strcmp(label, "1") ? 0 : !strcmp(label, "2") ? 1 : -1;
    if (!strcmp(label, "a") || !strcmp(label, "b"))
        return label[0] - 'a';
    if (k == ES_TRIAL_ABX && !strcmp(label, "x"))
        return trial_now(t)->x;
    return -1;
}

static const char *labels_of(es_trial_kind k)
{
    return k == ES_TRIAL_SAME ? "1 2" : k == ES_TRIAL_ABX ? "a b x" : "a b";
}

static const char *answers_of(es_trial_kind k)
{
    return k == ES_TRIAL_SAME ? "same different" : "a b";
}

static const char *question_of(es_trial_kind k)
{
    return k == ES_TRIAL_SAME ? "Are 1 and 2 the same or different?"
           : k == ES_TRIAL_ABX ? "Is X A or B?" : "Which do you prefer, A or B?";
}

/* Refuses a hear or an answer: said as the test's line, -1. */
static int refuse(es_session *s, es_listening_test *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(es_session *s, es_listening_test *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(s, t, 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* A hear or an answer can be taken now: a test runs and its trial plays.
 * 0, or -1 said. */
static int usable(es_session *s, es_listening_test *t, const char *what)
{
    if (!t) {
        es_session_sayf(s, 1, "%s: no test is running (earshot test PLAN)", what);
        return -1;
    }
    if (t->state == TEST_DONE || t->state == TEST_STOPPED)
        return refuse(s, t, "%s: the test has ended", what);
    if (t->state == TEST_LOADING)
        return refuse(s, t, "%s: trial %d is being prepared; a moment", what,
                      trial_now(t)->number);
    return 0;
}

int es_session_test_hear(es_session *s, const char *label)
{
    es_listening_test *t = s->test;
    if (usable(s, t, "hear") != 0)
        return -1;
    const int slot = label_slot(t, label);
    if (slot < 0)
        return refuse(s, t, "hear: this trial's labels are %s", labels_of(kind_now(t)));
    snprintf(t->label, sizeof t->label, "%s", label);
    t->listens++;
    if (slot != t->hearing) {
        t->hearing = slot;
        es_session_switch_slot(s, slot);
    }
    test_say(s, t, "trial %d: hearing %s", trial_now(t)->number, label);
    return 0;
}

/* The summary, written and said, once every trial is answered. */
static void finish(es_session *s, es_listening_test *t)
{
    t->summaries = es_answers_summary(&t->plan, t->trials, t->answers, t->at, t->summary);
    char err[300];
    if (es_answers_finish(t->files, &t->plan, t->summary, t->summaries, err, sizeof err) != 0)
        es_session_sayf(s, 1, "test: %s", err);
    t->state = TEST_DONE;
    char fields[200];
    snprintf(fields, sizeof fields, "\"answered\":%d,\"answers\":\"%.120s\"", t->at,
             t->answers_path);
    es_session_log_event(s->log_file, "test-done", fields);
    test_say(s, t, "done: %d answers in %s", t->at, t->answers_path);
}

int es_session_test_answer(es_session *s, const char *word)
{
    es_listening_test *t = s->test;
    if (usable(s, t, "answer") != 0)
        return -1;
    const es_trial *tr = trial_now(t);
    const es_trial_kind k = kind_now(t);
    int said; /* the slot named (a, b), or 1 same / 0 different */
    if (k == ES_TRIAL_SAME && (!strcmp(word, "same") || !strcmp(word, "different")))
        said = !strcmp(word, "same");
    else if (k != ES_TRIAL_SAME && (!strcmp(word, "a") || !strcmp(word, "b")))
        said = word[0] - 'a';
    else
        return refuse(s, t, "answer: this trial takes %s", answers_of(k));
    es_answer *a = &t->answers[t->at];
    snprintf(t->words[t->at], sizeof t->words[t->at], "%s", word);
    *a = (es_answer){.trial = tr, .answer = t->words[t->at], .correct = -1, .preferred = -1,
                     .listens = t->listens,
                     .seconds = 1e-9 * (double)(es_now_ns() - t->started_ns)};
    a->level_db[0] = t->cfg.level_db[tr->slot_stimulus[0]];
    a->level_db[1] = t->cfg.level_db[tr->slot_stimulus[1]];
    if (k == ES_TRIAL_AB)
        a->preferred = tr->slot_stimulus[said];
    else if (k == ES_TRIAL_ABX)
        a->correct = said == tr->x;
    else
        a->correct = said == tr->same;
    char err[300];
    if (es_answers_add(t->files, &t->plan, a, err, sizeof err) != 0) {
        t->state = TEST_STOPPED;
        return refuse(s, t, "answer: not written, the test stops: %s", err);
    }
    char fields[300];
    snprintf(fields, sizeof fields, "\"trial\":%d,\"answer\":\"%s\",\"correct\":%d,"
             "\"listens\":%d,\"seconds\":%.3f", tr->number, word, a->correct, a->listens,
             a->seconds);
    es_session_log_event(s->log_file, "answer", fields);
    t->at++;
    if (t->at == t->count)
        finish(s, t);
    else
        load_trial(s, t);
    return 0;
}

/* Each poll: a trial being loaded plays once what plays is what it
 * asked (nothing preparing). */
/* Once a change settled: what plays is the stimulus its label stands
 * for, or the test stops (a room that failed to load, an engine that
 * fell back): an answer about the wrong sound is worse than none. */
static int plays_wanted(es_session *s, es_listening_test *t)
{
    const unsigned named = ES_SPEC_ROOM | ES_SPEC_ENGINE | ES_SPEC_BLOCK | ES_SPEC_LEVEL;
    if (!(es_play_spec_diff(&s->playing, &t->want[s->target_slot]) & named))
        return 1;
    t->state = TEST_STOPPED;
    refuse(s, t, "test: trial %d: stimulus %s did not play as the plan names it (a room "
           "that failed to load, an engine that fell back: the session's lines say); the "
           "test stops, the answers so far are kept", trial_now(t)->number,
           t->plan.stimulus[trial_now(t)->slot_stimulus[s->target_slot]].name);
    return 0;
}

void es_session_test_poll(es_session *s)
{
    es_listening_test *t = s->test;
    if (!t || (t->state != TEST_LOADING && t->state != TEST_LISTENING) ||
        s->snap.preparing || s->snap.playing_slot != s->target_slot ||
        es_play_spec_diff(&s->playing, &s->target) != 0 || !plays_wanted(s, t) ||
        t->state != TEST_LOADING)
        return;
    t->state = TEST_LISTENING;
    t->started_ns = es_now_ns();
    snprintf(t->label, sizeof t->label, "%s", kind_now(t) == ES_TRIAL_SAME ? "1" : "a");
    test_say(s, t, "trial %d of %d: %s", trial_now(t)->number, t->count,
             question_of(kind_now(t)));
}

void es_session_test_view(const es_session *s, es_test_view *v)
{
    memset(v, 0, sizeof *v);
    const es_listening_test *t = s->test;
    if (!t)
        return;
    v->running = t->state == TEST_LOADING || t->state == TEST_LISTENING;
    v->done = t->state == TEST_DONE;
    v->stopped = t->state == TEST_STOPPED;
    v->trials = t->count;
    v->answered = t->at;
    snprintf(v->line, sizeof v->line, "%s", t->line);
    snprintf(v->summary_path, sizeof v->summary_path, "%s", t->answers_path);
    if (!v->running)
        return;
    const es_trial_kind k = kind_now(t);
    v->trial = trial_now(t)->number;
    snprintf(v->kind, sizeof v->kind, "%s", es_trial_kind_word(k));
    snprintf(v->question, sizeof v->question, "%s", question_of(k));
    snprintf(v->labels, sizeof v->labels, "%s", labels_of(k));
    snprintf(v->answers, sizeof v->answers, "%s", answers_of(k));
    v->ready = t->state == TEST_LISTENING;
    snprintf(v->hearing, sizeof v->hearing, "%s", v->ready ? t->label : "");
    v->listens = t->listens;
}

int es_session_test_summary(const es_session *s, const es_test_summary **out)
{
    const es_listening_test *t = s->test;
    if (!t || t->state != TEST_DONE)
        return 0;
    *out = t->summary;
    return t->summaries;
}

int es_session_blind(const es_session *s)
{
    return s->test && (s->test->state == TEST_LOADING || s->test->state == TEST_LISTENING);
}

const es_plan *es_session_test_plan(const es_session *s)
{
    return s->test ? &s->test->plan : NULL;
}

void es_session_test_close(es_session *s)
{
    if (!s->test)
        return;
    es_answers_close(s->test->files);
    free(s->test);
    s->test = NULL;
}
