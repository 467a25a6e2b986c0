/* M's form: a room measured from the screen as from the command line
 * (earshot measure), after REW's measurement dialog: the sweep's level,
 * length and repeats, the outputs swept, the inputs recorded and a
 * reference, with the defaults filled in. Enter measures with them; a
 * measurement started here that ends clipped or too quiet opens the form
 * again with the level it asks for, so that one key (Enter) measures
 * again. The sweep's three values are checked by the `measure` command's
 * own fields, so the form and a command line refuse them in the same
 * words. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "draw.h"
#include "layout.h"
#include "measure_form.h"
#include "panel.h"

#define ESC 27

enum { F_LEVEL, F_SECONDS, F_REPEATS, F_OUTPUTS, F_INPUTS, F_REFERENCE };

static const struct {
    const char *name, *help;
} fields[UI_FORM_FIELDS] = {
    [F_LEVEL] = {"level", "dBFS, the sweep's peak (-80 to 0)"},
    [F_SECONDS] = {"seconds", "of one sweep"},
    [F_REPEATS] = {"repeats", "sweeps averaged"},
    [F_OUTPUTS] = {"outputs", "swept in turn, from 1: 1 or 1,2"},
    [F_INPUTS] = {"inputs", "recorded, the first N of the stream's"},
    [F_REFERENCE] = {"reference", "an input wired from the output, or none"},
};

void ui_form_open(ui_model *m, double level_db, const char *said)
{
    ui_measure_form *f = &m->form;
    const es_sweep d = ES_SWEEP_DEFAULTS(m->snap->rate);
    f->open = 1;
    f->field = F_LEVEL;
    f->error[0] = 0;
    snprintf(f->said, sizeof f->said, "%s", said ? said : "");
    snprintf(f->text[F_LEVEL], sizeof f->text[F_LEVEL], "%.0f",
             isfinite(level_db) ? level_db : d.level_db);
    if (said) /* again: the rest as it was */
        return;
    snprintf(f->text[F_SECONDS], sizeof f->text[F_SECONDS], "%g", d.seconds);
    snprintf(f->text[F_REPEATS], sizeof f->text[F_REPEATS], "%d", d.repeats);
    snprintf(f->text[F_OUTPUTS], sizeof f->text[F_OUTPUTS], "1");
    snprintf(f->text[F_INPUTS], sizeof f->text[F_INPUTS], "%d",
             m->snap->stats.inputs > 0 ? m->snap->stats.inputs : 1);
    snprintf(f->text[F_REFERENCE], sizeof f->text[F_REFERENCE], "none");
}

/* A whole number from..to in `text`; -1 and why otherwise. */
static int whole(const char *name, const char *text, int from, int to, int *v, char *err,
                 size_t n)
{
    char *end;
    const long x = strtol(text, &end, 10);
    if (end == text || *end || x < from || x > to) {
        snprintf(err, n, "%s '%.20s': a whole number from %d to %d", name, text, from, to);
        return -1;
    }
    *v = (int)x;
    return 0;
}

/* The sweep's value k through the measure command's field k (its ranges
 * and its words). */
static int sweep_value(const ui_measure_form *f, int field, int k, es_command_args *a, char *err,
                       size_t n)
{
    const es_param *p = &es_command_find("measure")->fields[k];
    return es_param_parse(p, fields[field].name, f->text[field], a, err, n);
}

/* The form's values as a plan; 0, or -1 and one line in f->error. */
static int plan_from(ui_model *m, es_measure_plan *plan)
{
    ui_measure_form *f = &m->form;
    char *err = f->error;
    const size_t n = sizeof f->error;
    *plan = (es_measure_plan){.sweep = ES_SWEEP_DEFAULTS(m->snap->rate), .reference_input = -1,
                              .reference_output = -1, .to_slot_b = 1};
    es_command_args a = {0};
    /* The measure command's fields: seconds, level, repeats. */
    if (sweep_value(f, F_SECONDS, 0, &a, err, n) || sweep_value(f, F_LEVEL, 1, &a, err, n) ||
        sweep_value(f, F_REPEATS, 2, &a, err, n))
        return -1;
    plan->sweep.seconds = a.mix[0];
    plan->sweep.level_db = a.mix[1];
    plan->sweep.repeats = a.number;
    const int outs = m->snap->stats.outputs > 0 ? m->snap->stats.outputs : 1;
    const int ins = m->snap->stats.inputs > 0 ? m->snap->stats.inputs : 1;
    char list[sizeof f->text[F_OUTPUTS]];
    snprintf(list, sizeof list, "%s", f->text[F_OUTPUTS]);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (plan->output_count == ES_MEASURE_CHANNELS_MAX) {
            snprintf(err, n, "outputs: %d at most", ES_MEASURE_CHANNELS_MAX);
            return -1;
        }
        int o;
        if (whole("outputs", tok, 1, outs, &o, err, n))
            return -1;
        plan->outputs[plan->output_count++] = o - 1;
    }
    if (plan->output_count == 0) {
        snprintf(err, n, "outputs: name one at least (1 to %d)", outs);
        return -1;
    }
    if (whole("inputs", f->text[F_INPUTS], 1, ins, &plan->inputs, err, n))
        return -1;
    if (strcmp(f->text[F_REFERENCE], "none") != 0 && f->text[F_REFERENCE][0]) {
        int r;
        if (whole("reference", f->text[F_REFERENCE], 1, plan->inputs, &r, err, n))
            return -1;
        plan->reference_input = r - 1;
    }
    return 0;
}

