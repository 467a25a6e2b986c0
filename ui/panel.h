/* A panel, as htop's MeterClass: one row of a table that says everything
 * about a part of the screen: the area it is drawn in, what it takes from
 * each new snapshot, how it draws, what a click on one of its rows does,
 * and, for a view drawn over the others (the help, the message history,
 * M's form, the prompt), when it is up and the keys it takes while it is.
 * The workstation's loop (workstation.c) drives every panel from the table
 * (panel_list.c) and from nothing else: it updates each, draws each in
 * the table's order, gives a key to the topmost view that is up, and a
 * click to the panel that drew the row under it. Hooks left out are NULL.
 *
 * Adding a panel: its file (in CMakeLists.txt), ending in its `const
 * ui_panel`, and its lines in panel_list.c (with an area in layout.c when
 * none fits). */
#ifndef ES_UI_PANEL_H
#define ES_UI_PANEL_H

#include "ui.h"

typedef struct ui_panel {
    const char *name;
    int area;                  /* where layout.c puts it: UI_AREA_* (layout.h) */
    /* A view over the others: drawn, and given every key, only while this
     * says it is up (the topmost one that is up takes them). NULL: a
     * panel of the screen, always drawn, taking no keys of its own. */
    int (*up)(const ui_model *m);
    /* Each frame, after the poll, before any drawing: what it keeps from
     * the new snapshot (the meters' memory, the spectrum's analysis). */
    void (*update)(ui_model *m);
    void (*draw)(ui_model *m, const ui_rect *r);
    /* While up: a key, its reaction UI_KEEP, UI_QUIT or UI_REPAINT. */
    int (*key)(ui_model *m, int key);
    /* A click on row `index` of those it drew (hits.h); `twice`: a double
     * click. */
    void (*hit)(ui_model *m, int index, int twice);
} ui_panel;

/* panel_list.c: every panel, in drawing order (the last drawn on top),
 * NULL-terminated. */
extern const ui_panel *const ui_panels[];

#endif
