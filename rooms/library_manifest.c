/* A library folder's manifest (rooms.txt) read: "[name]" begins a room,
 * "key = value" lines give its fields (a row each of one table), "#"
 * begins a comment. Each room is checked before it is added, and what is
 * wrong is said in the library's messages, a line each: a room with a bad
 * value is left out, an unknown key ignored. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/files.h"
#include "core/lines.h"
#include "library_private.h"

/* The longest manifest line read; longer ones are refused whole (and
 * never held in memory). Fields are at most 1024 bytes, so this is
 * generous. */
#define MANIFEST_LINE_MAX 4096
#define MANIFEST_LINE_MAX_TEXT "4096"

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

/* A room while its manifest entry is read: the text fields' buffers. */
typedef struct {
    es_room room;
    char path[1024], description[256], source[256], licence[64];
    char input_names[512], output_names[512];
} reading;

static void reading_start(reading *r, es_room_origin origin)
{
    memset(r, 0, sizeof *r);
    r->room.origin = origin;
    r->room.path = r->path;
    r->room.description = r->description;
    r->room.source = r->source;
    r->room.licence = r->licence;
    r->room.input_names = r->input_names;
    r->room.output_names = r->output_names;
}

/* A key of a room's entry: a text field, taken as it is (a path from the
 * folder, unless it is absolute), or a number within limits. */
typedef struct {
    const char *key;
    size_t at, size;   /* where in `reading` the value goes; size 0: a number */
    int path;          /* a file, named from the manifest's folder */
    double lo, hi;     /* a number's limits, and the words that say them */
    const char *limits;
} manifest_key;

#define TEXT_KEY(key, field, path)                                                        \
    {key, offsetof(reading, field), sizeof((reading *)0)->field, path, 0, 0, NULL}
#define NUMBER_KEY(key, field, lo, hi, limits)                                            \
    {key, offsetof(reading, room.field), 0, 0, lo, hi, limits}

static const manifest_key keys[] = {
    TEXT_KEY("file", path, 1),
    TEXT_KEY("description", description, 0),
    TEXT_KEY("source", source, 0),
    TEXT_KEY("licence", licence, 0),
    TEXT_KEY("license", licence, 0),
    TEXT_KEY("layout", room.layout, 0),
    TEXT_KEY("input-names", input_names, 0),
    TEXT_KEY("output-names", output_names, 0),
    NUMBER_KEY("gain", gain_db, -60, 60, "is not -60 to 60 dB"),
    NUMBER_KEY("predelay", predelay_ms, 0, 1000, "is not 0 to 1000 ms"),
    NUMBER_KEY("rate", rate, 1000, 768000, "is not a sample rate"),
};

/* A manifest while it is read. */
typedef struct {
    es_library *lib;
    const char *dir;
    char where[1200];     /* the manifest's path, for messages */
    es_room_origin origin;
    reading r;            /* the room whose entry is being read */
    int line;             /* the line just read, from 1 */
    int began;            /* the line of that room's [name]; 0 before the first */
    int bad;              /* that room has a bad value: it is left out */
} manifest;

/* Validates the room that `[name]` began at `line` and adds it. */
static void finish(es_library *lib, es_room *r, const char *where, int line, int bad)
{
    if (!r->name[0])
        return;
    const char *why = NULL;
    char buf[1200];
    if (!bad && r->path[0])
        es_room_stamp(r); /* -1 when the file is not there */
    if (bad)
        why = "it has a bad value (see above)";
    else if (!r->path[0])
        why = "it names no file (file = ...)";
    else if (r->file_size < 0) {
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
        es_library_say(lib, "%s:%d: room '%s' left out: %s", where, line, r->name, why);
        return;
    }
    if (es_library_add(lib, r) != 0)
        es_library_say(lib, "%s:%d: room '%s' left out: out of memory", where, line, r->name);
}

/* A "[name]" line (s, trimmed): the room before it finished, this one
 * begun. */
