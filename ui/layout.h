/* Where each panel goes (layout.c): the screen's areas, planned for 80x24,
 * a larger terminal's rows and columns shared out among them. A panel
 * names its area in the panel table (panel.h). */
#ifndef ES_UI_LAYOUT_H
#define ES_UI_LAYOUT_H

#include "ui.h"

enum {
    UI_AREA_HEADER,
    UI_AREA_ROOMS,
    UI_AREA_ENGINES,
    UI_AREA_METERS,
    UI_AREA_SPECTRUM,
    UI_AREA_MESSAGES,
    UI_AREA_STATUS,
    UI_AREA_SCREEN, /* the whole screen: the views drawn over the others */
    UI_AREAS
};

typedef struct {
    ui_rect area[UI_AREAS];
    int too_small;            /* under 80x24: no area is drawn */
} ui_layout;

void ui_layout_compute(int lines, int cols, int engines, ui_layout *l);

#endif
