/* The help over the screen (?): every key of the main screen's table with
 * its command's word and help, then the meters' definitions (keys.c makes
 * the lines from the two tables), paged to fit. Space and PgDn page on,
 * PgUp back; any other key closes it (a click is read and dropped). */
#include "curses_loaded.h"
#include <stdio.h>

#include "bindings.h"
#include "draw.h"
#include "keys.h"
#include "layout.h"
#include "panel.h"

static int help_up(const ui_model *m)
{
    return m->help != 0;
}

/* Draws the page m->help (the last, if it has fewer) and keeps how many
 * pages there are, for the keys. */
static void draw_help(ui_model *m, const ui_rect *r)
{
    static char text[UI_HELP_CAP][UI_HELP_W];
    const int n = ui_help_lines(text);
    const int lines = r->h, cols = r->w;
    /* Borders, a title and a footer around each page. */
    const int per_page = lines - 4 < n ? lines - 4 : n;
    const int pages = (n + per_page - 1) / per_page;
    const int page = m->help > pages ? pages : m->help;
    const int w = 76 < cols - 2 ? 76 : cols - 2, h = per_page + 4;
    int y, x;
    ui_box(lines, cols, h, w, &y, &x);
    char line[UI_HELP_W];
    snprintf(line, sizeof line, "earshot workstation: keys (and play --commands lines)  %d/%d",
             page, pages);
    attron(A_BOLD);
    mvaddnstr(y + 1, x + 2, line, w - 4);
    attroff(A_BOLD);
    for (int i = 0; i < per_page && (page - 1) * per_page + i < n; i++)
        mvaddnstr(y + 2 + i, x + 2, text[(page - 1) * per_page + i], w - 4);
    attron(COLOR_PAIR(UI_DIM));
    mvaddnstr(y + h - 2, x + 2, page < pages ? "Space PgDn: next page  PgUp: back  Esc: close"
                                            : "PgUp: back  Esc or any other key: close", w - 4);
    attroff(COLOR_PAIR(UI_DIM));
    m->help_pages = pages;
}

/* On past the last page closes it; back stops at the first. */
static int help_page(ui_model *m, const ui_press *p)
{
    if (p->value > 0)
        m->help = m->help < m->help_pages ? m->help + 1 : 0;
    else
        m->help = m->help > 1 ? m->help - 1 : 1;
    return UI_KEEP;
}

static int help_close(ui_model *m, const ui_press *p)
{
    (void)p;
    m->help = 0;
    return UI_KEEP;
}

static const ui_binding help_keys[] = {
    {NULL, {' ', KEY_NPAGE, KEY_DOWN, 'j'}, {1, 1, 1, 1}, help_page, NULL, NULL},
    {NULL, {KEY_PPAGE, KEY_UP, 'k'}, {-1, -1, -1}, help_page, NULL, NULL},
    {NULL, {KEY_MOUSE}, {0}, ui_drop_click, NULL, NULL},
    {NULL, {0}, {0}, help_close, NULL, NULL}, /* every other key */
};

static int help_key(ui_model *m, int key)
{
    return ui_dispatch(m, help_keys, key);
}

const ui_panel ui_help_panel = {
    .name = "help",
    .area = UI_AREA_SCREEN,
    .up = help_up,
    .draw = draw_help,
    .key = help_key,
};
