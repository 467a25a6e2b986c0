/* A synthesised shoebox room heard by a head: a binaural room impulse
 * response (BRIR) for each of several head orientations, from a
 * head-related set (SimpleFreeFieldHRIR, read with sofa.h).
 *
 *   early part   each image source (synth.h's, up to the mixing time)
 *                through the HRIR nearest its direction of arrival as
 *                seen from the turned head, at its own time of arrival
 *                and band levels;
 *   late tail    synth.h's Eyring tail, heard by two ears: each ear's
 *                diffuse-field response (the HRIRs' power averaged over
 *                every direction of the set) and, between the ears, the
 *                set's diffuse-field coherence, frequency by frequency.
 *                The tail is one field: the same at every orientation.
 *
 * The frame: the listener at the room's listener point, yaw 0 looking at
 * the source (level), yaw counter-clockwise seen from above (the head
 * turned left is positive), as a head tracker and the SOFA ListenerView
 * count it. Orientations are `count` yaw steps round, pitch 0. No I/O. */
#ifndef ES_SYNTH_BINAURAL_H
#define ES_SYNTH_BINAURAL_H

#include <stddef.h>

#include "sofa.h"
#include "synth.h"

#define ES_BINAURAL_ORIENTATIONS_MAX 3600

/* The room over `count` head orientations: an es_sofa of SingleRoomSRIR
 * shape (varies ES_SOFA_VIEW, one input, two outputs: left, right),
 * pose[k].azimuth = 360 k / count, at spec's rate (the HRIR set must be
 * at it too: es_sofa_load resamples). Scaled so that a BRIR's energy,
 * averaged over orientations and ears, is 1: white noise keeps its level
 * (a SOFA room plays without a programme-level gain). NULL and one line when the HRIR set is not one (not a set of
 * source directions, not one input to two ears, filters longer than the
 * tail's frames), the spec is bad, or the set is larger than a SOFA file
 * libmysofa reads (es_sofa_write_fits: it is made to be written). */
es_sofa *es_room_synthesise_binaural(const es_room_spec *spec, const es_sofa *hrir, int count,
                                     char *err, size_t n);

/* The diffuse-field coherence between the ears of an HRIR set at `hz` (-1
 * to 1), from the same average the tail uses; NAN when the set is not
 * one. For tests and `rooms --show`. */
double es_binaural_coherence(const es_sofa *hrir, double hz);

#endif
