/* The preparer's rooms in spherical harmonics (field_layout.h): the room
 * convolved into its SH channels once, turned with the head and decoded
 * to two ears or a loudspeaker array (es_engine_create_field). Built off
 * the interactive threads like the rest (preparer.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "preparer_private.h"

int es_prep_field_of(es_preparer *p, const es_prep_request *q, const es_room *listed,
                     const es_ir *ir, es_field_layout *f)
{
    if (q->field.kind == ES_DECODER_NONE) /* its SH channels as they are */
        return 0;
    if (listed && es_field_layout_parse(listed->layout, f))
        return 1;
    if (!listed && q->field_layout && es_field_layout_parse(q->field_layout, f))
        return 1;
    es_port_names *names = malloc(sizeof *names);
    int bformat = names && es_room_loader_port_names(p->rooms, q->spec.room, names) &&
                  es_field_layout_bformat((const char(*)[64])names->output, ir->outputs);
    free(names);
    if (bformat)
        *f = (es_field_layout){.inputs = ir->inputs, .order = 1, .norm = ES_AMBI_FUMA};
    return bformat;
}

/* The decoder the room plays through, the headphone filter after a
 * binaural one. NULL and why in r->err. */
static es_ir *decoder_for(const es_prep_request *q, es_prep_result *r, int order, char *note,
                          size_t nn)
{
    es_ir *dec = es_field_decoder(&q->field, order, q->rate, note, nn, r->err, sizeof r->err);
    if (dec && q->headphone && !q->field.speakers)
        dec = es_prep_with_headphone(q, dec, r);
    return dec;
}

es_prep_result *es_prep_build_field(const es_prep_request *q, es_prep_result *r, es_ir *room,
                                    es_field_layout *f, long long started)
{
    char word[32], how[300];
    es_field_layout_word(f, word, sizeof word);
    const int channels = ES_AMBI_CHANNELS(f->order);
    if (room->inputs != f->inputs || room->inputs != r->inputs || room->outputs != channels) {
        snprintf(r->err, sizeof r->err, "%.600s: an Ambisonic room (%s) of %d input%s and %d "
                 "SH channels; the stream plays from %d input%s", q->spec.room, word, f->inputs,
                 f->inputs == 1 ? "" : "s", channels, r->inputs, r->inputs == 1 ? "" : "s");
        es_ir_destroy(room);
        return r;
    }
    const es_ambi_norm was = f->norm;
    es_field_to_sn3d(room, f);
    const long long engine_from = es_now_ns();
    es_ir *dec = decoder_for(q, r, f->order, how, sizeof how);
    if (!dec) {
        es_ir_destroy(room);
        return r;
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->spec.block,
                         .inputs = r->inputs, .outputs = dec->outputs};
    char why[512];
    es_engine *e = es_engine_create_field(q->spec.engine, &r->fmt, room, &q->spec.options, dec,
                                          f->order, why, sizeof why);
    r->engine_ms = es_prep_ms_since(engine_from);
    const int length = room->length + dec->length - 1;
    if (e && q->prime && es_prep_fits_stream(q, r, e)) {
        /* What the past rings: the field heard as one matrix where the
         * head is now (the engine starts turned there). */
        es_ir *heard = es_field_heard(room, dec, f->order, q->head_yaw, q->head_pitch,
                                      q->head_roll, r->prime_note, sizeof r->prime_note);
        if (heard)
            es_prep_plan_priming(q, heard, r);
        es_ir_destroy(heard);
    }
    es_ir_destroy(room);
    es_ir_destroy(dec);
    if (!e) {
        snprintf(r->err, sizeof r->err, "%.200s: %.500s", q->spec.room, why);
        return r;
    }
    r->field_order = f->order;
    const char *head = q->field.hrir ? q->field.hrir : ES_FIELD_HRIR_DEFAULT;
    const char *base = strrchr(head, '/');
    if (q->field.speakers)
        snprintf(r->field_decoder, sizeof r->field_decoder, "%.190s", how);
    else
        snprintf(r->field_decoder, sizeof r->field_decoder, "%.2s%.100s through %.80s",
                 how, how + 2, base ? base + 1 : head);
    const size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "; Ambisonic order %d (%s%s), turned "
             "with the head; %s", f->order, word, was == ES_AMBI_SN3D ? "" : ", read as ACN/SN3D",
             how);
    es_prep_place(q, r, e, length);
    r->took_ms = es_prep_ms_since(started);
    return r;
}
