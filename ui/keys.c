/* The main screen's keys, as htop's Action bindings: a table of {keys,
 * values, action, command, help} (bindings.h) that drives the dispatch and
 * the help alike. Most keys are bound to a row of the command table
 * (commands.h) through act_command: a key's value says whether it steps
 * the command up or down (its nudge) or runs it with no values, so a key
 * for a command that exists is one row here, and a new kind of change is
 * a row of the command table and a row here. The other actions are the
 * screen's own (the room list, the views over the screen). Actions pass
 * values to the session, never text to parse back, and return what the
 * loop must do (UI_QUIT, UI_REPAINT). The views over the screen (the help,
 * the message history, M's form, the prompt) take their keys themselves
 * (panel.h), and the loop gives a click to the panel under it. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>

#include "bindings.h"
#include "commands.h"
#include "draw.h"
#include "engines.h"
#include "keys.h"
#include "measure_form.h"
#include "messages.h"
#include "meter.h"
#include "prompt.h"
#include "recording.h"
#include "rooms.h"
#include "workstation.h"

#define ESC 27
#define CTRL_L 12

/* A command key's value: its command's nudge up or down, or the command
 * with no values. */
enum { DOWN = -1, AS_IS = 0, UP = 1 };

/* ---- the main screen's actions ---- */

/* The row's command: its nudge, or with no values (quit: the loop ends). */
static int act_command(ui_model *m, const ui_press *p)
{
    char err[300];
    const int rc = es_command_key(m->session, p->command, p->value, err, sizeof err);
    ui_refused(m, rc, err);
    return rc > 0 ? UI_QUIT : UI_KEEP;
}

static int act_repaint(ui_model *m, const ui_press *p)
{
    (void)m, (void)p;
    return UI_REPAINT;
}

/* By p->value rows; +-100 a page, +-1000 to an end. */
static int act_move(ui_model *m, const ui_press *p)
{
    const int by = p->value;
    const int page = m->rooms_page > 1 ? m->rooms_page - 1 : 1;
    const int target = by == -1000 ? 0 : by == 1000 ? m->snap->rooms->count - 1
                       : by == -100 ? m->cursor - page : by == 100 ? m->cursor + page
                                                           : m->cursor + by;
    ui_rooms_move(m, target);
    return UI_KEEP;
}

static int act_play_room(ui_model *m, const ui_press *p)
{
    (void)p;
    ui_rooms_play(m);
    return UI_KEEP;
}

static int act_prompt(ui_model *m, const ui_press *p)
{
    ui_prompt_open(m, p->key);
    return UI_KEEP;
}

static int act_search(ui_model *m, const ui_press *p)
{
    ui_rooms_search_step(m, p->value);
    return UI_KEEP;
}

static int act_engine(ui_model *m, const ui_press *p)
{
    ui_engine_pick(m, p->value);
    return UI_KEEP;
}

static int act_record(ui_model *m, const ui_press *p)
{
    (void)p;
    ui_recording_toggle(m);
    return UI_KEEP;
}

static int act_reset(ui_model *m, const ui_press *p)
{
    (void)p;
    if (es_session_reset_meters(m->session) == 0)
        ui_note(m, 0, "meters cleared: both slots, xruns and the history count from now");
    return UI_KEEP;
}

/* The room measured by a sweep: the form, its defaults filled in. */
static int act_measure(ui_model *m, const ui_press *p)
{
    (void)p;
    ui_form_open(m, NAN, NULL);
    return UI_KEEP;
}

static int act_channel(ui_model *m, const ui_press *p)
{
    if (es_session_step_room_channel(m->session, p->value) != 0)
        ui_note(m, 0, "the room panel has one channel to show (or is still measuring)");
    return UI_KEEP;
}

static int act_view(ui_model *m, const ui_press *p)
{
    (void)p;
    m->spectrogram = !m->spectrogram;
    return UI_KEEP;
}

