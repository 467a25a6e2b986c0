/* The room library: folders of IR files, each with a plain-text manifest
 * (rooms.txt) that names and describes its rooms:
 *
 *   [cathedral]
 *   file        = cathedral.wav
 *   description = Stone cathedral nave, 60 x 25 x 30 m
 *   source      = synthesised by earshot (image sources + Eyring tail)
 *   licence     = CC0-1.0
 *   layout      = stereo        mono | stereo | true-stereo | NxM | ambixN | ...
 *   gain        = 0             dB, added after the normalisation
 *   predelay    = 0             ms of silence before the IR
 *   rate        = 48000         optional: the rate the file must have
 *   input-names = in-L, in-R    optional: its JACK ports' names (an import
 *   output-names = out-L, out-R   keeps a jconvolver configuration's)
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
/* A manifest of 100,000 rooms by one name is 100,000 lines that nobody
 * reads, and the screen would compare and show each: the first lines are
 * kept, the rest counted in one. */
#define ES_LIBRARY_SAID_MAX 100

/* ES_ROOMS_FILE: not from a manifest but an IR file played by its path
 * (the live session's room list keeps those beside the library's). */
typedef enum { ES_ROOMS_SHIPPED, ES_ROOMS_USER, ES_ROOMS_EXTRA, ES_ROOMS_FILE } es_room_origin;

/* One room. Its text fields are never NULL ("" when the manifest does not
 * say). In a library they point into the library's own text, valid while
 * it is open (es_library_add copies a room's text in); a room built by a
 * caller points at the caller's buffers. es_room_dup makes one that owns
 * its text, for keeping beyond its library. */
typedef struct {
    char name[ES_ROOM_NAME_MAX];
    const char *path;       /* the IR file */
    const char *description;
    const char *source;
    const char *licence;
    const char *input_names;  /* the ports' names, comma-separated ("" none) */
    const char *output_names;
    char layout[16];        /* "" when the manifest does not say */
    double gain_db;
    double predelay_ms;
    double rate;            /* 0: any rate */
    es_room_origin origin;
    long long file_mtime_ns, file_size; /* the IR file when read: tells a changed file */
    int gone;               /* no longer in the library (kept while it plays) */
} es_room;

typedef struct es_library_text es_library_text;

