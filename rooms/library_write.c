/* Writing a folder of the library: a room's WAV (or a matrix room's
 * configuration and WAVs, or a file kept as it is: copied, or staged in
 * the folder beforehand and renamed) under a name no file has, and the
 * manifest replaced whole, both under the folder's lock. Two
 * earshots adding rooms at once each read the manifest the other wrote;
 * without the lock each would append to the same old one and one room
 * would be lost. */
#define _GNU_SOURCE /* flock, renameat2 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audiofile.h"
#include "core/files.h"
#include "library.h"
#include "library_private.h"

#define LOCK_WAIT_S 30     /* another earshot holding the folder longer is said */
#define FILE_NAME_TRIES 1000

int es_library_make_dir(const char *dir, char *err, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                break;
            *p = '/';
        }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, n, "%s: cannot create the folder: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The folder's lock: flock on the folder itself (no lock file left in
 * it), waited for up to LOCK_WAIT_S. The descriptor, or -1 (said). */
static int lock_folder(const char *dir, char *err, size_t n)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", dir, strerror(errno));
        return -1;
    }
    const struct timespec nap = {0, 10000000};
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
        if (errno != EWOULDBLOCK || tries >= LOCK_WAIT_S * 100) {
            snprintf(err, n, "%s: cannot lock the folder: %s", dir,
                     errno == EWOULDBLOCK ? "another earshot holds it" : strerror(errno));
            close(fd);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
    return fd;
}

static void unlock_folder(int fd)
{
    if (fd >= 0)
        close(fd); /* the lock goes with the descriptor */
}

/* One room's lines: [name], then file and each field it has. Every
 * field was checked to be one line with no control character. */
static void write_entry(FILE *f, const es_room *r, const char *file_name)
{
    fprintf(f, "\n[%s]\nfile = %s\n", r->name, file_name);
    if (r->description && r->description[0])
        fprintf(f, "description = %s\n", r->description);
    if (r->source && r->source[0])
        fprintf(f, "source = %s\n", r->source);
    if (r->licence && r->licence[0])
        fprintf(f, "licence = %s\n", r->licence);
    if (r->layout[0])
        fprintf(f, "layout = %s\n", r->layout);
    if (r->gain_db != 0)
        fprintf(f, "gain = %g\n", r->gain_db);
    if (r->predelay_ms != 0)
        fprintf(f, "predelay = %g\n", r->predelay_ms);
    if (r->input_names && r->input_names[0])
        fprintf(f, "input-names = %s\n", r->input_names);
    if (r->output_names && r->output_names[0])
        fprintf(f, "output-names = %s\n", r->output_names);
}

/* The manifest rewritten: `keep_old` copies the old one's bytes first,
 * then each room's entry. Written whole beside the manifest (followed
 * through a link: the link stays, its target is replaced), synced, and
 * renamed over it, so a failure at any step (a full disk, `ulimit -f`)
 * leaves the old one as it was. Called with the folder locked. */
static int rewrite_manifest(const char *dir, int keep_old, const es_room *rooms,
                            const char *const *files, int count, char *err, size_t n)
{
    char where[1200], target[4096], temp[4200];
    snprintf(where, sizeof where, "%s/" ES_MANIFEST, dir);
    if (es_path_follow(where, target, sizeof target, err, n) != 0)
        return -1;
    snprintf(temp, sizeof temp, "%s.partial-%ld", target, (long)getpid());
    FILE *old = NULL;
    struct stat st;
    const int had = stat(target, &st) == 0;
    if (keep_old && had && !(old = es_fopen_regular(target, err, n)))
        return -1;
    FILE *f = fopen(temp, "w");
    if (!f) {
        snprintf(err, n, "%s: cannot write: %s", where, strerror(errno));
        if (old)
            fclose(old);
        return -1;
    }
    if (had)
        (void)!fchmod(fileno(f), st.st_mode & 07777);
    char chunk[8192];
    size_t got;
    int failed = 0;
    while (old && (got = fread(chunk, 1, sizeof chunk, old)) > 0)
        failed |= fwrite(chunk, 1, got, f) != got;
    failed |= old && ferror(old);
    if (old)
        fclose(old);
    for (int i = 0; i < count; i++)
        write_entry(f, &rooms[i], files[i]);
    failed |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    const int saved = errno;
    failed |= fclose(f) != 0;
    if (failed || rename(temp, target) != 0) {
        snprintf(err, n, "%s: write failed: %s", where, strerror(failed ? saved : errno));
        unlink(temp);
        return -1;
    }
    return 0;
}

