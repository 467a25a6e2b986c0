/* What every panel draws with (draw.c): the colours, text from anywhere
 * made safe and clipped, text wrapped to a width, a panel's title and
 * rows, a box over the screen. Calls nothing else of ui/. */
#ifndef ES_UI_DRAW_H
#define ES_UI_DRAW_H

#include "ui.h"

/* Colour pairs. */
enum { UI_GOOD = 1, UI_WARN, UI_BAD, UI_TITLE, UI_DRY, UI_WET, UI_DIM };
void ui_colors_init(void);

/* mvaddnstr of text that may hold anything: control characters, C1 and
 * invalid UTF-8 are drawn escaped (\x1b), never sent to the terminal. */
void ui_text(int y, int x, const char *text, int width);
/* How much of `text` the next line of a box `width` wide takes: up to its
 * last space that fits, or `width` where no space does (help, history). */
int ui_wrap(const char *text, int width);
/* Text on a panel's row from column x, clipped to its width. */
void ui_put(const ui_rect *r, int row, int x, const char *text);
/* A panel's title, on its first row. */
void ui_title(const ui_rect *r, const char *text);
/* A box of h rows and w columns in the middle of the screen, cleared
 * across, its top-left inside corner in *y, *x. */
void ui_box(int lines, int cols, int h, int w, int *y, int *x);

#endif
