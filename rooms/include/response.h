/* What a deconvolved sweep says (deconvolve.h): the recording's level and
 * clipping, the direct sound's onset, the peak-to-noise ratio, each
 * harmonic order's level, where the decay meets the noise; whether it is
 * a measurement worth keeping, and if not what level to measure at; and
 * the room's impulse response cut out of it.
 *
 * Definitions, as ISO 18233 and ISO 3382-1 use them:
 *   - the onset is the first frame within 20 dB of the peak (ISO 3382-1
 *     A.3.4);
 *   - the noise is the mean energy per frame of the response after its
 *     decay has met the noise (Lundeby's iteration, acoustics.h), and the
 *     peak-to-noise ratio (PNR) the peak frame's energy over it;
 *   - order n's level is the harmonic response's power against the linear
 *     response's at the frequency that excites it: the sum over the band
 *     of |H_n(n f)|^2 over the sum of |H_1(f)|^2, each from a window of the
 *     same length (the time between order n and order n - 1), in dB. A
 *     memoryless x + a x^2 driven at amplitude A gives a A / 2 for order 2
 *     (the textbook second-harmonic distortion). */
#ifndef ES_RESPONSE_H
#define ES_RESPONSE_H

#include <stddef.h>

#include "sweep.h"

#define ES_RESPONSE_ORDERS 4 /* harmonic orders 2 to 5 */

/* Over this the recording counts as clipped: a float device's full scale
 * is 1.0, and an integer converter at full scale comes to 1 - 2^-15 or
 * closer. */
#define ES_CLIP_LEVEL 0.999f

typedef enum {
    ES_RESPONSE_GOOD,    /* keep it */
    ES_RESPONSE_CLIPPED, /* the recording reached full scale: the response is wrong */
    ES_RESPONSE_SILENT,  /* nothing came back (nothing wired, or muted) */
    ES_RESPONSE_QUIET,   /* it came back, but under the noise's reach (PNR under 20 dB) */
} es_response_verdict;

#define ES_PNR_KEEP_DB 20.0 /* a PNR under this is too quiet to keep */
#define ES_PNR_T30_DB 45.0  /* and under this T30 cannot be measured (ISO 3382-1) */

typedef struct {
    double recording_peak_db; /* dBFS; -INFINITY for digital silence */
    long clipped;             /* frames of the recording at or over ES_CLIP_LEVEL */
    double peak;              /* the response's largest magnitude (a wire: 1) */
    size_t peak_at, onset;    /* frames from time zero */
    double pnr_db;            /* peak to noise, dB; INFINITY when no noise was found */
    size_t usable;            /* frames from time zero to where the decay meets the noise */
    int rings_on;             /* 1: the response was still above the noise at the
                                 end of the gap: a longer gap would hold more of it */
    int orders;               /* harmonic orders measured: 2 .. orders + 1 */
    double harmonic_db[ES_RESPONSE_ORDERS]; /* order n at [n - 2]; NAN: under the noise */
    double harmonic_floor_db[ES_RESPONSE_ORDERS]; /* what the noise alone would read */
    es_response_verdict verdict;
} es_response;

/* The recording's level: one channel, es_sweep_total frames. Fills
 * recording_peak_db and clipped; the rest is es_response_analyse's. */
void es_response_recording(const float *recording, size_t frames, es_response *r);

/* Analyses h (es_deconvolver_length n values) of sweep s, the recording's
 * level already in r. Time zero is h[zero] (0 with a reference; the
 * device's round trip without one, which the caller knows). 0, or -1 out
 * of memory. */
int es_response_analyse(const es_sweep *s, const float *h, size_t n, size_t zero,
                        es_response *r);

/* The sweep level (dBFS) to measure at again after a verdict other than
 * GOOD: 10 dB under a clipped one, or what brings a quiet recording's
 * peak to -6 dBFS (at most 0); NAN where a level would not help (silence,
 * a quiet one already at its loudest). */
double es_response_retry_level(const es_response *r, const es_sweep *s);

/* One line on a verdict other than GOOD, naming the level to measure at
 * instead ("clipped: ... measure at -20 dBFS"); "" for GOOD. */
void es_response_advice(const es_response *r, const es_sweep *s, char *out, size_t n);

/* The room: `frames` values of h from time zero (zero, as above), the last
 * 5 ms faded out so the cut does not click. */
void es_response_cut(const float *h, size_t n, size_t zero, size_t frames, double rate,
                     float *out);

#endif
