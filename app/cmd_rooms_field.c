/* earshot rooms new ... --ambisonic N: a shoebox room synthesised as a
 * sound field in spherical harmonics (synth.h), saved as a library room
 * of ES_AMBI_CHANNELS(N) channels laid out ambixN, which plays decoded
 * through any head (--hrir) or loudspeaker array, and turns. */
#include <stdio.h>

#include "ambisonic.h"
#include "core/args.h"
#include "audiofile.h"
#include "field_layout.h"
#include "rooms_cli.h"
#include "synth.h"

int es_rooms_new_ambisonic(es_rooms_destination *d, const char *dir, const es_room_spec *spec,
                           int order, const double *t60)
{
    float **ch;
    int frames;
    char err[512];
    if (es_room_synthesise_ambisonic(spec, order, &ch, &frames, err, sizeof err) != 0) {
        es_error("rooms new %s: %s", d->meta.name, err);
        return 1;
    }
    const int channels = ES_AMBI_CHANNELS(order);
    if (!d->description[0])
        snprintf(d->description, sizeof d->description,
                 "%gx%gx%g m, Eyring T60 %.2f s at 1 kHz, Ambisonic order %d", spec->size[0],
                 spec->size[1], spec->size[2], t60[3], order);
    if (!d->source[0])
        snprintf(d->source, sizeof d->source, "synthesised by earshot rooms new (image sources "
                 "encoded in spherical harmonics, ACN/SN3D; a diffuse Eyring tail)");
    const es_field_layout layout = {.inputs = 1, .order = order, .norm = ES_AMBI_SN3D};
    es_field_layout_word(&layout, d->meta.layout, sizeof d->meta.layout);
    const int rc = es_rooms_save(d, dir, ch, channels, frames, spec->rate);
    es_audiofile_free_channels(ch, channels);
    return rc ? 1 : 0;
}