static void start(ui_model *m)
{
    ui_measure_form *f = &m->form;
    es_measure_plan plan;
    if (plan_from(m, &plan) != 0)
        return;
    f->ended_before = m->snap->measures_ended;
    if (es_session_measure_room(m->session, &plan) == 0) {
        f->open = 0;
        f->waiting = 1;
    } else { /* the session said why; the form stays for another try */
        snprintf(f->error, sizeof f->error, "refused: the line below says why");
    }
}

static int form_key(ui_model *m, int key)
{
    ui_measure_form *f = &m->form;
    char *text = f->text[f->field];
    const size_t len = strlen(text);
    if (key == ESC) {
        f->open = 0;
    } else if (key == KEY_UP || key == KEY_BTAB) {
        f->field = (f->field + UI_FORM_FIELDS - 1) % UI_FORM_FIELDS;
    } else if (key == KEY_DOWN || key == '\t') {
        f->field = (f->field + 1) % UI_FORM_FIELDS;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (len)
            text[len - 1] = 0;
    } else if (key == 21) { /* Ctrl-U: the field cleared */
        text[0] = 0;
    } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        start(m);
    } else if (key >= 32 && key < 127 && len + 1 < sizeof f->text[0]) {
        text[len] = (char)key;
        text[len + 1] = 0;
        f->error[0] = 0;
    }
    return UI_KEEP;
}

/* Each frame: a measurement it started that ended clipped or too quiet
 * opens it again. */
static void form_watch(ui_model *m)
{
    ui_measure_form *f = &m->form;
    const es_live_snapshot *s = m->snap;
    if (!f->waiting || s->measuring || s->measures_ended == f->ended_before)
        return;
    f->waiting = 0;
    if (!s->measure_saved && isfinite(s->measure_retry_db))
        ui_form_open(m, s->measure_retry_db, s->measure_line);
}

static int form_up(const ui_model *m)
{
    return m->form.open;
}

static void draw_form(ui_model *m, const ui_rect *r)
{
    const ui_measure_form *f = &m->form;
    const int lines = r->h, cols = r->w;
    const int w = cols - 2 < 76 ? cols - 2 : 76, h = UI_FORM_FIELDS + 7;
    int y, x;
    ui_box(lines, cols, h, w, &y, &x);
    attron(A_BOLD);
    mvaddnstr(y + 1, x + 2, "Measure the room (M): a sweep out of each output, the inputs recorded", w - 4);
    attroff(A_BOLD);
    for (int k = 0; k < UI_FORM_FIELDS; k++) {
        char line[160];
        snprintf(line, sizeof line, "%-10s %-12s %s", fields[k].name, f->text[k],
                 fields[k].help);
        const int on = k == f->field;
        if (on)
            attron(A_REVERSE);
        ui_text(y + 2 + k, x + 2, line, w - 4);
        if (on)
            attroff(A_REVERSE);
    }
    /* Why the last one failed (or why the values are refused), wrapped
     * over two lines. */
    const char *said = f->error[0] ? f->error : f->said;
    for (int row = 0; row < 2 && *said; row++) {
        const int len = ui_wrap(said, w - 4);
        char part[200];
        snprintf(part, sizeof part, "%.*s", len, said);
        attron(COLOR_PAIR(UI_BAD) | A_BOLD);
        ui_text(y + 2 + UI_FORM_FIELDS + row, x + 2, part, w - 4);
        attroff(COLOR_PAIR(UI_BAD) | A_BOLD);
        said += len;
        said += *said == ' ';
    }
    char foot[120];
    snprintf(foot, sizeof foot, "Enter: measure%s  up/down Tab: field  Esc: close",
             f->said[0] ? " again" : "");
    mvaddnstr(y + 4 + UI_FORM_FIELDS, x + 2, foot, w - 4);
    attron(COLOR_PAIR(UI_DIM));
    mvaddnstr(y + 5 + UI_FORM_FIELDS, x + 2, "the room goes into slot B, A as it was; the "
              "sweep plays dry", w - 4);
    attroff(COLOR_PAIR(UI_DIM));
}

const ui_panel ui_form_panel = {
    .name = "form",
    .area = UI_AREA_SCREEN,
    .up = form_up,
    .update = form_watch,
    .draw = draw_form,
    .key = form_key,
};
