/* The hits of the last redraw (hits.h): a handful of rows, redrawn every
 * frame. */
#include "curses_loaded.h"

#include "hits.h"

#define UI_HITS 64

typedef struct {
    int panel, index, y, x, w;
} ui_hit;

static ui_hit hits[UI_HITS];
static int hit_count, drawing;

void ui_hits_clear(void)
{
    hit_count = 0;
}

void ui_hits_drawing(int panel)
{
    drawing = panel;
}

void ui_hit_add(int index, int y, int x, int w)
{
    if (hit_count < UI_HITS)
        hits[hit_count++] = (ui_hit){drawing, index, y, x, w};
}

int ui_hit_at(int y, int x, int *panel, int *index)
{
    for (int k = 0; k < hit_count; k++)
        if (hits[k].y == y && x >= hits[k].x && x < hits[k].x + hits[k].w) {
            *panel = hits[k].panel;
            *index = hits[k].index;
            return 1;
        }
    return 0;
}

int ui_click_read(int *y, int *x, int *twice)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
        return 0;
    *y = ev.y;
    *x = ev.x;
    *twice = (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
    return 1;
}
