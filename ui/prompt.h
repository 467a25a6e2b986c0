/* The one-line prompt over the status line (prompt.c): '/' to search the
 * rooms, 'o' to open an IR file by its path. Its panel (panel.h) draws it
 * and takes every key while it is up. */
#ifndef ES_UI_PROMPT_H
#define ES_UI_PROMPT_H

#include "ui.h"

/* Up, empty, for `which`: '/' or 'o'. */
void ui_prompt_open(ui_model *m, int which);

#endif
