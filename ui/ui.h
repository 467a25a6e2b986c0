/* The workstation's model: what its parts share between frames (internal
 * to ui/). Every figure drawn comes from the session's snapshot
 * (snapshot.h); the model holds what the screen itself remembers: the
 * room list's cursor, the meters' memory, which view is up over the
 * screen and what was typed into it. Each part's calls are in its own
 * header (draw.h, panel.h, keys.h, ...); ui/README.md maps who calls
 * whom. */
#ifndef ES_UI_H
#define ES_UI_H

#include <stdint.h>

#include "session.h"

#define UI_HISTORY 512        /* DSP load history columns kept */
#define UI_HISTORY_PERIOD 0.25 /* seconds per history column (its worst block) */
#define UI_MISS_WINDOW 10.0   /* seconds of "misses lately" */

/* A panel's place on the screen. */
typedef struct {
    int y, x, h, w;
} ui_rect;

typedef struct ui_spectrum ui_spectrum;

/* A slot's DSP load history: the worst block of each UI_HISTORY_PERIOD it
 * played, newest last. */
typedef struct {
    float load[UI_HISTORY];
    int len, at;
    double pending;           /* the worst block of the column being filled */
    double pushed_at;
    uint64_t generation;      /* the slot's, when this history began */
} ui_history;

/* What the screen keeps between snapshots: the meters' memory. */
typedef struct {
    uint64_t last_blocks, last_misses, last_clipped, last_limited;
    uint64_t last_bad_input, last_bad_output;
    double load_now;          /* the worst block since the last redraw, exactly */
    uint64_t load_seen;       /* blocks whose load is in load_now or before */
    /* Each slot's history; cleared when its statistics start again. */
    ui_history history[ES_AB_SLOTS];
    double miss_times[UI_HISTORY]; /* (time, misses) samples for the window */
    uint64_t miss_counts[UI_HISTORY];
    int miss_at, miss_len;
    uint64_t misses_lately;
    double clip_in_until, clip_out_until;
    double limit_until;       /* the limiter acted lately: LIM on the outputs */
    double bad_in_until, bad_out_until; /* samples were silenced lately: NaN */
} ui_meter_memory;

/* M's form (measure_form.c): its fields as typed, the field the cursor is
 * on, and a measurement it started that is watched for its end. */
#define UI_FORM_FIELDS 6
typedef struct {
    int open;
    int field;
    char text[UI_FORM_FIELDS][32];
    char error[160];          /* why the values were refused */
    char said[1024];          /* the last measurement's failure, when it asked again */
    int waiting;              /* a measurement it started runs */
    unsigned ended_before;    /* the snapshot's measures_ended when it started */
} ui_measure_form;

typedef struct {
    es_session *session;
    const es_live_snapshot *snap; /* the last poll's: everything drawn comes from it */
    double now;               /* seconds since the workstation started */

    /* rooms (rooms.c): the cursor is kept on its room by name and file
     * when the session's list changes */
    int cursor, top;
    int rooms_page;           /* list rows last drawn: PgUp/PgDn's step */
    unsigned rooms_version;   /* the session's list the cursor was placed in */
    char cursor_name[ES_ROOM_NAME_MAX], cursor_path[1024];
    /* the one-line prompt at the bottom (prompt.c): '/' search rooms, 'o'
     * open an IR file, 0 none; typed here, never read from a file */
    int prompt;
    char prompt_text[1024];
    char search[256];         /* the last search, for n and N */

    ui_meter_memory meters;   /* meters.c */
    ui_spectrum *spectrum;    /* spectrum.c */
    int spectrogram;          /* 0: spectrum, 1: scrolling spectrogram */
    int help;                 /* the help screen is up (help.c): its page, from 1 */
    int help_pages;           /* as the help was last drawn */
    int log_open;             /* the message history is up (messages.c) */
    int log_back;             /* lines it is scrolled back from the newest */
    int screen_done;          /* the screen is gone: messages go to stderr */
    ui_measure_form form;     /* M's form */
} ui_model;

/* What a key's action asks of the loop (htop's Htop_Reaction). */
enum { UI_KEEP = 0, UI_QUIT = 1 << 0, UI_REPAINT = 1 << 1 };

#endif
