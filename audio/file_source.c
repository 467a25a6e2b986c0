#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <samplerate.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "audiofile.h"
#include "file_source.h"
#include "interleave.h"
#include "frame_ring.h"

#define READ_FRAMES 4096    /* file frames per read */
#define RING_SECONDS 1.0    /* read-ahead: a second of audio waits in the ring, */
#define RING_MAX_BYTES ((size_t)4 << 20) /* or this much of many channels, but
                                          * never under four reads (64 channels at
                                          * 48 kHz: 0.68 s; a read takes milliseconds) */

struct es_file_source {
    es_audiofile *file;
    int channels;
    double ratio;           /* stream rate / file rate */
    SRC_STATE *src;         /* NULL when the rates match */
    es_frame_ring ring;     /* reader -> callback */
    float **planar;         /* READ_FRAMES per channel: what the file gave */
    float *interleaved;     /* READ_FRAMES * channels */
    float *resampled;       /* (READ_FRAMES * ratio + 64) * channels */
    size_t resampled_frames;
    pthread_t thread;
    int started;
    atomic_int stop, failed;
    atomic_ullong starved;
    char error[512];        /* written before `failed` is released */
    char path[400];         /* for messages */
};

static void fail(es_file_source *s, const char *why)
{
    snprintf(s->error, sizeof s->error, "%s", why);
    atomic_store_explicit(&s->failed, 1, memory_order_release);
}

/* Reads one chunk (looping at the end), resamples it, and pushes it.
 * 0 on success, -1 after fail(). */
static int read_chunk(es_file_source *s)
{
    char err[512];
    long got = es_audiofile_read(s->file, s->planar, READ_FRAMES, err, sizeof err);
    if (got < 0) {
        fail(s, err);
        return -1;
    }
    if (got == 0) {
        if (es_audiofile_rewind(s->file, err, sizeof err) != 0) {
            fail(s, err);
            return -1;
        }
        return 0;
    }
    es_interleave((const float *const *)s->planar, 0, s->channels, s->interleaved, got);
    if (!s->src) {
        es_frame_ring_write_interleaved(&s->ring, s->interleaved, (size_t)got);
        return 0;
    }
    SRC_DATA d = {.data_in = s->interleaved, .input_frames = got,
                  .data_out = s->resampled, .output_frames = (long)s->resampled_frames,
                  .src_ratio = s->ratio};
    while (d.input_frames > 0) {
        int rc = src_process(s->src, &d);
        if (rc != 0) {
            snprintf(err, sizeof err, "%s: resampling failed: %s", s->path, src_strerror(rc));
            fail(s, err);
            return -1;
        }
        es_frame_ring_write_interleaved(&s->ring, s->resampled, (size_t)d.output_frames_gen);
        d.data_in += d.input_frames_used * s->channels;
        d.input_frames -= d.input_frames_used;
        if (d.input_frames_used == 0 && d.output_frames_gen == 0)
            break;
    }
    return 0;
}

/* Room for one chunk after resampling. */
static int has_room(es_file_source *s)
{
    return es_frame_ring_space(&s->ring) >= s->resampled_frames;
}

static void *reader(void *arg)
{
    es_file_source *s = arg;
    const struct timespec nap = {0, 2000000}; /* 2 ms: far below the ring's second */
    while (!atomic_load(&s->stop) && !atomic_load(&s->failed)) {
        if (!has_room(s) || read_chunk(s) != 0)
            nanosleep(&nap, NULL);
    }
    return NULL;
}

/* The ring's frames: RING_SECONDS and two chunks, or, where that is more
 * than RING_MAX_BYTES of the file's channels, the most frames under it
 * (the ring's power of two included), and never under four chunks. */
static size_t ring_frames(const es_file_source *s, double stream_rate)
{
    const size_t want = (size_t)(RING_SECONDS * stream_rate) + 2 * s->resampled_frames;
    const size_t most = RING_MAX_BYTES / ((size_t)s->channels * sizeof(float));
    size_t fits = 1;
    while (2 * fits <= most)
        fits <<= 1;
    const size_t least = 4 * s->resampled_frames;
    return want <= fits ? want : fits >= least ? fits : least;
}

