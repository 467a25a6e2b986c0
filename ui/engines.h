/* The engines panel's pick (engines.c), for the keys 1-9 and a click. */
#ifndef ES_UI_ENGINES_H
#define ES_UI_ENGINES_H

#include "ui.h"

/* Engine i (from 0), when it can play here and is not playing already;
 * else said why not. */
void ui_engine_pick(ui_model *m, int i);

#endif
