/* Audio files through libsndfile, planar float on our side.
 *
 * Reading checks what libsndfile lets pass: a WAV whose data chunk is
 * shorter than its header says is reported as truncated, not played short.
 * Only regular files are read (a FIFO or a device node is refused in one
 * line, without an open that could block).
 *
 * Writing never destroys what it was not asked to change. The path is
 * followed through symbolic links to the file they name, and what is
 * written depends on what that is:
 *   - a regular file, or nothing yet: ES_WRITE_REPLACE (render, the room
 *     library) writes an unnamed file in the target's folder that becomes
 *     the target whole on es_audiofile_commit(), so a failure at any point
 *     leaves the old file or none; ES_WRITE_LIVE (recordings) writes the
 *     real name from the start and es_audiofile_sync() brings its header
 *     up to date and onto the disk, so a kill -9 or a power cut loses only
 *     what came after the last sync;
 *   - a FIFO, a device node, or "-" (standard output): a stream. The WAV
 *     header goes first with the length when it is known (else the
 *     streaming convention, 0xFFFFFFFF), then the samples; the node
 *     itself is never replaced. */
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

typedef enum {
    ES_WRITE_REPLACE, /* the whole file or nothing: named on commit */
    ES_WRITE_LIVE,    /* a recording: named from the start, synced */
} es_write_mode;

typedef struct {
    double sample_rate;
    int channels;
    es_sample_format format;
    es_write_mode mode;
    int64_t frames;   /* the length when known (a stream's header says it), else 0 */
    int exclusive;    /* refuse a target that exists (a name earshot made up) */
} es_write_spec;

/* Opens `path` ("-": standard output) for writing; messages name it. */
es_audiofile *es_audiofile_create(const char *path, const es_write_spec *spec, char *err,
                                  size_t n);
int es_audiofile_write(es_audiofile *f, const float *const *planar, int frames,
                       char *err, size_t n);
/* ES_WRITE_LIVE: the header brought up to date with what is written, and
 * the file onto the disk (fdatasync). Nothing for other targets. 0, or -1
 * and a message. */
int es_audiofile_sync(es_audiofile *f, char *err, size_t n);
/* The errno of the last failed write (ENOSPC: the disk is full), or 0. */
int es_audiofile_write_errno(const es_audiofile *f);
/* Finishes: the header, then (ES_WRITE_REPLACE) the file moved into place.
 * 0, or -1 and a message. */
int es_audiofile_commit(es_audiofile *f, char *err, size_t n);

/* Closes. An ES_WRITE_REPLACE file that was not committed is dropped (the
 * target stays as it was); a recording keeps what it holds. NULL-safe. */
void es_audiofile_close(es_audiofile *f);

/* Whole file into planar channels (caller frees each with free() and the
 * array too). Returns 0 or -1 with a message naming the file. */
int es_audiofile_load(const char *path, float ***channels, es_audio_info *info,
                      char *err, size_t n);

/* Frees channels as es_audiofile_load (and the room code) allocate them:
 * each with free(), then the array. NULL-safe. */
void es_audiofile_free_channels(float **channels, int count);

#endif
