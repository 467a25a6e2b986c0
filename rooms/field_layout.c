/* Rooms in spherical harmonics: their layout words and normalisations
 * (field_layout.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "field_layout.h"

static const struct {
    const char *word;
    es_ambi_norm norm;
    int max_order;
} forms[] = {
    {"ambix", ES_AMBI_SN3D, ES_AMBI_ORDER_MAX},
    {"n3d", ES_AMBI_N3D, ES_AMBI_ORDER_MAX},
    {"fuma", ES_AMBI_FUMA, 1},
};

int es_field_layout_parse(const char *text, es_field_layout *f)
{
    int inputs = 1, used = 0;
    if (sscanf(text, "%dx%n", &inputs, &used) == 1 && used > 0)
        text += used;
    if (inputs < 1 || inputs > 64)
        return 0;
    for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
        const size_t len = strlen(forms[k].word);
        if (strncmp(text, forms[k].word, len) != 0 || !isdigit((unsigned char)text[len]) ||
            text[len + 1] != 0)
            continue;
        const int order = text[len] - '0';
        if (order < 1 || order > forms[k].max_order)
            return 0;
        *f = (es_field_layout){.inputs = inputs, .order = order, .norm = forms[k].norm};
        return 1;
    }
    return 0;
}

const char *es_field_layout_word(const es_field_layout *f, char *buf, size_t n)
{
    static const char *const words[] = {[ES_AMBI_SN3D] = "ambix", [ES_AMBI_N3D] = "n3d",
                                        [ES_AMBI_FUMA] = "fuma"};
    if (f->inputs > 1)
        snprintf(buf, n, "%dx%s%d", f->inputs, words[f->norm], f->order);
    else
        snprintf(buf, n, "%s%d", words[f->norm], f->order);
    return buf;
}

/* The name's last part: after its last '.' or '_'. */
static const char *last_part(const char *name)
{
    const char *dot = strrchr(name, '.'), *bar = strrchr(name, '_');
    const char *at = dot > bar ? dot : bar;
    return at ? at + 1 : name;
}

int es_field_layout_bformat(const char names[][64], int count)
{
    static const char *const wxyz[] = {"W", "X", "Y", "Z"};
    if (count != 4)
        return 0;
    for (int o = 0; o < 4; o++)
        if (strcasecmp(last_part(names[o]), wxyz[o]) != 0)
            return 0;
    return 1;
}

static void scale_output(es_ir *ir, int o, double g)
{
    for (int i = 0; i < ir->inputs; i++) {
        float *h = ir->taps[i * ir->outputs + o];
        for (int t = 0; h && t < ir->length; t++)
            h[t] = (float)(h[t] * g);
    }
}

void es_field_to_sn3d(es_ir *ir, es_field_layout *f)
{
    if (f->norm == ES_AMBI_N3D)
        for (int o = 0; o < ir->outputs; o++)
            scale_output(ir, o, 1 / sqrt(2 * floor(sqrt(o + 0.5)) + 1));
    if (f->norm == ES_AMBI_FUMA) {
        /* W X Y Z -> W Y Z X: each input's row of four rotated. */
        for (int i = 0; i < ir->inputs; i++) {
            float **row = ir->taps + i * ir->outputs;
            float *w = row[0], *x = row[1], *y = row[2], *z = row[3];
            row[0] = w, row[1] = y, row[2] = z, row[3] = x;
        }
        scale_output(ir, 0, sqrt(2.0));
    }
    f->norm = ES_AMBI_SN3D;
}