int es_library_write_manifest(const char *dir, const es_room *rooms, int count, char *err,
                              size_t n)
{
    const char **files = calloc((size_t)(count > 0 ? count : 1), sizeof *files);
    if (!files) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    for (int i = 0; i < count; i++)
        files[i] = rooms[i].path;
    int rc = -1;
    const int lock = es_library_make_dir(dir, err, n) == 0 ? lock_folder(dir, err, n) : -1;
    if (lock >= 0)
        rc = rewrite_manifest(dir, 0, rooms, files, count, err, n);
    unlock_folder(lock);
    free(files);
    return rc;
}

/* Writes the channels as DIR/FILE, a name no file has: 0, 1 when a file
 * holds the name (try another), -1 on any other failure (said). */
static int write_fresh(const char *path, float *const *ch, int channels, int frames,
                       double rate, char *err, size_t n)
{
    struct stat st;
    if (lstat(path, &st) == 0)
        return 1;
    const es_write_spec spec = {.sample_rate = rate, .channels = channels,
                                .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_REPLACE,
                                .exclusive = 1};
    es_audiofile *f = es_audiofile_create(path, &spec, err, n);
    int rc = f && es_audiofile_write(f, (const float *const *)ch, frames, err, n) == 0 &&
                     es_audiofile_commit(f, err, n) == 0
                 ? 0 : -1;
    es_audiofile_close(f);
    /* Our file is at `path` only once committed: a file there after a
     * failure took the name meanwhile. */
    if (rc != 0 && lstat(path, &st) == 0)
        return 1;
    return rc;
}


/* A file written to `fd` made durable and closed: rc as it was, or -1
 * (said in err, naming `path`) when the sync or the close fails. */
static int write_done(int fd, const char *path, int rc, char *err, size_t n)
{
    if (rc == 0 && fsync(fd) != 0) {
        snprintf(err, n, "%s: write failed: %s", path, strerror(errno));
        rc = -1;
    }
    if (close(fd) != 0 && rc == 0) {
        snprintf(err, n, "%s: write failed: %s", path, strerror(errno));
        rc = -1;
    }
    return rc;
}
/* A copy of `from`, byte for byte, made at `path` only if no file is
 * there (O_EXCL) and synced: 0, 1 when the name is taken, -1 said. A copy
 * cut short (a full disk) is removed. */
static int copy_fresh(const char *path, const char *from, char *err, size_t n)
{
    char why[600];
    FILE *in = es_fopen_regular(from, why, sizeof why);
    if (!in) {
        snprintf(err, n, "%s", why);
        return -1;
    }
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        fclose(in);
        if (errno == EEXIST)
            return 1;
        snprintf(err, n, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    char buf[65536];
    size_t got;
    int rc = 0;
    while (rc == 0 && (got = fread(buf, 1, sizeof buf, in)) > 0)
        if (es_fd_write_all(fd, buf, got) != 0) {
            snprintf(err, n, "%s: write failed: %s", path, strerror(errno));
            rc = -1;
        }
    if (rc == 0 && ferror(in)) {
        snprintf(err, n, "%s: read failed", from);
        rc = -1;
    }
    rc = write_done(fd, path, rc, err, n);
    fclose(in);
    if (rc != 0)
        unlink(path);
    return rc;
}

/* The suffix of `name` (".sofa"), or "" when its last part has none. */
static const char *suffix_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && !strchr(dot, '/') ? dot : "";
}

