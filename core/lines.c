#define _POSIX_C_SOURCE 200809L /* getc_unlocked */
#include <stdio.h>

#include "core/lines.h"

int es_line_read(FILE *f, char *buf, size_t cap, size_t *len)
{
    size_t used = 0;
    int c, saw_any = 0, too_long = 0, nul = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        saw_any = 1;
        if (c == '\n')
            break;
        if (c == 0)
            nul = 1;
        if (used + 1 < cap)
            buf[used++] = (char)c;
        else
            too_long = 1; /* read on to the newline, keeping nothing more */
    }
    if (cap)
        buf[used < cap ? used : cap - 1] = 0;
    *len = used;
    if (ferror(f))
        return ES_LINE_ERROR;
    if (!saw_any)
        return ES_LINE_END;
    return too_long ? ES_LINE_LONG : nul ? ES_LINE_NUL : ES_LINE_OK;
}
