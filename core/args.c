#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "core/text.h"

void es_error(const char *fmt, ...)
{
    /* Messages carry names from files and arguments: escaped, so a name
     * cannot drive the terminal. Longer than the buffer is cut, not lost
     * whole. */
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fputs("earshot: ", stderr);
    es_text_put(stderr, line);
    fputc('\n', stderr);
}

const char *es_arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        es_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
