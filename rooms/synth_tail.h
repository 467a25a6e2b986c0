/* The parts of a synthesised room that its stereo and binaural renderings
 * share (internal to rooms/synth*.c): the image sources, the band split,
 * and the diffuse tail. */
#ifndef ES_SYNTH_TAIL_H
#define ES_SYNTH_TAIL_H

#include <stddef.h>

#include "synth.h"

/* Weight of the tail at time t after the direct sound: 0 before mix/2,
 * a raised cosine up to 1 at mix. The image sources get 1 minus it. */
double es_room_tail_weight(double t, double mix);

/* The image sources heard at `at` (a microphone, or the centre of a head)
 * up to the mixing time after the direct sound (`direct` s): fn gets each
 * one's position, its time of arrival (s) and its amplitude per octave
 * band (the walls it met, distance, air, and 1 minus the tail's weight). */
typedef void (*es_room_image_fn)(void *ctx, const double image[3], double t,
                                 const double amp[ES_OCTAVE_BANDS]);
void es_room_each_image(const es_room_spec *s, const double at[3], double direct, double mix,
                        es_room_image_fn fn, void *ctx);

/* The image sources as a head at the listener point hears them: each
 * one's direction of arrival (degrees) in the frame whose yaw 0 looks at
 * the source, level (x ahead, y left, z up), time of arrival and band
 * levels; what the binaural and the Ambisonic syntheses encode. */
typedef struct {
    float azimuth, elevation;
    double t, amp[ES_OCTAVE_BANDS];
} es_room_heard_image;
typedef struct {
    es_room_heard_image *list;
    int count;
} es_room_heard_images;
/* Every image up to the mixing time after the direct sound (`direct`
 * s). 0, or -1 when out of memory (free list either way). */
int es_room_images_heard(const es_room_spec *s, double direct, double mix,
                         es_room_heard_images *out);

/* Band b's share at f Hz: the six masks sum to 1 at every frequency. */
double es_room_band_mask(int b, double f);

/* Adds amp times a unit impulse at fractional frame `at` (a Lanczos
 * kernel, 2 ES_ROOM_LANCZOS frames wide). */
#define ES_ROOM_LANCZOS 4
void es_room_add_impulse(float *buf, int frames, double at, double amp);
/* The kernel itself at x frames from its centre (0 past ES_ROOM_LANCZOS). */
double es_room_lanczos(double x);

/* The mixing time after the direct sound, s: about 2 sqrt(V) ms, 8 to
 * 100 ms. */
double es_room_mixing_time(const es_room_spec *s);

/* How two ears hear a diffuse field, per bin of the tail's frames
 * (ES_ROOM_TAIL_BINS, 0 to the Nyquist frequency): each ear's gain, and
 * the coherence between them (-1 to 1). */
#define ES_ROOM_TAIL_FRAME 2048
#define ES_ROOM_TAIL_BINS (ES_ROOM_TAIL_FRAME / 2 + 1)
typedef struct {
    double gain[2][ES_ROOM_TAIL_BINS];
    double coherence[ES_ROOM_TAIL_BINS];
} es_room_ears;

/* Adds the tail for a microphone whose direct sound arrives at `direct`
 * seconds into out[0..frames). 0, or -1 with a message. */
int es_room_tail(const es_room_spec *s, double direct, double mix, unsigned seed, float *out,
                 int frames, char *err, size_t n);
/* The same tail heard by two ears: each bin's energy as es_room_tail's
 * times the ear's gain squared, the ears' coherence as `ears` says. */
int es_room_tail_ears(const es_room_spec *s, double direct, double mix, unsigned seed,
                      const es_room_ears *ears, float *left, float *right, int frames,
                      char *err, size_t n);

#endif
