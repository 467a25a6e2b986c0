#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <samplerate.h>

#include "audiofile.h"
#include "irfile.h"
#include "jconvolver.h"

/* Converts every channel from `from` to `to` Hz; replaces ch[] in place and
 * returns the new length, or -1 with a message. */
/* The rates and the length an IR may have: 60 s at 192 kHz, as the
 * jconvolver importer takes. */
#define IR_RATE_MIN 1000
#define IR_RATE_MAX 768000
#define IR_FRAMES_MAX (60 * 192000)

long es_ir_resample(const char *path, float **ch, int channels, long frames, double from,
                    double to, char *err, size_t n)
{
    const double ratio = to / from;
    const long out_frames = (long)ceil((double)frames * ratio);
    /* The converter gives nothing for an input shorter than its filter
     * needs (a 1-sample IR taken to 8 kHz came out empty): the input is
     * followed by silence, which an IR's tail is anyway, and the output
     * kept to the length the rate asks for. */
    const long pad = (long)ceil(64.0 / fmin(ratio, 1.0));
    float *in = calloc((size_t)(frames + pad), sizeof(float));
    if (!in) {
        snprintf(err, n, "%s: out of memory resampling to %g Hz", path, to);
        return -1;
    }
    long made = out_frames;
    for (int c = 0; c < channels; c++) {
        memcpy(in, ch[c], sizeof(float) * (size_t)frames);
        const long room = (long)ceil((double)(frames + pad) * ratio) + 1;
        float *out = calloc((size_t)room, sizeof(float));
        SRC_DATA d = {.data_in = in, .input_frames = frames + pad, .data_out = out,
                      .output_frames = room, .src_ratio = ratio};
        const int rc = out ? src_simple(&d, SRC_SINC_BEST_QUALITY, 1) : 0;
        if (!out || rc != 0) {
            free(out);
            free(in);
            if (!out)
                snprintf(err, n, "%s: out of memory resampling to %g Hz", path, to);
            else
                snprintf(err, n, "%s: resampling %g Hz -> %g Hz failed: %s", path, from, to,
                         src_strerror(rc));
            return -1;
        }
        free(ch[c]);
        ch[c] = out;
        if (d.output_frames_gen < made)
            made = d.output_frames_gen;
    }
    free(in);
    return made;
}

static int check_samples(const char *path, float **ch, int channels, long frames,
                         char *err, size_t n)
{
    for (int c = 0; c < channels; c++)
        for (long t = 0; t < frames; t++)
            if (!isfinite(ch[c][t])) {
                snprintf(err, n, "%s: %s sample at frame %ld, channel %d", path,
                         isnan(ch[c][t]) ? "NaN" : "infinite", t, c + 1);
                return -1;
            }
    return 0;
}

int es_ir_read_channels(const char *path, double target_rate, float ***channels,
                        es_ir_load_info *info, char *err, size_t n)
{
    es_audio_info ai;
    float **ch = NULL;
    if (es_audiofile_load(path, &ch, &ai, err, n) != 0)
        return -1;
    long frames = (long)ai.frames;
    memset(info, 0, sizeof *info);
    info->file_rate = ai.sample_rate;
    info->file_channels = ai.channels;
    info->file_frames = (int)frames;
    if (frames < 1) {
        snprintf(err, n, "%s: the impulse response is empty (0 samples)", path);
        goto fail;
    }
    if (check_samples(path, ch, ai.channels, frames, err, n) != 0)
        goto fail;
    if (target_rate <= 0) /* the file's own */
        target_rate = ai.sample_rate;
    /* A header may claim any rate: 1 Hz would make a few thousand frames
     * tens of millions at the stream's rate. */
    if (!(ai.sample_rate >= IR_RATE_MIN && ai.sample_rate <= IR_RATE_MAX)) {
        snprintf(err, n, "%s: a sample rate of %g Hz (earshot takes %d to %d)", path,
                 ai.sample_rate, IR_RATE_MIN, IR_RATE_MAX);
        goto fail;
    }
    if ((double)frames * target_rate / ai.sample_rate > IR_FRAMES_MAX) {
        snprintf(err, n, "%s: %.1f s is longer than earshot takes (%d frames at the "
                 "stream's rate)", path, frames / ai.sample_rate, IR_FRAMES_MAX);
        goto fail;
    }
    if (ai.sample_rate != target_rate) {
        frames = es_ir_resample(path, ch, ai.channels, frames, ai.sample_rate, target_rate, err, n);
        if (frames == 0)
            snprintf(err, n, "%s: nothing left after resampling to %g Hz", path, target_rate);
        if (frames < 1)
            goto fail;
        info->resampled = 1;
    }
    info->frames = (int)frames;
    *channels = ch;
    return 0;
fail:
    es_audiofile_free_channels(ch, ai.channels);
    return -1;
}

int es_ir_file_is_config(const char *path)
{
    const size_t len = strlen(path);
    return len > 5 && !strcmp(path + len - 5, ".conf");
}

