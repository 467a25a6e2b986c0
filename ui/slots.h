/* The A/B slots' rows of the meters panel (slots.c). */
#ifndef ES_UI_SLOTS_H
#define ES_UI_SLOTS_H

#include "ui.h"

/* A heading and a row for each slot, from screen row y, column x, w wide;
 * each row a hit (hits.h) with the slot as its index. */
void ui_draw_slots(const ui_model *m, int y, int x, int w);

#endif
