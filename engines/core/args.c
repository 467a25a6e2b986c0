#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"

void es_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("earshot: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *es_arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        es_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
