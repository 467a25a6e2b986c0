/* Room acoustic parameters from an impulse response, after ISO 3382-1:
 * Schroeder backward integration of the squared IR from the direct sound
 * (the noise floor and where the decay meets it found by Lundeby's
 * iteration, the floor taken out, the tail beyond compensated), reverberation time from the T20 and T30
 * ranges of the decay curve, early decay time, clarity C50/C80 and
 * definition D50, broadband and in octave bands 63 Hz - 8 kHz. */
#ifndef ES_ACOUSTICS_H
#define ES_ACOUSTICS_H

#include <stddef.h>

#define ES_OCTAVE_BANDS 6 /* 125 .. 4000 Hz: the bands rooms are synthesised in */
#define ES_MEASURE_BANDS 8 /* 63 .. 8000 Hz: the octaves a room is measured in */
#define ES_DECAY_MIN_S 0.010 /* a decay time under this is not measured (n/a) */

/* A figure that cannot be measured is NAN, never 0 or +-3000, and its
 * why_ says why (a literal; NULL when it was measured): T20 needs the
 * decay to reach -25 dB with 35 dB between the peak and the noise, T30
 * -35 dB with 45 dB, EDT -10 dB; clarity and definition need energy after
 * 80 ms; the noise floor needs noise (a synthetic IR that ends in digital
 * silence has none). */
typedef struct {
    double t20, t30, edt;  /* seconds */
    double c50, c80;       /* dB */
    double d50;            /* 0..1 */
    double noise_db;       /* noise floor relative to the peak energy, dB */
    double usable_s;       /* where the decay meets the noise: the IR used */
    double onset_s;        /* the direct sound's arrival: the first sample within 20 dB of the peak */
    const char *why_t20, *why_t30, *why_edt, *why_clarity, *why_noise;
} es_acoustics;

/* A figure as text: printf's `fmt` of v, or "n/a" when it is NAN. */
const char *es_figure_text(char *out, size_t n, const char *fmt, double v);

typedef struct {
    es_acoustics broadband;
    es_acoustics band[ES_MEASURE_BANDS]; /* at es_measure_centres */
} es_room_acoustics;

extern const double es_octave_centres[ES_OCTAVE_BANDS];
extern const double es_measure_centres[ES_MEASURE_BANDS];
/* The measured band centred on `hz` (es_measure_centres), or -1. */
int es_measure_band(double hz);

/* Parameters of one IR channel. Returns 0, or -1 if the IR is silent. */
int es_acoustics_measure(const float *ir, int length, double rate, es_acoustics *out);
/* The noise floor alone, found as es_acoustics_measure finds it but
 * without its -90 dB limit (a measurement's peak-to-noise ratio can be
 * over 100 dB): the noise's mean energy per frame against the peak
 * frame's, dB (-INFINITY where the decay ends in digital silence), and
 * where the decay meets it, frames from the start of ir (Lundeby's cross
 * point; length when there is none). 0, or -1 when ir is silent. */
int es_acoustics_noise(const float *ir, int length, double rate, double *noise_db, int *cut);
/* Broadband and octave bands. 0 or -1. */
int es_acoustics_room(const float *ir, int length, double rate, es_room_acoustics *out);

/* The energy decay curve in dB (0 at the start) of the usable part, for a
 * plot: `points` values spread evenly over usable_s. */
int es_acoustics_decay_curve(const float *ir, int length, double rate, double *db,
                             int points);

#endif
