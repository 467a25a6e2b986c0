/* Shared by the rooms subcommands (cmd_rooms.c, cmd_rooms_edit.c,
 * cmd_rooms_add.c, cmd_rooms_sofa.c). */
#ifndef ES_ROOMS_CLI_H
#define ES_ROOMS_CLI_H

#include <stddef.h>

#include "acoustics.h"
#include "library.h"
#include "synth.h"
#include "prepare.h"

/* new, add, import-jconvolver, build-shipped: argv[1] is the subcommand. */
int es_cmd_rooms_edit(int argc, char **argv);
/* add (cmd_rooms_add.c). */
int es_rooms_add(int argc, char **argv);

/* Where new, add and import-jconvolver put a room (cmd_rooms_edit.c):
 * its manifest entry, and the folder. */
typedef struct {
    es_room meta;          /* name, description, source, licence, layout, gain, predelay */
    char description[256], source[256], licence[64]; /* meta's text */
    char input_names[512], output_names[512];
    const char *to;        /* destination folder; NULL: the user's */
} es_rooms_destination;

void es_rooms_destination_init(es_rooms_destination *d, const char *to);
/* `earshot rooms SUB INPUT [options]`: the input, then only the common
 * options; the room's name defaults to the input's file name. 0, or 2
 * after saying what is wrong. */
int es_rooms_input_and_options(es_rooms_destination *d, int argc, char **argv,
                               const char *what);
/* The folder (in dir), and a name free in the library, and valid. 0 or
 * -1 (said). */
int es_rooms_check_destination(es_rooms_destination *d, char *dir, size_t n);
/* Puts the channels into dir as the room's WAV and manifest entry, and
 * says so. 0 or -1 (said). */
int es_rooms_save(es_rooms_destination *d, const char *dir, float *const *ch, int channels,
                  int frames, double rate);

/* Prepares a room at its file's own rate (no resampling): what the list
 * and --show measure, and how add validates. 0 or -1 with a message. */
int es_rooms_prepare_native(const es_room *room, es_prepared_room *out, char *err, size_t n);

/* One row of ISO 3382 figures (cmd_rooms.c): text, or a JSON member
 * "label":{...} (and a comma unless last); `onset` adds the direct
 * sound's arrival. */
void es_rooms_band_row(const char *label, const es_acoustics *a, int json, int last, int onset);

/* --show for a SOFA filter set (cmd_rooms_sofa.c; sofa.h says which
 * files are): 0, or 1 said in one line. */
int es_rooms_show_sofa(const char *path, int json);
/* A figure for JSON (printf's fmt into out): null when it cannot be
 * measured (NaN). */
const char *es_rooms_json_figure(char *out, size_t n, const char *fmt, double v);
/* A room's row of `earshot rooms` up to its description: the text
 * columns, or the JSON object's members before it (the caller adds its
 * own, the description and the closing brace). */
void es_rooms_list_row(const es_room *r, const es_acoustics *a, double seconds, int channels,
                       double rate, double gain_db, int json);
/* A library room kept as a SOFA set, as a row of `earshot rooms`: the
 * first measurement's first path measured, and the set in the
 * description's place. 0, or 1 said (the room left out). */
int es_rooms_list_sofa(const es_room *room, int json);

/* rooms new ... --ambisonic N (cmd_rooms_field.c): the room synthesised
 * in spherical harmonics of order N and saved into dir, laid out ambixN.
 * The exit status. */
int es_rooms_new_ambisonic(es_rooms_destination *d, const char *dir, const es_room_spec *spec,
                           int order, const double *t60);

#endif
