/* Every panel (panel.h), in the order they are drawn: the screen's
 * panels, then the views over them, the last on top (and, while it is up,
 * the first to take a key). */
#include "panel.h"

/* Each in the file named, as FFmpeg's allfilters.c declares its filters. */
extern const ui_panel ui_header_panel;   /* header.c */
extern const ui_panel ui_rooms_panel;    /* room_panel.c */
extern const ui_panel ui_engines_panel;  /* engines.c */
extern const ui_panel ui_meters_panel;   /* meters.c */
extern const ui_panel ui_spectrum_panel; /* spectrum.c */
extern const ui_panel ui_messages_panel; /* messages.c */
extern const ui_panel ui_status_panel;   /* messages.c */
extern const ui_panel ui_prompt_panel;   /* prompt.c */
extern const ui_panel ui_form_panel;     /* measure_form.c */
extern const ui_panel ui_history_panel;  /* messages.c */
extern const ui_panel ui_help_panel;     /* help.c */
extern const ui_panel ui_test_panel;     /* test_panel.c */

const ui_panel *const ui_panels[] = {
    &ui_header_panel,
    &ui_rooms_panel,
    &ui_engines_panel,
    &ui_meters_panel,
    &ui_spectrum_panel,
    &ui_messages_panel,
    &ui_status_panel,
    &ui_prompt_panel,  /* over the status line while something is typed */
    &ui_form_panel,
    &ui_history_panel,
    &ui_help_panel,
    &ui_test_panel,    /* a listening test: over everything, every key its own */
    NULL,
};