static int act_history(ui_model *m, const ui_press *p)
{
    (void)p;
    ui_history_open(m);
    return UI_KEEP;
}

/* The help is up from its first page (help.c draws it and takes its keys). */
static int act_help(ui_model *m, const ui_press *p)
{
    (void)p;
    m->help = 1;
    return UI_KEEP;
}

static int act_esc(ui_model *m, const ui_press *p)
{
    (void)p;
    ui_note(m, 0, "q or F10 quits"); /* Esc closes what is open; here nothing is */
    return UI_KEEP;
}

/* The main screen; the help lists them in this order, each with its
 * command's word and help, or its own help. */
static const ui_binding main_keys[] = {
    {"up/down Enter", {'\n', '\r', KEY_ENTER}, {0}, act_play_room, "room", NULL},
    {"up down j k", {KEY_UP, 'k', KEY_DOWN, 'j', KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END},
     {-1, -1, 1, 1, -100, 100, -1000, 1000}, act_move, NULL,
     "move in the room list (PgUp PgDn Home End too)"},
    {"1-9", {'1', '2', '3', '4', '5', '6', '7', '8', '9'}, {0, 1, 2, 3, 4, 5, 6, 7, 8},
     act_engine, "engine", NULL},
    {"Tab", {'\t'}, {AS_IS}, act_command, "slot", NULL},
    {"[ ]", {'[', ']'}, {DOWN, UP}, act_command, "block", NULL},
    {"{ }", {'{', '}'}, {DOWN, UP}, act_command, "partition", NULL},
    {"p", {'p'}, {UP}, act_command, "pipelined", NULL},
    {"< >", {'<', '>'}, {DOWN, UP}, act_command, "trim", NULL},
    {", .", {',', '.'}, {DOWN, UP}, act_command, "mix",
     "the room against the dry input, equal power (sets wet and dry)"},
    {"- +", {'-', '+', '='}, {DOWN, UP, UP}, act_command, "gain", NULL},
    {"b Space", {'b', ' '}, {AS_IS, AS_IS}, act_command, "bypass", NULL},
    {"L", {'L'}, {UP}, act_command, "limiter", NULL},
    {"g", {'g'}, {AS_IS}, act_command, "raw", NULL},
    {"z x", {'z', 'x'}, {UP, DOWN}, act_command, "head",
     "turn the head 15 degrees left, right (a SOFA room follows it)"},
    {"Z X", {'Z', 'X'}, {UP, DOWN}, act_command, "pitch", "tilt the head 15 degrees up, down"},
    {"C V", {'C', 'V'}, {DOWN, UP}, act_command, "roll",
     "roll the head 15 degrees to the left ear, the right ear"},
    {"!", {'!'}, {UP}, act_command, "panic", NULL},
    {"s", {'s'}, {UP}, act_command, "source", NULL},
    {"r", {'r'}, {0}, act_record, "record", NULL},
    {"c", {'c'}, {0}, act_reset, "reset", NULL},
    {"l", {'l'}, {AS_IS}, act_command, "latency", NULL},
    {"M", {'M'}, {0}, act_measure, NULL,
     "measure the room by sweep: a form (level, length, repeats, outputs, inputs, "
     "reference; Enter measures), the room then in slot B"},
    {"R", {'R'}, {AS_IS}, act_command, "rescan", NULL},
    {"q F10", {'q', 'Q'}, {AS_IS, AS_IS}, act_command, "quit", NULL},
    {"/ n N", {'/', 'n', 'N'}, {0, 1, -1}, NULL, NULL,
     "find a room by name; the next, the one before"},
    {"o", {'o'}, {0}, act_prompt, NULL, "open an IR file by path"},
    {"( )", {'(', ')'}, {-1, 1}, act_channel, NULL,
     "the room panel's channel (a matrix's path) before or after"},
    {"v", {'v'}, {0}, act_view, NULL, "spectrum or scrolling spectrogram"},
    {"m", {'m'}, {0}, act_history, NULL,
     "the message history (up down PgUp PgDn; Esc or m closes)"},
    {"? h F1", {'?', 'h', KEY_F(1)}, {0}, act_help, NULL,
     "this help (Space PgDn: next page, PgUp: back)"},
    {"Esc", {ESC}, {0}, act_esc, NULL,
     "closes the help, the history, a prompt; on the screen it only says q or F10 quits"},
    {"Ctrl-C", {0}, {0}, NULL, NULL, "quit, as q (recordings are finished first)"},
    {"Ctrl-L", {CTRL_L}, {0}, act_repaint, NULL, "repaint the whole screen"},
    {"mouse", {0}, {0}, NULL, NULL,
     "click a room: the cursor there; click it again (or double-click): play it; click an "
     "engine: pick it; an A/B slot row: play that slot"},
    {"Shift+drag", {0}, {0}, NULL, NULL,
     "selects text in most terminals while the mouse is on"},
    {NULL, {0}, {0}, NULL, NULL, NULL},
};

