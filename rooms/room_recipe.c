#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_recipe.h"

/* Up to `max` numbers separated by `sep`; returns how many, -1 if any piece
 * is not a finite decimal number (no hex: "0x3" is not three). */
static int numbers(const char *text, char sep, double *out, int max)
{
    int count = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, sep);
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        char piece[64];
        if (count == max || len == 0 || len >= sizeof piece)
            return -1;
        memcpy(piece, p, len);
        piece[len] = 0;
        if (strpbrk(piece, "xXpP"))
            return -1;
        char *stop;
        const double v = strtod(piece, &stop);
        if (*stop || !isfinite(v))
            return -1;
        out[count++] = v;
        if (!end)
            return count;
        p = end + 1;
    }
}

/* "0.3" or six per-band values into row[]. */
static int absorption(const char *opt, const char *text, double *row, char *err, size_t n)
{
    double v[ES_OCTAVE_BANDS];
    const int count = numbers(text, ',', v, ES_OCTAVE_BANDS);
    if (count != 1 && count != ES_OCTAVE_BANDS) {
        snprintf(err, n, "%s '%s': give one absorption or six (125 Hz to 4 kHz), e.g. "
                 "0.3 or 0.1,0.15,0.2,0.3,0.35,0.4", opt, text);
        return -1;
    }
    for (int b = 0; b < ES_OCTAVE_BANDS; b++)
        row[b] = v[count == 1 ? 0 : b];
    return 1;
}

static int point(const char *opt, const char *text, double *xyz, char *err, size_t n)
{
    if (numbers(text, ',', xyz, 3) != 3) {
        snprintf(err, n, "%s '%s': expected X,Y,Z in metres", opt, text);
        return -1;
    }
    return 1;
}

static int scalar(const char *opt, const char *text, double *out, char *err, size_t n)
{
    if (numbers(text, ',', out, 1) != 1) {
        snprintf(err, n, "%s '%s': expected a number", opt, text);
        return -1;
    }
    return 1;
}

int es_room_recipe_option(es_room_spec *s, const char *opt, const char *value, char *err,
                          size_t n)
{
    if (!strcmp(opt, "--size")) {
        if (numbers(value, 'x', s->size, 3) != 3) {
            snprintf(err, n, "--size '%s': expected LxWxH in metres, e.g. 8x5x3", value);
            return -1;
        }
        return 1;
    }
    if (!strcmp(opt, "--absorption")) {
        double row[ES_OCTAVE_BANDS];
        if (absorption(opt, value, row, err, n) < 0)
            return -1;
        for (int w = 0; w < ES_WALLS; w++)
            memcpy(s->absorption[w], row, sizeof row);
        return 1;
    }
    if (!strcmp(opt, "--wall")) {
        const char *eq = strchr(value, '=');
        for (int w = 0; eq && w < ES_WALLS; w++)
            if (strlen(es_wall_names[w]) == (size_t)(eq - value) &&
                !strncmp(value, es_wall_names[w], (size_t)(eq - value)))
                return absorption(opt, eq + 1, s->absorption[w], err, n);
        snprintf(err, n, "--wall '%s': expected NAME=A with NAME one of left, right, front, "
                 "back, floor, ceiling", value);
        return -1;
    }
    if (!strcmp(opt, "--source"))
        return point(opt, value, s->source, err, n);
    if (!strcmp(opt, "--listener"))
        return point(opt, value, s->listener, err, n);
    if (!strcmp(opt, "--spacing"))
        return scalar(opt, value, &s->mic_spacing, err, n);
    if (!strcmp(opt, "--rate"))
        return scalar(opt, value, &s->rate, err, n);
    if (!strcmp(opt, "--seconds"))
        return scalar(opt, value, &s->seconds, err, n);
    if (!strcmp(opt, "--seed")) {
        double seed;
        if (scalar(opt, value, &seed, err, n) < 0)
            return -1;
        /* Converted only when it fits: a negative or huge seed is refused
         * (found by fuzzing: "--seed -9" was undefined behaviour). */
        if (!(seed >= 0 && seed <= 4294967295.0 && seed == floor(seed))) {
            snprintf(err, n, "%s %s: a whole number 0..4294967295", opt, value);
            return -1;
        }
        s->seed = (unsigned)seed;
        return 1;
    }
    return 0;
}

int es_room_recipe_complete(const es_room_spec *s, char *err, size_t n)
{
    const char *missing = s->size[0] == 0 && s->size[1] == 0 ? "--size"
                        : s->absorption[0][0] == 0 ? "--absorption"
                        : s->source[0] == 0 && s->source[1] == 0 ? "--source"
                        : s->listener[0] == 0 && s->listener[1] == 0 ? "--listener" : NULL;
    if (missing)
        snprintf(err, n, "a new room needs %s", missing);
    return missing == NULL;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

int es_room_recipe_line(char *line, char **name, char **description, es_room_spec *s,
                        char *err, size_t n)
{
    char *text = trim(line);
    if (*text == 0 || *text == '#')
        return 0;
    char *bar1 = strchr(text, '|'), *bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    if (!bar2) {
        snprintf(err, n, "expected NAME | description | options");
        return -1;
    }
    *bar1 = *bar2 = 0;
    *name = trim(text);
    *description = trim(bar1 + 1);
    es_room_spec_defaults(s);
    char *save = NULL;
    for (char *opt = strtok_r(bar2 + 1, " \t\r\n", &save); opt;
         opt = strtok_r(NULL, " \t\r\n", &save)) {
        char *value = strtok_r(NULL, " \t\r\n", &save);
        if (!value) {
            snprintf(err, n, "%s needs a value", opt);
            return -1;
        }
        const int used = es_room_recipe_option(s, opt, value, err, n);
        if (used < 0)
            return -1;
        if (used == 0) {
            snprintf(err, n, "unknown option '%s'", opt);
            return -1;
        }
    }
    if (!es_room_recipe_complete(s, err, n) || es_room_spec_check(s, err, n) != 0)
        return -1;
    return 1;
}
