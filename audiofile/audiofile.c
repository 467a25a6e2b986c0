#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "audiofile_private.h"
#include "interleave.h"
#include "core/files.h"

/* Bytes of interleaved samples moved per libsndfile call (the interleave
 * buffer): 4 k frames of stereo float; at least CHUNK_FRAMES_MIN frames,
 * so that many channels still move a useful run a call (64 channels: 256
 * frames). More only holds memory: 128 and 512 KB measured no faster, and
 * a render holds one buffer for each file. */
#define CHUNK_BYTES (32 * 1024)
#define CHUNK_FRAMES_MIN 256

int es_sample_format_parse(const char *name)
{
    if (strcmp(name, "float") == 0)
        return ES_SAMPLE_FLOAT;
    if (strcmp(name, "pcm16") == 0)
        return ES_SAMPLE_PCM16;
    if (strcmp(name, "pcm24") == 0)
        return ES_SAMPLE_PCM24;
    return -1;
}

es_audiofile *es_audiofile_alloc(const char *path, int channels)
{
    es_audiofile *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->path = strdup(path);
    f->channels = channels;
    f->fd = -1;
    const size_t frame = sizeof(float) * (size_t)(channels > 0 ? channels : 1);
    f->chunk = CHUNK_BYTES / frame > CHUNK_FRAMES_MIN ? (int)(CHUNK_BYTES / frame)
                                                      : CHUNK_FRAMES_MIN;
    f->interleaved = malloc((size_t)f->chunk * frame);
    if (!f->path || !f->interleaved) {
        es_audiofile_free(f);
        return NULL;
    }
    return f;
}

void es_audiofile_free(es_audiofile *f)
{
    if (!f)
        return;
    free(f->path);
    free(f->dest);
    free(f->temp);
    free(f->interleaved);
    free(f);
}

/* libsndfile trusts a WAV header's sizes only as far as the file goes and
 * notes the difference in its log ("data : 8000 (should be 4912)"). A data
 * chunk shorter than declared is a truncated file. Streaming writers that
 * leave the size at 0 or 0xFFFFFFFF are not truncated, just unfinished. */
static int header_says_truncated(SNDFILE *sf, long *declared, long *actual)
{
    char log[8192] = "";
    sf_command(sf, SFC_GET_LOG_INFO, log, sizeof log);
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        long d, a;
        if (sscanf(line, "data : %ld (should be %ld)", &d, &a) == 2 && d > a &&
            d != 0xFFFFFFFFL && d != 0x7FFFFFFFL) {
            *declared = d;
            *actual = a;
            return 1;
        }
    }
    return 0;
}

es_audiofile *es_audiofile_open_read(const char *path, es_audio_info *info,
                                     char *err, size_t n)
{
    /* A regular file, checked without an open that could block (a FIFO
     * with no writer would hold the preparer, and so quit, for good). */
    const int fd = es_open_regular(path, err, n);
    if (fd < 0)
        return NULL;
    SF_INFO sfi = {0};
    SNDFILE *sf = sf_open_fd(fd, SFM_READ, &sfi, SF_FALSE);
    if (!sf) {
        snprintf(err, n, "%s: not a readable audio file (%s)", path, sf_strerror(NULL));
        close(fd);
        return NULL;
    }
    long declared, actual;
    const char *bad = NULL;
    if (header_says_truncated(sf, &declared, &actual))
        bad = "truncated";
    else if (sfi.channels < 1 || sfi.samplerate < 1)
        bad = "no channels or no sample rate in the header";
    es_audiofile *f = bad ? NULL : es_audiofile_alloc(path, sfi.channels);
    if (!f) {
        if (!bad)
            snprintf(err, n, "%s: out of memory", path);
        else if (!strcmp(bad, "truncated"))
            snprintf(err, n, "%s: truncated: the header promises %ld bytes of audio, "
                     "the file holds %ld", path, declared, actual);
        else
            snprintf(err, n, "%s: %s", path, bad);
        sf_close(sf);
        close(fd);
        return NULL;
    }
    f->sf = sf;
    f->fd = fd;
    f->target = TARGET_READ;
    f->expected = sfi.frames;
    info->sample_rate = sfi.samplerate;
    info->channels = sfi.channels;
    info->frames = sfi.frames;
    return f;
}

long es_audiofile_read(es_audiofile *f, float *const *planar, int frames,
                       char *err, size_t n)
{
    long total = 0;
    while (total < frames) {
        int want = frames - total < f->chunk ? frames - (int)total : f->chunk;
        sf_count_t got = sf_readf_float(f->sf, f->interleaved, want);
        if (got < 0 || sf_error(f->sf) != SF_ERR_NO_ERROR) {
            snprintf(err, n, "%s: read error: %s", f->path, sf_strerror(f->sf));
            return -1;
        }
        es_deinterleave(f->interleaved, f->channels, planar, total, (long)got);
        total += (long)got;
        f->done += got;
        if (got < want)
            break;
    }
    if (total < frames && f->done < f->expected) {
        snprintf(err, n, "%s: truncated: %lld of %lld frames could be read", f->path,
                 (long long)f->done, (long long)f->expected);
        return -1;
    }
    return total;
}

int es_audiofile_rewind(es_audiofile *f, char *err, size_t n)
{
    if (sf_seek(f->sf, 0, SEEK_SET) < 0) {
        snprintf(err, n, "%s: cannot go back to the start: %s", f->path, sf_strerror(f->sf));
        return -1;
    }
    f->done = 0;
    return 0;
}

int es_audiofile_load(const char *path, float ***channels, es_audio_info *info,
                      char *err, size_t n)
{
    es_audiofile *f = es_audiofile_open_read(path, info, err, n);
    if (!f)
        return -1;
    float **ch = calloc((size_t)info->channels, sizeof *ch);
    int ok = ch != NULL && info->frames < (int64_t)1 << 30;
    for (int c = 0; ok && c < info->channels; c++)
        ok = (ch[c] = calloc((size_t)info->frames + 1, sizeof(float))) != NULL;
    if (!ok) {
        snprintf(err, n, "%s: too long to load (%lld frames)", path, (long long)info->frames);
    } else {
        long got = es_audiofile_read(f, ch, (int)info->frames, err, n);
        if (got < 0)
            ok = 0;
        else
            info->frames = got;
    }
    es_audiofile_close(f);
    if (!ok) {
        for (int c = 0; ch && c < info->channels; c++)
            free(ch[c]);
        free(ch);
        return -1;
    }
    *channels = ch;
    return 0;
}

void es_audiofile_free_channels(float **channels, int count)
{
    for (int c = 0; channels && c < count; c++)
        free(channels[c]);
    free(channels);
}

void es_audiofile_close(es_audiofile *f)
{
    if (!f)
        return;
    if (f->sf)
        sf_close(f->sf); /* a recording's header is brought up to date here */
    if (f->fd >= 0)
        close(f->fd); /* an unnamed file is gone with its descriptor */
    if (f->target == TARGET_REPLACE && f->temp && !f->temp_unnamed)
        unlink(f->temp);
    es_audiofile_free(f);
}
