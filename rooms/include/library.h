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

typedef enum { ES_ROOMS_SHIPPED, ES_ROOMS_USER, ES_ROOMS_EXTRA } es_room_origin;

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
} es_room;

typedef struct {
    es_room *rooms;
    int count, capacity;
    char **messages;        /* one line each: what was left out and why */
    int message_count;
    char dirs[ES_LIBRARY_MAX_DIRS][1024];
    es_room_origin dir_origin[ES_LIBRARY_MAX_DIRS];
    int dir_count;
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
