/* earshot render's rooms in spherical harmonics (field_layout.h): a
 * library room whose manifest says so, --ir with --layout ambix3 and
 * the like, or a jconvolver configuration whose outputs are B-format's W
 * X Y Z; made ACN/SN3D, its decoder made (--hrir, --decoder,
 * --speakers), heard by a head at --head. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "field_layout.h"
#include "irfile.h"
#include "jconvolver.h"
#include "library.h"
#include "render_room.h"

/* The room's field layout: 1 and *f, or 0. */
static int layout_of(const es_render_room *r, const es_ir *ir, es_field_layout *f)
{
    if (r->layout)
        return es_field_layout_parse(r->layout, f);
    if (r->name) {
        es_library lib;
        es_library_open(&lib, r->rooms_dir);
        const es_room *room = es_library_find(&lib, r->name);
        const int field = room && es_field_layout_parse(room->layout, f);
        es_library_close(&lib);
        return field;
    }
    es_jconvolver_room *conf = malloc(sizeof *conf);
    const int bformat = conf && es_ir_file_is_config(r->ir_path) &&
                        es_jconvolver_names(r->ir_path, conf) == 0 &&
                        es_field_layout_bformat((const char(*)[64])conf->output_name,
                                                ir->outputs);
    free(conf);
    if (bformat)
        *f = (es_field_layout){.inputs = ir->inputs, .order = 1, .norm = ES_AMBI_FUMA};
    return bformat;
}

int es_render_room_field(const es_render_room *r, es_ir *ir, const es_field_layout *sofa_field,
                         es_render_field *field, char *err, size_t n)
{
    memset(field, 0, sizeof *field);
    es_field_layout f = *sofa_field;
    const int sofa = es_render_room_is_sofa(r);
    /* --decoder none: its SH channels as they are, a plain matrix. */
    if (r->decoder == ES_DECODER_NONE || (!f.order && (sofa || !layout_of(r, ir, &f)))) {
        if (r->head && !sofa) {
            snprintf(err, n, "--head is for a SOFA room or an Ambisonic one; %s is neither",
                     r->ir_path);
            return -1;
        }
        return 0;
    }
    if (r->head && es_render_head_parse(r->head, field->head, err, n) != 0)
        return -1;
    char word[32];
    es_field_layout_word(&f, word, sizeof word);
    if (ir->outputs != ES_AMBI_CHANNELS(f.order)) {
        snprintf(err, n, "%s: an Ambisonic room (%s) has %d SH channels, not %d", r->ir_path,
                 word, ES_AMBI_CHANNELS(f.order), ir->outputs);
        return -1;
    }
    const es_ambi_norm was = f.norm;
    es_field_to_sn3d(ir, &f);
    const es_field_options o = {.hrir = r->hrir, .kind = (es_decoder_kind)r->decoder,
                                .speakers = r->speakers};
    char how[300];
    if (!(field->decoder = es_field_decoder(&o, f.order, ir->sample_rate, how, sizeof how, err,
                                            n)))
        return -1;
    field->order = f.order;
    es_error("note: %s: Ambisonic order %d (%s%s), heard at yaw %g, pitch %g, roll %g; %s",
             r->ir_path, f.order, word, was == ES_AMBI_SN3D ? "" : ", read as ACN/SN3D",
             field->head[0], field->head[1], field->head[2], how);
    return 1;
}
