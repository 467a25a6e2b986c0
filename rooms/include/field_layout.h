/* A room whose outputs are a sound field in spherical harmonics
 * (ambisonic.h): how many inputs, the order, and how its channels are
 * normalised and ordered. As a layout word (a manifest's `layout`, play's
 * and render's `--layout`):
 *   [Ix]ambixN   ACN/SN3D (AmbiX), order N (1..7): ambix3 is 1 x 16
 *   [Ix]n3dN     ACN/N3D
 *   [Ix]fuma1    FuMa B-format, first order: W X Y Z, W at -3 dB
 * I inputs (1..64; 1 when left out): 5xfuma1 is a 5 x 4 matrix. A
 * jconvolver configuration of four outputs named W, X, Y and Z (Out.W,
 * ...) is FuMa B-format, as jconvolver's ambisonic rooms are. */
#ifndef ES_FIELD_LAYOUT_H
#define ES_FIELD_LAYOUT_H

#include <stddef.h>

#include "ambisonic.h"

typedef struct {
    int inputs, order;
    es_ambi_norm norm;
} es_field_layout;

/* 1 and *f when `text` is such a word; 0 otherwise. */
int es_field_layout_parse(const char *text, es_field_layout *f);
/* The word for *f ("ambix3", "5xfuma1") into buf; returns buf. */
const char *es_field_layout_word(const es_field_layout *f, char *buf, size_t n);
/* 1 when output names (a jconvolver configuration's, `count` of them)
 * are B-format's W, X, Y, Z in that order, each alone or after a '.' or
 * '_' (Out.W): first-order FuMa. */
int es_field_layout_bformat(const char names[][64], int count);

/* The room's SH outputs made ACN/SN3D, the form earshot plays (FuMa
 * reordered, W raised 3 dB; N3D's degrees scaled by 1/sqrt(2l+1)). In
 * place; f->norm becomes ES_AMBI_SN3D. */
void es_field_to_sn3d(es_ir *ir, es_field_layout *f);

/* The field room `room` (inputs x ES_AMBI_CHANNELS(order), ACN/SN3D)
 * heard at yaw, pitch and roll through `decoder` (its SH channels x
 * outputs) as one matrix: inputs x outputs, room->length +
 * decoder->length - 1 long, what the field room's engine plays with the
 * head held there (field_heard.c). NULL and one line. */
es_ir *es_field_heard(const es_ir *room, const es_ir *decoder, int order, float yaw, float pitch,
                      float roll, char *err, size_t n);

/* What a field room's first input holds (its channels as laid out):
 * the energy of each degree against degree 0's (ACN/SN3D: a plane wave
 * and a diffuse field both give 0 dB at every degree, a band-limited or
 * noisy recording less at the high ones), and its direct sound's
 * direction of arrival from the first-order intensity vector (W times X,
 * Y, Z over the millisecond from the onset, where W first reaches a
 * tenth of its peak). */
typedef struct {
    int order;
    double energy_db[ES_AMBI_ORDER_MAX + 1];
    double onset_s, azimuth, elevation;
} es_field_analysis;
/* 0, or -1 when the channels do not fit the layout or W is silent. */
int es_field_analyse(const float *const *ch, int channels, int frames, double rate,
                     const es_field_layout *f, es_field_analysis *a);

#endif
