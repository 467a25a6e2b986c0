/* Room synthesis: the impulse response of a shoebox room heard by a stereo
 * pair of microphones, for rooms nobody recorded.
 *
 *   early part   image sources (Allen and Berkley 1979) up to the mixing
 *                time, each reflection weighted per octave band by the
 *                walls it met;
 *   late tail    random-phase noise whose energy decays at every frequency
 *                at the Eyring reverberation time there, at the level the
 *                image-source density reaches (4 pi c / V per second),
 *                faded in across the mixing time while the image sources
 *                fade out (synth_tail.c).
 *
 * The image sources' bands are split and summed in the frequency domain
 * with complementary masks, so a sound that every band treats alike (the
 * direct sound) comes out as a clean impulse. No I/O here: the caller
 * writes the file. */
#ifndef ES_SYNTH_H
#define ES_SYNTH_H

#include <stddef.h>

#include "acoustics.h" /* ES_OCTAVE_BANDS, es_octave_centres */

enum { ES_WALL_LEFT, ES_WALL_RIGHT, ES_WALL_FRONT, ES_WALL_BACK, ES_WALL_FLOOR,
       ES_WALL_CEILING, ES_WALLS };

extern const char *const es_wall_names[ES_WALLS]; /* "left", "right", ... */

typedef struct {
    double size[3];      /* x (length), y (width), z (height), metres */
    double absorption[ES_WALLS][ES_OCTAVE_BANDS]; /* 0 < a < 1 */
    double source[3];    /* metres from the left/front/floor corner */
    double listener[3];  /* centre of the microphone pair */
    double mic_spacing;  /* metres between the two microphones, along x */
    double rate;         /* Hz */
    double seconds;      /* IR length; 0: 1.25 x the longest band's T + direct */
    unsigned seed;       /* for the tail's noise */
} es_room_spec;

/* A spec with defaults: 48 kHz, 0.17 m spacing, length automatic, seed 1;
 * size, absorption, source and listener left for the caller. */
void es_room_spec_defaults(es_room_spec *s);

/* Checks a spec (sizes, absorption, positions inside the room, length);
 * 0, or -1 with one line saying what is wrong. */
int es_room_spec_check(const es_room_spec *s, char *err, size_t n);

/* Eyring's reverberation time per band, seconds, with air absorption. */
void es_room_eyring(const es_room_spec *s, double t60[ES_OCTAVE_BANDS]);
/* The same at any frequency: absorption and air absorption taken linearly
 * in log frequency between the octave centres. */
double es_room_eyring_at(const es_room_spec *s, double hz);
double es_room_volume(const es_room_spec *s);

#define ES_SPEED_OF_SOUND 343.0 /* m/s, 20 degrees C */

/* The IR's length in frames: spec's seconds, else 1.25 x the longest
 * band's reverberation time after the direct sound, and 50 ms. */
int es_room_frames(const es_room_spec *s);

/* Renders the stereo IR: ch[0], ch[1] of *frames samples each, allocated
 * (free each and the array). Peak scaled to 0.5. 0, or -1 with a message. */
int es_room_synthesise(const es_room_spec *s, float ***ch, int *frames, char *err, size_t n);

/* The same room heard at the listener point as a sound field in
 * spherical harmonics of `order` (1..7; ambisonic.h: ACN/SN3D, AmbiX),
 * ES_AMBI_CHANNELS(order) channels (synth_ambisonic.c): each image source
 * encoded at its direction of arrival, the tail a diffuse field (each
 * channel its own noise, degree l at 1/(2l+1) of W's energy). The frame:
 * yaw 0 looks at the source, level (x ahead, y left, z up), as the
 * binaural synthesis's. W's peak scaled to 0.5. 0, or -1 with a message. */
int es_room_synthesise_ambisonic(const es_room_spec *s, int order, float ***ch, int *frames,
                                 char *err, size_t n);

#endif
