/* Audio files through libsndfile, planar float on our side.
 *
 * Reading checks what libsndfile lets pass: a WAV whose data chunk is
 * shorter than its header says is reported as truncated, not played short.
 * Writing goes to a temporary file beside the target that only becomes the
 * target on es_audiofile_commit(): a failed render leaves nothing behind. */
#ifndef ES_AUDIOFILE_H
#define ES_AUDIOFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct es_audiofile es_audiofile;

typedef struct {
    double sample_rate;
    int channels;
    int64_t frames;
} es_audio_info;

typedef enum {
    ES_SAMPLE_FLOAT,   /* 32-bit float WAV: exact, the default */
    ES_SAMPLE_PCM16,
    ES_SAMPLE_PCM24,
} es_sample_format;

/* Parses "float", "pcm16", "pcm24"; -1 if unknown. */
int es_sample_format_parse(const char *name);

/* Messages name the file. */
es_audiofile *es_audiofile_open_read(const char *path, es_audio_info *info,
                                     char *err, size_t n);
/* Reads up to `frames` frames into planar[channels][frames]. Returns frames
 * read (0 at the end), or -1 and a message (read error, truncated file). */
long es_audiofile_read(es_audiofile *f, float *const *planar, int frames,
                       char *err, size_t n);

/* Back to the first frame, for looping. 0, or -1 with a message. */
int es_audiofile_rewind(es_audiofile *f, char *err, size_t n);

es_audiofile *es_audiofile_create(const char *path, double sample_rate,
                                  int channels, es_sample_format format,
                                  char *err, size_t n);
int es_audiofile_write(es_audiofile *f, const float *const *planar, int frames,
                       char *err, size_t n);
/* Closes and moves the written file into place. 0, or -1 and a message. */
int es_audiofile_commit(es_audiofile *f, char *err, size_t n);

/* Closes; a written file that was not committed is removed. NULL-safe. */
void es_audiofile_close(es_audiofile *f);

/* Whole file into planar channels (caller frees each with free() and the
 * array too). Returns 0 or -1 with a message naming the file. */
int es_audiofile_load(const char *path, float ***channels, es_audio_info *info,
                      char *err, size_t n);

/* Frees channels as es_audiofile_load (and the room code) allocate them:
 * each with free(), then the array. NULL-safe. */
void es_audiofile_free_channels(float **channels, int count);

#endif
