/* Frames of interleaved samples to a channel each and back (internal to
 * audio/): what every file read and write does, for 64 channels as for 2.
 * A frame at a time across all channels writes (or reads) a different
 * cache line per channel; these go a tile of frames at a time, so each
 * channel's run is contiguous and the tile's interleaved samples stay in
 * the first-level cache. */
#ifndef ES_INTERLEAVE_H
#define ES_INTERLEAVE_H

/* planar[c][at + t] = interleaved[t * channels + c], t < frames. */
void es_deinterleave(const float *interleaved, int channels, float *const *planar, long at,
                     long frames);
/* interleaved[t * channels + c] = planar[c][at + t], t < frames. */
void es_interleave(const float *const *planar, long at, int channels, float *interleaved,
                   long frames);

#endif
