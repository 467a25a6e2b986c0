#define _DEFAULT_SOURCE /* readlink */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "library.h"

#define MANIFEST "rooms.txt"
/* The longest manifest line read, newline included; longer ones are
 * refused whole. Fields are at most 1024 bytes, so this is generous. */
#define MANIFEST_LINE_MAX 4096
#define MANIFEST_LINE_MAX_TEXT "4096"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void es_library_user_dir(char *out, size_t n)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(out, n, "%s/earshot/rooms", xdg);
    else if (home && *home)
        snprintf(out, n, "%s/.local/share/earshot/rooms", home);
    else
        snprintf(out, n, ".earshot-rooms");
}

void es_library_shipped_dir(char *out, size_t n)
{
    const char *env = getenv("EARSHOT_SHIPPED_ROOMS");
    out[0] = 0;
    if (env) {
        snprintf(out, n, "%s", env);
        return;
    }
    char exe[1024];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = 0;
    char candidate[1200];
    /* The build tree keeps them beside the executable; an install puts
     * them under share/. */
    snprintf(candidate, sizeof candidate, "%s/rooms/" MANIFEST, exe);
    if (exists(candidate)) {
        snprintf(out, n, "%s/rooms", exe);
        return;
    }
    snprintf(candidate, sizeof candidate, "%s/../share/earshot/rooms/" MANIFEST, exe);
    if (exists(candidate))
        snprintf(out, n, "%s/../share/earshot/rooms", exe);
}

int es_room_name_valid(const char *name)
{
    const size_t len = strlen(name);
    if (len == 0 || len >= ES_ROOM_NAME_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return 0;
    return 1;
}

const char *es_layout_for_channels(int channels)
{
    return channels == 1 ? "mono" : channels == 2 ? "stereo" : channels == 4 ? "true-stereo"
                                                                          : "";
}

int es_layout_check(const char *layout, int channels, char *err, size_t n)
{
    int want = 0, ins, outs;
    char extra;
    if (!strcmp(layout, "mono"))
        want = 1;
    else if (!strcmp(layout, "stereo"))
        want = 2;
    else if (!strcmp(layout, "true-stereo"))
        want = 4;
    else if (sscanf(layout, "%dx%d%c", &ins, &outs, &extra) == 2 && ins >= 1 && outs >= 1 &&
             ins <= 64 && outs <= 64)
        want = ins * outs;
    else {
        snprintf(err, n, "layout '%s' is not mono, stereo, true-stereo or NxM", layout);
        return -1;
    }
    if (channels > 0 && channels != want) {
        snprintf(err, n, "layout %s needs %d channel%s but the file has %d", layout, want,
                 want == 1 ? "" : "s", channels);
        return -1;
    }
    return 0;
}

const es_room *es_library_find(const es_library *lib, const char *name)
{
    for (int i = 0; i < lib->count; i++)
        if (!strcmp(lib->rooms[i].name, name))
            return &lib->rooms[i];
    return NULL;
}

static void stamp(const char *path, long long *mtime_ns, long long *size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *mtime_ns = *size = -1;
        return;
    }
    *mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    *size = (long long)st.st_size;
}

void es_room_stamp(es_room *room)
{
    stamp(room->path, &room->file_mtime_ns, &room->file_size);
}

int es_room_same(const es_room *a, const es_room *b)
{
    return !strcmp(a->name, b->name) && !strcmp(a->path, b->path) && a->origin == b->origin &&
           a->file_mtime_ns == b->file_mtime_ns && a->file_size == b->file_size &&
           !strcmp(a->layout, b->layout) && a->gain_db == b->gain_db &&
           a->predelay_ms == b->predelay_ms && a->rate == b->rate;
}

int es_library_add(es_library *lib, const es_room *r)
{
    if (lib->count == lib->capacity) {
        const int cap = lib->capacity ? 2 * lib->capacity : 16;
        es_room *grown = realloc(lib->rooms, sizeof *grown * (size_t)cap);
        if (!grown)
            return -1;
        lib->rooms = grown;
        lib->capacity = cap;
    }
    lib->rooms[lib->count++] = *r;
    return 0;
}

