/* Shared by the rooms subcommands (cmd_rooms.c, cmd_rooms_edit.c). */
#ifndef ES_ROOMS_CLI_H
#define ES_ROOMS_CLI_H

#include <stddef.h>

#include "acoustics.h"
#include "library.h"
#include "prepare.h"

/* new, add, import-jconvolver, build-shipped: argv[1] is the subcommand. */
int es_cmd_rooms_edit(int argc, char **argv);

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

#endif
