/* The earshot subcommands. Each takes argv with argv[0] = its own name and
 * returns the process exit status. */
#ifndef ES_APP_H
#define ES_APP_H

int es_cmd_render(int argc, char **argv);
int es_cmd_engines(int argc, char **argv);
int es_cmd_bench(int argc, char **argv);
int es_cmd_play(int argc, char **argv);
int es_cmd_devices(int argc, char **argv);
int es_cmd_rooms(int argc, char **argv);
int es_cmd_latency(int argc, char **argv);

#endif
