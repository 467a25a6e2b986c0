/* Interleaving by tiles (interleave.h). */
#include "interleave.h"

/* Frames a tile: 16 frames of 64 channels are 4 KB. */
#define TILE 16

void es_deinterleave(const float *interleaved, int channels, float *const *planar, long at,
                     long frames)
{
    for (long t0 = 0; t0 < frames; t0 += TILE) {
        const long n = frames - t0 < TILE ? frames - t0 : TILE;
        const float *tile = interleaved + t0 * channels;
        for (int c = 0; c < channels; c++) {
            float *dst = planar[c] + at + t0;
            for (long t = 0; t < n; t++)
                dst[t] = tile[t * channels + c];
        }
    }
}

void es_interleave(const float *const *planar, long at, int channels, float *interleaved,
                   long frames)
{
    if (channels <= 4) { /* a frame is a few lanes: frame by frame is faster */
        for (long t = 0; t < frames; t++)
            for (int c = 0; c < channels; c++)
                interleaved[t * channels + c] = planar[c][at + t];
        return;
    }
    for (long t0 = 0; t0 < frames; t0 += TILE) {
        const long n = frames - t0 < TILE ? frames - t0 : TILE;
        float *tile = interleaved + t0 * channels;
        for (int c = 0; c < channels; c++) {
            const float *src = planar[c] + at + t0;
            for (long t = 0; t < n; t++)
                tile[t * channels + c] = src[t];
        }
    }
}
