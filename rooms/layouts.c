/* A room's channel layouts, as a manifest names them (library.h): mono,
 * stereo, true stereo, or an N x M matrix. */
#include <stdio.h>
#include <string.h>

#include "field_layout.h"
#include "library.h"

const char *es_layout_for_channels(int channels)
{
    return channels == 1 ? "mono" : channels == 2 ? "stereo" : channels == 4 ? "true-stereo"
                                                                          : "";
}

int es_layout_check(const char *layout, int channels, char *err, size_t n)
{
    int want = 0, ins, outs;
    char extra;
    es_field_layout field;
    if (es_field_layout_parse(layout, &field))
        want = field.inputs * ES_AMBI_CHANNELS(field.order);
    else if (!strcmp(layout, "mono"))
        want = 1;
    else if (!strcmp(layout, "stereo"))
        want = 2;
    else if (!strcmp(layout, "true-stereo"))
        want = 4;
    else if (sscanf(layout, "%dx%d%c", &ins, &outs, &extra) == 2 && ins >= 1 && outs >= 1 &&
             ins <= 64 && outs <= 64)
        want = ins * outs;
    else {
        snprintf(err, n, "layout '%s' is not mono, stereo, true-stereo, NxM or Ambisonic "
                 "(ambix3, n3d5, fuma1, 2xambix1)", layout);
        return -1;
    }
    if (channels > 0 && channels != want) {
        snprintf(err, n, "layout %s needs %d channel%s but the file has %d", layout, want,
                 want == 1 ? "" : "s", channels);
        return -1;
    }
    return 0;
}

int es_layout_matrix(const char *layout, int *inputs, int *outputs)
{
    es_field_layout f;
    if (es_field_layout_parse(layout, &f)) {
        *inputs = f.inputs;
        *outputs = ES_AMBI_CHANNELS(f.order);
        return 1;
    }
    char extra;
    return sscanf(layout, "%dx%d%c", inputs, outputs, &extra) == 2 && *inputs >= 1 &&
           *outputs >= 1 && *inputs <= 64 && *outputs <= 64;
}
