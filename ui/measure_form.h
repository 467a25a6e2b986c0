/* M's form (measure_form.c): a room measured from the screen. Its panel
 * (panel.h) draws it and takes every key while it is up. */
#ifndef ES_UI_MEASURE_FORM_H
#define ES_UI_MEASURE_FORM_H

#include "ui.h"

/* Up, with the defaults, or after a failed measurement (`said` its line)
 * with the level to try again at. */
void ui_form_open(ui_model *m, double level_db, const char *said);

#endif
