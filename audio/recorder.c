#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "audiofile.h"
#include "frame_ring.h"
#include "recorder.h"

#define WRITE_CHUNK 4096   /* frames per write */
#define SYNC_SECONDS 0.5   /* header and data onto the disk this often: what a crash loses */

struct es_recorder {
    es_audiofile *file;
    int channels;
    es_frame_ring ring;     /* callback -> writer */
    atomic_ullong dropped, written;
    atomic_int stop, failed; /* failed: the write error's errno, 0 none */
    int finished;
    char error[512];        /* written before `failed` is released */
    struct timespec synced; /* writer's own: the last sync */
    pthread_t thread;
    float *chunk;           /* WRITE_CHUNK frames, writer's own */
    float **planar;         /* channel pointers for es_audiofile_write */
};

void es_recorder_tap(void *recorder, const float *const *out, int channels, int frames)
{
    es_recorder *r = recorder;
    /* Another channel count than the file's: lost, and counted as such. */
    if (channels != r->channels || es_frame_ring_space(&r->ring) < (size_t)frames) {
        atomic_fetch_add_explicit(&r->dropped, (unsigned long long)frames,
                                  memory_order_relaxed);
        return;
    }
    es_frame_ring_write_planar(&r->ring, out, (size_t)frames);
}

static void fail(es_recorder *r, const char *err)
{
    snprintf(r->error, sizeof r->error, "%s", err);
    const int code = es_audiofile_write_errno(r->file);
    atomic_store_explicit(&r->failed, code ? code : -1, memory_order_release);
}

/* Writes what is in the ring; returns frames written, -1 on error. */
static long drain(es_recorder *r)
{
    long total = 0;
    size_t n;
    while ((n = es_frame_ring_available(&r->ring)) > 0) {
        n = n < WRITE_CHUNK ? n : WRITE_CHUNK;
        es_frame_ring_read_planar(&r->ring, r->planar, n);
        if (!atomic_load(&r->failed)) {
            char err[512];
            if (es_audiofile_write(r->file, (const float *const *)r->planar, (int)n, err,
                                   sizeof err) != 0) {
                fail(r, err);
                return -1;
            }
            atomic_fetch_add(&r->written, n);
        }
        total += (long)n;
    }
    return total;
}

/* About once a second: the header says what is written, and it is on the
 * disk. A failure here (a disk gone, a full one) is a write error too. */
static void sync_due(es_recorder *r)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (atomic_load(&r->failed) || es_seconds_between(&r->synced, &now) < SYNC_SECONDS)
        return;
    r->synced = now;
    char err[512];
    if (es_audiofile_sync(r->file, err, sizeof err) != 0)
        fail(r, err);
}

static void *writer(void *arg)
{
    es_recorder *r = arg;
    const struct timespec nap = {0, 5000000}; /* 5 ms: a fraction of the ring */
    clock_gettime(CLOCK_MONOTONIC, &r->synced);
    while (!atomic_load(&r->stop)) {
        if (drain(r) == 0)
            nanosleep(&nap, NULL);
        sync_due(r);
    }
    drain(r);
    return NULL;
}

es_recorder *es_recorder_open(const char *path, double sample_rate, int channels,
                              int exclusive, double ring_seconds, char *err, size_t n)
{
    es_recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, n, "%s: out of memory", path);
        return NULL;
    }
    r->channels = channels;
    const size_t frames = (size_t)((ring_seconds > 0 ? ring_seconds : 2.0) * sample_rate);
    r->chunk = calloc((size_t)WRITE_CHUNK * (size_t)channels, sizeof(float));
    r->planar = calloc((size_t)channels, sizeof *r->planar);
    if (es_frame_ring_init(&r->ring, channels, frames) != 0 || !r->chunk || !r->planar) {
        snprintf(err, n, "%s: out of memory for the recording ring", path);
        goto fail;
    }
    for (int c = 0; c < channels; c++)
        r->planar[c] = r->chunk + (size_t)c * WRITE_CHUNK;
    const es_write_spec spec = {.sample_rate = sample_rate, .channels = channels,
                                .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_LIVE,
                                .exclusive = exclusive};
    if (!(r->file = es_audiofile_create(path, &spec, err, n)))
        goto fail;
    if (es_thread_start(&r->thread, "es-recorder", writer, r) != 0) {
        snprintf(err, n, "%s: cannot start the writer thread", path);
        goto fail;
    }
    return r;
fail:
    es_audiofile_close(r->file);
    es_frame_ring_free(&r->ring);
    free(r->chunk);
    free(r->planar);
    free(r);
    return NULL;
}

uint64_t es_recorder_dropped(const es_recorder *r)
{
    return atomic_load(&((es_recorder *)r)->dropped);
}

uint64_t es_recorder_written(const es_recorder *r)
{
    return atomic_load(&((es_recorder *)r)->written);
}

int es_recorder_failed(const es_recorder *r, char *why, size_t n)
{
    const int code = atomic_load_explicit(&((es_recorder *)r)->failed, memory_order_acquire);
    if (code && why && n)
        snprintf(why, n, "%s", r->error);
    return code;
}

int es_recorder_finish(es_recorder *r, char *err, size_t n)
{
    if (!r || r->finished)
        return 0;
    r->finished = 1;
    atomic_store(&r->stop, 1);
    pthread_join(r->thread, NULL);
    int rc = 0;
    char commit_err[512] = "";
    /* Keep what was written even after a write error: finishing the file
     * writes its header (into the file's first block, which a full disk
     * has already), so the recorded part stays playable. */
    if (es_audiofile_commit(r->file, commit_err, sizeof commit_err) != 0) {
        snprintf(err, n, "%s", commit_err);
        rc = -1;
    }
    if (atomic_load_explicit(&r->failed, memory_order_acquire)) {
        snprintf(err, n, "%s (at least the %llu frames before it are kept)", r->error,
                 (unsigned long long)atomic_load(&r->written));
        rc = -1;
    }
    return rc;
}

void es_recorder_free(es_recorder *r)
{
    if (!r)
        return;
    char ignore[512];
    es_recorder_finish(r, ignore, sizeof ignore);
    es_audiofile_close(r->file);
    es_frame_ring_free(&r->ring);
    free(r->chunk);
    free(r->planar);
    free(r);
}
