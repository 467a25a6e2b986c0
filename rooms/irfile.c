#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <samplerate.h>

#include "audiofile.h"
#include "irfile.h"

/* Converts every channel from `from` to `to` Hz; replaces ch[] in place and
 * returns the new length, or -1 with a message. */
/* The rates and the length an IR may have: 60 s at 192 kHz, as the
 * jconvolver importer takes. */
#define IR_RATE_MIN 1000
#define IR_RATE_MAX 768000
#define IR_FRAMES_MAX (60 * 192000)

static long resample(const char *path, float **ch, int channels, long frames,
                     double from, double to, char *err, size_t n)
{
    double ratio = to / from;
    long out_frames = (long)ceil((double)frames * ratio);
    for (int c = 0; c < channels; c++) {
        float *out = calloc((size_t)out_frames + 1, sizeof(float));
        if (!out) {
            snprintf(err, n, "%s: out of memory resampling to %g Hz", path, to);
            return -1;
        }
        SRC_DATA d = {
            .data_in = ch[c],
            .input_frames = frames,
            .data_out = out,
            .output_frames = out_frames,
            .src_ratio = ratio,
        };
        int rc = src_simple(&d, SRC_SINC_BEST_QUALITY, 1);
        if (rc != 0) {
            free(out);
            snprintf(err, n, "%s: resampling %g Hz -> %g Hz failed: %s", path, from, to,
                     src_strerror(rc));
            return -1;
        }
        free(ch[c]);
        ch[c] = out;
        out_frames = d.output_frames_gen;
    }
    return out_frames;
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
        frames = resample(path, ch, ai.channels, frames, ai.sample_rate, target_rate, err, n);
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

es_ir *es_ir_load_matrix(const char *path, double target_rate, int inputs, int outputs,
                         es_ir_load_info *info, char *err, size_t n)
{
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
