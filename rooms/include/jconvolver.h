/* Reading a jconvolver configuration, so that rooms people already set up
 * for jconvolver come into the library as they are. Understood:
 *
 *   /cd DIR                                    where relative files are
 *   /convolver/new INPUTS OUTPUTS PART MAXSIZE the matrix size (PART and
 *                                              MAXSIZE are jconvolver's own)
 *   /impulse/read IN OUT GAIN DELAY OFFSET LENGTH CHAN FILE
 *                 path IN -> OUT (1-based) = GAIN x channel CHAN of FILE,
 *                 from frame OFFSET, LENGTH frames (0: to the end),
 *                 starting DELAY frames late
 *
 * /input/name and /output/name are ignored (earshot names ports itself);
 * any other command is refused with its line number. */
#ifndef ES_JCONVOLVER_H
#define ES_JCONVOLVER_H

#include <stddef.h>

/* The filter matrix as inputs*outputs channels, channel i*outputs + o
 * being input i -> output o (earshot's NxM layout), at the files' rate.
 * Free each channel and the array. 0, or -1 with a message naming the
 * file and line. */
int es_jconvolver_read(const char *conf, float ***channels, int *inputs, int *outputs,
                       int *frames, double *rate, char *err, size_t n);

#endif
