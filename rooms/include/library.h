/* The room library: folders of IR files, each with a plain-text manifest
 * (rooms.txt) that names and describes its rooms:
 *
 *   [cathedral]
 *   file        = cathedral.wav
 *   description = Stone cathedral nave, 60 x 25 x 30 m
 *   source      = synthesised by earshot (image sources + Eyring tail)
 *   licence     = CC0-1.0
 *   layout      = stereo        mono | stereo | true-stereo | NxM
 *   gain        = 0             dB, added after energy normalisation
 *   predelay    = 0             ms of silence before the IR
 *   rate        = 48000         optional: the rate the file must have
 *
 * Folders are searched in order: the rooms built with earshot, the user's
 * ($XDG_DATA_HOME/earshot/rooms, else ~/.local/share/earshot/rooms), then
 * any --rooms DIR. A bad entry (missing file, duplicate name, bad value) is
 * left out with a message naming the room; the rest still loads. */
#ifndef ES_LIBRARY_H
#define ES_LIBRARY_H

#include <stddef.h>

#define ES_ROOM_NAME_MAX 64
#define ES_LIBRARY_MAX_DIRS 8

/* ES_ROOMS_FILE: not from a manifest but an IR file played by its path
 * (the live session's room list keeps those beside the library's). */
typedef enum { ES_ROOMS_SHIPPED, ES_ROOMS_USER, ES_ROOMS_EXTRA, ES_ROOMS_FILE } es_room_origin;

typedef struct {
    char name[ES_ROOM_NAME_MAX];
    char path[1024];        /* the IR file */
    char description[256];
    char source[256];
    char licence[64];
    char layout[16];        /* "" when the manifest does not say */
    double gain_db;
    double predelay_ms;
    double rate;            /* 0: any rate */
    es_room_origin origin;
    long long file_mtime_ns, file_size; /* the IR file when read: tells a changed file */
    int gone;               /* no longer in the library (kept while it plays) */
} es_room;

typedef struct {
    es_room *rooms;
    int count, capacity;
    char **messages;        /* one line each: what was left out and why */
    int message_count;
    char dirs[ES_LIBRARY_MAX_DIRS][1024];
    es_room_origin dir_origin[ES_LIBRARY_MAX_DIRS];
    int dir_count;
    char extra[1024];       /* the extra folder asked for, "" none: a rescan reads it again */
    long long manifest_stamp[ES_LIBRARY_MAX_DIRS][2]; /* mtime (ns) and size, -1 absent */
} es_library;

/* The user's folder (not created). */
void es_library_user_dir(char *out, size_t n);
/* The folder of the rooms built with earshot: $EARSHOT_SHIPPED_ROOMS, else
 * beside the executable (build tree) or ../share/earshot/rooms. "" if none. */
void es_library_shipped_dir(char *out, size_t n);

/* Reads the manifests of the shipped and user folders and `extra` (may be
 * NULL). Never fails for bad entries (see messages); -1 only when out of
 * memory. */
int es_library_open(es_library *lib, const char *extra);
void es_library_close(es_library *lib);

const es_room *es_library_find(const es_library *lib, const char *name);

/* 1 when a manifest the library was read from has changed (or appeared, or
 * gone) since: a stat() per folder, cheap enough to ask once a second. */
int es_library_changed(const es_library *lib);
/* A deep copy (rooms and messages); 0, or -1 when out of memory. */
int es_library_copy(es_library *dst, const es_library *src);
/* Appends one room as it is (no checks); 0, or -1 when out of memory. */
int es_library_add(es_library *lib, const es_room *room);
/* 1 when two entries play the same thing: the same file, unchanged, with
 * the same manifest settings (so a measurement of one holds for both). */
int es_room_same(const es_room *a, const es_room *b);
/* Fills the file's mtime and size in `room` (-1 when it cannot be read). */
void es_room_stamp(es_room *room);

/* Checks a layout word against a channel count: 0, or -1 with a message. */
int es_layout_check(const char *layout, int channels, char *err, size_t n);
/* The layout word for a channel count when the manifest has none. */
const char *es_layout_for_channels(int channels);

/* Creates `dir` and its parents; 0 or -1 with a message. */
int es_library_make_dir(const char *dir, char *err, size_t n);

/* Appends a room to the manifest in `dir` (creating dir and manifest);
 * 0 or -1 with a message. */
int es_library_append(const char *dir, const es_room *room, const char *file_name,
                      char *err, size_t n);

/* A name is letters, digits, '-', '_' and '.', up to 63 characters. */
int es_room_name_valid(const char *name);

#endif
