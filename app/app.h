/* What the subcommands share: the engines' help, the device route, the
 * option tables that take play's entries. (The subcommands themselves are
 * declared beside main.c's table of them.) */
#ifndef ES_APP_H
#define ES_APP_H

#include <stdio.h>

#include "core/param.h"

/* cmd_engines.c: every engine's name and summary, for the --help texts
 * (from the registry, so none is left out). */
void es_engines_help(FILE *to);
/* cmd_devices.c: the names --device takes and what each means, for the
 * --help texts (from the device layer's table of backends). */
void es_devices_help(FILE *to);
/* main.c: a command that will open the sound device `device` (NULL: it
 * lists them) calls this once its options are read, before it opens one:
 * on PipeWire, earshot may start again here on PipeWire's JACK library
 * (es_sound_server_route). */
void es_app_route_device(const char *device);

/* cmd_params.c: a command's option table, into table[cap] (ended by an
 * empty entry): play's entries named in `from_play` (the device and the
 * stream, read and refused as play reads them: their offsets are into
 * es_play_options, which the command's options must begin with), then
 * its own. */
void es_app_params_with_play(es_param *table, int cap, const char *const *from_play,
                             const es_param *own);

/* session_wait.c: waits `ms` between a headless loop's polls, less when
 * a command arrives over OSC (es_session_wake_fd). */
struct es_session;
void es_app_wait(struct es_session *s, int ms);

#endif
