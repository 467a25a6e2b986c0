/* The recording key's takes (recording.c). */
#ifndef ES_UI_RECORDING_H
#define ES_UI_RECORDING_H

#include "ui.h"

/* Starts a take (the output and the dry input, under names made up from
 * the time, never an existing file's) or stops the one running. */
void ui_recording_toggle(ui_model *m);

#endif
