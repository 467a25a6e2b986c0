/* Between the library's own files: library.c (the folders, the rooms,
 * their index and messages), library_manifest.c (a folder's manifest
 * read) and library_write.c (a folder changed). */
#ifndef ES_LIBRARY_PRIVATE_H
#define ES_LIBRARY_PRIVATE_H

#include "library.h"

/* A folder's manifest, the file every library folder has. */
#define ES_MANIFEST "rooms.txt"

/* A line of the library's messages (lib->messages): kept up to
 * ES_LIBRARY_SAID_MAX, counted beyond. */
void es_library_say(es_library *lib, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads dir's manifest, if it has one, adding each room whose entry is
 * sound and saying why each other is left out. */
void es_library_read_manifest(es_library *lib, const char *dir, es_room_origin origin);

#endif
