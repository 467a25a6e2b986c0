/* The workstation's model, shared by its parts (internal to ui/):
 * workstation.c (the loop, keys, messages), layout.c (where each panel
 * goes), panels.c (header, rooms, engines, help, status), meters.c and
 * spectrum.c. Drawing reads this; only workstation.c changes the session. */
#ifndef ES_UI_H
#define ES_UI_H

#include <stdint.h>

#include "commands.h"
#include "session.h"
#include "stats.h"
#include "workstation.h"

#define UI_MESSAGES 64        /* kept; the newest are shown */
#define UI_HISTORY 512        /* DSP load history columns kept */
#define UI_HISTORY_PERIOD 0.25 /* seconds per history column (its worst block) */
#define UI_MISS_WINDOW 10.0   /* seconds of "misses lately" */
#define UI_MAX_ENGINES 8

typedef struct {
    char when[16];            /* HH:MM:SS */
    char text[300];
    int problem;
} ui_message;

typedef struct {
    int y, x, h, w;
} ui_rect;

typedef struct {
    ui_rect header, rooms, engines, meters, spectrum, messages, status;
    int too_small;
} ui_layout;

typedef struct ui_spectrum ui_spectrum;

typedef struct {
    es_session *session;
    double now;               /* seconds since the workstation started */

    /* rooms */
    int cursor, top;
    int room_count;

    /* engines: probed once */
    int engine_count;
    int engine_ok[UI_MAX_ENGINES];
    char engine_why[UI_MAX_ENGINES][160];

    /* meters */
    es_stats stats, last;     /* this redraw's snapshot and the one before */
    double load_now;          /* the worst block since the last redraw */
    double load_pending;      /* the worst block of the column being filled */
    double history_pushed_at;
    float load_history[UI_HISTORY]; /* worst block per UI_HISTORY_PERIOD */
    int history_len, history_at;
    double miss_times[UI_HISTORY]; /* (time, misses) samples for the window */
    uint64_t miss_counts[UI_HISTORY];
    int miss_at, miss_len;
    uint64_t misses_lately;
    double misses_rose_at;    /* when the count last went up */
    double clip_in_until, clip_out_until;

    /* controls the session has no word for */
    double balance;           /* 0 dry .. 1 wet, equal power */
    double gain_db;

    ui_spectrum *spectrum;
    int spectrogram;          /* 0: spectrum, 1: scrolling spectrogram */
    int help;                 /* the help screen is up */

    int screen_done;          /* the screen is gone: messages go to stderr */
    ui_message messages[UI_MESSAGES];
    int message_count;        /* ever; the ring holds the last UI_MESSAGES */
} ui_model;

/* layout.c */
void ui_layout_compute(int lines, int cols, ui_layout *l);

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
void ui_draw_help(const ui_model *m, int lines, int cols);

/* meters.c */
void ui_meters_update(ui_model *m);
void ui_draw_meters(const ui_model *m, const ui_rect *r);

/* spectrum.c */
ui_spectrum *ui_spectrum_create(double rate);
void ui_spectrum_destroy(ui_spectrum *s);
/* Takes the latest dry and wet samples from the scope and analyses them. */
void ui_spectrum_update(ui_spectrum *s, const es_scope *scope, double now);
void ui_draw_spectrum(ui_spectrum *s, int spectrogram, const ui_rect *r);

/* Colour pairs. */
enum { UI_GOOD = 1, UI_WARN, UI_BAD, UI_TITLE, UI_DRY, UI_WET, UI_DIM };

#endif
