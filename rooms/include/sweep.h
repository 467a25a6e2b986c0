/* The excitation a room is measured with: an exponential sine sweep
 * (Farina 2000), synchronised so that its harmonic products deconvolve to
 * clean pulses at fixed times before the linear response (Novak, Lotton
 * and Simon 2015), with raised-cosine fades, played `repeats` times with
 * `gap` seconds of silence after each so that the responses can be
 * averaged.
 *
 * The sweep from f1 to f2 over T seconds is
 *     x(t) = A sin(2 pi f1 L (exp(t / L) - 1)),   L = T / ln(f2 / f1),
 * its instantaneous frequency f1 exp(t / L). L is rounded so that f1 L is
 * a whole number (the synchronised sweep: 2 phi(t) = phi(t + L ln 2) mod
 * 2 pi, and so on for every order), which makes the sweep's real length
 * L ln(f2 / f1), a little off the T asked for. The n-th harmonic then comes
 * L ln(n) seconds before the linear response (es_sweep_order_lead). */
#ifndef ES_SWEEP_H
#define ES_SWEEP_H

#include <stddef.h>

typedef struct {
    double rate;              /* Hz */
    double seconds;           /* the sweep's length asked for, T */
    double f1, f2;            /* Hz: 0 < f1 < f2 <= rate / 2 */
    double level_db;          /* the sweep's peak, dBFS (<= 0) */
    double fade_in, fade_out; /* seconds of raised-cosine fade at each end */
    int repeats;              /* sweeps played one after another and averaged */
    double gap;               /* seconds of silence after each sweep: the room's
                                 decay and the loop's latency must fit in it */
} es_sweep;

/* The limits a sweep is checked against. */
#define ES_SWEEP_SECONDS_MAX 60.0
#define ES_SWEEP_REPEATS_MAX 64
#define ES_SWEEP_GAP_MAX 30.0
/* The defaults, each a plain number: `earshot measure` shows them as its
 * options' defaults, as written here. */
#define ES_SWEEP_SECONDS_DEFAULT 5
#define ES_SWEEP_F1_DEFAULT 20
#define ES_SWEEP_F2_DEFAULT 20000
#define ES_SWEEP_LEVEL_DB_DEFAULT -12
#define ES_SWEEP_FADE_IN_DEFAULT 0.05
#define ES_SWEEP_FADE_OUT_DEFAULT 0.01
#define ES_SWEEP_REPEATS_DEFAULT 1
#define ES_SWEEP_GAP_DEFAULT 2.5
#define ES_SWEEP_DEFAULTS(r)                                                           \
    ((es_sweep){.rate = (r), .seconds = ES_SWEEP_SECONDS_DEFAULT,                      \
                .f1 = ES_SWEEP_F1_DEFAULT, .f2 = ES_SWEEP_F2_DEFAULT,                  \
                .level_db = ES_SWEEP_LEVEL_DB_DEFAULT,                                 \
                .fade_in = ES_SWEEP_FADE_IN_DEFAULT, .fade_out = ES_SWEEP_FADE_OUT_DEFAULT, \
                .repeats = ES_SWEEP_REPEATS_DEFAULT, .gap = ES_SWEEP_GAP_DEFAULT})

/* 0, or -1 with one line naming the value that is wrong and why (a range
 * past the rate's Nyquist frequency, a sweep too short to sweep, fades
 * longer than the sweep, a total past the limits above). f2 past Nyquist
 * is an error, not clipped: the caller says what it wants. */
int es_sweep_check(const es_sweep *s, char *err, size_t n);

/* L, seconds (the synchronised one). */
double es_sweep_rate_constant(const es_sweep *s);
/* The sweep's own length in frames (L ln(f2/f1), rounded up). */
size_t es_sweep_frames(const es_sweep *s);
/* One sweep and its gap, frames: the period the repeats come at. */
size_t es_sweep_period(const es_sweep *s);
/* Everything played, frames: repeats periods. */
size_t es_sweep_total(const es_sweep *s);
/* Seconds by which the n-th harmonic comes before the linear response
 * (n >= 1; 0 for n = 1). */
double es_sweep_order_lead(const es_sweep *s, int n);
/* Where the sweep runs at full level, from the end of the fade-in to the
 * start of the fade-out (Hz). */
void es_sweep_full_level(const es_sweep *s, double *low, double *high);
/* The band a measurement by this sweep holds flat (Hz): the full-level
 * range less a raised-cosine rise over its first half octave and fall over
 * its last sixth (deconvolve.h). Edges that soft keep the response's
 * ringing short: a band cut square at 20 Hz rings for a third of a second
 * on either side of every pulse, before the direct sound and into the
 * harmonics' windows. */
#define ES_SWEEP_RISE_OCTAVES 0.5
#define ES_SWEEP_FALL_OCTAVES (1.0 / 6)
void es_sweep_band(const es_sweep *s, double *low, double *high);

/* The sweep itself, once: es_sweep_frames values. */
void es_sweep_fill(const es_sweep *s, float *out);
/* Everything played: es_sweep_total values, the repeats and their gaps. */
void es_sweep_fill_all(const es_sweep *s, float *out);

#endif
