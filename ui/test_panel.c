/* A listening test over the whole screen (earshot test PLAN): while it
 * runs, nothing else is drawn and no other key acts, so the subject sees
 * the trial, its labels and the question, and never a room, an engine, a
 * slot or a meter that would tell the stimuli apart (listening_test.h).
 * Once every trial is answered the summary is shown: each test's correct
 * answers (or preferences) of N, its p-value and the decision. */
#include "curses_loaded.h"
#include <stdio.h>
#include <string.h>

#include "bindings.h"
#include "commands.h"
#include "draw.h"
#include "hits.h"
#include "layout.h"
#include "panel.h"

static int test_up(const ui_model *m)
{
    es_test_view v;
    es_session_test_view(m->session, &v);
    return v.running || v.done || v.stopped;
}

/* The labels as boxes, the one heard in bold. */
static void draw_labels(const es_test_view *v, int y, int x)
{
    char labels[sizeof v->labels];
    snprintf(labels, sizeof labels, "%s", v->labels);
    for (char *save, *l = strtok_r(labels, " ", &save); l; l = strtok_r(NULL, " ", &save)) {
        const int on = v->ready && !strcmp(l, v->hearing);
        char box[16];
        snprintf(box, sizeof box, "[ %c ]", l[0] >= 'a' ? l[0] - 'a' + 'A' : l[0]);
        if (on)
            attron(A_REVERSE | A_BOLD);
        mvaddstr(y, x, box);
        if (on)
            attroff(A_REVERSE | A_BOLD);
        x += 9;
    }
}

/* The keys this trial takes, in words. */
static void keys_line(const es_test_view *v, char *out, size_t n)
{
    if (!strcmp(v->kind, "same"))
        snprintf(out, n, "listen: 1 2    answer: S same, D different    q: stop");
    else if (!strcmp(v->kind, "abx"))
        snprintf(out, n, "listen: a b x    answer: A (X is A), B (X is B)    q: stop");
    else
        snprintf(out, n, "listen: a b    answer: A or B (the one you prefer)    q: stop");
}

static void draw_summary(ui_model *m, int y, int x, int w, int h)
{
    const es_test_summary *sum;
    const int tests = es_session_test_summary(m->session, &sum);
    const es_plan *plan = es_session_test_plan(m->session);
    for (int k = 0; k < tests && k < h && plan; k++) {
        const es_plan_test *t = &plan->test[sum[k].test];
        char line[200];
        snprintf(line, sizeof line, "%-4s %s / %s: %d of %d, p = %.4g: %s",
                 es_trial_kind_word(t->kind), plan->stimulus[t->first].name,
                 plan->stimulus[t->second].name, sum[k].k, sum[k].n, sum[k].p,
                 sum[k].decision);
        mvaddnstr(y + k, x, line, w);
    }
}

static void draw_test(ui_model *m, const ui_rect *r)
{
    ui_hits_clear(); /* nothing under the test can be clicked */
    for (int y = r->y; y < r->y + r->h; y++)
        mvhline(y, r->x, ' ', r->w);
    es_test_view v;
    es_session_test_view(m->session, &v);
    const es_plan *plan = es_session_test_plan(m->session);
    const int x = r->x + 2, w = r->w - 4;
    int y = r->y + 1;
    char line[1400];
    snprintf(line, sizeof line, "earshot: listening test%s%s", plan && plan->title[0] ? ": " : "",
             plan ? plan->title : "");
    attron(A_BOLD);
    mvaddnstr(y, x, line, w);
    attroff(A_BOLD);
    y += 2;
    if (v.running) {
        snprintf(line, sizeof line, "Trial %d of %d   (%s)", v.trial, v.trials,
                 !strcmp(v.kind, "abx") ? "ABX" : !strcmp(v.kind, "ab") ? "A/B preference"
                                                                      : "same or different");
        mvaddnstr(y, x, line, w);
        y += 2;
        attron(A_BOLD);
        mvaddnstr(y, x, v.question, w);
        attroff(A_BOLD);
        y += 2;
        draw_labels(&v, y, x + 2);
        y += 2;
        if (v.ready)
            snprintf(line, sizeof line, "Hearing %c: switch as often as you like, then "
                     "answer.", v.hearing[0] >= 'a' ? v.hearing[0] - 'a' + 'A' : v.hearing[0]);
        mvaddnstr(y, x, v.ready ? line : "Preparing the trial...", w);
        y += 2;
        keys_line(&v, line, sizeof line);
        mvaddnstr(y, x, line, w);
        y += 2;
        snprintf(line, sizeof line, "answered %d of %d", v.answered, v.trials);
        attron(COLOR_PAIR(UI_DIM));
        mvaddnstr(y, x, line, w);
        attroff(COLOR_PAIR(UI_DIM));
        return;
    }
    snprintf(line, sizeof line, "%s: %d of %d answered, written to %s",
             v.done ? "Done" : "Stopped", v.answered, v.trials, v.summary_path);
    mvaddnstr(y, x, line, w);
    y += 2;
    if (v.done)
        draw_summary(m, y, x, w, r->h - (y - r->y) - 2);
    else
        mvaddnstr(y, x, v.line, w);
    attron(COLOR_PAIR(UI_DIM));
    mvaddnstr(r->y + r->h - 2, x, "q: quit", w);
    attroff(COLOR_PAIR(UI_DIM));
}

/* The subject's keys, each a command line (commands.c's hear and answer). */
static const struct {
    int key;
    const char *line;
} test_keys[] = {
    {'a', "hear a"}, {'b', "hear b"}, {'x', "hear x"}, {'1', "hear 1"}, {'2', "hear 2"},
    {'A', "answer a"}, {'B', "answer b"}, {'S', "answer same"}, {'D', "answer different"},
    {'q', "quit"},
};

static int test_key(ui_model *m, int key)
{
    for (size_t k = 0; k < sizeof test_keys / sizeof *test_keys; k++) {
        if (test_keys[k].key != key)
            continue;
        char reply[600];
        return es_command_run_from(m->session, "key", test_keys[k].line, reply,
                                   sizeof reply) == 1 ? UI_QUIT : UI_KEEP;
    }
    if (key == KEY_MOUSE) {
        int y, x, twice;
        (void)ui_click_read(&y, &x, &twice); /* read and dropped */
    }
    return UI_KEEP;
}

const ui_panel ui_test_panel = {
    .name = "test",
    .area = UI_AREA_SCREEN,
    .up = test_up,
    .draw = draw_test,
    .key = test_key,
};
