/* The audio file handle, shared by reading (audiofile.c) and writing
 * (audiofile_write.c). Internal to audio/. */
#ifndef ES_AUDIOFILE_PRIVATE_H
#define ES_AUDIOFILE_PRIVATE_H

#include <stdint.h>

#include <sndfile.h>

#include "audiofile.h"

typedef enum {
    TARGET_READ,     /* a file being read */
    TARGET_REPLACE,  /* unnamed until commit, then renamed over `path` */
    TARGET_LIVE,     /* named at once (old file replaced then), synced as it grows */
    TARGET_STREAM,   /* a FIFO, a device node or standard output */
} es_target;

struct es_audiofile {
    SNDFILE *sf;
    int fd;            /* ours to close after sf_close (libsndfile never closes it), or -1 */
    es_target target;
    char *path;        /* as given, for messages */
    char *dest;        /* writing: where the file lands (links followed) */
    char *temp;        /* TARGET_REPLACE: the name it gets in dest's folder just before
                          the rename; until commit, only while unnamed files are not to
                          be had (temp_unnamed == 0) */
    int temp_unnamed;  /* fd is an O_TMPFILE not yet named */
    int exclusive;     /* never replace: the name is linked, not renamed over */
    int write_errno;   /* the last failed write's errno, 0 none */
    int64_t stream_bytes; /* TARGET_STREAM: sample bytes written (libsndfile's position) */
    int channels;
    int chunk;         /* frames the interleave buffer holds */
    int64_t expected;  /* reading: frames the header promises */
    int64_t done;      /* frames read or written */
    float *interleaved;
};

/* A handle with its path and interleave buffer; NULL when out of memory. */
es_audiofile *es_audiofile_alloc(const char *path, int channels);
/* Frees the handle's memory (not its file). NULL-safe. */
void es_audiofile_free(es_audiofile *f);

#endif
