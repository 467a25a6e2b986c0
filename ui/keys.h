/* The main screen's keys (keys.c): the table that binds each key to an
 * action of the screen's own or to a row of the command table
 * (commands.h), and the help made from it. */
#ifndef ES_UI_KEYS_H
#define ES_UI_KEYS_H

#include "ui.h"

/* A key on the main screen (no view up over it): its reaction. */
int ui_key(ui_model *m, int key);

/* The help's lines (every key with its help, then the meters'
 * definitions), UI_HELP_W wide each; returns how many. */
#define UI_HELP_W 100
#define UI_HELP_CAP 160
int ui_help_lines(char lines[][UI_HELP_W]);

#endif
