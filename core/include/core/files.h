/* Opening the files a person names. A path may be a FIFO whose writer
 * never comes, a terminal, a device node or a folder: open() on a FIFO
 * blocks for good, and reading /dev/zero never ends. earshot reads rooms,
 * inputs, settings, manifests and configurations from regular files only,
 * and checks that without a blocking open. Writes follow links to the
 * file they name (es_path_follow), so a link is kept and its target gets
 * the new contents. */
#ifndef ES_CORE_FILES_H
#define ES_CORE_FILES_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What a file is, in words: "a FIFO", "a character device", "a folder". */
const char *es_file_kind(mode_t mode);

/* Opens `path` for reading when it is a regular file (opened non-blocking,
 * checked with fstat, then made blocking). The descriptor (close-on-exec),
 * or -1 with "PATH: what is wrong" in err. */
int es_open_regular(const char *path, char *err, size_t n);
/* The same as a stream ("r"). */
FILE *es_fopen_regular(const char *path, char *err, size_t n);

/* The path a write to `path` lands on: symbolic links followed (up to 40,
 * relative ones from their own folder), whether or not the last one
 * exists. 0, or -1 with a message (a loop, a name too long). */
int es_path_follow(const char *path, char *out, size_t n, char *err, size_t en);

/* Makes `data` the whole contents of `path`, followed through links: a
 * temporary file beside the target, synced, then renamed over it, so the
 * target is the old contents or the new, never a part; an old file keeps
 * its permissions (new ones get `mode`). A target that exists and is not
 * a regular file (a FIFO, /dev/null) is refused, never replaced. 0, or -1
 * with "PATH: what is wrong". */
int es_file_replace(const char *path, const char *data, size_t len, mode_t mode, char *err,
                    size_t n);

/* Writes `data` as the whole of an output a person named, as audio files
 * are written (audiofile/audiofile.h): a regular file (or none) through
 * es_file_replace; a FIFO or a device written into, never replaced (a
 * FIFO that no program reads is said, not waited on); "-" is standard
 * output. 0, or -1 with "PATH: what is wrong". */
/* All of len bytes to (from) fd, across short writes (reads) and EINTR:
 * 0, or -1 (errno says why; a read that met the end leaves it 0). */
int es_fd_write_all(int fd, const void *data, size_t len);
int es_fd_read_all(int fd, void *data, size_t len);
int es_file_write_out(const char *path, const char *data, size_t len, char *err, size_t n);
/* A node that is not a regular file (a FIFO, a device), opened for writing
 * without waiting on it, then blocking for the writes. A FIFO that no
 * program reads yet is tried again for ES_FIFO_GRACE_MS: a reader a shell
 * started just before (`cat FIFO &`) may not have opened it yet; after
 * that it is no reader at all, not a wait for good. The descriptor, or -1
 * with errno (ENXIO: still no reader). */
#define ES_FIFO_GRACE_MS 2000
int es_open_node_for_writing(const char *path);

/* 1 when a and b name the same existing file (device and inode, links
 * followed: dir/../x.wav, a link), else 0. "-" is standard output, no
 * file's name. */
int es_same_file(const char *a, const char *b);

/* Standard input, output and error opened on /dev/null where they are
 * closed, as OpenSSH and daemons do before anything else opens a file:
 * otherwise the next file opened takes descriptor 0, 1 or 2, and a read
 * of standard input reads it (`--commands <&-` took commands from the
 * input WAV) or a message to standard error lands in it (`2>&-` wrote
 * text into a recording). 0, or -1 when /dev/null cannot be opened. */
int es_std_streams_guard(void);

/* A path under an XDG base folder, as the XDG Base Directory spec has it:
 * `$VARIABLE/TAIL` when the variable holds an absolute path (a relative
 * one is invalid and ignored), else `$HOME/HOME_DEFAULT/TAIL`
 * ("XDG_CACHE_HOME", ".cache", "earshot/measured"). 0, or -1 when neither
 * is set or the path does not fit. */
int es_xdg_path(char *out, size_t n, const char *variable, const char *home_default,
                const char *tail);

/* The folder part of a path ("." when it has none, "/" for the root). */
void es_path_dir(const char *path, char *out, size_t n);

#endif
