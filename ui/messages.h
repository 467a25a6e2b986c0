/* The workstation's messages (messages.c): its own lines, kept by the
 * session with the session's (the snapshot carries them); the messages
 * panel, the status line, and the message history over the screen are
 * its panels (panel.h). */
#ifndef ES_UI_MESSAGES_H
#define ES_UI_MESSAGES_H

#include "ui.h"

/* A line of the workstation's own, kept with the session's. */
void ui_note(ui_model *m, int problem, const char *line);
/* A refusal (rc < 0) of a key's change: err said when it has a line (the
 * session says its own refusals). */
void ui_refused(ui_model *m, int rc, const char *err);
/* The message history, up over the screen at its newest line. */
void ui_history_open(ui_model *m);

#endif
