/* Shared by the rooms subcommands (cmd_rooms.c, cmd_rooms_edit.c). */
#ifndef ES_ROOMS_CLI_H
#define ES_ROOMS_CLI_H

#include <stddef.h>

#include "library.h"
#include "prepare.h"

/* new, add, import-jconvolver, build-shipped: argv[1] is the subcommand. */
int es_cmd_rooms_edit(int argc, char **argv);

/* Prepares a room at its file's own rate (no resampling): what the list
 * and --show measure, and how add validates. 0 or -1 with a message. */
int es_rooms_prepare_native(const es_room *room, es_prepared_room *out, char *err, size_t n);

#endif
