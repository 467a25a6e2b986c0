/* Decoders for Ambisonic rooms (ambisonic.h's fields, ACN/SN3D): to two
 * ears from a head-related set, or to a loudspeaker array (AllRAD).
 * Computed off the audio thread, when a room is prepared. */
#ifndef ES_AMBI_DECODER_H
#define ES_AMBI_DECODER_H

#include <stddef.h>

#include "ambisonic.h"
#include "sofa.h"

/* How the ears are fitted: least squares (LS: every HRIR of the set
 * matched in amplitude and phase, the best a low order can do below its
 * aliasing frequency), or magnitude least squares above a cut-off
 * (MagLS, Schoerkhuber, Zaunschirm and Hoeldrich 2018: the phase given up
 * where the ear no longer hears it, so the magnitudes, ILD and colour
 * hold) with the diffuse field's covariance between the ears restored
 * (Zaunschirm et al. 2018). AUTO: LS at first order, MagLS above. NONE:
 * no decoder at all: the room plays its SH channels as they are, a plain
 * matrix (what jconvolver plays, for a decoder of one's own), unturned. */
typedef enum { ES_DECODER_AUTO, ES_DECODER_LS, ES_DECODER_MAGLS, ES_DECODER_NONE } es_decoder_kind;

/* "auto", "ls", "magls" or "none": 0 and *kind, or -1 and why (an
 * option table's parser: --decoder). */
int es_decoder_parse(const char *text, void *kind, char *why, size_t n);
const char *es_decoder_name(es_decoder_kind kind);
/* The decoder AUTO picks for `order`. */
es_decoder_kind es_decoder_for_order(es_decoder_kind kind, int order);

/* MagLS's cut-off: LS below it, magnitudes above. */
#define ES_MAGLS_CUTOFF_HZ 2000.0

/* The binaural decoder for fields of `order` from `hrir`, a set of source
 * directions around a head (SimpleFreeFieldHRIR, at the stream's rate):
 * ES_AMBI_CHANNELS(order) x 2 filters (input k: ACN channel k, SN3D;
 * outputs: left, right). The directions are weighted by the share of the
 * sphere nearest each (a set may be denser near the horizon, or miss the
 * floor), and the fit is regularised where the set leaves harmonics
 * unseen. `note` says what was made. NULL and one line when the set is
 * not one (not source directions around one head with two ears, fewer
 * directions than channels). */
es_ir *es_ambi_binaural_decoder(const es_sofa *hrir, int order, es_decoder_kind kind,
                                char *note, size_t nn, char *err, size_t n);

/* The diffuse-field coherence between the ears at `hz`, of the set itself
 * (decoder NULL) or of a binaural decoder's output (its filters at every
 * direction of the set), weighted as the decoder weighs the directions:
 * what MagLS's covariance constraint restores. NAN for a set that is not
 * one. For tests and the documents' tables. */
double es_ambi_diffuse_coherence(const es_sofa *hrir, const es_ir *decoder, int order, double hz);

/* A decoder's response to a plane wave from (az, el): the two ears'
 * filters, out[2][decoder->length]. */
void es_ambi_decode_direction(const es_ir *decoder, int order, double azimuth, double elevation,
                              float *const *out);


/* ---- what a field room is decoded to (field_decoder.c) ---- */

/* The head a field room is heard through when none is named: the KEMAR
 * set Debian's libmysofa ships. */
#define ES_FIELD_HRIR_DEFAULT "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"

typedef struct {
    const char *hrir;       /* a SOFA set of HRIRs; NULL: ES_FIELD_HRIR_DEFAULT */
    es_decoder_kind kind;   /* --decoder */
    const char *speakers;   /* a loudspeaker array (a layout's name or a file):
                             * AllRAD (ambi_speakers.c); NULL: two ears */
} es_field_options;

/* The decoder for a field of `order` at `rate`, as `o` asks, and what it
 * is in `note`. Made once for each set (by its file's identity), order,
 * kind and rate in this process, and handed out as a copy: the next room
 * of the same order decodes at once. NULL and one line naming the set or
 * array and what is wrong. Thread-safe. */
es_ir *es_field_decoder(const es_field_options *o, int order, double rate, char *note,
                        size_t nn, char *err, size_t n);
/* The outputs the decoder makes: 2, or the array's loudspeakers; 0 and
 * one line when the array is not one. */
int es_field_outputs(const es_field_options *o, char *err, size_t n);

/* ---- loudspeaker arrays (ambi_speakers.c) ---- */

#define ES_ARRAY_MAX 64
/* An array's loudspeakers: a layout's name (sofa.h's: 5.1, 7.1.4, ...)
 * or a file of lines "AZIMUTH ELEVATION [NAME]" (degrees, SOFA's frame;
 * '#' starts a comment). places[ES_ARRAY_MAX]; lfe[c] 1 for a channel that
 * takes no part of the field (an LFE). The count, or 0 and one line. */
int es_array_read(const char *what, es_sofa_pose *places, int *lfe, char *err, size_t n);
/* AllRAD (Zotter and Frank 2012): the field decoded to a dense, even
 * grid of virtual loudspeakers with max-rE weights, each panned to the
 * real ones by VBAP (an imaginary loudspeaker below an array with none
 * there, its feed left out), scaled so that a diffuse field keeps its
 * energy. ES_AMBI_CHANNELS(order) x count gains (filters one tap long),
 * an LFE's column silent. NULL and one line. */
es_ir *es_ambi_allrad_decoder(const es_sofa_pose *places, const int *lfe, int count, int order,
                              double rate, char *err, size_t n);

#endif
