/* The words that describe a room to synthesise, shared by
 * `earshot rooms new` and the list of rooms built with earshot:
 *
 *   --size LxWxH            metres
 *   --absorption A          every wall, every band; or six values
 *                           A125,A250,A500,A1k,A2k,A4k for every wall
 *   --wall NAME=A[,...]     one wall (left right front back floor ceiling),
 *                           after --absorption
 *   --source X,Y,Z          metres from the left/front/floor corner
 *   --listener X,Y,Z        centre of the stereo microphone pair
 *   --spacing M             metres between the microphones (default 0.17)
 *   --rate HZ  --seconds S  --seed N
 *
 * Parsing only; es_room_spec_check() judges the room. */
#ifndef ES_ROOM_RECIPE_H
#define ES_ROOM_RECIPE_H

#include <stddef.h>

#include "synth.h"

/* Applies one option. 1: it was a recipe option and `value` was used;
 * 0: not a recipe option (value untouched); -1: a bad value, with a message
 * naming the option. */
int es_room_recipe_option(es_room_spec *s, const char *opt, const char *value, char *err,
                          size_t n);

/* 1 when spec has size, absorption, source and listener all given. */
int es_room_recipe_complete(const es_room_spec *s, char *err, size_t n);



/* One line of a recipe list: "NAME | description | options...". Blank
 * lines and '#' comments give 0; a room gives 1 with name and description
 * pointing into `line` (which is modified); -1 with a message. */
int es_room_recipe_line(char *line, char **name, char **description, es_room_spec *s,
                        char *err, size_t n);
#endif
