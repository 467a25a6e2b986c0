/* Reading a jconvolver configuration, so that rooms people already set up
 * for jconvolver come into the library as they are, read as jconvolver 1.1
 * and fconvolver read them (docs/ROOMS.md has the commands side by side):
 *
 *   /cd DIR                       where relative files are from here on
 *   /convolver/new INPUTS OUTPUTS PART MAXSIZE [DENSITY]
 *                                 the matrix; every filter is cut at
 *                                 MAXSIZE frames (a note says which line
 *                                 was cut); PART and DENSITY are
 *                                 jconvolver's own scheduling hints
 *   /impulse/read IN OUT GAIN DELAY OFFSET LENGTH CHAN FILE
 *                                 path IN -> OUT (1-based) += GAIN x channel
 *                                 CHAN of FILE, from frame OFFSET, LENGTH
 *                                 frames (0: to the end), DELAY frames late
 *   /impulse/dirac IN OUT GAIN DELAY
 *                                 += one sample of GAIN at DELAY
 *   /impulse/hilbert IN OUT GAIN DELAY LENGTH
 *                                 += a Hilbert transformer of LENGTH taps
 *                                 (64..65536) centred on DELAY (at least
 *                                 LENGTH / 2, else dropped with a note)
 *   /impulse/copy IN OUT FROMIN FROMOUT
 *                                 IN -> OUT shares FROMIN -> FROMOUT's filter,
 *                                 later additions to either included
 *   /input/name N NAME [PORT...], /output/name N NAME [PORT...]
 *                                 the ports' names, kept (the ports to
 *                                 connect are not)
 *   /jack/client NAME             kept; /jack/server NAME ignored
 *
 * Entries on one path add up. Anything else, and a file that cannot be
 * read, is refused with its line number: fconvolver would leave the path
 * silent and exit 0. */
#ifndef ES_JCONVOLVER_H
#define ES_JCONVOLVER_H

#include <stddef.h>

#define ES_JCONVOLVER_SIDE 64 /* inputs or outputs at most */
#define ES_JCONVOLVER_NAME 64 /* a port or client name, with its NUL */

typedef struct {
    int inputs, outputs;
    int frames;                /* the longest filter, at most MAXSIZE */
    double rate;               /* the files' rate; 0 when no file gave one */
    /* inputs * outputs rows of `frames`, row i * outputs + o being input
     * i -> output o; NULL: no path. */
    float **paths;
    int part, maxsize;
    double density;
    char client[ES_JCONVOLVER_NAME];       /* /jack/client, or "" */
    char input_name[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];  /* "" not named */
    char output_name[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];
    char notes[600];           /* what was cut or dropped, as jconvolver says it, or "" */
} es_jconvolver_room;

/* 0 with the room filled in (free with es_jconvolver_free), or -1 with a
 * message naming the file and line. */
int es_jconvolver_load(const char *conf, es_jconvolver_room *room, char *err, size_t n);
void es_jconvolver_free(es_jconvolver_room *room);
/* The matrix's sides from its /convolver/new alone (no file is read): 0,
 * or -1 when there is none. */
int es_jconvolver_sides(const char *conf, int *inputs, int *outputs);

/* The ports' names alone (/input/name, /output/name) and the matrix's
 * sides, read without a filter file: 0 with room->inputs, outputs,
 * input_name and output_name filled ("" where none; nothing to free), or
 * -1 when it has no /convolver/new. A name that is not one JACK takes
 * (a colon, a control character, invalid UTF-8) stays "". */
int es_jconvolver_names(const char *conf, es_jconvolver_room *room);

/* 1 when `name` is one a JACK port takes as jconvolver gives it: some
 * text, no colon (JACK's client:port separator), nothing a terminal would
 * take as a control, valid UTF-8. */
int es_jconvolver_port_name_ok(const char *name);

/* A side's names as a manifest keeps them ("in-L, in-R"), or "" where none
 * is named or one holds a comma; and back: `text` split into names[count]
 * ("" for those it does not name, names too long to be a port's, and names
 * es_jconvolver_port_name_ok refuses: a hand-written manifest's). */
void es_jconvolver_names_join(char names[][ES_JCONVOLVER_NAME], int count, char *out,
                              size_t n);
void es_jconvolver_names_split(const char *text, char names[][ES_JCONVOLVER_NAME], int count);

/* The filter matrix as inputs*outputs channels, channel i*outputs + o
 * being input i -> output o (earshot's NxM layout; a path with no filter
 * is silent), at the files' rate (48 kHz when no file gives one). Free
 * each channel and the array. 0, or -1 with a message naming the file
 * and line. */
int es_jconvolver_read(const char *conf, float ***channels, int *inputs, int *outputs,
                       int *frames, double *rate, char *err, size_t n);

#endif
