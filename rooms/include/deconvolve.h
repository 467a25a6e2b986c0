/* What a room did to a sweep, undone: the recording averaged over the
 * repeats and deconvolved by the sweep's inverse filter, or by a loopback
 * reference recorded with it, into an impulse response (ISO 18233).
 *
 * The inverse is made in the frequency domain, on an FFT (FFTW) long
 * enough that nothing wraps: for the sweep X and a band weight W that is
 * 1 over the flat band (es_sweep_band) and falls to 0 at the edges of the
 * range the sweep covers at full level (es_sweep_full_level),
 *     H = Y W conj(X) / (|X|^2 + e max|X|^2),       e = 1e-7,
 * and with a reference R (the sweep through a wire from an output to an
 * input, recorded at the same time as the room) X is R: the device's own
 * delay and converters, common to both, divide out exactly, and time zero
 * is the moment the sweep leaves the output. e is 70 dB under the sweep's
 * strongest bin, 40 dB under its weakest in the band: the band's error is
 * under -80 dB, and a bin where the sweep has nothing is not blown up.
 *
 * The result h has N values (es_deconvolver_length): h[k] for k >= 0 is
 * the response at k frames after time zero, and the harmonic products,
 * which come before time zero (es_sweep_order_lead), are at N - k. Only
 * h[0 .. gap frames) has the noise at its full level (beyond it the
 * recording ends), so that is the part a room is taken from. */
#ifndef ES_DECONVOLVE_H
#define ES_DECONVOLVE_H

#include <stddef.h>

#include "sweep.h"

typedef struct es_deconvolver es_deconvolver;

/* Plans the transforms and makes the inverse for sweep s (checked). NULL
 * with a message when out of memory. Not real-time: FFTW's planner. */
es_deconvolver *es_deconvolver_create(const es_sweep *s, char *err, size_t n);
void es_deconvolver_destroy(es_deconvolver *d); /* NULL is fine */
size_t es_deconvolver_length(const es_deconvolver *d);

/* One channel of a recording of es_sweep_total frames averaged over the
 * repeats into es_sweep_period frames: each repeat starts a period after
 * the one before, and so does what came back of it. */
void es_sweep_average(const es_sweep *s, const float *recording, float *out);

/* h (es_deconvolver_length values) from a response of es_sweep_period
 * frames (averaged), by the sweep's inverse, or by `reference` (the same
 * length, averaged too) when it is not NULL. 0, or -1 when the reference
 * is silent in the band (nothing came through the wire). */
int es_deconvolve(es_deconvolver *d, const float *response, const float *reference, float *h);

/* The smallest 2^a 3^b 5^c at or over n: a length FFTW transforms fast. */
size_t es_fft_fast_length(size_t n);

#endif
