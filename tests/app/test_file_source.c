/* A 64-channel file as the live input: the reader's ring is held to 4 MB
 * of the channels, but never under four reads (64 channels at 48 kHz:
 * 0.68 s, where it was a second), so the reader must keep it full while a
 * callback takes block
 * after block at the stream's pace, and hand over every frame, in order,
 * when it is asked as fast as a freewheeling server asks. Each frame of
 * the file says which frame and channel it is. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "audiofile.h"
#include "file_source.h"

#define RATE 48000
#define CHANNELS 64
#define FRAMES (2 * RATE)
#define BLOCK 256

static float value(long t, int c)
{
    return (float)((t % 4096) * CHANNELS + c) / (4096.0f * CHANNELS);
}

static int make_file(const char *path)
{
    char err[512];
    const es_write_spec spec = {.sample_rate = RATE, .channels = CHANNELS,
                                .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_REPLACE,
                                .frames = FRAMES};
    es_audiofile *f = es_audiofile_create(path, &spec, err, sizeof err);
    static float chunk[CHANNELS][4096];
    float *planar[CHANNELS];
    for (int c = 0; c < CHANNELS; c++)
        planar[c] = chunk[c];
    for (long t0 = 0; f && t0 < FRAMES; t0 += 4096) {
        const int n = FRAMES - t0 < 4096 ? (int)(FRAMES - t0) : 4096;
        for (int c = 0; c < CHANNELS; c++)
            for (int t = 0; t < n; t++)
                chunk[c][t] = value(t0 + t, c);
        if (es_audiofile_write(f, (const float *const *)planar, n, err, sizeof err) != 0)
            break;
    }
    const int ok = f && es_audiofile_commit(f, err, sizeof err) == 0;
    es_audiofile_close(f);
    if (!ok)
        printf("FAIL making the file: %s\n", err);
    return ok;
}

/* `blocks` blocks from the source, each checked against the file; paced:
 * one a block's period apart, else back to back through fill_wait. */
static int play(const char *path, int blocks, int paced)
{
    char err[512];
    int channels = 0;
    es_file_source *s = es_file_source_open(path, RATE, &channels, err, sizeof err);
    if (!s || channels != CHANNELS) {
        printf("FAIL open: %s (channels %d)\n", s ? "" : err, channels);
        es_file_source_close(s);
        return 0;
    }
    static float out[CHANNELS][BLOCK];
    float *o[CHANNELS];
    for (int c = 0; c < CHANNELS; c++)
        o[c] = out[c];
    long wrong = 0, at = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int b = 0; b < blocks; b++, at += BLOCK) {
        if (paced) {
            next.tv_nsec += 1000000000L / RATE * BLOCK;
            while (next.tv_nsec >= 1000000000L) {
                next.tv_nsec -= 1000000000L;
                next.tv_sec++;
            }
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            es_file_source_fill(s, o, CHANNELS, BLOCK);
        } else {
            es_file_source_fill_wait(s, o, CHANNELS, BLOCK);
        }
        for (int c = 0; c < CHANNELS; c++)
            for (int t = 0; t < BLOCK; t++) {
                if (out[c][t] != value((at + t) % FRAMES, c) && !wrong)
                    printf("first wrong: frame %ld channel %d: %.8f, not %.8f\n", at + t, c,
                           out[c][t], value((at + t) % FRAMES, c));
                wrong += out[c][t] != value((at + t) % FRAMES, c);
            }
    }
    const unsigned long long starved = es_file_source_starved(s);
    const int ok = wrong == 0 && starved == 0 && es_file_source_error(s)[0] == 0;
    printf("%s %s: %d blocks of %d channels, %ld samples wrong, %llu frames starved%s%s\n",
           ok ? "ok  " : "FAIL", paced ? "paced" : "back to back", blocks, CHANNELS, wrong,
           starved, es_file_source_error(s)[0] ? ", error: " : "", es_file_source_error(s));
    es_file_source_close(s);
    return ok;
}

int main(void)
{
    char dir[] = "/tmp/es-fsrc-XXXXXX", path[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/in64.wav", dir);
    int ok = make_file(path);
    /* A second and a half at the stream's pace; then 3 s (the file looped
     * once) as fast as they are asked. */
    ok = ok && play(path, 3 * RATE / 2 / BLOCK, 1);
    ok = ok && play(path, 3 * RATE / BLOCK, 0);
    unlink(path);
    rmdir(dir);
    return ok ? 0 : 1;
}
