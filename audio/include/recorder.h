/* Recording a stream to WAV: the audio callback copies each block into a
 * lock-free ring (es_recorder_tap, real-time safe); a writer thread drains
 * it into the file. A full ring loses frames, which are counted and
 * reported, never waited for. The file is written to a temporary name and
 * finished by es_recorder_finish(), so it is complete and valid after stop,
 * quit or Ctrl-C; after a write error (a full disk) what was written is
 * kept and the error is reported. */
#ifndef ES_RECORDER_H
#define ES_RECORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct es_recorder es_recorder;

/* ring_seconds of audio can wait for the writer (2 s if 0). */
es_recorder *es_recorder_open(const char *path, double sample_rate, int channels,
                              double ring_seconds, char *err, size_t n);
/* Real-time safe: copies frames of channels into the ring (a block with
 * another channel count than the file's is dropped and counted). */
void es_recorder_tap(void *recorder, const float *const *out, int channels, int frames);
/* Frames lost to a full ring so far. */
uint64_t es_recorder_dropped(const es_recorder *r);
/* Frames written to the file so far. */
uint64_t es_recorder_written(const es_recorder *r);
/* Stops the writer, drains the ring, finishes the file. The counts stay
 * readable. 0, or -1 with the first error. */
int es_recorder_finish(es_recorder *r, char *err, size_t n);
/* Frees (finishing first if that has not been done). NULL-safe. */
void es_recorder_free(es_recorder *r);

#endif
