#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "jconvolver.h"

#define MAX_SIDE 64
#define MAX_FRAMES (60 * 192000)

typedef struct {
    int in, out, chan;
    float gain;
    long delay, offset, length;
    char file[2200];
    int line;
} impulse;

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
        for (long t = 0; im->offset + t < info.frames && (im->length == 0 || t < im->length) &&
                         im->delay + t < frames;
             t++)
            dst[im->delay + t] += im->gain * src[im->offset + t];
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
    FILE *f = fopen(conf, "r");
    if (!f) {
        snprintf(err, n, "%s: cannot read the configuration", conf);
        return -1;
    }
    char dir[1024] = ".", text[2048];
    const char *slash = strrchr(conf, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - conf), conf);
    impulse *list = NULL;
    int count = 0, line = 0, ins = 0, outs = 0, rc = -1;
    long longest = 0;
    while (fgets(text, sizeof text, f)) {
        line++;
        char cmd[64], rest[1500];
        if (sscanf(text, " %63s %1499[^\n]", cmd, rest) < 1 || cmd[0] == '#')
            continue;
        if (!strcmp(cmd, "/cd")) {
            if (sscanf(text, " %*s %1023s", dir) != 1) {
                snprintf(err, n, "%s:%d: /cd needs a folder", conf, line);
                goto done;
            }
        } else if (!strcmp(cmd, "/convolver/new")) {
            if (sscanf(rest, "%d %d", &ins, &outs) != 2 || ins < 1 || outs < 1 ||
                ins > MAX_SIDE || outs > MAX_SIDE) {
                snprintf(err, n, "%s:%d: /convolver/new needs INPUTS OUTPUTS (1 to %d)", conf,
                         line, MAX_SIDE);
                goto done;
            }
        } else if (!strcmp(cmd, "/impulse/read")) {
            impulse im = {.line = line};
            char file[1024];
            if (sscanf(rest, "%d %d %f %ld %ld %ld %d %1023s", &im.in, &im.out, &im.gain,
                       &im.delay, &im.offset, &im.length, &im.chan, file) != 8) {
                snprintf(err, n, "%s:%d: /impulse/read needs IN OUT GAIN DELAY OFFSET LENGTH "
                         "CHAN FILE", conf, line);
                goto done;
            }
            if (!ins) {
                snprintf(err, n, "%s:%d: /impulse/read before /convolver/new", conf, line);
                goto done;
            }
            if (im.in < 1 || im.in > ins || im.out < 1 || im.out > outs || im.chan < 1 ||
                im.delay < 0 || im.offset < 0 || im.length < 0) {
                snprintf(err, n, "%s:%d: input %d, output %d or channel %d is outside the "
                         "%dx%d convolver (or a negative delay, offset or length)", conf, line,
                         im.in, im.out, im.chan, ins, outs);
                goto done;
            }
            snprintf(im.file, sizeof im.file, "%s%s%s", file[0] == '/' ? "" : dir,
                     file[0] == '/' ? "" : "/", file);
            const long total = file_frames(im.file);
            if (total < 0) {
                snprintf(err, n, "%s:%d: cannot read %s", conf, line, im.file);
                goto done;
            }
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
            snprintf(err, n, "%s:%d: '%s' is not something earshot can import", conf, line,
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
