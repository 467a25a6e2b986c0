/* Recording a stream to WAV: the audio callback copies each block into a
 * lock-free ring (es_recorder_tap, real-time safe); a writer thread drains
 * it into the file. A full ring loses frames, which are counted and
 * reported, never waited for.
 *
 * The file has its real name from the start (audiofile.h, ES_WRITE_LIVE):
 * twice a second the writer brings its header up to date and syncs it to
 * the disk, so a kill -9, a crash or a power cut leaves a valid WAV of
 * all but the last half second or so. es_recorder_finish() (stop, quit, Ctrl-C)
 * finishes it whole. A write error (a full disk) stops the writing at
 * once: es_recorder_failed() says so while the stream plays on, and what
 * was written stays a valid file. A FIFO or device node is written as a
 * stream. */
#ifndef ES_RECORDER_H
#define ES_RECORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct es_recorder es_recorder;

/* ring_seconds of audio can wait for the writer (2 s if 0). exclusive:
 * refuse a path that exists (a name earshot made up, never a file of the
 * user's). */
es_recorder *es_recorder_open(const char *path, double sample_rate, int channels,
                              int exclusive, double ring_seconds, char *err, size_t n);
/* Real-time safe: copies frames of channels into the ring (a block with
 * another channel count than the file's is dropped and counted). */
void es_recorder_tap(void *recorder, const float *const *out, int channels, int frames);
/* Frames lost to a full ring so far. */
uint64_t es_recorder_dropped(const es_recorder *r);
/* Frames written to the file so far. */
uint64_t es_recorder_written(const es_recorder *r);
/* 0 while writing goes well; after a write error its errno (ENOSPC: the
 * disk is full) and, in why[n], the message. */
int es_recorder_failed(const es_recorder *r, char *why, size_t n);
/* Stops the writer, drains the ring, finishes the file. The counts stay
 * readable. 0, or -1 with the first error. */
int es_recorder_finish(es_recorder *r, char *err, size_t n);
/* Frees (finishing first if that has not been done). NULL-safe. */
void es_recorder_free(es_recorder *r);

#endif
