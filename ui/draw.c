/* What every panel draws with (draw.h). Names, paths, descriptions and
 * messages come from files anyone may have written, so text goes through
 * ui_text, which escapes it. */
#include "curses_loaded.h"
#include <string.h>

#include "core/text.h"
#include "draw.h"

void ui_colors_init(void)
{
    if (!has_colors())
        return;
    start_color();
    use_default_colors();
    init_pair(UI_GOOD, COLOR_GREEN, -1);
    init_pair(UI_WARN, COLOR_YELLOW, -1);
    init_pair(UI_BAD, COLOR_RED, -1);
    init_pair(UI_TITLE, COLOR_CYAN, -1);
    init_pair(UI_DRY, COLOR_YELLOW, -1);
    init_pair(UI_WET, COLOR_CYAN, -1);
    init_pair(UI_DIM, COLOR_BLUE, -1);
}

void ui_text(int y, int x, const char *text, int width)
{
    /* Escaped (core/text.h), so no byte of theirs is a command to the
     * terminal. */
    char safe[2048];
    es_text_escape(safe, sizeof safe, text);
    /* Text cut at the edge says so: its last columns "...", the whole
     * of it a key away (m: the message history; earshot engines). */
    if (width > 3 && (int)strlen(safe) > width)
        memcpy(safe + width - 3, "...", 4);
    mvaddnstr(y, x, safe, width);
}

int ui_wrap(const char *text, int width)
{
    int len = (int)strlen(text);
    if (len <= width)
        return len;
    len = width;
    while (len > 0 && text[len] != ' ')
        len--;
    return len ? len : width;
}

void ui_put(const ui_rect *r, int row, int x, const char *text)
{
    if (row < 0 || row >= r->h || x >= r->w)
        return;
    ui_text(r->y + row, r->x + x, text, r->w - x);
}

void ui_title(const ui_rect *r, const char *text)
{
    attron(COLOR_PAIR(UI_TITLE) | A_BOLD);
    ui_put(r, 0, 0, text);
    attroff(COLOR_PAIR(UI_TITLE) | A_BOLD);
}

void ui_box(int lines, int cols, int h, int w, int *y, int *x)
{
    *y = (lines - h) / 2;
    *x = (cols - w) / 2;
    for (int row = 0; row < h; row++)
        mvhline(*y + row, 0, ' ', cols);
    attron(COLOR_PAIR(UI_TITLE));
    mvhline(*y, *x, '-', w);
    mvhline(*y + h - 1, *x, '-', w);
    attroff(COLOR_PAIR(UI_TITLE));
}
