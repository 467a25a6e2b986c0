/* The rooms panel: the room list from the cursor's page, each room marked
 * playing or preparing, and under it the parameters and decay curve of
 * the room under the cursor, measured on the session's preparer thread
 * (shown once the snapshot carries them). A click on a room puts the
 * cursor there; on the room under the cursor, or twice, plays it. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>

#include "draw.h"
#include "hits.h"
#include "layout.h"
#include "panel.h"
#include "rooms.h"

/* The decay curve, 0 to -60 dB down the rows, 0 to usable_s across. */
static void decay_plot(const es_room_info *info, const ui_rect *r, int top)
{
    const int rows = r->h - top, cols = r->w - 7;
    if (rows < 2 || cols < 8)
        return;
    for (int row = 0; row < rows; row++) {
        char label[8];
        snprintf(label, sizeof label, "%4.0f |", -60.0 * row / (rows - 1) + 0.0);
        ui_put(r, top + row, 0, label);
    }
    attron(COLOR_PAIR(UI_WET));
    for (int c = 0; c < cols; c++) {
        const int k = (int)((double)c * (ES_DECAY_POINTS - 1) / (cols - 1) + 0.5);
        double db = info->decay[k] < -60 ? -60 : info->decay[k];
        const int row = (int)lround(-db / 60.0 * (rows - 1));
        if (info->decay[k] >= -60)
            mvaddch(r->y + top + row, r->x + 6 + c, '*');
    }
    attroff(COLOR_PAIR(UI_WET));
}

/* Rows of rooms shown from `top` in `rows` list rows, when each hidden
 * end takes a row for its "more" mark. */
static int rooms_shown(int top, int count, int rows)
{
    int shown = rows - (top > 0);
    if (top + shown < count)
        shown--; /* the mark below */
    return shown < 1 ? 1 : shown;
}

/* The list's rows: the rooms from m->top, each marked playing or
 * preparing. */
static void room_rows(ui_model *m, const ui_rect *r, int list_h)
{
    const es_live_snapshot *snap = m->snap;
    const es_library *lib = snap->rooms;
    const int count = lib->count;
    /* The cursor's row always shows; the list fills its rows to the end. */
    if (m->top > m->cursor)
        m->top = m->cursor;
    while (m->cursor >= m->top + rooms_shown(m->top, count, list_h))
        m->top++;
    while (m->top > 0 && m->top - 1 + rooms_shown(m->top - 1, count, list_h) >= count)
        m->top--;
    if (m->top < 0)
        m->top = 0;
    const int shown = rooms_shown(m->top, count, list_h);
    m->rooms_page = shown;
    int row = 1;
    char line[200];
    if (m->top > 0) {
        snprintf(line, sizeof line, "  ^ %d more", m->top);
        attron(COLOR_PAIR(UI_DIM));
        ui_put(r, row++, 0, line);
        attroff(COLOR_PAIR(UI_DIM));
    }
    for (int k = 0; k < shown && m->top + k < count; k++) {
        const int i = m->top + k;
        const es_room *room = &lib->rooms[i];
        const int here = i == snap->room_playing, coming = i == snap->room_wanted && !here;
        snprintf(line, sizeof line, "%c %-16s %s%s%s", i == m->cursor ? '>' : ' ', room->name,
                 room->origin == ES_ROOMS_FILE ? "[file] " : "", room->gone ? "gone " : "",
                 here ? "playing" : coming ? "preparing" : "");
        if (i == m->cursor)
            attron(A_REVERSE);
        ui_hit_add(i, r->y + row, r->x, r->w);
        ui_put(r, row++, 0, line);
        if (i == m->cursor)
            attroff(A_REVERSE);
    }
    const int below = count - (m->top + shown);
    if (below > 0) {
        snprintf(line, sizeof line, "  v %d more", below);
        attron(COLOR_PAIR(UI_DIM));
        ui_put(r, row, 0, line);
        attroff(COLOR_PAIR(UI_DIM));
    }
}

/* The room under the cursor: its parameters and decay, measured on the
 * session's preparer thread (shown once the snapshot carries it). */
static void room_figures(const ui_model *m, const ui_rect *r, int at)
{
    const es_room_info *info = &m->snap->shown;
    char line[200];
    if (info->index != m->cursor || info->measured == 0) {
        attron(COLOR_PAIR(UI_DIM));
        ui_put(r, at, 0, "measuring...");
        attroff(COLOR_PAIR(UI_DIM));
        return;
    }
    if (info->measured < 0) {
        attron(COLOR_PAIR(UI_BAD));
        ui_put(r, at, 0, info->error);
        attroff(COLOR_PAIR(UI_BAD));
        return;
    }
    /* A figure that cannot be measured reads n/a (es_acoustics says why;
     * earshot rooms --show prints it). */
    char t30[16], edt[16], c80[16], d50[16];
    snprintf(line, sizeof line, "T30 %s s  EDT %s s  C80 %s dB",
             es_figure_text(t30, sizeof t30, "%.2f", info->a.t30),
             es_figure_text(edt, sizeof edt, "%.2f", info->a.edt),
             es_figure_text(c80, sizeof c80, "%+.1f", info->a.c80));
    ui_put(r, at, 0, line);
    snprintf(line, sizeof line, "D50 %s  %.2f s  ch %d/%d  gain %+.1f dB",
             es_figure_text(d50, sizeof d50, "%.2f", info->a.d50), info->seconds,
             info->channel + 1, info->channels, info->gain_db);
    ui_put(r, at + 1, 0, line);
    snprintf(line, sizeof line, "energy decay over %.2f s:", info->a.usable_s);
    attron(COLOR_PAIR(UI_DIM));
    ui_put(r, at + 2, 0, line);
    attroff(COLOR_PAIR(UI_DIM));
    decay_plot(info, r, at + 3);
}

static void draw_rooms(ui_model *m, const ui_rect *r)
{
    ui_rooms_follow(m);
    const int count = m->snap->rooms->count;
    ui_title(r, "Rooms (Enter, / n N find, o open, R)");
    /* The list takes about half the panel; the rest is parameters and plot. */
    int list_h = (r->h - 1) / 2;
    if (list_h > count)
        list_h = count > 0 ? count : 1;
    if (count == 0) {
        ui_put(r, 1, 1, "(no rooms: see earshot rooms --help)");
        return;
    }
    room_rows(m, r, list_h);
    room_figures(m, r, 1 + list_h);
}

static void click_room(ui_model *m, int i, int twice)
{
    ui_rooms_click(m, i, twice || i == m->cursor);
}

const ui_panel ui_rooms_panel = {
    .name = "rooms",
    .area = UI_AREA_ROOMS,
    .draw = draw_rooms,
    .hit = click_room,
};