typedef struct {
    es_room *rooms;
    int count, capacity;
    char **messages;        /* one line each: what was left out and why */
    int message_count;      /* at most ES_LIBRARY_SAID_MAX, then one line for the rest */
    int unsaid;             /* lines beyond ES_LIBRARY_SAID_MAX: counted, not kept */
    char dirs[ES_LIBRARY_MAX_DIRS][1024];
    es_room_origin dir_origin[ES_LIBRARY_MAX_DIRS];
    int dir_count;
    char extra[1024];       /* the extra folder asked for, "" none: a rescan reads it again */
    long long manifest_stamp[ES_LIBRARY_MAX_DIRS][2]; /* mtime (ns) and size, -1 absent */
    es_library_text *text;  /* the rooms' text fields, in blocks */
    int *index;             /* names hashed to room indices (-1 empty), index_size slots */
    int index_size, indexed;/* indexed: rooms in the index; != count: rebuilt on change */
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
/* One folder's manifest alone (its rooms as ES_ROOMS_EXTRA). */
int es_library_read_dir(es_library *lib, const char *dir);

/* The room named `name`, or NULL: a hash lookup (a library of 100,000
 * rooms is read in well under a second). */
const es_room *es_library_find(const es_library *lib, const char *name);
/* After rooms were removed or moved by hand (lib->rooms and lib->count):
 * the name index made again. */
void es_library_reindex(es_library *lib);

/* 1 when a manifest the library was read from has changed (or appeared, or
 * gone) since: a stat() per folder, cheap enough to ask once a second. */
int es_library_changed(const es_library *lib);
/* A deep copy (rooms and messages); 0, or -1 when out of memory. */
int es_library_copy(es_library *dst, const es_library *src);
/* 1 (and in `what` whose it is) when writing `path` would replace a file
 * the library holds: any existing file in one of its folders or beneath
 * (rooms, a .conf's filters, the manifest), or any room's file wherever
 * it lies; links followed, files compared by device and inode. Else 0
 * (nothing is at `path`, or it is no library's). library_owns.c. */
int es_library_owns(const es_library *lib, const char *path, char *what, size_t n);
/* Appends one room as it is (no checks), its text copied into the
 * library's; 0, or -1 when out of memory. */
int es_library_add(es_library *lib, const es_room *room);
/* A copy of `room` that owns its text: one allocation, free() frees it.
 * NULL when out of memory. */
es_room *es_room_dup(const es_room *room);
/* 1 when two entries play the same thing: the same file, unchanged, with
 * the same manifest settings (so a measurement of one holds for both). */
int es_room_same(const es_room *a, const es_room *b);
/* Fills the file's mtime and size in `room` (-1 when it cannot be read). */
void es_room_stamp(es_room *room);

/* Checks a layout word against a channel count: 0, or -1 with a message. */
int es_layout_check(const char *layout, int channels, char *err, size_t n);
/* 1 and the matrix's sides when `layout` is NxM or Ambisonic
 * (field_layout.h: ambix3 is 1 x 16); 0 for mono, stereo,
 * true-stereo, "" or anything else. */
int es_layout_matrix(const char *layout, int *inputs, int *outputs);
/* The layout word for a channel count when the manifest has none. */
const char *es_layout_for_channels(int channels);

/* A name is letters, digits, '-', '_' and '.', up to 63 characters, and
 * does not start with '.' (no ".", "..", or a hidden name). */
int es_room_name_valid(const char *name);

/* 0 when every field a person writes into a manifest is one line of valid
 * UTF-8 with no control character (core/text.h); else -1 and "the FIELD
 * has ..." in err. */
int es_room_fields_check(const es_room *room, char *err, size_t n);

/* ---- Writing a folder of the library (library_write.c, app builds) ---- */

/* Creates `dir` and its parents; 0 or -1 with a message. */
int es_library_make_dir(const char *dir, char *err, size_t n);

/* Puts a room into folder `dir`: its channels as a float WAV under a name
 * no file in the folder has (NAME.wav, else NAME-2.wav, ...: another
 * room's file or the user's is never replaced), then its entry at the end
 * of the folder's rooms.txt (followed through a link), which is written
 * whole beside the old and renamed over it. The folder is locked (flock)
 * from the check that the name is free to that rename, so earshots adding
 * rooms at once each add theirs. `room` gives the name and fields (checked
 * with es_room_name_valid and es_room_fields_check); its path is ignored.
 * file_out gets the WAV's path. 0, or -1 with a message and the folder as
 * it was. */
int es_library_put_room(const char *dir, const es_room *room, float *const *ch, int channels,
                        int frames, double rate, char *file_out, size_t fn, char *err,
                        size_t n);

/* The same for a matrix room too large or too sparse for one WAV (a 64 x
 * 64 matrix of long filters; one of 64 filters on a diagonal): `paths`
 * holds inputs x outputs rows, row i * outputs + o being input i ->
 * output o, NULL where there is no filter. Written as NAME.conf in
 * jconvolver's language (jconvolver reads it too), naming each input's
 * WAV in NAME.paths/ (inNN.wav, that input's filters as channels in
 * output order); the room's file is the .conf. */
int es_library_put_matrix(const char *dir, const es_room *room, float *const *paths, int inputs,
                          int outputs, int frames, double rate, char *file_out, size_t fn,
                          char *err, size_t n);
/* The same for a room kept in its own file as it is (a SOFA set): `from`
 * copied byte for byte under the room's name and its suffix. */
int es_library_put_file(const char *dir, const es_room *room, const char *from, char *file_out,
                        size_t fn, char *err, size_t n);

/* A file brought into `dir` to be checked there before it becomes a room
 * (`rooms add`: the file checked is the file kept, whatever happens to
 * the source's name meanwhile). Copies all that the descriptor `from`
 * reads, from where it stands, into a hidden file of `dir`'s made for it
 * (staged: its path, with the suffix of `name`, the source's name), with
 * the mode the library's files get (0644 less the umask), never the
 * source's; `dir` is made if need be. 0, or -1 with a message and no
 * file left. */
int es_library_stage(const char *dir, const es_room *room, int from, const char *name,
                     char *staged, size_t sn, char *err, size_t n);
/* Puts a staged file in as the room's file, as es_library_put_file does
 * but renamed under the folder's lock (never over a file) rather than
 * copied. On failure the staged file is left for the caller to remove. */
int es_library_put_staged(const char *dir, const es_room *room, const char *staged,
                          char *file_out, size_t fn, char *err, size_t n);

/* Writes `dir`'s manifest afresh with `rooms` (each room's path is its
 * file's name in dir), replacing the old one whole once the new is on the
 * disk, under the folder's lock. 0, or -1 with a message. */
int es_library_write_manifest(const char *dir, const es_room *rooms, int count, char *err,
                              size_t n);

#endif
