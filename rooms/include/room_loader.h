/* Where play, render and the workstation get a room from: a name in the
 * room library (prepared: resampled, trimmed, normalised, cached
 * per rate) or, when no room has that name, an IR file used as it is. */
#ifndef ES_ROOM_LOADER_H
#define ES_ROOM_LOADER_H

#include <stddef.h>

#include "engine.h"
#include "jconvolver.h"
#include "library.h"
#include "prepare.h"

typedef struct {
    es_library lib;
    es_room_cache cache;
    /* A share of every room's outputs (play --outputs): outputs
     * first_output.. first_output + outputs - 1 (from 0); outputs 0: all. */
    int first_output, outputs;
    /* A file room's channels as this matrix (play --layout IxO); 0: as
     * their count suggests. A library room's layout is its manifest's. */
    int layout_inputs, layout_outputs;
} es_room_loader;

/* Opens the library (shipped, user, and `extra`, which may be NULL). Its
 * messages (rooms left out) are in loader->lib.messages. No share of the
 * outputs and no layout: the caller sets those after. */
void es_room_loader_open(es_room_loader *l, const char *extra);
void es_room_loader_close(es_room_loader *l);

/* How a room given by its file (not a library room, which is always
 * prepared) is played: levelled as a library room is (room_level.h:
 * what plays live), or exactly as the file has it (render; play's
 * --raw). */
typedef enum { ES_FILE_LEVELLED, ES_FILE_RAW } es_file_level;

/* The IR for `what` (room name or file) at `rate` for `inputs` input
 * channels, cut to the loader's share of outputs when it has one. `note`
 * gets a line worth showing (the gain applied, a resampling), or "";
 * *loud_db how much louder than a levelled room it plays (a raw file's
 * excess, a library room's manifest gain; 0 levelled). NULL with a
 * message naming the room or file. */
es_ir *es_room_loader_get(es_room_loader *l, const char *what, double rate, int inputs,
                          es_file_level level, double *loud_db, char *note, size_t note_n,
                          char *err, size_t n);

/* Takes `fresh` (a library read again) in place of the loader's, and
 * forgets the prepared rooms whose entry changed or went (their file,
 * their settings): the next use prepares them from the new file. Prepared
 * rooms handed out before are freed, so call it between uses, on the
 * thread that owns the loader. */
void es_room_loader_replace(es_room_loader *l, es_library *fresh);

/* The room played when none is named: the shipped concert hall, or NULL. */
const char *es_room_loader_default(const es_room_loader *l);
/* The names a room gives the ports it plays through (the native JACK
 * device's): a jconvolver configuration's /input/name and /output/name,
 * a file room's or a library matrix room's own configuration. "" where
 * it names none. */
typedef struct {
    char input[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];
    char output[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];
} es_port_names;
/* Fills *names for `what` (a library room or a file), shifted to the
 * loader's share of outputs when it has one: 1 when it names a port, 0
 * when none (every name ""). */
int es_room_loader_port_names(es_room_loader *l, const char *what, es_port_names *names);

/* The input channels `what` (a library room or a file) takes as it is
 * made: N of an NxM layout or a jconvolver configuration, 2 of a
 * true-stereo room, else 1 (a mono, stereo or plain file room plays from
 * one input). */
int es_room_loader_inputs(es_room_loader *l, const char *what);

#endif
