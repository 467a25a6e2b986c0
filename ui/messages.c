/* The workstation's message view: its own lines (a key's refusal) handed
 * to the session, which keeps them with its own; the last of them on the
 * messages panel; the status line (what is being prepared, or the keys to
 * start with); and the message history over the screen (m), scrolled by
 * its own keys. Every message drawn is the snapshot's. */
#include "curses_loaded.h"
#include <stdio.h>

#include "bindings.h"
#include "draw.h"
#include "layout.h"
#include "messages.h"
#include "panel.h"

#define ESC 27

void ui_note(ui_model *m, int problem, const char *line)
{
    es_session_note(m->session, problem, line);
}

void ui_refused(ui_model *m, int rc, const char *err)
{
    if (rc < 0 && err && err[0])
        ui_note(m, 1, err);
}

void ui_history_open(ui_model *m)
{
    m->log_open = 1;
    m->log_back = 0;
}

/* ---- the messages panel: the newest lines, at the bottom ---- */

static void draw_messages(ui_model *m, const ui_rect *r)
{
    const int kept = es_live_messages_kept(m->snap);
    const int shown = kept < r->h ? kept : r->h;
    for (int k = 0; k < shown; k++) {
        const es_live_message *msg = es_live_message_at(m->snap, kept - shown + k);
        char line[400];
        snprintf(line, sizeof line, "%s %s", msg->when, msg->text);
        const int attr = msg->problem ? COLOR_PAIR(UI_BAD) | A_BOLD : 0;
        attron(attr);
        ui_put(r, r->h - shown + k, 0, line);
        attroff(attr);
    }
}

const ui_panel ui_messages_panel = {
    .name = "messages",
    .area = UI_AREA_MESSAGES,
    .draw = draw_messages,
};

/* ---- the status line ---- */

static void draw_status(ui_model *m, const ui_rect *r)
{
    char line[160];
    if (m->snap->preparing)
        snprintf(line, sizeof line, " preparing %.120s ...", m->snap->preparing_what);
    else
        snprintf(line, sizeof line, " ?:help q:quit Enter:room 1-%d:engine Tab:A/B [ ]:block "
                 "s:source r:record v:view", m->snap->engine_count);
    attron(A_REVERSE);
    mvhline(r->y, r->x, ' ', r->w);
    ui_put(r, 0, 0, line);
    attroff(A_REVERSE);
}

const ui_panel ui_status_panel = {
    .name = "status",
    .area = UI_AREA_STATUS,
    .draw = draw_status,
};

/* ---- the message history: every message the snapshot keeps, with its
 * time, newest at the bottom; it scrolls; Esc, m or q closes ---- */

static int history_up(const ui_model *m)
{
    return m->log_open;
}

/* The history's lines: each message wrapped to `room` columns, its time
 * on its first line; whether each is a problem's in bad[]. */
enum { HISTORY_LINES = ES_LIVE_MESSAGES * 8, HISTORY_W = 200 };

static int history_lines(const es_live_snapshot *s, int room, char text[][HISTORY_W], int *bad)
{
    const int kept = es_live_messages_kept(s);
    int n = 0;
    for (int k = 0; k < kept && n < HISTORY_LINES; k++) {
        const es_live_message *msg = es_live_message_at(s, k);
        const char *rest = msg->text;
        int lead = 1;
        do {
            const int len = ui_wrap(rest, room);
            snprintf(text[n], HISTORY_W, "%-8s %.*s", lead ? msg->when : "", len, rest);
            bad[n++] = msg->problem;
            rest += len;
            rest += *rest == ' ';
            lead = 0;
        } while (*rest && n < HISTORY_LINES);
    }
    return n;
}

static void draw_history(ui_model *m, const ui_rect *r)
{
    static char text[HISTORY_LINES][HISTORY_W];
    static int bad[HISTORY_LINES];
    const int lines = r->h, cols = r->w;
    const int w = cols - 2, room = w - 4 - 9 > 20 ? w - 4 - 9 : 20;
    const int n = history_lines(m->snap, room, text, bad);
    const int h = lines, shown = h - 3;
    const int most_back = n - shown > 0 ? n - shown : 0;
    m->log_back = m->log_back < 0 ? 0
                      : m->log_back > most_back ? most_back : m->log_back;
    int y, x;
    ui_box(lines, cols, h, w, &y, &x);
    char line[160];
    snprintf(line, sizeof line, "Messages: the last %d of %d, newest last  (up down PgUp PgDn, "
             "Esc: close)", es_live_messages_kept(m->snap), m->snap->message_count);
    attron(A_BOLD);
    mvaddnstr(y + 1, x + 2, line, w - 4);
    attroff(A_BOLD);
    const int top = n - shown - m->log_back > 0 ? n - shown - m->log_back : 0;
    for (int i = 0; i < shown && top + i < n; i++) {
        const int attr = bad[top + i] ? COLOR_PAIR(UI_BAD) | A_BOLD : 0;
        attron(attr);
        ui_text(y + 2 + i, x + 2, text[top + i], w - 4);
        attroff(attr);
    }
    if (n == 0)
        mvaddnstr(y + 2, x + 2, "(no messages yet)", w - 4);
}

/* By a line, a page (the screen's rows less the box's), or to an end. */
static int history_scroll(ui_model *m, const ui_press *p)
{
    const int page = LINES - 4 > 1 ? LINES - 4 : 1;
    const int by = p->value;
    if (by == 1000)
        m->log_back = 0;
    else if (by == -1000)
        m->log_back = ES_LIVE_MESSAGES * 8; /* clamped when drawn */
    else
        m->log_back += by == 100 ? page : by == -100 ? -page : by;
    return UI_KEEP;
}

static int history_close(ui_model *m, const ui_press *p)
{
    (void)p;
    m->log_open = 0;
    return UI_KEEP;
}

static const ui_binding history_keys[] = {
    {NULL, {KEY_UP, 'k', KEY_DOWN, 'j', KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END},
     {1, 1, -1, -1, 100, -100, -1000, 1000}, history_scroll, NULL, NULL},
    {NULL, {KEY_MOUSE}, {0}, ui_drop_click, NULL, NULL},
    {NULL, {ESC, 'm', 'q'}, {0}, history_close, NULL, NULL},
    {NULL, {0}, {0}, NULL, NULL, NULL},
};

static int history_key(ui_model *m, int key)
{
    return ui_dispatch(m, history_keys, key);
}

const ui_panel ui_history_panel = {
    .name = "history",
    .area = UI_AREA_SCREEN,
    .up = history_up,
    .draw = draw_history,
    .key = history_key,
};