es_file_source *es_file_source_open(const char *path, double stream_rate, int *channels,
                                    char *err, size_t n)
{
    es_audio_info info;
    es_file_source *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, n, "%s: out of memory", path);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    if (!(s->file = es_audiofile_open_read(path, &info, err, n)))
        goto fail;
    if (info.frames < 1) {
        snprintf(err, n, "%s: no audio in the file (0 frames)", path);
        goto fail;
    }
    s->channels = *channels = info.channels;
    s->ratio = stream_rate / info.sample_rate;
    s->resampled_frames = (size_t)(READ_FRAMES * s->ratio) + 64;
    if (info.sample_rate != stream_rate) {
        int rc = 0;
        if (!(s->src = src_new(SRC_SINC_MEDIUM_QUALITY, s->channels, &rc))) {
            snprintf(err, n, "%s: cannot resample: %s", path, src_strerror(rc));
            goto fail;
        }
    }
    s->planar = calloc((size_t)s->channels, sizeof *s->planar);
    s->interleaved = calloc((size_t)READ_FRAMES * s->channels, sizeof(float));
    s->resampled = calloc(s->resampled_frames * s->channels, sizeof(float));
    if (!s->planar || !s->interleaved || !s->resampled ||
        es_frame_ring_init(&s->ring, s->channels, ring_frames(s, stream_rate)) != 0) {
        snprintf(err, n, "%s: out of memory", path);
        goto fail;
    }
    for (int c = 0; c < s->channels; c++)
        if (!(s->planar[c] = calloc(READ_FRAMES, sizeof(float)))) {
            snprintf(err, n, "%s: out of memory", path);
            goto fail;
        }
    /* Fill the ring before the stream starts, so the first blocks play. */
    while (has_room(s) && !atomic_load(&s->failed))
        if (read_chunk(s) != 0)
            break;
    if (atomic_load(&s->failed)) {
        snprintf(err, n, "%s", s->error);
        goto fail;
    }
    if (es_thread_start(&s->thread, "es-file-reader", reader, s) != 0) {
        snprintf(err, n, "%s: cannot start the reader thread", path);
        goto fail;
    }
    s->started = 1;
    return s;
fail:
    es_file_source_close(s);
    return NULL;
}

void es_file_source_fill(void *source, float *const *out, int channels, int frames)
{
    es_file_source *s = source;
    size_t have = es_frame_ring_available(&s->ring);
    size_t n = have < (size_t)frames ? have : (size_t)frames;
    es_frame_ring_read_planar(&s->ring, out, n);
    if (n < (size_t)frames) {
        for (int c = 0; c < channels; c++)
            memset(out[c] + n, 0, ((size_t)frames - n) * sizeof(float));
        atomic_fetch_add_explicit(&s->starved, (unsigned long long)(frames - (int)n),
                                  memory_order_relaxed);
    }
}

void es_file_source_fill_wait(void *source, float *const *out, int channels, int frames)
{
    es_file_source *s = source;
    const long long until = es_now_ns() + 1000000000LL;
    while (es_frame_ring_available(&s->ring) < (size_t)frames &&
           !atomic_load_explicit(&s->failed, memory_order_acquire) && es_now_ns() < until)
        sched_yield();
    es_file_source_fill(source, out, channels, frames);
}

uint64_t es_file_source_starved(const es_file_source *s)
{
    return atomic_load(&((es_file_source *)s)->starved);
}

const char *es_file_source_error(const es_file_source *s)
{
    return atomic_load_explicit(&((es_file_source *)s)->failed, memory_order_acquire)
               ? s->error : "";
}

void es_file_source_close(es_file_source *s)
{
    if (!s)
        return;
    if (s->started) {
        atomic_store(&s->stop, 1);
        pthread_join(s->thread, NULL);
    }
    es_audiofile_close(s->file);
    if (s->src)
        src_delete(s->src);
    for (int c = 0; s->planar && c < s->channels; c++)
        free(s->planar[c]);
    free(s->planar);
    free(s->interleaved);
    free(s->resampled);
    es_frame_ring_free(&s->ring);
    free(s);
}
