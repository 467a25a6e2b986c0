/* Loading an impulse response from a file into an es_ir matrix: read,
 * check, resample to the stream rate, map channels. Off the audio thread. */
#ifndef ES_IRFILE_H
#define ES_IRFILE_H

#include <stddef.h>

#include "engine.h"

typedef struct {
    double file_rate;   /* the file's own sample rate */
    int file_channels;
    int file_frames;
    int resampled;      /* 1 when file_rate differed from the target rate */
    int frames;         /* frames at the target rate */
} es_ir_load_info;

/* Reads `path` into planar channels (free each and the array), refuses an
 * empty file or one with NaN/Inf samples, and converts to `target_rate`
 * with libsamplerate's best sinc converter when the rates differ (0: keep
 * the file's rate). 0, or -1 with a one-line message naming the file. */
int es_ir_read_channels(const char *path, double target_rate, float ***channels,
                        es_ir_load_info *info, char *err, size_t n);

/* es_ir_read_channels, or for a jconvolver configuration (FILE.conf) its
 * matrix's paths: channel i * outputs + o is input i -> output o, NULL
 * where the matrix has no filter (a 64 x 64 matrix of 64 filters holds
 * 64), with *inputs and *outputs its sides; 0 and 0 for an audio file.
 * info->file_channels is inputs x outputs. */
int es_ir_read_paths(const char *path, double target_rate, float ***channels,
                     es_ir_load_info *info, int *inputs, int *outputs, char *err, size_t n);

/* Reads `path`, refuses an empty file or one with NaN/Inf samples, converts
 * to `target_rate` with libsamplerate's best sinc converter when the rates
 * differ, and lays the channels out for `inputs` input channels (see
 * es_ir_from_channels). No normalisation: the samples are the file's.
 * NULL and a one-line message naming the file on failure. */
es_ir *es_ir_load(const char *path, double target_rate, int inputs,
                  es_ir_load_info *info, char *err, size_t n);
/* Converts channels ch[0..channels) of `frames` from `from` to `to` Hz with
 * libsamplerate's best sinc converter, replacing each array (malloc'd);
 * the new length, or -1 with a message naming `path`. */
long es_ir_resample(const char *path, float **ch, int channels, long frames, double from,
                    double to, char *err, size_t n);
/* 1 when `path` names a jconvolver configuration (FILE.conf): es_ir_load
 * and es_ir_load_matrix read it as jconvolver does (jconvolver.h), a
 * matrix of any size holding only its paths. */
int es_ir_file_is_config(const char *path);
/* The same, laid out as an inputs x outputs matrix (channel i * outputs +
 * o: input i -> output o), as `--layout IxO` asks; the file must have
 * inputs x outputs channels. */
es_ir *es_ir_load_matrix(const char *path, double target_rate, int inputs, int outputs,
                         es_ir_load_info *info, char *err, size_t n);

#endif
