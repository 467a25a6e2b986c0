/* Programme loudness as ITU-R BS.1770-4 measures it: each channel through
 * the K-weighting (a high shelf of +4 dB above about 1.5 kHz and a
 * high-pass below about 40 Hz, designed for the signal's own rate as
 * libebur128 and pyloudnorm do), mean squares over 400 ms blocks that
 * overlap by 75 %, summed over channels (weight 1: two ears, or the front
 * three), gated at -70 LUFS and then 10 LU under the mean of what passed.
 * A listening test matches its stimuli's loudness with it. */
#ifndef ES_LOUDNESS_H
#define ES_LOUDNESS_H

/* The integrated loudness, LUFS, of `frames` of `channels` planar channels
 * at `rate`. -INFINITY for a signal under the absolute gate (or shorter
 * than one block). */
double es_loudness_lufs(const float *const *ch, int channels, long frames, double rate);

#endif
