/* What two ears' responses say, for the rooms tests: the ITD below
 * 1.5 kHz (the lag of the ears' cross-correlation, both low-passed) and
 * the broadband ILD. */
#ifndef ES_TEST_BINAURAL_FIGURES_H
#define ES_TEST_BINAURAL_FIGURES_H

#define RATE 48000.0

/* *itd: s, positive when the left ear is late; *ild: dB, left over
 * right. Responses of at most 4,096 taps are read. */
void es_itd_ild(const float *l, const float *r, int taps, double *itd, double *ild);

#endif