/* A jconvolver configuration's paths at target_rate (es_ir_read_paths):
 * its filters only (a 64 x 64 matrix of 64 filters holds 64), resampled
 * from the files' rate; one made of /impulse/dirac and /impulse/hilbert
 * alone has no rate of its own and is taken at the stream's, as
 * fconvolver takes it. */
static int read_config(const char *path, double target_rate, float ***paths_out,
                       es_ir_load_info *info, int *inputs, int *outputs, char *err, size_t n)
{
    es_jconvolver_room room;
    if (es_jconvolver_load(path, &room, err, n) != 0)
        return -1;
    const int paths = room.inputs * room.outputs;
    float **rows = malloc((size_t)paths * sizeof *rows);
    int *at = malloc((size_t)paths * sizeof *at), count = 0, rc = -1;
    const double rate = room.rate > 0 ? room.rate : target_rate > 0 ? target_rate : 48000.0;
    long frames = room.frames;
    if (target_rate <= 0) /* the files' own */
        target_rate = rate;
    if (!rows || !at) {
        snprintf(err, n, "%s: out of memory", path);
        goto done;
    }
    for (int p = 0; p < paths; p++)
        if (room.paths[p]) {
            rows[count] = room.paths[p];
            at[count++] = p;
        }
    if (rate != target_rate) {
        frames = es_ir_resample(path, rows, count, frames, rate, target_rate, err, n);
        for (int k = 0; k < count; k++)
            room.paths[at[k]] = rows[k]; /* resample replaced them, or kept them */
        if (frames < 1)
            goto done;
    }
    *info = (es_ir_load_info){.file_rate = rate, .file_channels = paths,
                              .file_frames = room.frames, .resampled = rate != target_rate,
                              .frames = (int)frames};
    *inputs = room.inputs;
    *outputs = room.outputs;
    *paths_out = room.paths;
    room.paths = NULL;
    rc = 0;
done:
    free(rows);
    free(at);
    es_jconvolver_free(&room);
    return rc;
}

int es_ir_read_paths(const char *path, double target_rate, float ***channels,
                     es_ir_load_info *info, int *inputs, int *outputs, char *err, size_t n)
{
    if (es_ir_file_is_config(path))
        return read_config(path, target_rate, channels, info, inputs, outputs, err, n);
    *inputs = *outputs = 0;
    return es_ir_read_channels(path, target_rate, channels, info, err, n);
}

/* The configuration as its matrix; `inputs` must be its inputs. */
static es_ir *load_config(const char *path, double target_rate, int inputs,
                          es_ir_load_info *info, char *err, size_t n)
{
    float **paths = NULL;
    int ins, outs;
    if (read_config(path, target_rate, &paths, info, &ins, &outs, err, n) != 0)
        return NULL;
    es_ir *ir = NULL;
    char why[256];
    if (inputs != ins)
        snprintf(err, n, "%s is a %d x %d matrix: it takes %d input channel%s, not %d", path,
                 ins, outs, ins, ins == 1 ? "" : "s", inputs);
    else if (!(ir = es_ir_from_matrix((const float *const *)paths, ins * outs, info->frames,
                                      target_rate, ins, outs, why, sizeof why)))
        snprintf(err, n, "%s: %s", path, why);
    es_audiofile_free_channels(paths, ins * outs);
    return ir;
}

es_ir *es_ir_load_matrix(const char *path, double target_rate, int inputs, int outputs,
                         es_ir_load_info *info, char *err, size_t n)
{
    if (es_ir_file_is_config(path)) {
        es_ir *ir = load_config(path, target_rate, inputs, info, err, n);
        if (ir && ir->outputs != outputs) {
            snprintf(err, n, "%s is a %d x %d matrix, not %d x %d", path, ir->inputs,
                     ir->outputs, inputs, outputs);
            es_ir_destroy(ir);
            return NULL;
        }
        return ir;
    }
    float **ch = NULL;
    if (es_ir_read_channels(path, target_rate, &ch, info, err, n) != 0)
        return NULL;
    char why[256];
    es_ir *ir = es_ir_from_matrix((const float *const *)ch, info->file_channels, info->frames,
                                  target_rate, inputs, outputs, why, sizeof why);
    if (!ir)
        snprintf(err, n, "%s: %s", path, why);
    es_audiofile_free_channels(ch, info->file_channels);
    return ir;
}

es_ir *es_ir_load(const char *path, double target_rate, int inputs,
                  es_ir_load_info *info, char *err, size_t n)
{
    if (es_ir_file_is_config(path))
        return load_config(path, target_rate, inputs, info, err, n);
    float **ch = NULL;
    if (es_ir_read_channels(path, target_rate, &ch, info, err, n) != 0)
        return NULL;
    char why[256];
    es_ir *ir = es_ir_from_channels((const float *const *)ch, info->file_channels, info->frames,
                                    target_rate, inputs, why, sizeof why);
    if (!ir)
        snprintf(err, n, "%s: %s", path, why);
    es_audiofile_free_channels(ch, info->file_channels);
    return ir;
}
