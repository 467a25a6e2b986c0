/* Writing audio files: where the samples land decides how (audiofile.h).
 * A regular file is replaced whole on commit or, for a recording, written
 * under its name and synced as it grows; a FIFO, a device node or
 * standard output gets a stream and is never replaced. */
#define _GNU_SOURCE /* O_TMPFILE, linkat's AT_SYMLINK_FOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audiofile_private.h"
#include "interleave.h"
#include "core/files.h"

static const int subtypes[] = {SF_FORMAT_FLOAT, SF_FORMAT_PCM_16, SF_FORMAT_PCM_24};
static const int sample_bytes[] = {4, 2, 3};

/* An unnamed file (O_TMPFILE) in `dir`, or -1. */
static int open_unnamed(const char *dir, mode_t mode)
{
    return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

/* TARGET_REPLACE and TARGET_LIVE: an unnamed file in the target's folder,
 * named on commit (a recording: as soon as its header is written).
 * Where the file system has no unnamed files, a .partial name, removed on
 * every way out but kill -9. The new file keeps the old one's permissions,
 * as `install` and `sponge` do. */
static int open_replace(es_audiofile *f, const struct stat *old, char *err, size_t n)
{
    char dir[4096];
    es_path_dir(f->dest, dir, sizeof dir);
    const mode_t mode = old ? old->st_mode & 07777 : 0644;
    const size_t len = strlen(f->dest) + 32;
    if (!(f->temp = malloc(len))) {
        snprintf(err, n, "%s: out of memory", f->path);
        return -1;
    }
    snprintf(f->temp, len, "%s.partial-%ld", f->dest, (long)getpid());
    f->fd = open_unnamed(dir, mode);
    f->temp_unnamed = f->fd >= 0;
    if (f->fd < 0)
        f->fd = open(f->temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (f->fd < 0) {
        snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
        free(f->temp);
        f->temp = NULL;
        return -1;
    }
    if (old)
        (void)!fchmod(f->fd, mode); /* past the umask, as the old file was */
    return 0;
}

/* TARGET_STREAM: the node as it is (es_open_node_for_writing: a FIFO that
 * no program reads is said after a short grace, not waited on for good). */
static int open_stream(es_audiofile *f, char *err, size_t n)
{
    if (!strcmp(f->path, "-")) {
        if (isatty(STDOUT_FILENO)) {
            snprintf(err, n, "-: standard output is a terminal; name a file or redirect it");
            return -1;
        }
        f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    } else {
        f->fd = es_open_node_for_writing(f->dest);
        if (f->fd < 0 && errno == ENXIO) {
            snprintf(err, n, "%s: no program has the FIFO open for reading", f->path);
            return -1;
        }
        if (f->fd >= 0 && isatty(f->fd)) {
            snprintf(err, n, "%s: a terminal; name a file", f->path);
            close(f->fd);
            f->fd = -1;
            return -1;
        }
    }
    if (f->fd < 0) {
        snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
        return -1;
    }
    return 0;
}

static void put_le(unsigned char *at, uint32_t v, int bytes)
{
    for (int k = 0; k < bytes; k++)
        at[k] = (unsigned char)(v >> (8 * k));
}

/* A stream's WAV header, written before the samples: the sizes when the
 * length is known and fits, else 0xFFFFFFFF, which readers (libsndfile,
 * sox, FFmpeg) take as "to the end of the stream". */
static int write_stream_header(es_audiofile *f, const es_write_spec *spec, char *err,
                               size_t n)
{
    unsigned char h[44];
    const uint32_t align = (uint32_t)(spec->channels * sample_bytes[spec->format]);
    const uint64_t data = (uint64_t)(spec->frames > 0 ? spec->frames : 0) * align;
    const uint32_t data_size = spec->frames > 0 && data <= 0xFFFFFFFFu - 36
                                   ? (uint32_t)data : 0xFFFFFFFFu;
    memcpy(h, "RIFF", 4);
    put_le(h + 4, data_size == 0xFFFFFFFFu ? data_size : data_size + 36, 4);
    memcpy(h + 8, "WAVEfmt ", 8);
    put_le(h + 16, 16, 4);
    put_le(h + 20, spec->format == ES_SAMPLE_FLOAT ? 3 : 1, 2); /* IEEE float or PCM */
    put_le(h + 22, (uint32_t)spec->channels, 2);
    put_le(h + 24, (uint32_t)spec->sample_rate, 4);
    put_le(h + 28, (uint32_t)spec->sample_rate * align, 4);
    put_le(h + 32, align, 2);
    put_le(h + 34, 8 * (uint32_t)sample_bytes[spec->format], 2);
    memcpy(h + 36, "data", 4);
    put_le(h + 40, data_size, 4);
    for (size_t done = 0; done < sizeof h;) {
        const ssize_t got = write(f->fd, h + done, sizeof h - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
            return -1;
        }
        done += (size_t)got;
    }
    return 0;
}

/* The written file takes the target's name: named beside it, then renamed
 * over it, so the target is the old file or the whole new one, never a
 * part. An exclusive file is linked to the name instead, which fails when
 * the name exists: never a file replaced that earshot did not make. */
static int put_in_place(es_audiofile *f, char *err, size_t n)
{
    /* A file that replaces one goes onto the disk before it takes the
     * name: a rename can reach the disk before the data, and a power cut
     * would then leave neither file. So does an exclusive one (the
     * library's WAVs, the takes): a synced manifest or list names it. A
     * render to a new name holds nothing of the user's: its data is left
     * to the kernel's writeback, as cp and FFmpeg leave theirs (a sync
     * would charge the whole write-back to this process's CPU time). */
    struct stat old;
    if ((f->exclusive || stat(f->dest, &old) == 0) && fsync(f->fd) != 0) {
        snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
        return -1;
    }
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", f->fd);
    if (f->exclusive) {
        const int linked = f->temp_unnamed
                               ? linkat(AT_FDCWD, self, AT_FDCWD, f->dest, AT_SYMLINK_FOLLOW)
                               : link(f->temp, f->dest);
        if (linked != 0) {
            snprintf(err, n, "%s: %s", f->path,
                     errno == EEXIST ? "exists already" : strerror(errno));
            return -1;
        }
        if (!f->temp_unnamed)
            unlink(f->temp);
        f->temp_unnamed = 0;
        free(f->temp);
        f->temp = NULL;
        return 0;
    }
    if (f->temp_unnamed) {
        if (linkat(AT_FDCWD, self, AT_FDCWD, f->temp, AT_SYMLINK_FOLLOW) != 0) {
            snprintf(err, n, "%s: cannot write: %s", f->path, strerror(errno));
            return -1;
        }
        f->temp_unnamed = 0; /* named now: removed if the rename fails */
    }
    if (rename(f->temp, f->dest) != 0) {
        snprintf(err, n, "%s: cannot move the finished file into place: %s", f->path,
                 strerror(errno));
        return -1;
    }
    free(f->temp);
    f->temp = NULL;
    return 0;
}

/* A stream through libsndfile's virtual I/O: writes go straight to the
 * descriptor, and its position is the bytes written so far, so a stream
 * after our header, or standard output redirected into the middle of a
 * file, is never taken for a file with something embedded before it.
 * Nothing here seeks: a raw stream is written front to back. */
static sf_count_t stream_length(void *user)
{
    return ((es_audiofile *)user)->stream_bytes;
}

static sf_count_t stream_seek(sf_count_t offset, int whence, void *user)
{
    es_audiofile *f = user;
    const sf_count_t at = whence == SEEK_SET ? offset
                          : whence == SEEK_CUR ? f->stream_bytes + offset
                                               : f->stream_bytes + offset;
    return at == f->stream_bytes ? at : -1;
}

static sf_count_t stream_read(void *ptr, sf_count_t count, void *user)
{
    (void)ptr, (void)count, (void)user;
    return 0;
}

static sf_count_t stream_write(const void *ptr, sf_count_t count, void *user)
{
    es_audiofile *f = user;
    const char *at = ptr;
    sf_count_t done = 0;
    while (done < count) {
        const ssize_t got = write(f->fd, at + done, (size_t)(count - done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* errno says why; libsndfile reports a short write */
        done += got;
    }
    f->stream_bytes += done;
    return done;
}

static sf_count_t stream_tell(void *user)
{
    return ((es_audiofile *)user)->stream_bytes;
}

/* Where the write lands and what it is; 0, or -1 with a message. */
static int pick_target(es_audiofile *f, const es_write_spec *spec, struct stat *st,
                       int *exists, char *err, size_t n)
{
    char dest[4096];
    if (!strcmp(f->path, "-")) {
        f->target = TARGET_STREAM;
        return (f->dest = strdup("-")) ? 0 : -1;
    }
    if (es_path_follow(f->path, dest, sizeof dest, err, n) != 0)
        return -1;
    if (!(f->dest = strdup(dest))) {
        snprintf(err, n, "%s: out of memory", f->path);
        return -1;
    }
    *exists = stat(dest, st) == 0;
    if (*exists && S_ISDIR(st->st_mode)) {
        snprintf(err, n, "%s: cannot write: Is a directory", f->path);
        return -1;
    }
    if (*exists && spec->exclusive) {
        snprintf(err, n, "%s: exists already", f->path);
        return -1;
    }
    if (*exists && !S_ISREG(st->st_mode))
        f->target = TARGET_STREAM;
    else
        f->target = spec->mode == ES_WRITE_LIVE ? TARGET_LIVE : TARGET_REPLACE;
    return 0;
}

es_audiofile *es_audiofile_create(const char *path, const es_write_spec *spec, char *err,
                                  size_t n)
{
    es_audiofile *f = es_audiofile_alloc(path, spec->channels);
    if (!f) {
        snprintf(err, n, "%s: out of memory", path);
        return NULL;
    }
    struct stat st;
    int exists = 0, rc;
    if (pick_target(f, spec, &st, &exists, err, n) != 0)
        goto fail;
    f->exclusive = spec->exclusive;
    rc = f->target == TARGET_STREAM ? open_stream(f, err, n)
                                    : open_replace(f, exists ? &st : NULL, err, n);
    if (rc != 0)
        goto fail;
    SF_INFO sfi = {.samplerate = (int)spec->sample_rate, .channels = spec->channels};
    if (f->target == TARGET_STREAM) {
        /* libsndfile cannot stream a WAV (it goes back to the header at the
         * end): the header is ours, the samples its raw little-endian
         * ones, converted and clipped as in a file. */
        if (write_stream_header(f, spec, err, n) != 0)
            goto fail;
        sfi.format = SF_FORMAT_RAW | SF_ENDIAN_LITTLE | subtypes[spec->format];
    } else {
        sfi.format = SF_FORMAT_WAV | subtypes[spec->format];
    }
    static SF_VIRTUAL_IO stream_io = {stream_length, stream_seek, stream_read, stream_write,
                                      stream_tell};
    f->sf = f->target == TARGET_STREAM ? sf_open_virtual(&stream_io, SFM_WRITE, &sfi, f)
                                       : sf_open_fd(f->fd, SFM_WRITE, &sfi, SF_FALSE);
    if (!f->sf) {
        snprintf(err, n, "%s: cannot write: %s", path, sf_strerror(NULL));
        goto fail;
    }
    /* Clip rather than wrap when a float signal above full scale goes to PCM. */
    sf_command(f->sf, SFC_SET_CLIPPING, NULL, SF_TRUE);
    /* No PEAK chunk in a float WAV: an optional note of each channel's
     * peak that few readers use, and libsndfile finds it with a compare
     * per sample, a channel at a time (a seventh of a 64-channel
     * render's CPU time, measured). */
    sf_command(f->sf, SFC_SET_ADD_PEAK_CHUNK, NULL, SF_FALSE);
    /* A recording takes its name now, a valid empty WAV: an old file of
     * that name is replaced only once the new one exists. */
    if (f->target == TARGET_LIVE && put_in_place(f, err, n) != 0)
        goto fail;
    return f;
fail:
    es_audiofile_close(f);
    return NULL;
}

int es_audiofile_write(es_audiofile *f, const float *const *planar, int frames,
                       char *err, size_t n)
{
    int done = 0;
    while (done < frames) {
        int chunk = frames - done < f->chunk ? frames - done : f->chunk;
        es_interleave(planar, done, f->channels, f->interleaved, chunk);
        errno = 0;
        if (sf_writef_float(f->sf, f->interleaved, chunk) != chunk) {
            f->write_errno = errno ? errno : EIO;
            snprintf(err, n, "%s: write failed: %s", f->path,
                     errno ? strerror(errno) : sf_strerror(f->sf));
            return -1;
        }
        done += chunk;
    }
    f->done += frames;
    return 0;
}

int es_audiofile_write_errno(const es_audiofile *f)
{
    return f->write_errno;
}

int es_audiofile_sync(es_audiofile *f, char *err, size_t n)
{
    if (f->target != TARGET_LIVE || !f->sf)
        return 0;
    /* The header's sizes first, then both onto the disk: after a kill -9
     * or a power cut the file plays to here. */
    sf_command(f->sf, SFC_UPDATE_HEADER_NOW, NULL, 0);
    if (fdatasync(f->fd) != 0) {
        if (!f->write_errno)
            f->write_errno = errno;
        snprintf(err, n, "%s: cannot sync: %s", f->path, strerror(errno));
        return -1;
    }
    return 0;
}

int es_audiofile_commit(es_audiofile *f, char *err, size_t n)
{
    const int rc = sf_close(f->sf);
    f->sf = NULL;
    if (rc != 0) {
        snprintf(err, n, "%s: closing failed: %s", f->path, sf_error_number(rc));
        return -1;
    }
    if (f->target == TARGET_REPLACE && put_in_place(f, err, n) != 0)
        return -1;
    /* A recording is in place already; what it holds goes onto the disk. */
    if (f->target == TARGET_LIVE && fsync(f->fd) != 0) {
        snprintf(err, n, "%s: cannot sync: %s", f->path, strerror(errno));
        return -1;
    }
    return 0;
}