/* All that `from` reads, to `fd`. 0, or -1 said. */
static int copy_fd(int from, const char *name, int fd, const char *to, char *err, size_t n)
{
    char buf[65536];
    for (;;) {
        const ssize_t got = read(from, buf, sizeof buf);
        if (got == 0)
            return 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(err, n, "%s: read failed: %s", name, strerror(errno));
            return -1;
        }
        if (es_fd_write_all(fd, buf, (size_t)got) != 0) {
            snprintf(err, n, "%s: write failed: %s", to, strerror(errno));
            return -1;
        }
    }
}

/* `from` (a staged file, es_library_stage) renamed to `path`, never over
 * a file that is there: 0, 1 when the name is taken, -1 said. */
static int move_fresh(const char *path, const char *from, char *err, size_t n)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno == EEXIST)
        return 1;
    /* A file system without RENAME_NOREPLACE: a link, which never
     * replaces either, then the staged name gone. */
    if (errno == EINVAL || errno == ENOSYS) {
        if (link(from, path) == 0) {
            unlink(from);
            return 0;
        }
        if (errno == EEXIST)
            return 1;
    }
    snprintf(err, n, "%s: cannot put it in place: %s", path, strerror(errno));
    return -1;
}

/* What a room's files are: a WAV of channels, a matrix room, or a file
 * kept as it is (a SOFA set). */
typedef struct {
    float *const *ch;
    int channels, frames;
    double rate;
    int inputs, outputs; /* a matrix room: ch holds its paths (NULL: none) */
    const char *copy_from; /* a file copied as it is, its suffix kept */
    const char *move_from; /* a staged file, moved in, its suffix kept */
} room_data;

/* ---- a matrix room: BASE.conf and BASE.paths/inNN.wav ---- */

