/* Command-line value parsing shared by the earshot subcommands and the
 * standalone bench. Each parser prints one line naming the option and what
 * is wrong to stderr and returns -1, or stores the value and returns 0. */
#ifndef ES_ARGS_H
#define ES_ARGS_H

int es_arg_int(const char *opt, const char *text, long min, long max, int *out);
int es_arg_double(const char *opt, const char *text, double min, double max,
                  double *out);
/* Comma-separated lists ("64,128,256"); returns the count or -1. */
int es_arg_int_list(const char *opt, const char *text, long min, long max,
                    int *out, int capacity);
int es_arg_double_list(const char *opt, const char *text, double min, double max,
                       double *out, int capacity);

/* Returns argv[*i + 1] and advances *i, or prints "OPT needs a value". */
const char *es_arg_value(int argc, char **argv, int *i);

/* "earshot: <message>" on stderr, one line. */
void es_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
