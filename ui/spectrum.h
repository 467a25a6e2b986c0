/* The spectrum's analysis (spectrum.c): made when the workstation starts,
 * fed each frame by its panel (panel.h). */
#ifndef ES_UI_SPECTRUM_H
#define ES_UI_SPECTRUM_H

#include "ui.h"

/* NULL when FFTW cannot plan its transform (the panel says so). */
ui_spectrum *ui_spectrum_create(double rate);
void ui_spectrum_destroy(ui_spectrum *s);

#endif
