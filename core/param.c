#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"
#include "core/suggest.h"

#define AT(base, p, type) ((type *)((char *)(base) + (p)->offset))

static int refuse(char *err, size_t n, const char *label, const char *text, const char *what)
{
    /* Quote at most 40 characters of what was typed: a refused 10,000
     * character value is still one readable line. */
    const size_t len = strlen(text);
    char shown[41];
    size_t k = 0;
    for (; k < 40 && k < len; k++) { /* a control character never reaches a terminal */
        const unsigned char c = (unsigned char)text[k];
        shown[k] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    shown[k] = 0;
    snprintf(err, n, "%s '%s%s': %s", label, shown, len > 40 ? "..." : "", what);
    return -1;
}

static int printable(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

static int parse_int(const es_param *p, const char *label, const char *text, int *out,
                     char *err, size_t n)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 10);
    if (errno == ERANGE || end == text || *end)
        return refuse(err, n, label, text, "not a whole number");
    if (v < p->min || v > p->max) {
        snprintf(err, n, "%s %ld: out of range (%.0f..%.0f)", label, v, p->min, p->max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_double(const es_param *p, const char *label, const char *text, double *out,
                        char *err, size_t n)
{
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v))
        return refuse(err, n, label, text, "not a number");
    if (v < p->min || v > p->max) {
        snprintf(err, n, "%s %g: out of range (%g..%g)", label, v, p->min, p->max);
        return -1;
    }
    *out = v;
    return 0;
}

/* Splits a comma-separated list and parses each item as one value. */
static int parse_list(const es_param *p, const char *label, const char *text, void *values,
                      int *count, int doubles, char *err, size_t n)
{
    char item[64];
    int k = 0;
    for (const char *at = text;;) {
        const char *comma = strchr(at, ',');
        const size_t len = comma ? (size_t)(comma - at) : strlen(at);
        if (len == 0 || len >= sizeof item)
            return refuse(err, n, label, text, "expected a value or a comma-separated list");
        if (k == ES_PARAM_LIST_MAX) {
            char what[64];
            snprintf(what, sizeof what, "at most %d values", ES_PARAM_LIST_MAX);
            return refuse(err, n, label, text, what);
        }
        memcpy(item, at, len);
        item[len] = 0;
        const int rc = doubles ? parse_double(p, label, item, (double *)values + k, err, n)
                               : parse_int(p, label, item, (int *)values + k, err, n);
        if (rc != 0)
            return -1;
        k++;
        if (!comma)
            break;
        at = comma + 1;
    }
    *count = k;
    return 0;
}

static int parse_choice(const es_param *p, const char *label, const char *text, int *out,
                        char *err, size_t n)
{
    const size_t len = strlen(text);
    int index = 0;
    for (const char *w = p->choices; *w; index++) {
        const size_t wl = strcspn(w, "|");
        if (wl == len && !strncmp(w, text, len)) {
            *out = index;
            return 0;
        }
        w += wl + (w[wl] == '|');
    }
    char what[160];
    snprintf(what, sizeof what, "expected one of %s", p->choices);
    for (char *c = what; *c; c++)
        *c = *c == '|' ? ',' : *c;
    return refuse(err, n, label, text, what);
}

int es_param_parse(const es_param *p, const char *label, const char *text, void *base,
                   char *err, size_t n)
{
    switch (p->type) {
    case ES_PARAM_INT:
        return parse_int(p, label, text, AT(base, p, int), err, n);
    case ES_PARAM_DOUBLE:
        return parse_double(p, label, text, AT(base, p, double), err, n);
    case ES_PARAM_FLAG:
        *AT(base, p, int) = (int)p->max;
        return 0;
    case ES_PARAM_ONOFF:
        if (strcmp(text, "on") != 0 && strcmp(text, "off") != 0)
            return refuse(err, n, label, text, "expected on or off");
        *AT(base, p, int) = !strcmp(text, "on");
        return 0;
    case ES_PARAM_STRING: {
        const size_t longest = p->max > 0 ? (size_t)p->max : ES_PARAM_TEXT_MAX;
        if (!text[0])
            return refuse(err, n, label, text, "empty");
        if (strlen(text) > longest) {
            char what[64];
            snprintf(what, sizeof what, "longer than %zu characters", longest);
            return refuse(err, n, label, text, what);
        }
        if (!printable(text))
            return refuse(err, n, label, text, "contains control characters");
        *AT(base, p, const char *) = text;
        return 0;
    }
    case ES_PARAM_CHOICE:
        return parse_choice(p, label, text, AT(base, p, int), err, n);
    case ES_PARAM_INT_LIST: { /* parsed aside: a refused list stores nothing */
        es_int_list l = {0};
        if (parse_list(p, label, text, l.v, &l.count, 0, err, n) != 0)
            return -1;
        *AT(base, p, es_int_list) = l;
        return 0;
    }
    case ES_PARAM_DOUBLE_LIST: {
        es_double_list l = {0};
        if (parse_list(p, label, text, l.v, &l.count, 1, err, n) != 0)
            return -1;
        *AT(base, p, es_double_list) = l;
        return 0;
    }
    case ES_PARAM_CUSTOM: {
        char why[512];
        if (!printable(text))
            return refuse(err, n, label, text, "contains control characters");
        if (p->parse(text, (char *)base + p->offset, why, sizeof why) != 0)
            return refuse(err, n, label, text, why);
        return 0;
    }
    }
    snprintf(err, n, "%s: no parser for this option", label);
    return -1;
}

const es_param *es_param_find(const es_param *table, const char *name)
{
    for (const es_param *p = table; p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

int es_params_given(const es_param *table, int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0)
            continue;
        const es_param *p = es_param_find(table, argv[i] + 2);
        if (p && !strcmp(p->name, name))
            return 1;
        if (p && p->type != ES_PARAM_FLAG)
            i++; /* its value */
    }
    return 0;
}

int es_params_parse_argv(const es_param *table, int argc, char **argv, void *base,
                         const char **pos, int pos_cap, int *pos_count, int *help,
                         char *err, size_t n)
{
    *help = 0;
    if (pos_count)
        *pos_count = 0;
    /* -v: the table's --verbose flag, where it has one. */
    const es_param *verbose = es_param_find(table, "verbose");
    if (verbose && verbose->type != ES_PARAM_FLAG)
        verbose = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
            return 0;
        }
        if (verbose && !strcmp(a, "-v")) {
            *AT(base, verbose, int) = (int)verbose->max;
            continue;
        }
        if (strncmp(a, "--", 2) != 0 || !a[2]) {
            if (!pos_count || *pos_count == pos_cap) {
                snprintf(err, n, "unexpected argument '%.80s'", a);
                return -1;
            }
            pos[(*pos_count)++] = a;
            continue;
        }
        const es_param *p = es_param_find(table, a + 2);
        if (!p) {
            es_suggestion near = {0};
            for (const es_param *q = table; q->name; q++)
                es_suggest_consider(&near, a + 2, q->name);
            char mean[96];
            snprintf(err, n, "unknown option '%.80s'%s", a,
                     es_suggest_text(&near, "--", mean, sizeof mean));
            return -1;
        }
        if (p->type == ES_PARAM_FLAG) {
            *AT(base, p, int) = (int)p->max;
            continue;
        }
        if (i + 1 >= argc) {
            snprintf(err, n, "%s needs a value", a);
            return -1;
        }
        if (es_param_parse(p, a, argv[++i], base, err, n) != 0)
            return -1;
    }
    return 0;
}

