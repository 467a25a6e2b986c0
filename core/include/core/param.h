/* Option tables: one descriptor per setting ({name, type, range, default,
 * help, where it is stored}), in the manner of FFmpeg's AVOption. A table
 * feeds a command line's flags (--name VALUE), the defaults they start
 * from, the help that lists them, and the fields of live commands
 * ("block 512"), so that every interface accepts the same values and
 * refuses the same ones in the same words.
 *
 * Every refusal is one line naming the option (or the command and field)
 * and what is wrong: "--block 5: out of range (16..8192)",
 * "mix wet 'nan': not a number". */
#ifndef ES_CORE_PARAM_H
#define ES_CORE_PARAM_H

#include <stddef.h>
#include <stdio.h>

typedef enum {
    ES_PARAM_INT,         /* int in [min, max] */
    ES_PARAM_DOUBLE,      /* double, finite, in [min, max] */
    ES_PARAM_FLAG,        /* int set to `max` by the flag alone (--headless) */
    ES_PARAM_ONOFF,       /* int: "on" 1, "off" 0 */
    ES_PARAM_STRING,      /* const char *, 1..max bytes, no control characters;
                           * points into the text parsed (argv or the line) */
    ES_PARAM_CHOICE,      /* int: the index of the word in `choices` */
    ES_PARAM_INT_LIST,    /* es_int_list: "64,128,256", each in [min, max] */
    ES_PARAM_DOUBLE_LIST, /* es_double_list */
    ES_PARAM_CUSTOM,      /* parse() decides (an engine name, say) */
} es_param_type;

#define ES_PARAM_LIST_MAX 16

typedef struct {
    int count;
    int v[ES_PARAM_LIST_MAX];
} es_int_list;

typedef struct {
    int count;
    double v[ES_PARAM_LIST_MAX];
} es_double_list;

typedef struct es_param {
    const char *name;    /* "block": --block on a command line */
    es_param_type type;
    double min, max;     /* numbers and list items; STRING: max is the longest */
    /* The default, written as a value given to the option would be ("256",
     * "auto", "cpu-partitioned") and parsed by the entry itself; the help
     * shows it. NULL: none, the field is left as the caller set it (zero,
     * or a value that stands for "decided later", which the help then
     * explains: "from the block"). A FLAG has none: it is off until given. */
    const char *def;
    const char *arg;     /* the value's name in help ("N", "ROOM"); NULL for a flag */
    const char *help;    /* what it does; lines after the first with "\n"
                          * (the range and the default are added) */
    size_t offset;       /* where the value goes in the caller's struct */
    const char *choices; /* CHOICE: "signal|mic|file" */
    /* CUSTOM: stores the value at dst, or returns -1 with what is wrong
     * (without the label: "unknown engine (choose from ...)"). */
    int (*parse)(const char *text, void *dst, char *why, size_t n);
} es_param;

/* The longest value any STRING takes unless its table says less. */
#define ES_PARAM_TEXT_MAX 4096

/* Parses `text` for p into (char *)base + p->offset. 0, or -1 with
 * "LABEL 'text': what is wrong" in err (LABEL is "--block", or
 * "mix wet"). */
int es_param_parse(const es_param *p, const char *label, const char *text, void *base,
                   char *err, size_t n);

/* A number's macro as a default's text: ES_PARAM_DEFAULT_OF(ES_BLOCK_DEFAULT)
 * is "256", so the constant and the table cannot disagree. */
#define ES_PARAM_DEFAULT_OF(x) ES_PARAM_TEXT_OF_(x)
#define ES_PARAM_TEXT_OF_(x) #x

/* Every entry's default (`def`, parsed as es_param_parse parses a value
 * given to it) into base; entries without one are left as they are. 0,
 * or -1 with "--NAME default 'TEXT': what is wrong" (or a FLAG given
 * a default) in err: a mistake in the table itself. */
int es_params_defaults(const es_param *table, void *base, char *err, size_t n);

/* The entry named `name` in a table ended by a NULL name, or NULL. */
const es_param *es_param_find(const es_param *table, const char *name);

/* Parses argv[1..argc) against the table: "--name VALUE", or "--name"
 * alone for a FLAG. Arguments that do not start with "--" are positional:
 * up to pos_cap of them are kept in pos[] (*pos_count says how many).
 * "-h" or "--help" sets *help and stops. 0, or -1 with one line in err
 * ("--block needs a value", "unknown option '--blok'", a value refused). */
int es_params_parse_argv(const es_param *table, int argc, char **argv, void *base,
                         const char **pos, int pos_cap, int *pos_count, int *help,
                         char *err, size_t n);

/* 1 when argv[1..argc) gives --name as an option (as es_params_parse_argv
 * reads it: not a value given to another option), else 0. */
int es_params_given(const es_param *table, int argc, char **argv, const char *name);

/* "A<sep>B" (two whole numbers, digits only, up to 9 each) or "A" alone,
 * as CUSTOM parsers take a range or a shape (--outputs 3-4, --matrix
 * 128x64): 2 or 1 with the numbers in *a and *b (b = a for one), 0 when
 * the text is neither (a sign, a space, a huge number, anything else). */
int es_param_int_pair(const char *text, char sep, int *a, int *b);

/* One or more lines per entry: "  --block N        what it does
 * (16..8192; default 256)": the range and the default end the entry's
 * last line, or follow on a line of their own where the line would pass
 * 79 columns. */
void es_params_help(const es_param *table, FILE *to);

#endif
