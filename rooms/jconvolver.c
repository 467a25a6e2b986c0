#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "core/files.h"
#include "core/lines.h"
#include "core/param.h"
#include "jconvolver.h"

#define MAX_SIDE 64
#define MAX_FRAMES (60 * 192000)
#define MAX_LINE 2047 /* characters; a longer line is refused, not cut */

typedef struct {
    int in, out, chan;
    double gain;
    int delay, offset, length;
    char file[2200];
    int line;
} impulse;

typedef struct {
    int inputs, outputs, part, maxsize;
} convolver;

/* The fields of the two commands, range-checked as every number earshot
 * reads is: a NaN gain or a delay past any IR earshot takes is refused
 * with its name, before any arithmetic sees it. */
static const es_param convolver_fields[] = {
    {"INPUTS", ES_PARAM_INT, 1, MAX_SIDE, .offset = offsetof(convolver, inputs)},
    {"OUTPUTS", ES_PARAM_INT, 1, MAX_SIDE, .offset = offsetof(convolver, outputs)},
    {"PART", ES_PARAM_INT, 1, 1 << 20, .offset = offsetof(convolver, part)},
    {"MAXSIZE", ES_PARAM_INT, 1, 1 << 30, .offset = offsetof(convolver, maxsize)},
    {NULL}};

static const es_param impulse_fields[] = {
    {"IN", ES_PARAM_INT, 1, MAX_SIDE, .offset = offsetof(impulse, in)},
    {"OUT", ES_PARAM_INT, 1, MAX_SIDE, .offset = offsetof(impulse, out)},
    {"GAIN", ES_PARAM_DOUBLE, -1000, 1000, .offset = offsetof(impulse, gain)},
    {"DELAY", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(impulse, delay)},
    {"OFFSET", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(impulse, offset)},
    {"LENGTH", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(impulse, length)},
    {"CHAN", ES_PARAM_INT, 1, 1024, .offset = offsetof(impulse, chan)},
    {NULL}};

/* Splits `rest` at blanks into up to `cap` words (the text is cut in
 * place); the count. */
static int words(char *rest, char **word, int cap)
{
    int count = 0;
    for (char *at = strtok(rest, " \t\r\n"); at && count < cap; at = strtok(NULL, " \t\r\n"))
        word[count++] = at;
    return count;
}

/* The first `count` words through the table into base; 0, or -1 with
 * "CONF:LINE: COMMAND FIELD 'text': what is wrong". */
static int parse_fields(const es_param *fields, char **word, void *base, const char *conf,
                        int line, const char *command, char *err, size_t n)
{
    for (int k = 0; fields[k].name; k++) {
        char label[64], why[256];
        snprintf(label, sizeof label, "%s %s", command, fields[k].name);
        if (es_param_parse(&fields[k], label, word[k], base, why, sizeof why) != 0) {
            snprintf(err, n, "%s:%d: %s", conf, line, why);
            return -1;
        }
    }
    return 0;
}

/* Puts one /impulse/read into its matrix channel. */
static int place(const impulse *im, float **matrix, int outputs, int frames, double *rate,
                 const char *conf, char *err, size_t n)
{
    float **ch = NULL;
    es_audio_info info;
    char why[512];
    if (es_audiofile_load(im->file, &ch, &info, why, sizeof why) != 0) {
        snprintf(err, n, "%s:%d: %s", conf, im->line, why);
        return -1;
    }
    int rc = -1;
    if (*rate == 0)
        *rate = info.sample_rate;
    if (info.sample_rate != *rate) {
        snprintf(err, n, "%s:%d: %s is %g Hz, the files before it %g Hz", conf, im->line,
                 im->file, info.sample_rate, *rate);
    } else if (im->chan > info.channels) {
        snprintf(err, n, "%s:%d: %s has %d channel%s, not channel %d", conf, im->line,
                 im->file, info.channels, info.channels == 1 ? "" : "s", im->chan);
    } else {
        float *dst = matrix[(im->in - 1) * outputs + (im->out - 1)];
        const float *src = ch[im->chan - 1];
        const float gain = (float)im->gain;
        for (long t = 0; im->offset + t < info.frames && (im->length == 0 || t < im->length) &&
                         im->delay + t < frames;
             t++)
            dst[im->delay + t] += gain * src[im->offset + t];
        rc = 0;
    }
    es_audiofile_free_channels(ch, info.channels);
    return rc;
}

static long file_frames(const char *path)
{
    es_audio_info info;
    char why[512];
    es_audiofile *f = es_audiofile_open_read(path, &info, why, sizeof why);
    if (!f)
        return -1;
    es_audiofile_close(f);
    return (long)info.frames;
}

