/* The workstation's keys, as htop's Action bindings: tables of {keys,
 * action, value, help}, one table per mode of the screen (the main screen,
 * the help pages, the message history). One table drives the dispatch and
 * the help alike: a key's help is its command's (commands.h), or its own
 * line. Actions pass values to the session (or a nudge, computed from what
 * the session was last asked for), never text to parse back, and return
 * what the loop must do (UI_QUIT, UI_REPAINT). The prompt takes every key
 * itself (rooms.c). */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "meter.h"
#include "ui.h"

#define ESC 27
#define CTRL_L 12
#define KEYS_MAX 10

typedef int (*ui_action)(ui_model *m, int key, int value);

typedef struct {
    const char *label;         /* the keys as the help names them; NULL: not in the help */
    int keys[KEYS_MAX];        /* 0 ends the list */
    int values[KEYS_MAX];      /* the action's value for each key */
    ui_action act;             /* NULL: a line of the help only */
    const char *command;       /* the command it asks for: the help shows its word and help */
    const char *help;          /* else its own help */
} ui_binding;

/* ---- the main screen's actions ---- */

static int act_quit(ui_model *m, int key, int v)
{
    (void)m, (void)key, (void)v;
    return UI_QUIT;
}

static int act_repaint(ui_model *m, int key, int v)
{
    (void)m, (void)key, (void)v;
    return UI_REPAINT;
}

static int act_move(ui_model *m, int key, int by)
{
    (void)key;
    const int page = m->rooms_page > 1 ? m->rooms_page - 1 : 1;
    const int target = by == -1000 ? 0 : by == 1000 ? m->snap->rooms->count - 1
                       : by == -100 ? m->cursor - page : by == 100 ? m->cursor + page
                                                           : m->cursor + by;
    ui_rooms_move(m, target);
    return UI_KEEP;
}

static int act_play_room(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    ui_rooms_play(m);
    return UI_KEEP;
}

static int act_prompt(ui_model *m, int key, int v)
{
    (void)v;
    m->prompt = key;
    m->prompt_text[0] = 0;
    return UI_KEEP;
}

static int act_search(ui_model *m, int key, int dir)
{
    (void)key;
    ui_rooms_search_step(m, dir);
    return UI_KEEP;
}

/* Engine i (from 0), when it can play here and is not playing already. */
static int act_engine(ui_model *m, int key, int i)
{
    (void)key;
    const es_live_snapshot *s = m->snap;
    if (i >= s->engine_count)
        return UI_KEEP;
    const es_live_engine *e = &s->engines[i];
    char line[300];
    if (!e->usable) {
        snprintf(line, sizeof line, "%s is unavailable here: %s", e->engine->name, e->why);
        ui_note(m, 1, line);
    } else if (e->engine == s->wanted.engine) {
        snprintf(line, sizeof line, "%s is playing already", e->engine->name);
        ui_note(m, 0, line);
    } else {
        ui_refused(m, es_session_set_engine(m->session, e->engine), "");
    }
    return UI_KEEP;
}

static int act_nudge(ui_model *m, int key, int v)
{
    (void)key;
    char err[300];
    /* v: the nudge times 2, plus 1 for up */
    ui_refused(m, es_command_nudge(m->session, (es_nudge)(v / 2), v % 2, err, sizeof err), err);
    return UI_KEEP;
}

/* ! mutes everything and clears the histories; while muted (a panic or a
 * runaway), it plays again. */
static int act_panic(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    if (m->snap->stats.muted)
        es_session_unmute(m->session);
    else
        es_session_panic(m->session);
    return UI_KEEP;
}

static int act_record(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    ui_toggle_recording(m);
    return UI_KEEP;
}

static int act_reset(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    if (es_session_reset_meters(m->session) == 0)
        ui_note(m, 0, "meters cleared: both slots, xruns and the history count from now");
    return UI_KEEP;
}

static int act_latency(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    es_session_measure_latency(m->session);
    return UI_KEEP;
}

/* The room measured by a sweep: the form, its defaults filled in. */
static int act_measure(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    ui_form_open(m, NAN, NULL);
    return UI_KEEP;
}

static int act_rescan(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    es_session_rescan(m->session);
    return UI_KEEP;
}

static int act_channel(ui_model *m, int key, int v)
{
    (void)key;
    if (es_session_step_room_channel(m->session, v) != 0)
        ui_note(m, 0, "the room panel has one channel to show (or is still measuring)");
    return UI_KEEP;
}

static int act_view(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    m->spectrogram = !m->spectrogram;
    return UI_KEEP;
}

static int act_history(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    m->log_open = 1;
    m->log_back = 0;
    return UI_KEEP;
}

