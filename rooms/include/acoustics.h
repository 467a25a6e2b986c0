/* Room acoustic parameters from an impulse response, after ISO 3382-1:
 * Schroeder backward integration of the squared IR (with the noise floor
 * found and taken out first), reverberation time from the T20 and T30
 * ranges of the decay curve, early decay time, clarity C50/C80 and
 * definition D50, broadband and in octave bands 125 Hz - 4 kHz. */
#ifndef ES_ACOUSTICS_H
#define ES_ACOUSTICS_H

#define ES_OCTAVE_BANDS 6 /* 125, 250, 500, 1000, 2000, 4000 Hz */

typedef struct {
    double t20, t30, edt;  /* seconds; 0 when the decay does not reach the range */
    double c50, c80;       /* dB */
    double d50;            /* 0..1 */
    double noise_db;       /* noise floor relative to the peak energy, dB */
    double usable_s;       /* where the decay meets the noise: the IR used */
} es_acoustics;

typedef struct {
    es_acoustics broadband;
    es_acoustics band[ES_OCTAVE_BANDS];
} es_room_acoustics;

extern const double es_octave_centres[ES_OCTAVE_BANDS];

/* Parameters of one IR channel. Returns 0, or -1 if the IR is silent. */
int es_acoustics_measure(const float *ir, int length, double rate, es_acoustics *out);
/* Broadband and octave bands. 0 or -1. */
int es_acoustics_room(const float *ir, int length, double rate, es_room_acoustics *out);

/* The energy decay curve in dB (0 at the start) of the usable part, for a
 * plot: `points` values spread evenly over usable_s. */
int es_acoustics_decay_curve(const float *ir, int length, double rate, double *db,
                             int points);

#endif