static void say(es_library *lib, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(es_library *lib, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char **grown = realloc(lib->messages, sizeof *grown * (size_t)(lib->message_count + 1));
    if (!grown)
        return;
    lib->messages = grown;
    if ((lib->messages[lib->message_count] = strdup(line)))
        lib->message_count++;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    return s;
}

static int number(const char *text, double lo, double hi, double *out)
{
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *trim(end) || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Validates the room that `[name]` began at `line` and adds it. */
static void finish(es_library *lib, es_room *r, const char *where, int line, int bad)
{
    if (!r->name[0])
        return;
    const char *why = NULL;
    char buf[1200];
    if (bad)
        why = "it has a bad value (see above)";
    else if (!r->path[0])
        why = "it names no file (file = ...)";
    else if (!exists(r->path)) {
        snprintf(buf, sizeof buf, "file %s not found", r->path);
        why = buf;
    } else if (r->layout[0] && es_layout_check(r->layout, 0, buf, sizeof buf) != 0) {
        why = buf;
    } else {
        const es_room *same = es_library_find(lib, r->name);
        if (same) {
            snprintf(buf, sizeof buf, "the name is taken by the room from %s", same->path);
            why = buf;
        }
    }
    if (why) {
        say(lib, "%s:%d: room '%s' left out: %s", where, line, r->name, why);
        return;
    }
    es_room_stamp(r);
    es_library_add(lib, r);
}

static void read_manifest(es_library *lib, const char *dir, es_room_origin origin)
{
    char where[1200];
    snprintf(where, sizeof where, "%s/" MANIFEST, dir);
    FILE *f = fopen(where, "r");
    if (!f) {
        if (errno != ENOENT)
            say(lib, "%s: cannot read: %s", where, strerror(errno));
        return;
    }
    char *text = NULL;
    size_t text_cap = 0;
    ssize_t got;
    es_room r;
    int line = 0, began = 0, bad = 0;
    memset(&r, 0, sizeof r);
    while ((got = getline(&text, &text_cap, f)) >= 0) {
        line++;
        /* Whole lines: one that is too long, or holds a NUL, is one message
         * and leaves its room out, never pieces read as lines. */
        if (got > MANIFEST_LINE_MAX || memchr(text, 0, (size_t)got)) {
            say(lib, "%s:%d: %s%s", where, line,
                got > MANIFEST_LINE_MAX ? "a line longer than " MANIFEST_LINE_MAX_TEXT
                                          " characters"
                                        : "a NUL byte in the line",
                began ? " (its room is left out)" : "");
            bad = 1;
            continue;
        }
        char *s = trim(text);
        if (!*s || *s == '#')
            continue;
        if (*s == '[') {
            finish(lib, &r, where, began, bad);
            memset(&r, 0, sizeof r);
            r.origin = origin;
            began = line;
            bad = 0;
            char *close = strchr(s, ']');
            if (close)
                *close = 0;
            char *name = trim(s + 1);
            if (!close || !es_room_name_valid(name)) {
                say(lib, "%s:%d: '%s' is not a room name (letters, digits, - _ .)", where,
                    line, s);
                r.name[0] = 0;
                continue;
            }
            snprintf(r.name, sizeof r.name, "%s", name);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq || !began) {
            say(lib, "%s:%d: expected [name] or key = value", where, line);
            continue;
        }
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        if (!strcmp(key, "file"))
            snprintf(r.path, sizeof r.path, "%s%s%s", value[0] == '/' ? "" : dir,
                     value[0] == '/' ? "" : "/", value);
        else if (!strcmp(key, "description"))
            snprintf(r.description, sizeof r.description, "%s", value);
        else if (!strcmp(key, "source"))
            snprintf(r.source, sizeof r.source, "%s", value);
        else if (!strcmp(key, "licence") || !strcmp(key, "license"))
            snprintf(r.licence, sizeof r.licence, "%s", value);
        else if (!strcmp(key, "layout"))
            snprintf(r.layout, sizeof r.layout, "%s", value);
        else if (!strcmp(key, "gain") && number(value, -60, 60, &r.gain_db) != 0)
            bad = 1, say(lib, "%s:%d: room '%s': gain '%s' is not -60 to 60 dB", where, line,
                         r.name, value);
        else if (!strcmp(key, "predelay") && number(value, 0, 1000, &r.predelay_ms) != 0)
            bad = 1, say(lib, "%s:%d: room '%s': predelay '%s' is not 0 to 1000 ms", where,
                         line, r.name, value);
        else if (!strcmp(key, "rate") && number(value, 1000, 768000, &r.rate) != 0)
            bad = 1, say(lib, "%s:%d: room '%s': rate '%s' is not a sample rate", where, line,
                         r.name, value);
        else if (strcmp(key, "file") && strcmp(key, "description") && strcmp(key, "source") &&
                 strcmp(key, "licence") && strcmp(key, "license") && strcmp(key, "layout") &&
                 strcmp(key, "gain") && strcmp(key, "predelay") && strcmp(key, "rate"))
            say(lib, "%s:%d: room '%s': unknown key '%s' (ignored)", where, line, r.name, key);
    }
    finish(lib, &r, where, began, bad);
    free(text);
    fclose(f);
}

static void manifest_stamp(const es_library *lib, int d, long long out[2])
{
    char where[1200];
    if (!lib->dirs[d][0]) {
        out[0] = out[1] = -1;
        return;
    }
    snprintf(where, sizeof where, "%s/" MANIFEST, lib->dirs[d]);
    stamp(where, &out[0], &out[1]);
}

int es_library_open(es_library *lib, const char *extra)
{
    memset(lib, 0, sizeof *lib);
    es_library_shipped_dir(lib->dirs[0], sizeof lib->dirs[0]);
    lib->dir_origin[0] = ES_ROOMS_SHIPPED;
    es_library_user_dir(lib->dirs[1], sizeof lib->dirs[1]);
    lib->dir_origin[1] = ES_ROOMS_USER;
    lib->dir_count = 2;
    if (extra && *extra) {
        snprintf(lib->extra, sizeof lib->extra, "%s", extra);
        snprintf(lib->dirs[2], sizeof lib->dirs[2], "%s", extra);
        lib->dir_origin[2] = ES_ROOMS_EXTRA;
        lib->dir_count = 3;
        if (!exists(extra))
            say(lib, "--rooms %s: no such folder", extra);
    }
    for (int d = 0; d < lib->dir_count; d++) {
        /* Stamped before reading: a change made while it is read shows as
         * a change on the next look. */
        manifest_stamp(lib, d, lib->manifest_stamp[d]);
        if (lib->dirs[d][0])
            read_manifest(lib, lib->dirs[d], lib->dir_origin[d]);
    }
    return 0;
}

int es_library_changed(const es_library *lib)
{
    for (int d = 0; d < lib->dir_count; d++) {
        long long now[2];
        manifest_stamp(lib, d, now);
        if (now[0] != lib->manifest_stamp[d][0] || now[1] != lib->manifest_stamp[d][1])
            return 1;
    }
    return 0;
}

int es_library_copy(es_library *dst, const es_library *src)
{
    *dst = *src;
    dst->rooms = NULL;
    dst->messages = NULL;
    dst->count = dst->capacity = dst->message_count = 0;
    for (int i = 0; i < src->count; i++)
        if (es_library_add(dst, &src->rooms[i]) != 0)
            goto fail;
    if (src->message_count) {
        if (!(dst->messages = calloc((size_t)src->message_count, sizeof *dst->messages)))
            goto fail;
        for (int i = 0; i < src->message_count; i++)
            if ((dst->messages[i] = strdup(src->messages[i])))
                dst->message_count++;
    }
    return 0;
fail:
    es_library_close(dst);
    return -1;
}

void es_library_close(es_library *lib)
{
    for (int i = 0; i < lib->message_count; i++)
        free(lib->messages[i]);
    free(lib->messages);
    free(lib->rooms);
    memset(lib, 0, sizeof *lib);
}

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

int es_library_append(const char *dir, const es_room *r, const char *file_name, char *err,
                      size_t n)
{
    if (es_library_make_dir(dir, err, n) != 0)
        return -1;
    char where[1200];
    snprintf(where, sizeof where, "%s/" MANIFEST, dir);
    /* Every field is one line of the manifest: a control character (a
     * newline above all) would write lines of its own. */
    const char *fields[] = {r->name, file_name, r->description, r->source, r->licence,
                            r->layout};
    static const char *field_names[] = {"name", "file", "description", "source", "licence",
                                        "layout"};
    for (int k = 0; k < 6; k++)
        for (const unsigned char *c = (const unsigned char *)fields[k]; *c; c++)
            if (*c < 0x20 || *c == 0x7f) {
                snprintf(err, n, "%s: room '%.64s': the %s has a control character", where,
                         r->name, field_names[k]);
                return -1;
            }
    /* The new manifest is written whole beside the old one and renamed over
     * it: a failure at any step (a full disk, `ulimit -f`) leaves the old
     * one as it was. */
    char temp[1300];
    snprintf(temp, sizeof temp, "%s.partial-%ld", where, (long)getpid());
    FILE *old = fopen(where, "r");
    if (!old && errno != ENOENT) {
        snprintf(err, n, "%s: cannot read: %s", where, strerror(errno));
        return -1;
    }
    FILE *f = fopen(temp, "w");
    if (!f) {
        snprintf(err, n, "%s: cannot write: %s", where, strerror(errno));
        if (old)
            fclose(old);
        return -1;
    }
    char chunk[8192];
    size_t got;
    int failed = 0;
    while (old && (got = fread(chunk, 1, sizeof chunk, old)) > 0)
        failed |= fwrite(chunk, 1, got, f) != got;
    failed |= old && ferror(old);
    if (old)
        fclose(old);
    fprintf(f, "\n[%s]\nfile = %s\n", r->name, file_name);
    if (r->description[0])
        fprintf(f, "description = %s\n", r->description);
    if (r->source[0])
        fprintf(f, "source = %s\n", r->source);
    if (r->licence[0])
        fprintf(f, "licence = %s\n", r->licence);
    if (r->layout[0])
        fprintf(f, "layout = %s\n", r->layout);
    if (r->gain_db != 0)
        fprintf(f, "gain = %g\n", r->gain_db);
    if (r->predelay_ms != 0)
        fprintf(f, "predelay = %g\n", r->predelay_ms);
    failed |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    const int saved = errno;
    failed |= fclose(f) != 0;
    if (failed || rename(temp, where) != 0) {
        snprintf(err, n, "%s: write failed: %s", where, strerror(failed ? saved : errno));
        unlink(temp);
        return -1;
    }
    return 0;
}