/* Removes what write_matrix made of BASE (every file it names). */
static void remove_matrix(const char *dir, const char *base, int inputs)
{
    char path[1400];
    for (int i = 1; i <= inputs; i++) {
        snprintf(path, sizeof path, "%s/%s.paths/in%02d.wav", dir, base, i);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/%s.paths", dir, base);
    rmdir(path);
    snprintf(path, sizeof path, "%s/%s.conf", dir, base);
    unlink(path);
}

/* Input i's paths as the channels of BASE.paths/inNN.wav, in output
 * order, and the configuration's lines that read them. 0 or -1 said. */
static int write_input(const char *dir, const char *base, const room_data *d, int i, FILE *conf,
                       char *err, size_t n)
{
    float *const *row = d->ch + (size_t)i * (size_t)d->outputs;
    const float **ch = malloc((size_t)d->outputs * sizeof *ch);
    if (!ch) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    int count = 0;
    for (int o = 0; o < d->outputs; o++)
        if (row[o]) {
            ch[count++] = row[o];
            fprintf(conf, "/impulse/read %2d %2d  1 0 0 0 %2d  %s.paths/in%02d.wav\n", i + 1,
                    o + 1, count, base, i + 1);
        }
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.paths/in%02d.wav", dir, base, i + 1);
    const es_write_spec spec = {.sample_rate = d->rate, .channels = count,
                                .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_REPLACE,
                                .exclusive = 1};
    es_audiofile *f = count ? es_audiofile_create(path, &spec, err, n) : NULL;
    const int rc = !count || (f && es_audiofile_write(f, (const float *const *)ch, d->frames, err,
                                                      n) == 0 &&
                              es_audiofile_commit(f, err, n) == 0)
                       ? 0 : -1;
    es_audiofile_close(f);
    free(ch);
    return rc;
}

/* Writes the matrix as DIR/BASE.conf, in jconvolver's language so that
 * jconvolver and fconvolver read it too (from DIR), naming each input's
 * WAV in DIR/BASE.paths: 0, 1 when BASE is taken, -1 (said, nothing left). */
static int write_matrix(const char *dir, const char *base, const room_data *d, const es_room *r,
                        char *err, size_t n)
{
    char conf_path[1400], folder[1400];
    snprintf(conf_path, sizeof conf_path, "%s/%s.conf", dir, base);
    snprintf(folder, sizeof folder, "%s/%s.paths", dir, base);
    struct stat st;
    if (lstat(conf_path, &st) == 0 || lstat(folder, &st) == 0)
        return 1;
    if (mkdir(folder, 0755) != 0) {
        if (errno == EEXIST)
            return 1;
        snprintf(err, n, "%s: cannot create the folder: %s", folder, strerror(errno));
        return -1;
    }
    const int fd = open(conf_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *conf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!conf) {
        const int taken = errno == EEXIST;
        if (fd >= 0)
            close(fd);
        else
            snprintf(err, n, "%s: cannot write: %s", conf_path, strerror(errno));
        rmdir(folder);
        return taken ? 1 : -1;
    }
    int filters = 0;
    for (int p = 0; p < d->inputs * d->outputs; p++)
        filters += d->ch[p] != NULL;
    fprintf(conf,
            "# earshot's room '%s': a %d x %d matrix of %d filter%s, %d frames at %g Hz.\n"
            "# Each input's filters are the channels of its WAV in %s.paths, in\n"
            "# output order. jconvolver reads it too, run from this folder.\n"
            "/convolver/new %d %d 1024 %d\n",
            r->name, d->inputs, d->outputs, filters, filters == 1 ? "" : "s", d->frames, d->rate,
            base, d->inputs, d->outputs, d->frames);
    int rc = 0;
    for (int i = 0; rc == 0 && i < d->inputs; i++)
        rc = write_input(dir, base, d, i, conf, err, n);
    const int saved = errno;
    if (fflush(conf) != 0 || fsync(fileno(conf)) != 0) {
        if (rc == 0)
            snprintf(err, n, "%s: write failed: %s", conf_path, strerror(errno ? errno : saved));
        rc = -1;
    }
    if (fclose(conf) != 0 && rc == 0) {
        snprintf(err, n, "%s: write failed: %s", conf_path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        remove_matrix(dir, base, d->inputs);
    return rc;
}

/* The room's files under a name no file has (NAME, else NAME-2, ...): 0
 * with file (its name in dir) and path, or -1 said. */
static int write_files(const char *dir, const es_room *room, const room_data *d, char *file,
                       size_t fn, char *path, size_t pn, char *err, size_t n)
{
    const char *kept = d->copy_from ? d->copy_from : d->move_from;
    const char *suffix = kept ? suffix_of(kept) : d->inputs > 0 ? ".conf" : ".wav";
    int got = 1;
    for (int k = 1; got == 1 && k <= FILE_NAME_TRIES; k++) {
        char base[ES_ROOM_NAME_MAX + 8];
        if (k == 1)
            snprintf(base, sizeof base, "%s", room->name);
        else
            snprintf(base, sizeof base, "%s-%d", room->name, k);
        snprintf(file, fn, "%s%s", base, suffix);
        snprintf(path, pn, "%s/%s", dir, file);
        got = d->copy_from    ? copy_fresh(path, d->copy_from, err, n)
              : d->move_from  ? move_fresh(path, d->move_from, err, n)
              : d->inputs > 0 ? write_matrix(dir, base, d, room, err, n)
                              : write_fresh(path, d->ch, d->channels, d->frames, d->rate, err, n);
    }
    if (got == 1)
        snprintf(err, n, "%s: no free file name for room '%s'", dir, room->name);
    return got == 0 ? 0 : -1;
}

static void remove_files(const char *dir, const char *file, const room_data *d)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (d->inputs > 0) {
        path[strlen(path) - 5] = 0; /* less .conf */
        const char *base = strrchr(path, '/') + 1;
        remove_matrix(dir, base, d->inputs);
    } else {
        unlink(path);
    }
}

static int put(const char *dir, const es_room *room, const room_data *d, char *file_out,
               size_t fn, char *err, size_t n)
{
    char why[600];
    if (!es_room_name_valid(room->name)) {
        snprintf(err, n, "'%s' is not a room name (letters, digits, - _ ., not starting "
                 "with .)", room->name);
        return -1;
    }
    if (es_room_fields_check(room, why, sizeof why) != 0) {
        snprintf(err, n, "room '%s': %s", room->name, why);
        return -1;
    }
    if (es_library_make_dir(dir, err, n) != 0)
        return -1;
    const int lock = lock_folder(dir, err, n);
    if (lock < 0)
        return -1;
    int rc = -1;
    es_library here;
    es_library_read_dir(&here, dir);
    const es_room *same = es_library_find(&here, room->name);
    char file[ES_ROOM_NAME_MAX + 24], path[1200];
    if (same) {
        snprintf(err, n, "there is already a room '%s' (%s); pick another --name", room->name,
                 same->path);
        goto done;
    }
    if (write_files(dir, room, d, file, sizeof file, path, sizeof path, err, n) != 0)
        goto done;
    const char *files[] = {file};
    if (rewrite_manifest(dir, 1, room, files, 1, err, n) != 0) {
        remove_files(dir, file, d); /* the library as it was */
        goto done;
    }
    snprintf(file_out, fn, "%s", path);
    rc = 0;
done:
    es_library_close(&here);
    unlock_folder(lock);
    return rc;
}

int es_library_put_room(const char *dir, const es_room *room, float *const *ch, int channels,
                        int frames, double rate, char *file_out, size_t fn, char *err,
                        size_t n)
{
    const room_data d = {.ch = ch, .channels = channels, .frames = frames, .rate = rate};
    return put(dir, room, &d, file_out, fn, err, n);
}

int es_library_put_matrix(const char *dir, const es_room *room, float *const *paths, int inputs,
                          int outputs, int frames, double rate, char *file_out, size_t fn,
                          char *err, size_t n)
{
    const room_data d = {.ch = paths, .channels = inputs * outputs, .frames = frames,
                         .rate = rate, .inputs = inputs, .outputs = outputs};
    return put(dir, room, &d, file_out, fn, err, n);
}

int es_library_put_file(const char *dir, const es_room *room, const char *from, char *file_out,
                        size_t fn, char *err, size_t n)
{
    const room_data d = {.copy_from = from};
    return put(dir, room, &d, file_out, fn, err, n);
}

int es_library_put_staged(const char *dir, const es_room *room, const char *staged,
                          char *file_out, size_t fn, char *err, size_t n)
{
    const room_data d = {.move_from = staged};
    return put(dir, room, &d, file_out, fn, err, n);
}

/* The copies of adds that were killed before they finished (hidden
 * `.NAME.adding-PID-K.EXT` files whose process is gone) are removed: no
 * manifest names them, and nothing else would. A copy whose process still
 * runs is its own. */
static void sweep_dead_copies(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        const char *tag = e->d_name[0] == '.' ? strstr(e->d_name, ".adding-") : NULL;
        char *end;
        const long pid = tag ? strtol(tag + 8, &end, 10) : 0;
        if (pid > 0 && *end == '-' && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

int es_library_stage(const char *dir, const es_room *room, int from, const char *name,
                     char *staged, size_t sn, char *err, size_t n)
{
    if (es_library_make_dir(dir, err, n) != 0)
        return -1;
    sweep_dead_copies(dir);
    /* Created with the mode every room file gets (0644 less the umask),
     * whatever the source's: a file only its owner reads is not made one
     * anybody reads. A hidden name no manifest names, this process's. */
    int fd = -1;
    for (int k = 0; fd < 0 && k < FILE_NAME_TRIES; k++) {
        snprintf(staged, sn, "%s/.%s.adding-%ld-%d%s", dir, room->name, (long)getpid(), k,
                 suffix_of(name));
        fd = open(staged, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) {
            snprintf(err, n, "%s: cannot write there: %s", dir, strerror(errno));
            return -1;
        }
    }
    if (fd < 0) {
        snprintf(err, n, "%s: no free name to copy room '%s' into", dir, room->name);
        return -1;
    }
    int rc = copy_fd(from, name, fd, staged, err, n);
    rc = write_done(fd, staged, rc, err, n);
    if (rc != 0)
        unlink(staged);
    return rc;
}