int es_jconvolver_read(const char *conf, float ***channels, int *inputs, int *outputs,
                       int *frames, double *rate, char *err, size_t n)
{
    /* A regular file only, read a bounded line at a time: a FIFO or
     * /dev/zero is one line, never a hang or all the memory there is. */
    char why_open[1200];
    FILE *f = es_fopen_regular(conf, why_open, sizeof why_open);
    if (!f) {
        snprintf(err, n, "%s (a jconvolver configuration)", why_open);
        return -1;
    }
    char dir[1024] = ".", text[MAX_LINE + 2];
    size_t len;
    const char *slash = strrchr(conf, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - conf), conf);
    impulse *list = NULL;
    convolver cv = {0};
    int count = 0, line = 0, rc = -1;
    long longest = 0;
    int got;
    while ((got = es_line_read(f, text, sizeof text, &len)) != ES_LINE_END) {
        line++;
        /* Whole lines: a long one is refused, never read as several. */
        if (got == ES_LINE_LONG || (got == ES_LINE_OK && len > MAX_LINE)) {
            snprintf(err, n, "%s:%d: a line longer than %d characters", conf, line, MAX_LINE);
            goto done;
        }
        if (got == ES_LINE_NUL) {
            snprintf(err, n, "%s:%d: a NUL byte in the line", conf, line);
            goto done;
        }
        if (got == ES_LINE_ERROR) {
            snprintf(err, n, "%s:%d: read error", conf, line);
            goto done;
        }
        char *word[10];
        const int count_words = words(text, word, 10);
        if (count_words == 0 || word[0][0] == '#')
            continue;
        const char *cmd = word[0];
        if (!strcmp(cmd, "/cd")) {
            if (count_words != 2 || strlen(word[1]) >= sizeof dir) {
                snprintf(err, n, "%s:%d: /cd needs one folder", conf, line);
                goto done;
            }
            snprintf(dir, sizeof dir, "%s", word[1]);
        } else if (!strcmp(cmd, "/convolver/new")) {
            /* One convolver: a second would change the matrix under the
             * /impulse/read lines already checked against the first. */
            if (cv.inputs) {
                snprintf(err, n, "%s:%d: a second /convolver/new (earshot imports one)", conf,
                         line);
                goto done;
            }
            convolver c = {.part = 1, .maxsize = 1};
            if (count_words < 3 || count_words > 5) {
                snprintf(err, n, "%s:%d: /convolver/new needs INPUTS OUTPUTS [PART MAXSIZE]",
                         conf, line);
                goto done;
            }
            char *fields[4] = {word[1], word[2], count_words > 3 ? word[3] : "1",
                               count_words > 4 ? word[4] : "1"};
            if (parse_fields(convolver_fields, fields, &c, conf, line, cmd, err, n))
                goto done;
            cv = c;
        } else if (!strcmp(cmd, "/impulse/read")) {
            impulse im = {.line = line};
            if (count_words != 9) {
                snprintf(err, n, "%s:%d: /impulse/read needs IN OUT GAIN DELAY OFFSET LENGTH "
                         "CHAN FILE", conf, line);
                goto done;
            }
            if (!cv.inputs) {
                snprintf(err, n, "%s:%d: /impulse/read before /convolver/new", conf, line);
                goto done;
            }
            if (parse_fields(impulse_fields, word + 1, &im, conf, line, cmd, err, n))
                goto done;
            if (im.in > cv.inputs || im.out > cv.outputs) {
                snprintf(err, n, "%s:%d: input %d or output %d is outside the %dx%d convolver",
                         conf, line, im.in, im.out, cv.inputs, cv.outputs);
                goto done;
            }
            const char *file = word[8];
            if (strlen(file) >= 1024) {
                snprintf(err, n, "%s:%d: the file name is longer than 1023 characters", conf,
                         line);
                goto done;
            }
            snprintf(im.file, sizeof im.file, "%s%s%s", file[0] == '/' ? "" : dir,
                     file[0] == '/' ? "" : "/", file);
            const long total = file_frames(im.file);
            if (total < 0) {
                snprintf(err, n, "%s:%d: cannot read %s", conf, line, im.file);
                goto done;
            }
            /* All bounded by MAX_FRAMES (or the file's length): no overflow. */
            long used = total - im.offset;
            if (im.length > 0 && im.length < used)
                used = im.length;
            if (used > 0 && im.delay + used > longest)
                longest = im.delay + used;
            impulse *grown = realloc(list, sizeof *grown * (size_t)(count + 1));
            if (!grown) {
                snprintf(err, n, "out of memory");
                goto done;
            }
            list = grown;
            list[count++] = im;
        } else if (strcmp(cmd, "/input/name") && strcmp(cmd, "/output/name")) {
            snprintf(err, n, "%s:%d: '%.64s' is not something earshot can import", conf, line,
                     cmd);
            goto done;
        }
    }
    if (!count || longest < 1) {
        snprintf(err, n, "%s: no /impulse/read with any samples", conf);
        goto done;
    }
    if (longest > MAX_FRAMES) {
        snprintf(err, n, "%s: the filters are %ld frames long, more than earshot takes", conf,
                 longest);
        goto done;
    }
    const int ins = cv.inputs, outs = cv.outputs;
    float **matrix = calloc((size_t)(ins * outs), sizeof *matrix);
    for (int c = 0; matrix && c < ins * outs; c++)
        if (!(matrix[c] = calloc((size_t)longest, sizeof(float)))) {
            es_audiofile_free_channels(matrix, ins * outs);
            matrix = NULL;
        }
    if (!matrix) {
        snprintf(err, n, "out of memory for a %dx%d matrix of %ld frames", ins, outs, longest);
        goto done;
    }
    *rate = 0;
    for (int i = 0; i < count; i++)
        if (place(&list[i], matrix, outs, (int)longest, rate, conf, err, n) != 0) {
            es_audiofile_free_channels(matrix, ins * outs);
            goto done;
        }
    *channels = matrix;
    *inputs = ins;
    *outputs = outs;
    *frames = (int)longest;
    rc = 0;
done:
    fclose(f);
    free(list);
    return rc;
}
