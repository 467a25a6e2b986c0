/* The session's room list (internal to live/): what the screen lists and
 * measures. It is the session's own copy of the library (the loader's
 * belongs to the preparer thread once the stream plays), with the IR files
 * played by their path after it, and the room playing when a rescan found
 * it gone. A rescan is read on the preparer thread and swapped in here, on
 * the control thread, so the screen never reads a list being rebuilt. The
 * measurements are kept by room name and file: an unchanged room keeps its
 * own across a rescan, a changed one is measured again.
 *
 * A library may hold 100,000 rooms: nothing here is per room and large.
 * An entry's measurement is allocated when the screen first asks for it,
 * and every lookup by name goes through the library's index. */
#ifndef ES_ROOM_LIST_H
#define ES_ROOM_LIST_H

#include "library.h"
#include "snapshot.h"

typedef void (*es_room_list_say)(void *ctx, int problem, const char *line);

typedef struct {
    es_library view;
    es_room_info **info;       /* one per entry, NULL until asked for */
    unsigned version;          /* goes up whenever the list changes */
    int shown;                 /* the entry whose measurement the snapshot carries; -1 none */
    es_room_list_say say;
    void *say_ctx;
} es_room_list;

/* A copy of `lib`, with `playing` as a file entry when it is a file. 0, or
 * -1 and a message. */
int es_room_list_open(es_room_list *l, const es_library *lib, const char *playing,
                      es_room_list_say say, void *ctx, char *err, size_t n);
void es_room_list_close(es_room_list *l);

/* The index of a room as a `room` change names it (a library name first,
 * then a file played by its path), or -1. */
int es_room_list_index(const es_room_list *l, const char *room);
/* The room playing changed: a file joins the list, a gone room leaves it. */
void es_room_list_played(es_room_list *l, const char *playing);
/* The entry whose measurement the snapshot carries from now on
 * (es_session_show_room), and which it is (-1: none). */
void es_room_list_show(es_room_list *l, int index);
int es_room_list_shown(const es_room_list *l);
/* Entry `index`'s measurement, allocated the first time (measured 0: it
 * must be asked of the preparer); NULL out of range or out of memory. */
es_room_info *es_room_list_info(es_room_list *l, int index);
/* A measurement the preparer made, to the entry it belongs to (if still
 * in the list). */
void es_room_list_take_measurement(es_room_list *l, const es_room_info *info);
/* Swaps in the library the preparer read again (taken: closed by the
 * list), and says what changed. */
void es_room_list_take_rescan(es_room_list *l, es_library *fresh, const char *playing);

#endif
