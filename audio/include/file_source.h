/* A file as the live input: a reader thread reads it ahead (libsndfile),
 * resamples it to the stream rate when it differs (libsamplerate), loops
 * it, and keeps a lock-free ring full; the audio callback only copies out
 * of the ring. If the ring runs dry the block is completed with silence
 * and counted; a read error stops the reader and is reported. */
#ifndef ES_FILE_SOURCE_H
#define ES_FILE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct es_file_source es_file_source;

/* Opens and starts reading. channels: the file's, reported in *channels. */
es_file_source *es_file_source_open(const char *path, double stream_rate, int *channels,
                                    char *err, size_t n);
/* es_source_fill for the player. Real-time safe. */
void es_file_source_fill(void *source, float *const *out, int channels, int frames);
/* The same for a callback that may wait (a JACK server freewheeling, where
 * blocks come as fast as they are made, faster than the reader's pace):
 * waits for the reader, up to a second, before it fills with silence. */
void es_file_source_fill_wait(void *source, float *const *out, int channels, int frames);
/* Frames the callback had to fill with silence; and the reader's error
 * (empty while there is none). */
uint64_t es_file_source_starved(const es_file_source *s);
const char *es_file_source_error(const es_file_source *s);
void es_file_source_close(es_file_source *s);

#endif
