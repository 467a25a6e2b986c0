/* What each redraw put where, for the mouse (hits.c). A panel adds a hit
 * for each row a click can act on (a room, an engine, an A/B slot) as it
 * draws it, and the loop says whose rows they are, so a click is read
 * against what was drawn, never a second copy of the layout. */
#ifndef ES_UI_HITS_H
#define ES_UI_HITS_H

/* A new redraw: no hits yet. */
void ui_hits_clear(void);
/* The panel (its place in the panel table) whose rows the next hits are. */
void ui_hits_drawing(int panel);
/* Row `index` of the panel drawing, at screen row y, columns x..x+w-1. */
void ui_hit_add(int index, int y, int x, int w);
/* The hit under screen cell (y, x): 1 with its panel and index, or 0. */
int ui_hit_at(int y, int x, int *panel, int *index);
/* The mouse's event taken from curses (so a view that ignores clicks
 * drops it): 1 for a left click, where, and whether it was a double one. */
int ui_click_read(int *y, int *x, int *twice);

#endif
