/* The workstation's model, shared by its parts (internal to ui/):
 * workstation.c (the loop, signals, messages), keys.c (the key tables:
 * dispatch and help), layout.c (where each panel goes), panels.c (header,
 * rooms, engines, help, status), meter.h and meters.c (the meter table and
 * the meters panel), rooms.c (the room list's cursor, search and prompt)
 * and spectrum.c. Every figure drawn comes from the session's snapshot
 * (snapshot.h); only key actions call the session. */
#ifndef ES_UI_H
#define ES_UI_H

#include <stdint.h>

#include "commands.h"
#include "session.h"
#include "workstation.h"

#define UI_HISTORY 512        /* DSP load history columns kept */
#define UI_HISTORY_PERIOD 0.25 /* seconds per history column (its worst block) */
#define UI_MISS_WINDOW 10.0   /* seconds of "misses lately" */

typedef struct {
    int y, x, h, w;
} ui_rect;

typedef struct {
    ui_rect header, rooms, engines, meters, spectrum, messages, status;
    int too_small;
} ui_layout;

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
    /* the one-line prompt at the bottom: '/' search rooms, 'o' open an IR
     * file, 0 none; typed here, never read from a file */
    int prompt;
    char prompt_text[1024];
    char search[256];         /* the last search, for n and N */

    ui_meter_memory meters;
    ui_spectrum *spectrum;
    int spectrogram;          /* 0: spectrum, 1: scrolling spectrogram */
    int help;                 /* the help screen is up: its page, from 1 */
    int help_pages;           /* as the help was last drawn */
    int log_open;             /* the message history is up */
    int log_back;             /* lines it is scrolled back from the newest */
    int screen_done;          /* the screen is gone: messages go to stderr */
    ui_measure_form form;     /* M's form */
} ui_model;

/* What a key's action asks of the loop (htop's Htop_Reaction). */
enum { UI_KEEP = 0, UI_QUIT = 1 << 0, UI_REPAINT = 1 << 1 };

/* keys.c: one key, through the tables of the screen's mode (the help, the
 * message history, the prompt, or the main screen). UI_QUIT to quit. */
int ui_key(ui_model *m, int key);
/* The help's lines (every table's keys with their help, then the meters'
 * definitions), HELP_W wide each; returns how many. */
#define UI_HELP_W 100
#define UI_HELP_CAP 112
int ui_help_lines(char lines[][UI_HELP_W]);

/* measure_form.c: M's form. Opened with the defaults, or after a failed
 * measurement (`said` its line) with the level to try again at; a key
 * while it is up (it takes them all); watched each frame for the end of
 * a measurement it started; drawn over the screen. */
void ui_form_open(ui_model *m, double level_db, const char *said);
int ui_form_key(ui_model *m, int key);
void ui_form_watch(ui_model *m);
void ui_draw_form(const ui_model *m, int lines, int cols);

/* panels.c: a box of h rows and w columns in the middle of the screen,
 * cleared across, its top-left inside corner in *y, *x. */
void ui_box(int lines, int cols, int h, int w, int *y, int *x);

/* rooms.c: the room list's cursor, search and prompt */
/* Places the cursor again when the session's list has changed. */
void ui_rooms_follow(ui_model *m);
/* Moves the cursor to entry i (clamped to the list). */
void ui_rooms_move(ui_model *m, int i);
/* Plays the room under the cursor. */
void ui_rooms_play(ui_model *m);
/* n and N: the next, the one before, matching the last search. */
void ui_rooms_search_step(ui_model *m, int dir);
/* A key while the prompt is up (it takes them all). */
void ui_prompt_key(ui_model *m, int key);
void ui_draw_prompt(const ui_model *m, const ui_rect *r);
/* A click on room i: the cursor there; play: open it too. */
void ui_rooms_click(ui_model *m, int i, int play);
/* How much of `text` the next line of a box `width` wide takes: up to its
 * last space that fits, or `width` where no space does (help, history). */
int ui_wrap(const char *text, int width);
/* mvaddnstr of text that may hold anything: control characters, C1 and
 * invalid UTF-8 are drawn escaped (\x1b), never sent to the terminal. */
void ui_text(int y, int x, const char *text, int width);

/* workstation.c: a line of the workstation's own, kept with the session's;
 * a refusal (err) from a key's command, said. */
void ui_note(ui_model *m, int problem, const char *line);
void ui_refused(ui_model *m, int rc, const char *err);
/* The recording key: starts a take (names made up, never an existing
 * file) or stops the one running. */
void ui_toggle_recording(ui_model *m);

/* layout.c */
void ui_layout_compute(int lines, int cols, int engines, ui_layout *l);

/* layout.c: what each redraw put where, for the mouse. The draw functions
 * add a hit for each row a click can act on (a room, an engine), so the
 * click is read against what was drawn, never a second copy of the layout. */
enum { UI_HIT_NONE, UI_HIT_ROOM, UI_HIT_ENGINE, UI_HIT_SLOT };
void ui_hits_clear(void);
void ui_hit_add(int kind, int index, int y, int x, int w);
/* The hit under screen cell (y, x): its kind (UI_HIT_NONE when none), and
 * its index in *index. */
int ui_hit_at(int y, int x, int *index);

/* console.c: fd 2 into a non-blocking pipe while the screen is up; drain
 * turns each line read into a call of `line`; end restores fd 2 and prints
 * what was left unread. */
int ui_console_begin(void);
void ui_console_drain(void (*line)(void *ctx, const char *text), void *ctx);
void ui_console_end(void);

/* panels.c */
void ui_colors_init(void);
void ui_draw_header(const ui_model *m, const ui_rect *r);
void ui_draw_rooms(ui_model *m, const ui_rect *r);
void ui_draw_engines(const ui_model *m, const ui_rect *r);
void ui_draw_messages(const ui_model *m, const ui_rect *r);
void ui_draw_status(const ui_model *m, const ui_rect *r);
/* The help, paged to fit: returns how many pages it has. */
int ui_draw_help(const ui_model *m, int lines, int cols);
/* The message history over the screen: the messages the snapshot keeps,
 * with their times, newest at the bottom, m->log_back lines scrolled back. */
void ui_draw_history(ui_model *m, int lines, int cols);

/* meters.c: the meters' memory from the new snapshot, and the panel. */
void ui_meters_update(ui_model *m);
void ui_draw_meters(const ui_model *m, const ui_rect *r);

/* slots.c: the A/B slots' statistics, one row each under a heading. */
void ui_draw_slots(const ui_model *m, int y, int x, int w);

/* spectrum.c */
ui_spectrum *ui_spectrum_create(double rate);
void ui_spectrum_destroy(ui_spectrum *s);
/* Takes the latest dry and wet samples from the scope and analyses them. */
void ui_spectrum_update(ui_spectrum *s, const es_scope *scope, double now);
void ui_draw_spectrum(ui_spectrum *s, int spectrogram, const ui_rect *r);

/* Colour pairs. */
enum { UI_GOOD = 1, UI_WARN, UI_BAD, UI_TITLE, UI_DRY, UI_WET, UI_DIM };

#endif