/* '/' opens the search prompt, n and N step through the matches: one
 * help line, two actions. */
static const ui_binding search_keys[] = {
    {NULL, {'/'}, {0}, act_prompt, NULL, NULL},
    {NULL, {'n', 'N'}, {1, -1}, act_search, NULL, NULL},
    {NULL, {0}, {0}, NULL, NULL, NULL},
};

int ui_key(ui_model *m, int key)
{
    int value;
    if (ui_binding_find(search_keys, key, &value))
        return ui_dispatch(m, search_keys, key);
    return ui_dispatch(m, main_keys, key);
}

/* ---- the help ---- */

enum { HELP_TEXT = 46 };

/* One entry of the help: keys, the command's word, and its words wrapped
 * to fit 80 columns beside them. */
static void help_entry(char lines[][UI_HELP_W], int *n, const char *keys, const char *name,
                       const char *text)
{
    const char *rest = text;
    int first = 1;
    /* Without a command's word, its column is the text's. */
    const int width = name[0] ? HELP_TEXT : HELP_TEXT + 11;
    while (*rest && *n < UI_HELP_CAP) {
        const int len = ui_wrap(rest, width);
        if (name[0])
            snprintf(lines[(*n)++], UI_HELP_W, "%-14s %-10s %.*s", first ? keys : "",
                     first ? name : "", len, rest);
        else
            snprintf(lines[(*n)++], UI_HELP_W, "%-14s %.*s", first ? keys : "", len, rest);
        rest += len;
        rest += *rest == ' ';
        first = 0;
    }
}

/* A row's words in the help: its command's word and help, or its own
 * help alone. */
static void help_words(const ui_binding *b, const char **name, const char **text)
{
    const es_command *c = b->command && !b->help ? es_command_find(b->command) : NULL;
    *name = c ? c->name : "";
    *text = c ? c->help : b->help;
}

int ui_help_lines(char lines[][UI_HELP_W])
{
    return ui_help_lines_with(ui_meters, lines);
}

int ui_help_lines_with(const ui_meter *meters, char lines[][UI_HELP_W])
{
    int n = 0;
    for (const ui_binding *b = main_keys; b->label; b++) {
        const char *name, *text;
        help_words(b, &name, &text);
        help_entry(lines, &n, b->label, name, text);
    }
    if (n < UI_HELP_CAP)
        snprintf(lines[n++], UI_HELP_W, "Meters:");
    for (const ui_meter *mt = meters; mt->name; mt++)
        if (mt->help)
            help_entry(lines, &n, mt->name, "", mt->help);
    return n;
}

void es_workstation_keys_help(FILE *to)
{
    for (const ui_binding *b = main_keys; b->label; b++) {
        const char *name, *text;
        help_words(b, &name, &text);
        fprintf(to, "  %-14s %-10s %s\n", b->label, name, text);
    }
}
