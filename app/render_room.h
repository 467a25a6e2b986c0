/* The room earshot render convolves with (cmd_render_room.c), read apart
 * from the render that runs it (cmd_render.c). */
#ifndef ES_RENDER_ROOM_H
#define ES_RENDER_ROOM_H

#include <stddef.h>

#include "audiofile.h"
#include "engine.h"
#include "ambi_decoder.h"
#include "field_layout.h"

/* What names the room: render's options, as given. */
typedef struct {
    const char *ir_path;   /* --ir FILE; with --room, the room's name (for messages) */
    const char *name;      /* --room NAME: a room of the library */
    const char *rooms_dir; /* --rooms DIR: another library folder */
    const char *layout;    /* --layout IxO: --ir's channels as a matrix */
    const char *head;      /* --head YAW[,PITCH[,ROLL]]: a SOFA room's set */
    int interp;            /* --interp: an es_interp (between measured directions) */
    double split_ms;       /* --split: where a room of head orientations splits (sofa.h) */
    /* An Ambisonic room: --hrir, --decoder (es_decoder_kind), --speakers */
    const char *hrir, *speakers;
    int decoder;
} es_render_room;

/* An Ambisonic room's decoder and the head it turns to. */
typedef struct {
    int order;          /* 0: not such a room */
    es_ir *decoder;     /* the caller's to free */
    float head[3];      /* --head: yaw, pitch, roll */
} es_render_field;

/* The room at the rate and for the channels of the input (in_path, as
 * `info` describes it), as playing it would take it: an IR file by its
 * channel count or as --layout's matrix, a library room prepared, or the
 * set of a SOFA room a head at --head hears (an AmbisonicsDRIR's first
 * measurement, its layout in *sofa_field; order 0 for any other room).
 * What was changed or guessed on the way (a resampling, a layout) is said
 * on stderr. NULL and why. */
es_ir *es_render_room_load(const es_render_room *room, const char *in_path,
                           const es_audio_info *info, es_field_layout *sofa_field, char *err,
                           size_t n);
/* 1 when the room is a SOFA set (a file, or a library room kept as one). */
int es_render_room_is_sofa(const es_render_room *room);
/* --head YAW[,PITCH[,ROLL]] into angle[3]: 0, or -1 with a message. */
int es_render_head_parse(const char *text, float angle[3], char *err, size_t n);
/* The room loaded (`ir`; sofa_field: an AmbisonicsDRIR's layout, order 0
 * for any other room) when it is in
 * spherical harmonics (cmd_render_field.c): made ACN/SN3D in place, and
 * its decoder and head in *field: 1. 0 for any other room (--head then
 * refused but for SOFA), -1 and why. */
int es_render_room_field(const es_render_room *r, es_ir *ir, const es_field_layout *sofa_field,
                         es_render_field *field, char *err, size_t n);

#endif
