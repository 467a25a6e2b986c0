/* The earshot subcommands. Each takes argv with argv[0] = its own name and
 * returns the process exit status. */
#ifndef ES_APP_H
#define ES_APP_H

#include <stdio.h>

int es_cmd_render(int argc, char **argv);
int es_cmd_engines(int argc, char **argv);
int es_cmd_bench(int argc, char **argv);
int es_cmd_play(int argc, char **argv);
int es_cmd_devices(int argc, char **argv);
int es_cmd_rooms(int argc, char **argv);
/* cmd_engines.c: every engine's name and summary, for the --help texts
 * (from the registry, so none is left out). */
void es_engines_help(FILE *to);
int es_cmd_latency(int argc, char **argv);

#endif
