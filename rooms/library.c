#define _DEFAULT_SOURCE /* readlink */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "core/text.h"
#include "library.h"
#include "library_private.h"

#define TEXT_BLOCK (256 * 1024) /* the rooms' text is kept in blocks of this */

/* The rooms' text fields, in blocks that never move (rooms point into
 * them): one allocation per 256 KB, not four per room. */
struct es_library_text {
    es_library_text *next;
    size_t used, size;
    char bytes[];
};

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void es_library_user_dir(char *out, size_t n)
{
    if (es_xdg_path(out, n, "XDG_DATA_HOME", ".local/share", "earshot/rooms") != 0)
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
     * them under share/earshot/shipped (not share/earshot/rooms: with a
     * prefix of ~/.local, as scripts/run installs for a user, that is the
     * user's own library). */
    snprintf(candidate, sizeof candidate, "%s/rooms/" ES_MANIFEST, exe);
    if (exists(candidate)) {
        snprintf(out, n, "%s/rooms", exe);
        return;
    }
    snprintf(candidate, sizeof candidate, "%s/../share/earshot/shipped/" ES_MANIFEST, exe);
    if (exists(candidate))
        snprintf(out, n, "%s/../share/earshot/shipped", exe);
}

/* 1 when folder d is one read before it (by device and inode: --rooms
 * naming the user's folder, a link to it). */
static int read_before(const es_library *lib, int d)
{
    struct stat now, was;
    if (stat(lib->dirs[d], &now) != 0)
        return 0;
    for (int k = 0; k < d; k++)
        if (lib->dirs[k][0] && stat(lib->dirs[k], &was) == 0 && was.st_dev == now.st_dev &&
            was.st_ino == now.st_ino)
            return 1;
    return 0;
}

int es_room_name_valid(const char *name)
{
    const size_t len = strlen(name);
    /* Visible: no ".", "..", or a name hidden from ls (and from a file
     * named after it). */
    if (len == 0 || len >= ES_ROOM_NAME_MAX || name[0] == '.')
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return 0;
    return 1;
}

int es_room_fields_check(const es_room *r, char *err, size_t n)
{
    const char *fields[] = {r->name,   r->description, r->source,      r->licence,
                            r->layout, r->input_names, r->output_names};
    static const char *const names[] = {"name",   "description", "source",      "licence",
                                        "layout", "input-names", "output-names"};
    for (int k = 0; k < 7; k++) {
        char why[96];
        if (fields[k] && es_text_check(fields[k], why, sizeof why) != 0) {
            snprintf(err, n, "the %s has %s", names[k], why);
            return -1;
        }
    }
    return 0;
}

/* FNV-1a: names are short, and a library's are all different. */
static unsigned name_hash(const char *name)
{
    unsigned h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* Puts room i into the index (the first of a name stays found first). */
static void index_put(es_library *lib, int i)
{
    const unsigned mask = (unsigned)lib->index_size - 1;
    for (unsigned at = name_hash(lib->rooms[i].name) & mask;; at = (at + 1) & mask) {
        if (lib->index[at] < 0) {
            lib->index[at] = i;
            return;
        }
        if (!strcmp(lib->rooms[lib->index[at]].name, lib->rooms[i].name))
            return;
    }
}

/* Grows the index to keep it under half full; -1 when out of memory (the
 * lookups then scan). */
static int index_grow(es_library *lib, int rooms)
{
    if (lib->index && rooms * 2 < lib->index_size)
        return 0;
    int size = 64;
    while (size <= rooms * 2)
        size *= 2;
    int *fresh = malloc(sizeof *fresh * (size_t)size);
    if (!fresh)
        return -1;
    free(lib->index);
    lib->index = fresh;
    lib->index_size = size;
    for (int k = 0; k < size; k++)
        fresh[k] = -1;
    for (int i = 0; i < lib->indexed; i++)
        index_put(lib, i);
    return 0;
}

void es_library_reindex(es_library *lib)
{
    lib->indexed = 0;
    free(lib->index);
    lib->index = NULL;
    if (index_grow(lib, lib->count) != 0)
        return;
    for (int i = 0; i < lib->count; i++)
        index_put(lib, i);
    lib->indexed = lib->count;
}

const es_room *es_library_find(const es_library *lib, const char *name)
{
    if (lib->index && lib->indexed == lib->count) {
        const unsigned mask = (unsigned)lib->index_size - 1;
        for (unsigned at = name_hash(name) & mask; lib->index[at] >= 0; at = (at + 1) & mask)
            if (!strcmp(lib->rooms[lib->index[at]].name, name))
                return &lib->rooms[lib->index[at]];
        return NULL;
    }
    for (int i = 0; i < lib->count; i++) /* rooms changed by hand, not reindexed yet */
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

/* A copy of s in the library's text blocks; NULL when out of memory. */
static const char *keep_text(es_library *lib, const char *s)
{
    const size_t len = strlen(s) + 1;
    es_library_text *t = lib->text;
    if (!t || t->size - t->used < len) {
        const size_t size = len > TEXT_BLOCK ? len : TEXT_BLOCK;
        if (!(t = malloc(sizeof *t + size)))
            return NULL;
        t->next = lib->text;
        t->used = 0;
        t->size = size;
        lib->text = t;
    }
    char *at = t->bytes + t->used;
    memcpy(at, s, len);
    t->used += len;
    return at;
}

/* The text fields a room points at (path, description, source, licence,
 * the ports' names). */
#define ROOM_TEXTS 6

es_room *es_room_dup(const es_room *r)
{
    const char *fields[] = {r->path,    r->description, r->source,
                            r->licence, r->input_names, r->output_names};
    size_t len[ROOM_TEXTS], total = 0;
    for (int k = 0; k < ROOM_TEXTS; k++)
        total += (len[k] = strlen(fields[k] ? fields[k] : "") + 1);
    es_room *d = malloc(sizeof *d + total);
    if (!d)
        return NULL;
    *d = *r;
    char *at = (char *)(d + 1);
    const char **dst[] = {&d->path,    &d->description, &d->source,
                          &d->licence, &d->input_names, &d->output_names};
    for (int k = 0; k < ROOM_TEXTS; k++) {
        memcpy(at, fields[k] ? fields[k] : "", len[k]);
        *dst[k] = at;
        at += len[k];
    }
    return d;
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
    es_room kept = *r;
    const char **fields[] = {&kept.path,    &kept.description, &kept.source,
                             &kept.licence, &kept.input_names, &kept.output_names};
    for (int k = 0; k < ROOM_TEXTS; k++)
        if (!(*fields[k] = keep_text(lib, *fields[k] ? *fields[k] : "")))
            return -1;
    lib->rooms[lib->count++] = kept;
    /* Kept indexed as rooms come; one that was not (rooms moved by hand)
     * stays so until es_library_reindex. */
    if (lib->indexed == lib->count - 1 && index_grow(lib, lib->count) == 0) {
        index_put(lib, lib->count - 1);
        lib->indexed = lib->count;
    }
    return 0;
}

void es_library_say(es_library *lib, const char *fmt, ...)
{
    if (lib->message_count >= ES_LIBRARY_SAID_MAX) {
        lib->unsaid++;
        return;
    }
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

/* The lines not kept, as one: said after the rest. */
static void say_unsaid(es_library *lib)
{
    if (!lib->unsaid)
        return;
    const int more = lib->unsaid;
    lib->unsaid = 0;
    lib->message_count--; /* room for the count, in place of the last line kept */
    free(lib->messages[lib->message_count]);
    es_library_say(lib, "... and %d more lines like these (rooms left out or unread)", more + 1);
}

static void manifest_stamp(const es_library *lib, int d, long long out[2])
{
    char where[1200];
    if (!lib->dirs[d][0]) {
        out[0] = out[1] = -1;
        return;
    }
    snprintf(where, sizeof where, "%s/" ES_MANIFEST, lib->dirs[d]);
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
            es_library_say(lib, "--rooms %s: no such folder", extra);
    }
    for (int d = 0; d < lib->dir_count; d++) {
        /* Stamped before reading: a change made while it is read shows as
         * a change on the next look. */
        manifest_stamp(lib, d, lib->manifest_stamp[d]);
        if (lib->dirs[d][0] && !read_before(lib, d))
            es_library_read_manifest(lib, lib->dirs[d], lib->dir_origin[d]);
    }
    say_unsaid(lib);
    return 0;
}

int es_library_read_dir(es_library *lib, const char *dir)
{
    memset(lib, 0, sizeof *lib);
    snprintf(lib->dirs[0], sizeof lib->dirs[0], "%s", dir);
    lib->dir_origin[0] = ES_ROOMS_EXTRA;
    lib->dir_count = 1;
    manifest_stamp(lib, 0, lib->manifest_stamp[0]);
    es_library_read_manifest(lib, dir, ES_ROOMS_EXTRA);
    say_unsaid(lib);
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
    dst->text = NULL;
    dst->index = NULL;
    dst->count = dst->capacity = dst->message_count = dst->indexed = dst->index_size = 0;
    if (src->count && !(dst->rooms = malloc(sizeof *dst->rooms * (size_t)src->count)))
        goto fail;
    dst->capacity = src->count;
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
    free(lib->index);
    for (es_library_text *t = lib->text, *next; t; t = next) {
        next = t->next;
        free(t);
    }
    memset(lib, 0, sizeof *lib);
}
