/* Interleaving by tiles (interleave.h). Where the CPU has AVX, blocks of
 * 8 frames x 8 channels go through registers: eight 8-float loads, a
 * transpose of 24 shuffles, eight 8-float stores, about four times the
 * scalar tile's speed at 64 channels. The rest (channels past a multiple
 * of 8, the last frames) goes by the scalar tile. */
#include "interleave.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ES_X86 1
#endif

/* Frames a tile: 16 frames of 64 channels are 4 KB. */
#define TILE 16

/* Channels [c_from, c_to) of frames [t_from, frames), a tile of frames
 * at a time. */
static void deinterleave_tiles(const float *interleaved, int channels, int c_from, int c_to,
                               float *const *planar, long at, long t_from, long frames)
{
    for (long t0 = t_from; t0 < frames; t0 += TILE) {
        const long n = frames - t0 < TILE ? frames - t0 : TILE;
        const float *tile = interleaved + t0 * channels;
        for (int c = c_from; c < c_to; c++) {
            float *dst = planar[c] + at + t0;
            for (long t = 0; t < n; t++)
                dst[t] = tile[t * channels + c];
        }
    }
}

static void interleave_tiles(const float *const *planar, long at, int channels, int c_from,
                             int c_to, float *interleaved, long t_from, long frames)
{
    for (long t0 = t_from; t0 < frames; t0 += TILE) {
        const long n = frames - t0 < TILE ? frames - t0 : TILE;
        float *tile = interleaved + t0 * channels;
        for (int c = c_from; c < c_to; c++) {
            const float *src = planar[c] + at + t0;
            for (long t = 0; t < n; t++)
                tile[t * channels + c] = src[t];
        }
    }
}

#ifdef ES_X86
/* r[k] becomes column k of the 8 x 8 block whose rows were r[0..7]. */
__attribute__((target("avx"))) static inline void transpose8(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
        r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    }
}

__attribute__((target("avx"))) static void deinterleave_avx(const float *interleaved,
                                                            int channels, float *const *planar,
                                                            long at, long frames)
{
    for (long t0 = 0; t0 + 8 <= frames; t0 += 8)
        for (int c0 = 0; c0 + 8 <= channels; c0 += 8) {
            __m256 r[8];
            for (int t = 0; t < 8; t++)
                r[t] = _mm256_loadu_ps(interleaved + (t0 + t) * channels + c0);
            transpose8(r);
            for (int k = 0; k < 8; k++)
                _mm256_storeu_ps(planar[c0 + k] + at + t0, r[k]);
        }
}

__attribute__((target("avx"))) static void interleave_avx(const float *const *planar, long at,
                                                          int channels, float *interleaved,
                                                          long frames)
{
    for (long t0 = 0; t0 + 8 <= frames; t0 += 8)
        for (int c0 = 0; c0 + 8 <= channels; c0 += 8) {
            __m256 r[8];
            for (int k = 0; k < 8; k++)
                r[k] = _mm256_loadu_ps(planar[c0 + k] + at + t0);
            transpose8(r);
            for (int t = 0; t < 8; t++)
                _mm256_storeu_ps(interleaved + (t0 + t) * channels + c0, r[t]);
        }
}

static int have_avx(void)
{
    static int known = -1;
    if (known < 0)
        known = __builtin_cpu_supports("avx") ? 1 : 0;
    return known;
}
#endif

/* One channel and two, the files most people have: runs through
 * restrict-qualified pointers, which the compiler vectorises (a mono file
 * is a copy, a stereo one an unpack or two a vector). The general loop
 * reloads planar[c] every sample, as a store may alias it: a stereo
 * render's interleaving was 5 % of its whole CPU time that way. */
static int few_channels_in(const float *restrict interleaved, int channels,
                           float *const *planar, long at, long frames)
{
    if (channels == 1) {
        memcpy(planar[0] + at, interleaved, (size_t)frames * sizeof(float));
        return 1;
    }
    if (channels != 2)
        return 0;
    float *restrict l = planar[0] + at, *restrict r = planar[1] + at;
    for (long t = 0; t < frames; t++) {
        l[t] = interleaved[2 * t];
        r[t] = interleaved[2 * t + 1];
    }
    return 1;
}

static int few_channels_out(const float *const *planar, long at, int channels,
                            float *restrict interleaved, long frames)
{
    if (channels == 1) {
        memcpy(interleaved, planar[0] + at, (size_t)frames * sizeof(float));
        return 1;
    }
    if (channels != 2)
        return 0;
    const float *restrict l = planar[0] + at, *restrict r = planar[1] + at;
    for (long t = 0; t < frames; t++) {
        interleaved[2 * t] = l[t];
        interleaved[2 * t + 1] = r[t];
    }
    return 1;
}

void es_deinterleave(const float *interleaved, int channels, float *const *planar, long at,
                     long frames)
{
    if (few_channels_in(interleaved, channels, planar, at, frames))
        return;
    int c_done = 0;
#ifdef ES_X86
    if (channels >= 8 && frames >= 8 && have_avx()) {
        deinterleave_avx(interleaved, channels, planar, at, frames);
        c_done = channels / 8 * 8; /* and their last frames: */
        deinterleave_tiles(interleaved, channels, 0, c_done, planar, at, frames / 8 * 8, frames);
    }
#endif
    deinterleave_tiles(interleaved, channels, c_done, channels, planar, at, 0, frames);
}

void es_interleave(const float *const *planar, long at, int channels, float *interleaved,
                   long frames)
{
    if (few_channels_out(planar, at, channels, interleaved, frames))
        return;
    if (channels <= 4) { /* a frame is a few lanes: frame by frame is faster */
        for (long t = 0; t < frames; t++)
            for (int c = 0; c < channels; c++)
                interleaved[t * channels + c] = planar[c][at + t];
        return;
    }
    int c_done = 0;
#ifdef ES_X86
    if (channels >= 8 && frames >= 8 && have_avx()) {
        interleave_avx(planar, at, channels, interleaved, frames);
        c_done = channels / 8 * 8; /* and their last frames: */
        interleave_tiles(planar, at, channels, 0, c_done, interleaved, frames / 8 * 8, frames);
    }
#endif
    interleave_tiles(planar, at, channels, c_done, channels, interleaved, 0, frames);
}
