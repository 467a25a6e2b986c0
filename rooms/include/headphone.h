/* Headphone equalisation: a filter per ear applied after the room, so
 * that the headphones' own colouring is taken out of what a binaural room
 * puts at the eardrum (docs/BINAURAL.md).
 *
 * From a WAV, the filter itself (1 channel for both ears, or 2: left,
 * right), used as it is. From a SOFA SimpleHeadphoneIR file, the
 * headphones' measured responses (one or more fittings, two ears): the
 * filter is designed here, per ear, as the regularised inverse of the
 * fittings' mean power response (Kirkeby's: |C| = sqrt(P) / (P + beta),
 * beta 25 dB under the band's mean power between 100 Hz and 16 kHz and
 * at it outside, so no inverse boosts more than about 19 dB or chases
 * the headphones' roll-off), made minimum-phase (no latency added), 4096
 * taps at the stream rate.
 *
 * Applied by convolving every path of a room with its output's ear
 * (es_headphone_apply): a room then its headphone filter is one filter,
 * so a room that switches sets keeps switching within a block. */
#ifndef ES_HEADPHONE_H
#define ES_HEADPHONE_H

#include <stddef.h>

#include "engine.h"

#define ES_HEADPHONE_TAPS 4096 /* a designed filter's length */

typedef struct {
    int ears;          /* 1: the same filter on every output; 2: left, right */
    int taps;
    double rate;
    float *ear[2];
    char said[300];    /* what it is, in a line: "phones.sofa: designed from 3 fittings, ..." */
} es_headphone_eq;

/* Reads or designs the filter for `rate`. 0, or -1 and one line naming
 * the file and what is wrong. */
int es_headphone_load(const char *path, double rate, es_headphone_eq *eq, char *err, size_t n);
void es_headphone_free(es_headphone_eq *eq);

/* A new matrix: each path to output o convolved with ear o (a two-ear
 * filter on a room of two outputs; a one-ear filter on any), taps - 1
 * longer. NULL and why (two ears on a room of other than two outputs,
 * out of memory). */
es_ir *es_headphone_apply(const es_headphone_eq *eq, const es_ir *ir, char *err, size_t n);

#endif