static void begin_room(manifest *m, char *s)
{
    finish(m->lib, &m->r.room, m->where, m->began, m->bad);
    reading_start(&m->r, m->origin);
    m->began = m->line;
    m->bad = 0;
    char *close = strchr(s, ']');
    if (close)
        *close = 0;
    char *name = trim(s + 1);
    if (!close || !es_room_name_valid(name)) {
        es_library_say(m->lib, "%s:%d: '%s' is not a room name (letters, digits, - _ ., not "
                       "starting with .)", m->where, m->line, s);
        m->r.room.name[0] = 0;
        return;
    }
    snprintf(m->r.room.name, sizeof m->r.room.name, "%s", name);
}

/* A "key = value" line (s, trimmed) into the room being read. */
static void read_key(manifest *m, char *s)
{
    char *eq = strchr(s, '=');
    if (!eq || !m->began) {
        es_library_say(m->lib, "%s:%d: expected [name] or key = value", m->where, m->line);
        return;
    }
    *eq = 0;
    const char *key = trim(s), *value = trim(eq + 1), *room = m->r.room.name;
    const manifest_key *k = keys;
    while (k < keys + sizeof keys / sizeof *keys && strcmp(k->key, key) != 0)
        k++;
    if (k == keys + sizeof keys / sizeof *keys) {
        es_library_say(m->lib, "%s:%d: room '%s': unknown key '%s' (ignored)", m->where,
                       m->line, room, key);
        return;
    }
    char *at = (char *)&m->r + k->at;
    const int relative = k->path && value[0] != '/';
    if (k->size)
        snprintf(at, k->size, "%s%s%s", relative ? m->dir : "", relative ? "/" : "", value);
    else if (number(value, k->lo, k->hi, (double *)(void *)at) != 0) {
        m->bad = 1;
        es_library_say(m->lib, "%s:%d: room '%s': %s '%s' %s", m->where, m->line, room, key,
                       value, k->limits);
    }
}

/* The manifest opened if there is one (none is no message): a regular
 * file only, as a FIFO would block for good and /dev/zero never ends. */
static FILE *open_manifest(es_library *lib, const char *where)
{
    struct stat st;
    if (stat(where, &st) != 0) {
        if (errno != ENOENT)
            es_library_say(lib, "%s: cannot read: %s", where, strerror(errno));
        return NULL;
    }
    char why[1300];
    FILE *f = es_fopen_regular(where, why, sizeof why);
    if (!f)
        es_library_say(lib, "%s", why);
    return f;
}

/* Whole lines: one that is too long, or holds a NUL, is one message and
 * leaves its room out, never pieces read as lines. */
static void refuse_line(manifest *m, int got)
{
    es_library_say(m->lib, "%s:%d: %s%s", m->where, m->line,
                   got == ES_LINE_LONG  ? "a line longer than " MANIFEST_LINE_MAX_TEXT
                                          " characters"
                   : got == ES_LINE_NUL ? "a NUL byte in the line"
                                        : "a read error",
                   m->began ? " (its room is left out)" : "");
    m->bad = 1;
}

void es_library_read_manifest(es_library *lib, const char *dir, es_room_origin origin)
{
    manifest m = {.lib = lib, .dir = dir, .origin = origin};
    snprintf(m.where, sizeof m.where, "%s/" ES_MANIFEST, dir);
    FILE *f = open_manifest(lib, m.where);
    if (!f)
        return;
    char *text = malloc(MANIFEST_LINE_MAX + 1);
    if (!text) {
        es_library_say(lib, "%s: out of memory", m.where);
        fclose(f);
        return;
    }
    reading_start(&m.r, origin);
    int got;
    size_t len;
    while ((got = es_line_read(f, text, MANIFEST_LINE_MAX + 1, &len)) != ES_LINE_END) {
        m.line++;
        if (got != ES_LINE_OK) {
            refuse_line(&m, got);
            if (got == ES_LINE_ERROR)
                break;
            continue;
        }
        char *s = trim(text);
        if (*s == '[')
            begin_room(&m, s);
        else if (*s && *s != '#')
            read_key(&m, s);
    }
    finish(lib, &m.r.room, m.where, m.began, m.bad);
    free(text);
    fclose(f);
}
