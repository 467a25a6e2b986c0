/* Where each panel goes. The screen is planned for 80x24 and shares out
 * what a larger terminal adds: more spectrum, more room list and decay
 * plot, more messages, wider meters.
 *
 *   header (2 lines)
 *   rooms + decay plot   | engines, then meters
 *   spectrum (full width)
 *   messages
 *   status line */
#include "layout.h"

#define MIN_LINES 24
#define MIN_COLS 80

void ui_layout_compute(int lines, int cols, int engines, ui_layout *l)
{
    *l = (ui_layout){0};
    if (lines < MIN_LINES || cols < MIN_COLS) {
        l->too_small = 1;
        return;
    }
    const int extra = lines - MIN_LINES;
    const int spectrum_h = 5 + extra / 2;
    const int messages_h = 1 + extra / 6;
    const int body_h = lines - 2 - spectrum_h - messages_h - 1;
    const int left_w = cols / 2;
    ui_rect *a = l->area;
    a[UI_AREA_HEADER] = (ui_rect){0, 0, 2, cols};
    a[UI_AREA_ROOMS] = (ui_rect){2, 0, body_h, left_w};
    /* The engines' list: a title and a row each; the meters take the rest. */
    const int engines_h = 1 + engines;
    a[UI_AREA_ENGINES] = (ui_rect){2, left_w + 1, engines_h, cols - left_w - 1};
    a[UI_AREA_METERS] = (ui_rect){2 + engines_h, left_w + 1, body_h - engines_h,
                                  cols - left_w - 1};
    a[UI_AREA_SPECTRUM] = (ui_rect){2 + body_h, 0, spectrum_h, cols};
    a[UI_AREA_MESSAGES] = (ui_rect){2 + body_h + spectrum_h, 0, messages_h, cols};
    a[UI_AREA_STATUS] = (ui_rect){lines - 1, 0, 1, cols};
    a[UI_AREA_SCREEN] = (ui_rect){0, 0, lines, cols};
}
