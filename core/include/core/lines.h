/* Bounded line reading. A configuration, a manifest or a recipe list may
 * be a file of one 300 MB line, or never end: getline() would take it
 * all into memory. es_line_read keeps at most the caller's buffer, and
 * reads the rest of an over-long line only to skip it. */
#ifndef ES_CORE_LINES_H
#define ES_CORE_LINES_H

#include <stddef.h>
#include <stdio.h>

enum {
    ES_LINE_OK = 1,     /* a line in buf, without its newline */
    ES_LINE_END = 0,    /* no more lines */
    ES_LINE_LONG = -1,  /* longer than cap - 1 bytes: skipped to its end, buf holds its start */
    ES_LINE_NUL = -2,   /* holds a NUL byte: skipped to its end */
    ES_LINE_ERROR = -3, /* the read failed (errno says why) */
};

/* Reads one line into buf[cap] (terminated). *len gets its length. */
int es_line_read(FILE *f, char *buf, size_t cap, size_t *len);

#endif
