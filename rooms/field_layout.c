/* Rooms in spherical harmonics: their layout words and normalisations
 * (field_layout.h). */
#define _DEFAULT_SOURCE /* M_PI */
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
    long inputs = 1;
    if (isdigit((unsigned char)text[0])) { /* strtol: a huge count is no overflow */
        char *end;
        inputs = strtol(text, &end, 10);
        if (*end != 'x')
            return 0;
        text = end + 1;
    }
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
        *f = (es_field_layout){.inputs = (int)inputs, .order = order, .norm = forms[k].norm};
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

int es_field_analyse(const float *const *ch, int channels, int frames, double rate,
                     const es_field_layout *f, es_field_analysis *a)
{
    const int k = ES_AMBI_CHANNELS(f->order);
    if (channels < k || !ch[0])
        return -1;
    /* The first input's channels, as ACN/SN3D would hold them. */
    static const int fuma_of_acn[4] = {0, 2, 3, 1};
    const float *acn[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)];
    double gain[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)];
    for (int c = 0; c < k; c++) {
        const int l = (int)floor(sqrt(c + 0.5));
        acn[c] = ch[f->norm == ES_AMBI_FUMA ? fuma_of_acn[c] : c];
        gain[c] = f->norm == ES_AMBI_N3D ? 1 / sqrt(2.0 * l + 1)
                  : f->norm == ES_AMBI_FUMA && c == 0 ? sqrt(2.0)
                                                      : 1;
    }
    memset(a, 0, sizeof *a);
    a->order = f->order;
    double energy[ES_AMBI_ORDER_MAX + 1] = {0}, peak = 0;
    for (int c = 0; c < k; c++) {
        const int l = (int)floor(sqrt(c + 0.5));
        for (int t = 0; acn[c] && t < frames; t++)
            energy[l] += pow(gain[c] * acn[c][t], 2);
    }
    for (int t = 0; t < frames; t++)
        peak = fmax(peak, fabs(acn[0][t]));
    if (!(energy[0] > 0) || !(peak > 0))
        return -1;
    for (int l = 0; l <= f->order; l++)
        a->energy_db[l] = energy[l] > 0 ? 10 * log10(energy[l] / energy[0]) : -INFINITY;
    int onset = 0;
    while (onset < frames && fabs(acn[0][onset]) < 0.1 * peak)
        onset++;
    a->onset_s = onset / rate;
    double in[3] = {0, 0, 0};
    const int from = onset - (int)(0.00025 * rate), to = onset + (int)(0.001 * rate);
    for (int t = from < 0 ? 0 : from; t < to && t < frames; t++) {
        const double w = gain[0] * acn[0][t];
        in[0] += w * gain[3] * (acn[3] ? acn[3][t] : 0);
        in[1] += w * gain[1] * (acn[1] ? acn[1][t] : 0);
        in[2] += w * gain[2] * (acn[2] ? acn[2][t] : 0);
    }
    a->azimuth = atan2(in[1], in[0]) * 180 / M_PI;
    a->elevation = atan2(in[2], hypot(in[0], in[1])) * 180 / M_PI;
    return 0;
}
