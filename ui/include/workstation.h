/* The workstation: earshot's terminal screen (ncurses). It shows the room
 * library, the engines, the meters and a live spectrum of one session, and
 * turns keys into the session's changes. It adds nothing to the audio path:
 * it reads the session's snapshot, and calls the session from its own
 * thread. */
#ifndef ES_WORKSTATION_H
#define ES_WORKSTATION_H

#include <stdio.h>

#include "session.h"
#include "settings.h"

typedef struct {
    double fps;          /* redraws a second */
    double seconds;      /* quit by itself after this long; 0: until q */
    const char *report;  /* on quit, the stats as JSON to this file, or NULL */
    es_settings *settings; /* what was restored (its problems said); written on quit */
    int restore;         /* the session's configuration came from it */
    int remember;        /* write it on quit */
    /* A blind listening test the session runs from the start (earshot
     * test PLAN), drawn over everything; NULL: none. */
    const es_test_config *test;
} es_ui_options;

/* Runs until q, Ctrl-C or `seconds`. Returns the exit status: 0, or 1 when
 * the session could not start (said on stderr) or a recording failed. */
int es_workstation_run(const es_session_config *cfg, const es_ui_options *opt);

/* The workstation's keys, a line each with the command they ask for
 * (play --help lists them from the same table the screen uses). */
void es_workstation_keys_help(FILE *to);

#endif
