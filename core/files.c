#define _GNU_SOURCE /* O_CLOEXEC, readlink */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/files.h"

const char *es_file_kind(mode_t mode)
{
    return S_ISREG(mode)    ? "a regular file"
           : S_ISDIR(mode)  ? "a folder"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

int es_open_regular(const char *path, char *err, size_t n)
{
    /* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer;
     * O_NOCTTY: a terminal named by mistake does not become ours. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, n, "%s: %s, not a regular file", path, es_file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

FILE *es_fopen_regular(const char *path, char *err, size_t n)
{
    const int fd = es_open_regular(path, err, n);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

int es_fd_write_all(int fd, const void *data, size_t len)
{
    const char *at = data;
    while (len) {
        const ssize_t got = write(fd, at, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        at += got;
        len -= (size_t)got;
    }
    return 0;
}

int es_fd_read_all(int fd, void *data, size_t len)
{
    char *at = data;
    while (len) {
        const ssize_t got = read(fd, at, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        at += got;
        len -= (size_t)got;
    }
    return 0;
}

int es_open_node_for_writing(const char *path)
{
    int fd = -1;
    for (int waited = 0;; waited += 10) {
        fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO || waited >= ES_FIFO_GRACE_MS)
            break;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    if (fd < 0)
        return -1;
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)!fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int es_file_write_out(const char *path, const char *data, size_t len, char *err, size_t n)
{
    if (!strcmp(path, "-")) {
        if (es_fd_write_all(STDOUT_FILENO, data, len) != 0) {
            snprintf(err, n, "-: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    char target[4096];
    struct stat st;
    if (es_path_follow(path, target, sizeof target, err, n) != 0)
        return -1;
    if (stat(target, &st) != 0 || S_ISREG(st.st_mode))
        return es_file_replace(path, data, len, 0644, err, n);
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, n, "%s: a folder", path);
        return -1;
    }
    const int fd = es_open_node_for_writing(target);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path,
                 errno == ENXIO ? "no program has the FIFO open for reading" : strerror(errno));
        return -1;
    }
    const int rc = es_fd_write_all(fd, data, len);
    const int saved = errno;
    close(fd);
    if (rc != 0) {
        snprintf(err, n, "%s: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

int es_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, "-") || !strcmp(b, "-") || stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int es_file_replace(const char *path, const char *data, size_t len, mode_t mode, char *err,
                    size_t n)
{
    char target[4096], tmp[4200];
    if (es_path_follow(path, target, sizeof target, err, n) != 0)
        return -1;
    struct stat st;
    if (stat(target, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, n, "%s: %s, not a regular file; left as it is", path,
                     es_file_kind(st.st_mode));
            return -1;
        }
        mode = st.st_mode & 07777;
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", target);
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        const ssize_t got = write(fd, data + done, len - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    const int ok = done == len && fchmod(fd, mode) == 0 && fsync(fd) == 0;
    const int saved = errno;
    if (close(fd) != 0 || !ok || rename(tmp, target) != 0) {
        snprintf(err, n, "%s: %s", path, strerror(ok ? errno : saved ? saved : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

void es_path_dir(const char *path, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, n, ".");
    else if (slash == path)
        snprintf(out, n, "/");
    else
        snprintf(out, n, "%.*s", (int)(slash - path), path);
}

int es_path_follow(const char *path, char *out, size_t n, char *err, size_t en)
{
    char here[4096], target[4096], dir[4096];
    if (snprintf(here, sizeof here, "%s", path) >= (int)sizeof here) {
        snprintf(err, en, "%.200s...: the path is too long", path);
        return -1;
    }
    for (int hops = 0; hops <= 40; hops++) {
        struct stat st;
        if (lstat(here, &st) != 0 || !S_ISLNK(st.st_mode)) {
            if (snprintf(out, n, "%s", here) >= (int)n) {
                snprintf(err, en, "%s: the path its links lead to is too long", path);
                return -1;
            }
            return 0;
        }
        const ssize_t len = readlink(here, target, sizeof target - 1);
        if (len < 0) {
            snprintf(err, en, "%s: %s", path, strerror(errno));
            return -1;
        }
        target[len] = 0;
        if (target[0] == '/') {
            memcpy(here, target, (size_t)len + 1);
        } else {
            es_path_dir(here, dir, sizeof dir);
            if (snprintf(here, sizeof here, "%s/%s", dir, target) >= (int)sizeof here) {
                snprintf(err, en, "%s: the path its links lead to is too long", path);
                return -1;
            }
        }
    }
    snprintf(err, en, "%s: %s", path, strerror(ELOOP));
    return -1;
}

int es_xdg_path(char *out, size_t n, const char *variable, const char *home_default,
                const char *tail)
{
    const char *xdg = getenv(variable), *home = getenv("HOME");
    int w;
    if (xdg && xdg[0] == '/')
        w = snprintf(out, n, "%s/%s", xdg, tail);
    else if (home && home[0])
        w = snprintf(out, n, "%s/%s/%s", home, home_default, tail);
    else
        return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int es_std_streams_guard(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        /* open() returns the lowest free descriptor, which is this one:
         * every one below it is open by now. */
        const int null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null < 0)
            return -1;
        if (null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
    return 0;
}