static int act_help(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    m->help = 1;
    return UI_KEEP;
}

static int act_esc(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    ui_note(m, 0, "q or F10 quits"); /* Esc closes what is open; here nothing is */
    return UI_KEEP;
}

/* A click: a room row moves the cursor there (a second click on it, or a
 * double click, plays it), an engine row picks the engine, an A/B slot row
 * plays that slot. Where and what is read from the last redraw's hits. */
static int act_click(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
        return UI_KEEP;
    const int twice = (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
    int i;
    const int hit = ui_hit_at(ev.y, ev.x, &i);
    if (hit == UI_HIT_ROOM)
        ui_rooms_click(m, i, twice || i == m->cursor);
    else if (hit == UI_HIT_ENGINE)
        act_engine(m, key, i);
    else if (hit == UI_HIT_SLOT)
        ui_refused(m, es_session_switch_slot(m->session, i), "");
    return UI_KEEP;
}

#define NUDGE(what, up) ((what) * 2 + (up))

/* The main screen; the help lists them in this order, each with its
 * command's word and help. */
static const ui_binding main_keys[] = {
    {"up/down Enter", {'\n', '\r', KEY_ENTER}, {0}, act_play_room, "room", NULL},
    {"up down j k", {KEY_UP, 'k', KEY_DOWN, 'j', KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END},
     {-1, -1, 1, 1, -100, 100, -1000, 1000}, act_move, NULL,
     "move in the room list (PgUp PgDn Home End too)"},
    {"1-9", {'1', '2', '3', '4', '5', '6', '7', '8', '9'}, {0, 1, 2, 3, 4, 5, 6, 7, 8},
     act_engine, "engine", NULL},
    {"Tab", {'\t'}, {NUDGE(ES_NUDGE_SLOT, 1)}, act_nudge, "slot", NULL},
    {"[ ]", {'[', ']'}, {NUDGE(ES_NUDGE_BLOCK, 0), NUDGE(ES_NUDGE_BLOCK, 1)}, act_nudge,
     "block", NULL},
    {"{ }", {'{', '}'}, {NUDGE(ES_NUDGE_PARTITION, 0), NUDGE(ES_NUDGE_PARTITION, 1)},
     act_nudge, "partition", NULL},
    {"p", {'p'}, {NUDGE(ES_NUDGE_PIPELINED, 1)}, act_nudge, "pipelined", NULL},
    {"< >", {'<', '>'}, {NUDGE(ES_NUDGE_TRIM, 0), NUDGE(ES_NUDGE_TRIM, 1)}, act_nudge, "trim",
     NULL},
    {", .", {',', '.'}, {NUDGE(ES_NUDGE_BALANCE, 0), NUDGE(ES_NUDGE_BALANCE, 1)}, act_nudge,
     NULL, "the room against the dry input, equal power (sets wet and dry)"},
    {"- +", {'-', '+', '='}, {NUDGE(ES_NUDGE_GAIN, 0), NUDGE(ES_NUDGE_GAIN, 1),
                              NUDGE(ES_NUDGE_GAIN, 1)}, act_nudge, "gain", NULL},
    {"b Space", {'b', ' '}, {NUDGE(ES_NUDGE_BYPASS, 1), NUDGE(ES_NUDGE_BYPASS, 1)}, act_nudge,
     "bypass", NULL},
    {"L", {'L'}, {NUDGE(ES_NUDGE_LIMITER, 1)}, act_nudge, "limiter", NULL},
    {"g", {'g'}, {NUDGE(ES_NUDGE_RAW, 1)}, act_nudge, "raw", NULL},
    {"z x", {'z', 'x'}, {NUDGE(ES_NUDGE_HEAD, 1), NUDGE(ES_NUDGE_HEAD, 0)}, act_nudge, NULL,
     "turn the head 15 degrees left, right (a SOFA room follows it)"},
    {"!", {'!'}, {0}, act_panic, "panic", NULL},
    {"s", {'s'}, {NUDGE(ES_NUDGE_SOURCE, 1)}, act_nudge, "source", NULL},
    {"r", {'r'}, {0}, act_record, "record", NULL},
    {"c", {'c'}, {0}, act_reset, "reset", NULL},
    {"l", {'l'}, {0}, act_latency, "latency", NULL},
    {"M", {'M'}, {0}, act_measure, NULL,
     "measure the room by sweep: a form (level, length, repeats, outputs, inputs, "
     "reference; Enter measures), the room then in slot B"},
    {"R", {'R'}, {0}, act_rescan, "rescan", NULL},
    {"q F10", {'q', 'Q'}, {0}, act_quit, "quit", NULL},
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
    {"mouse", {KEY_MOUSE}, {0}, act_click, NULL,
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

/* ---- the help pages: Space and PgDn page on, PgUp back; any other key
 * closes it (a click is read and dropped) ---- */

static int help_page(ui_model *m, int key, int dir)
{
    (void)key;
    if (dir > 0)
        m->help = m->help < m->help_pages ? m->help + 1 : 0;
    else
        m->help = m->help > 1 ? m->help - 1 : 1;
    return UI_KEEP;
}

static int drop_click(ui_model *m, int key, int v)
{
    (void)m, (void)key, (void)v;
    MEVENT ev;
    (void)getmouse(&ev);
    return UI_KEEP;
}

static int help_close(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    m->help = 0;
    return UI_KEEP;
}

static const ui_binding help_keys[] = {
    {NULL, {' ', KEY_NPAGE, KEY_DOWN, 'j'}, {1, 1, 1, 1}, help_page, NULL, NULL},
    {NULL, {KEY_PPAGE, KEY_UP, 'k'}, {-1, -1, -1}, help_page, NULL, NULL},
    {NULL, {KEY_MOUSE}, {0}, drop_click, NULL, NULL},
    {NULL, {0}, {0}, help_close, NULL, NULL}, /* every other key */
};

/* ---- the message history: it scrolls; Esc, m or q closes ---- */

static int history_scroll(ui_model *m, int key, int by)
{
    (void)key;
    const int page = LINES - 4 > 1 ? LINES - 4 : 1;
    if (by == 1000)
        m->log_back = 0;
    else if (by == -1000)
        m->log_back = ES_LIVE_MESSAGES * 8; /* clamped when drawn */
    else
        m->log_back += by == 100 ? page : by == -100 ? -page : by;
    return UI_KEEP;
}

static int history_close(ui_model *m, int key, int v)
{
    (void)key, (void)v;
    m->log_open = 0;
    return UI_KEEP;
}

static const ui_binding history_keys[] = {
    {NULL, {KEY_UP, 'k', KEY_DOWN, 'j', KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END},
     {1, 1, -1, -1, 100, -100, -1000, 1000}, history_scroll, NULL, NULL},
    {NULL, {KEY_MOUSE}, {0}, drop_click, NULL, NULL},
    {NULL, {ESC, 'm', 'q'}, {0}, history_close, NULL, NULL},
    {NULL, {0}, {0}, NULL, NULL, NULL},
};

/* ---- dispatch ---- */

/* The binding of `key` in a table (its value in *value), or the table's
 * catch-all (a row with an action and no key), or NULL. */
static const ui_binding *find(const ui_binding *table, int key, int *value)
{
    for (const ui_binding *b = table; b->label || b->act || b->help; b++) {
        if (!b->keys[0] && b->act && !b->label) {
            *value = 0;
            return b; /* the catch-all */
        }
        for (int k = 0; k < KEYS_MAX && b->keys[k]; k++)
            if (b->keys[k] == key) {
                *value = b->values[k];
                return b->act ? b : NULL;
            }
    }
    return NULL;
}

static int dispatch(ui_model *m, const ui_binding *table, int key)
{
    int value;
    const ui_binding *b = find(table, key, &value);
    return b ? b->act(m, key, value) : UI_KEEP;
}

int ui_key(ui_model *m, int key)
{
    if (key == KEY_F(10)) /* quits from everywhere, as in htop and mc */
        return UI_QUIT;
    if (m->help)
        return dispatch(m, help_keys, key);
    if (m->log_open)
        return dispatch(m, history_keys, key);
    if (m->form.open) /* the form takes every key until Enter or Esc */
        return ui_form_key(m, key);
    if (m->prompt) { /* the prompt takes every key until Enter or Esc */
        ui_prompt_key(m, key);
        return UI_KEEP;
    }
    int value;
    if (find(search_keys, key, &value))
        return dispatch(m, search_keys, key);
    return dispatch(m, main_keys, key);
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

int ui_help_lines(char lines[][UI_HELP_W])
{
    return ui_help_lines_with(ui_meters, lines);
}

int ui_help_lines_with(const ui_meter *meters, char lines[][UI_HELP_W])
{
    int n = 0;
    for (const ui_binding *b = main_keys; b->label; b++) {
        const es_command *c = b->command ? es_command_find(b->command) : NULL;
        help_entry(lines, &n, b->label, c ? c->name : "", c ? c->help : b->help);
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
        const es_command *c = b->command ? es_command_find(b->command) : NULL;
        fprintf(to, "  %-14s %-10s %s\n", b->label, c ? c->name : "", c ? c->help : b->help);
    }
}
