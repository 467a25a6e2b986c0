/* A room's loudness for programme material, the same rule wherever a room
 * plays live: a library room (prepare.c), an IR file or a jconvolver
 * configuration played by its path, a SOFA set. Each is scaled so that the
 * mean over its outputs of the programme power gain (program_level.c:
 * pink noise through BS.1770's K-weighting, the paths into an output
 * summed) is 1, so that a room changes a sound's character, not its
 * loudness, and a user's hot IR is not a feedback loop's level.
 * `earshot render` does not level: it is the exact convolution. */
#ifndef ES_ROOM_LEVEL_H
#define ES_ROOM_LEVEL_H

#include <stddef.h>

#include "engine.h"
#include "sofa.h"

/* The mean programme power over `outputs` outputs of `count` paths
 * (NULL ones skipped) of `frames` at `rate`: 0 for silence, -1 when out of
 * memory. */
double es_paths_program_power(const float *const *paths, int count, int frames, double rate,
                              int outputs);

/* The outputs a room of `channels` file channels laid out as `layout`
 * (a manifest's: "true-stereo", "IxO", or "" for what the count says)
 * plays to: the count its power is averaged over. */
int es_layout_outputs(const char *layout, int channels);

/* The level gain, in dB, of a room's file channels laid out as `layout`:
 * what es_ir_level applies to the matrix they make. 0; or -1 and one line
 * (silent, out of memory). */
int es_channels_level_db(const float *const *ch, int channels, int frames, double rate,
                         const char *layout, double *gain_db, char *err, size_t n);

/* The gain, in dB, that brings `ir` to programme level (what the room
 * is too loud by, negated). 0; or -1 and one line (silent, out of memory). */
int es_ir_level_db(const es_ir *ir, double *gain_db, char *err, size_t n);
/* The same over a SOFA set: one gain for every set (the mean power over
 * them), so that turning the head changes no level but the ears'. */
int es_sofa_level_db(const es_sofa *set, double *gain_db, char *err, size_t n);

/* Every path scaled by `db`. */
void es_ir_scale_db(es_ir *ir, double db);
void es_sofa_scale_db(es_sofa *set, double db);

#endif
