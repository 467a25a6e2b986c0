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

int es_arg_int(const char *opt, const char *text, long min, long max, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end) {
        es_error("%s '%s': not a whole number", opt, text);
        return -1;
    }
    if (v < min || v > max) {
        es_error("%s %ld: out of range (%ld..%ld)", opt, v, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int es_arg_double(const char *opt, const char *text, double min, double max,
                  double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || v != v) {
        es_error("%s '%s': not a number", opt, text);
        return -1;
    }
    if (v < min || v > max) {
        es_error("%s %g: out of range (%g..%g)", opt, v, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* Splits text at commas and hands each item to parse_one. */
static int parse_list(const char *opt, const char *text, int capacity,
                      int (*parse_one)(const char *opt, const char *item, void *ctx,
                                       int index),
                      void *ctx)
{
    char item[64];
    int count = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof item) {
            es_error("%s '%s': expected a value or a comma-separated list", opt, text);
            return -1;
        }
        if (count == capacity) {
            es_error("%s '%s': at most %d values", opt, text, capacity);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        if (parse_one(opt, item, ctx, count) != 0)
            return -1;
        count++;
        if (!comma)
            return count;
        p = comma + 1;
    }
}

typedef struct {
    long min, max;
    double dmin, dmax;
    int *ints;
    double *doubles;
} list_ctx;

static int one_int(const char *opt, const char *item, void *ctx, int index)
{
    list_ctx *c = ctx;
    return es_arg_int(opt, item, c->min, c->max, &c->ints[index]);
}

static int one_double(const char *opt, const char *item, void *ctx, int index)
{
    list_ctx *c = ctx;
    return es_arg_double(opt, item, c->dmin, c->dmax, &c->doubles[index]);
}

int es_arg_int_list(const char *opt, const char *text, long min, long max,
                    int *out, int capacity)
{
    list_ctx c = {.min = min, .max = max, .ints = out};
    return parse_list(opt, text, capacity, one_int, &c);
}

int es_arg_double_list(const char *opt, const char *text, double min, double max,
                       double *out, int capacity)
{
    list_ctx c = {.dmin = min, .dmax = max, .doubles = out};
    return parse_list(opt, text, capacity, one_double, &c);
}

const char *es_arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        es_error("%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}
