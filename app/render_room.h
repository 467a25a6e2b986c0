/* The room earshot render convolves with (cmd_render_room.c), read apart
 * from the render that runs it (cmd_render.c). */
#ifndef ES_RENDER_ROOM_H
#define ES_RENDER_ROOM_H

#include <stddef.h>

#include "audiofile.h"
#include "engine.h"

/* What names the room: render's options, as given. */
typedef struct {
    const char *ir_path;   /* --ir FILE; with --room, the room's name (for messages) */
    const char *name;      /* --room NAME: a room of the library */
    const char *rooms_dir; /* --rooms DIR: another library folder */
    const char *layout;    /* --layout IxO: --ir's channels as a matrix */
    const char *head;      /* --head YAW[,PITCH[,ROLL]]: a SOFA room's set */
    int interp;            /* --interp: an es_interp (between measured directions) */
    double split_ms;       /* --split: where a room of head orientations splits (sofa.h) */
} es_render_room;

/* The room at the rate and for the channels of the input (in_path, as
 * `info` describes it), as playing it would take it: an IR file by its
 * channel count or as --layout's matrix, a library room prepared, or the
 * set of a SOFA room a head at --head hears. What was changed or guessed
 * on the way (a resampling, a layout) is said on stderr. NULL and why. */
es_ir *es_render_room_load(const es_render_room *room, const char *in_path,
                           const es_audio_info *info, char *err, size_t n);

#endif
