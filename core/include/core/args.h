/* The two command-line helpers that are not option tables (core/param.h
 * is where values are parsed): one error line, and the next argument. */
#ifndef ES_ARGS_H
#define ES_ARGS_H

/* Returns argv[*i + 1] and advances *i, or prints "OPT needs a value". */
const char *es_arg_value(int argc, char **argv, int *i);

/* "earshot: <message>" on stderr, one line, escaped (core/text.h). */
void es_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
