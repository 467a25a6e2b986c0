/* A shared library's calls (and variables), loaded when first needed: the
 * sound servers' libraries (JACK, PortAudio, and through PortAudio ALSA)
 * are mapped only by the commands that play, and ncurses only by the
 * workstation, not by a render or the library's commands, which they
 * would cost about 3 MB of memory and a few milliseconds of start-up
 * (ncurses: 0.25 MB) each. */
#ifndef ES_LIBRARY_LOADER_H
#define ES_LIBRARY_LOADER_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    const char *soname;        /* the loader's name: "libjack.so.0" */
    const char *const *names;  /* the calls, in the table's order */
    void *table;               /* a struct of `count` pointers (to functions or
                                * variables), in the order of names, where
                                * their addresses go */
    int count;
    pthread_once_t once;
    int loaded;
    char failure[320];
} es_dl_table;

/* Loads the library once (any thread, any number of times): 1, or 0 with
 * why in `why` (n may be 0) — the library's name and the loader's words,
 * or the call it lacks. The library stays loaded for the process's life. */
int es_dl_table_load(es_dl_table *lib, void (*once)(void), char *why, size_t n);
/* The loading itself, for the `once` function a table passes above. */
void es_dl_table_open(es_dl_table *lib);

#endif
