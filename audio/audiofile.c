#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "audiofile.h"

/* Bytes of interleaved samples moved per libsndfile call (the interleave
 * buffer): 64 k frames of stereo float, one read or write call where 4096
 * frames made sixteen. */
#define CHUNK_BYTES (512 * 1024)

struct es_audiofile {
    SNDFILE *sf;
    char *path;        /* as given */
    char *temp;        /* writing: the name it gets in its folder just before
                          the rename; until commit, only while unnamed
                          files are not to be had (temp_fd < 0) */
    int temp_fd;       /* writing: the unnamed file (O_TMPFILE), or -1 */
    int channels;
    int chunk;         /* frames the interleave buffer holds */
    int64_t expected;  /* reading: frames the header promises */
    int64_t done;      /* frames read or written */
    float *interleaved;
};

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

static es_audiofile *alloc_file(const char *path, int channels)
{
    es_audiofile *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->path = strdup(path);
    f->channels = channels;
    f->temp_fd = -1;
    const size_t frame = sizeof(float) * (size_t)(channels > 0 ? channels : 1);
    f->chunk = CHUNK_BYTES / frame > 4096 ? (int)(CHUNK_BYTES / frame) : 4096;
    f->interleaved = malloc((size_t)f->chunk * frame);
    if (!f->path || !f->interleaved) {
        free(f->path);
        free(f->interleaved);
        free(f);
        return NULL;
    }
    return f;
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
    if (access(path, R_OK) != 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return NULL;
    }
    SF_INFO sfi = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &sfi);
    if (!sf) {
        snprintf(err, n, "%s: not a readable audio file (%s)", path, sf_strerror(NULL));
        return NULL;
    }
    long declared, actual;
    if (header_says_truncated(sf, &declared, &actual)) {
        snprintf(err, n, "%s: truncated: the header promises %ld bytes of audio, "
                 "the file holds %ld", path, declared, actual);
        sf_close(sf);
        return NULL;
    }
    if (sfi.channels < 1 || sfi.samplerate < 1) {
        snprintf(err, n, "%s: no channels or no sample rate in the header", path);
        sf_close(sf);
        return NULL;
    }
    es_audiofile *f = alloc_file(path, sfi.channels);
    if (!f) {
        snprintf(err, n, "%s: out of memory", path);
        sf_close(sf);
        return NULL;
    }
    f->sf = sf;
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
        for (sf_count_t t = 0; t < got; t++)
            for (int c = 0; c < f->channels; c++)
                planar[c][total + t] = f->interleaved[t * f->channels + c];
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

/* An unnamed file (O_TMPFILE) in path's folder, or -1. */
static int open_unnamed(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return -1;
    return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
}

es_audiofile *es_audiofile_create(const char *path, double sample_rate,
                                  int channels, es_sample_format format,
                                  char *err, size_t n)
{
    static const int subtype[] = {SF_FORMAT_FLOAT, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24};
    SF_INFO sfi = {
        .samplerate = (int)sample_rate,
        .channels = channels,
        .format = SF_FORMAT_WAV | subtype[format],
    };
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, n, "%s: cannot write: Is a directory", path);
        return NULL;
    }
    es_audiofile *f = alloc_file(path, channels);
    size_t len = strlen(path) + 32;
    if (!f || !(f->temp = malloc(len))) {
        snprintf(err, n, "%s: out of memory", path);
        es_audiofile_close(f);
        return NULL;
    }
    snprintf(f->temp, len, "%s.partial-%ld", path, (long)getpid());
    /* An unnamed file in the output's folder, named only when finished: a
     * render or an add stopped at any point (Ctrl-C, SIGTERM, kill -9, a
     * full disk) leaves nothing behind. Where the file system has no
     * unnamed files, the .partial name, removed on every way out but
     * kill -9. */
    f->temp_fd = open_unnamed(path);
    if (f->temp_fd >= 0)
        f->sf = sf_open_fd(f->temp_fd, SFM_WRITE, &sfi, SF_FALSE);
    else
        f->sf = sf_open(f->temp, SFM_WRITE, &sfi);
    if (!f->sf) {
        /* Say why in terms of the path the user gave, not our temp name. */
        FILE *probe = f->temp_fd >= 0 ? NULL : fopen(f->temp, "wb");
        const char *why = f->temp_fd >= 0 || probe ? sf_strerror(NULL) : strerror(errno);
        snprintf(err, n, "%s: cannot write: %s", path, why);
        if (probe) {
            fclose(probe);
            unlink(f->temp);
        }
        free(f->temp);
        f->temp = NULL;
        es_audiofile_close(f);
        return NULL;
    }
    /* Clip rather than wrap when a float signal above full scale goes to PCM. */
    sf_command(f->sf, SFC_SET_CLIPPING, NULL, SF_TRUE);
    return f;
}

int es_audiofile_write(es_audiofile *f, const float *const *planar, int frames,
                       char *err, size_t n)
{
    int done = 0;
    while (done < frames) {
        int chunk = frames - done < f->chunk ? frames - done : f->chunk;
        for (int t = 0; t < chunk; t++)
            for (int c = 0; c < f->channels; c++)
                f->interleaved[t * f->channels + c] = planar[c][done + t];
        if (sf_writef_float(f->sf, f->interleaved, chunk) != chunk) {
            snprintf(err, n, "%s: write failed: %s", f->path, sf_strerror(f->sf));
            return -1;
        }
        done += chunk;
    }
    f->done += frames;
    return 0;
}

int es_audiofile_commit(es_audiofile *f, char *err, size_t n)
{
    int rc = sf_close(f->sf);
    f->sf = NULL;
    if (rc != 0) {
        snprintf(err, n, "%s: closing failed: %s", f->path, sf_error_number(rc));
        return -1;
    }
    if (f->temp_fd >= 0) {
        /* Named beside the output, then renamed over it: the output is the
         * old file or the whole new one, never a part. */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", f->temp_fd);
        if (fsync(f->temp_fd) != 0 ||
            linkat(AT_FDCWD, self, AT_FDCWD, f->temp, AT_SYMLINK_FOLLOW) != 0) {
            snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
            return -1;
        }
        close(f->temp_fd);
        f->temp_fd = -1;
    }
    if (rename(f->temp, f->path) != 0) {
        snprintf(err, n, "%s: cannot move the finished file into place: %s", f->path,
                 strerror(errno));
        return -1;
    }
    free(f->temp);
    f->temp = NULL;
    return 0;
}

void es_audiofile_close(es_audiofile *f)
{
    if (!f)
        return;
    if (f->sf)
        sf_close(f->sf);
    if (f->temp_fd >= 0)
        close(f->temp_fd); /* an unnamed file: gone with its descriptor */
    else if (f->temp)
        unlink(f->temp);
    free(f->temp);
    free(f->path);
    free(f->interleaved);
    free(f);
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