int es_params_defaults(const es_param *table, void *base, char *err, size_t n)
{
    for (const es_param *p = table; p->name; p++) {
        if (!p->def)
            continue;
        if (p->type == ES_PARAM_FLAG) {
            snprintf(err, n, "--%s: a flag has no default (it is off until given)", p->name);
            return -1;
        }
        char label[80];
        snprintf(label, sizeof label, "--%s default", p->name);
        if (es_param_parse(p, label, p->def, base, err, n) != 0)
            return -1;
    }
    return 0;
}

/* What help adds after an entry's text: "(16..8192; default 256)", the
 * range of a number and the default, or "" for neither. */
static void help_suffix(const es_param *p, char *out, size_t n)
{
    char range[64] = "";
    if (p->type == ES_PARAM_INT || p->type == ES_PARAM_INT_LIST)
        snprintf(range, sizeof range, "%.0f..%.0f", p->min, p->max);
    else if (p->type == ES_PARAM_DOUBLE || p->type == ES_PARAM_DOUBLE_LIST)
        snprintf(range, sizeof range, "%g..%g", p->min, p->max);
    const char *def = p->type != ES_PARAM_FLAG ? p->def : NULL;
    if (range[0] && def)
        snprintf(out, n, "(%s; default %s)", range, def);
    else if (range[0] || def)
        snprintf(out, n, "(%s%s)", def ? "default " : "", def ? def : range);
    else
        out[0] = 0;
}

#define HELP_COLUMN 20 /* the option's column, after two spaces */
#define HELP_WIDTH 79

/* An entry's help lines: the first beside the option where the option
 * fits its column, the rest under it, and the suffix at the end of the
 * last line, or on a line of its own where it would pass HELP_WIDTH. */
static void help_entry(FILE *to, const char *head, const char *help, const char *suffix)
{
    const int beside = strlen(head) <= HELP_COLUMN;
    if (!beside)
        fprintf(to, "  %s\n", head);
    for (const char *line = help;;) {
        const char *nl = strchr(line, '\n');
        const int len = nl ? (int)(nl - line) : (int)strlen(line);
        const int fits = 2 + HELP_COLUMN + 1 + len + 1 + (int)strlen(suffix) <= HELP_WIDTH;
        const char *end = !nl && fits ? suffix : "";
        fprintf(to, "  %-*s %.*s%s%s\n", HELP_COLUMN, beside && line == help ? head : "", len,
                line, len && end[0] ? " " : "", end);
        if (!nl && !fits && suffix[0])
            fprintf(to, "  %-*s %s\n", HELP_COLUMN, "", suffix);
        if (!nl)
            return;
        line = nl + 1;
    }
}

void es_params_help(const es_param *table, FILE *to)
{
    for (const es_param *p = table; p->name; p++) {
        char head[64], suffix[160];
        snprintf(head, sizeof head, "--%s%s%s", p->name, p->arg ? " " : "",
                 p->arg ? p->arg : "");
        help_suffix(p, suffix, sizeof suffix);
        help_entry(to, head, p->help ? p->help : "", suffix);
    }
}

/* A whole number of at most 9 digits at *at (digits only: no sign, no
 * space), *at moved past it; 0 when there is none. */
static int small_number(const char **at, int *v)
{
    const char *p = *at;
    long x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (p - *at >= 9)
            return 0;
        else
            x = 10 * x + (*p - '0');
    if (p == *at)
        return 0;
    *v = (int)x;
    *at = p;
    return 1;
}

int es_param_int_pair(const char *text, char sep, int *a, int *b)
{
    const char *at = text;
    if (!small_number(&at, a))
        return 0;
    if (!*at) {
        *b = *a;
        return 1;
    }
    if (*at++ != sep || !small_number(&at, b) || *at)
        return 0;
    return 2;
}
