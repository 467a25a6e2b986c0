/* The room list's cursor and search (rooms.c). The list is the session's
 * (the snapshot's `rooms`); when it changes (a rescan, a file played) the
 * cursor stays on its room. */
#ifndef ES_UI_ROOMS_H
#define ES_UI_ROOMS_H

#include "ui.h"

/* Places the cursor again when the session's list has changed. */
void ui_rooms_follow(ui_model *m);
/* Moves the cursor to entry i (clamped to the list). */
void ui_rooms_move(ui_model *m, int i);
/* Plays the room under the cursor. */
void ui_rooms_play(ui_model *m);
/* A click on room i: the cursor there; play: open it too. */
void ui_rooms_click(ui_model *m, int i, int play);
/* A new search: the cursor on the first room that matches `text`. */
void ui_rooms_search(ui_model *m, const char *text);
/* n and N: the next, the one before, matching the last search. */
void ui_rooms_search_step(ui_model *m, int dir);

#endif
