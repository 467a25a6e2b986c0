/* How loud a room makes what people play through it (internal to rooms/):
 * an IR's power gain for programme material, pink noise (the long-term
 * spectrum of speech and music falls about 3 dB an octave) heard through
 * ITU-R BS.1770's K-weighting (which counts what is below 100 Hz less, as
 * ears and loudness meters do). The library normalises every room to this
 * gain, so that speech and music keep their loudness from room to room
 * and against the dry signal.
 *
 * Energy (the sum of squares) is the gain for white noise: a room whose
 * low frequencies ring longer than its highs, as real and synthesised
 * rooms do, boosts pink noise by 5 to 11 dB more than white, and clipped
 * music at -6 dBFS peaks through the shipped rooms when they were
 * normalised by energy. */
#ifndef ES_PROGRAM_LEVEL_H
#define ES_PROGRAM_LEVEL_H

/* The programme power gain of one filter h[0..frames) at `rate`: the mean
 * of |H(f)|^2 weighted by K(f)^2 / f over 20 Hz to the Nyquist frequency,
 * over the same weights: 1 for a unit impulse. -1 when out of memory. */
double es_program_power(const float *h, int frames, double rate);

#endif
