/* Where each panel goes. The screen is planned for 80x24 and shares out
 * what a larger terminal adds: more spectrum, more room list and decay
 * plot, more messages, wider meters.
 *
 *   header (2 lines)
 *   rooms + decay plot   | engines, then meters
 *   spectrum (full width)
 *   messages
 *   status line */
#include "curses_loaded.h"
#include <string.h>

#include "core/text.h"
#include "ui.h"

#define MIN_LINES 24
#define MIN_COLS 80

void ui_layout_compute(int lines, int cols, int engines, ui_layout *l)
{
    *l = (ui_layout){0};
    if (lines < MIN_LINES || cols < MIN_COLS) {
        l->too_small = 1;
        return;
    }
    const int extra = lines - MIN_LINES;
    const int spectrum_h = 5 + extra / 2;
    const int messages_h = 1 + extra / 6;
    const int body_h = lines - 2 - spectrum_h - messages_h - 1;
    const int left_w = cols / 2;
    l->header = (ui_rect){0, 0, 2, cols};
    l->rooms = (ui_rect){2, 0, body_h, left_w};
    /* The engines' list: a title and a row each; the meters take the rest. */
    const int engines_h = 1 + engines;
    l->engines = (ui_rect){2, left_w + 1, engines_h, cols - left_w - 1};
    l->meters = (ui_rect){2 + engines_h, left_w + 1, body_h - engines_h, cols - left_w - 1};
    l->spectrum = (ui_rect){2 + body_h, 0, spectrum_h, cols};
    l->messages = (ui_rect){2 + body_h + spectrum_h, 0, messages_h, cols};
    l->status = (ui_rect){lines - 1, 0, 1, cols};
}

/* The hits of the last redraw: a handful of rows, redrawn every frame. */
#define UI_HITS 64
typedef struct {
    int kind, index, y, x, w;
} ui_hit;
static ui_hit hits[UI_HITS];
static int hit_count;

void ui_hits_clear(void)
{
    hit_count = 0;
}

void ui_hit_add(int kind, int index, int y, int x, int w)
{
    if (hit_count < UI_HITS)
        hits[hit_count++] = (ui_hit){kind, index, y, x, w};
}

int ui_hit_at(int y, int x, int *index)
{
    for (int k = 0; k < hit_count; k++)
        if (hits[k].y == y && x >= hits[k].x && x < hits[k].x + hits[k].w) {
            *index = hits[k].index;
            return hits[k].kind;
        }
    return UI_HIT_NONE;
}

void ui_text(int y, int x, const char *text, int width)
{
    /* Names, paths, descriptions and messages come from files anyone may
     * have written: escaped (core/text.h), so no byte of theirs is a
     * command to the terminal. */
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
