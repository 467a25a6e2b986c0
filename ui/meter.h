/* A meter, as htop's MeterClass: one row of a table that says everything
 * about a figure the session measures: its name and unit, its key in the
 * JSON report, what it means (the help's definitions), its line of the
 * text report, and how the screen shows it. The JSON report, the text
 * report (report.c), the help (keys.c) and the meters panel (meters.c) are
 * made from the table and nothing else, so a figure is defined once and
 * every view shows the same thing. Every hook reads the snapshot only.
 *
 * Adding a meter: a row in meter_list.c (and, for a figure the session
 * does not measure yet, its field in the snapshot). Internal to ui/. */
#ifndef ES_METER_H
#define ES_METER_H

#include <stdio.h>

#include "snapshot.h"

struct ui_model_s;

typedef struct ui_meter {
    const char *name;          /* as the help and the text report name it: "DSP load" */
    const char *unit;          /* "% of the block's budget", or "" */
    const char *json;          /* its key in the JSON report; NULL: not in it */
    const char *help;          /* what it means, for the help; NULL: not in it */
    /* Writes its JSON value (what follows "key":). NULL: no JSON. */
    void (*json_value)(const es_live_snapshot *s, FILE *to);
    /* Writes its whole lines of the text report ("  blocks      ..."). NULL: none. */
    void (*text_lines)(const es_live_snapshot *s, FILE *to);
    /* Its words on the meters panel's line of short figures ("xruns 2"):
     * 1 when it has some. NULL: not on that line. */
    int (*short_text)(const es_live_snapshot *s, char *out, size_t n);
    /* Where the line is too narrow it leaves out the figures with the
     * highest `optional` first (3 before 2 before 1); 0: never left out. */
    int optional;
    /* Its words where the line is narrow (80 and 100 columns): 1 when it
     * has some, 0 to leave it out there. NULL: the short form. A figure
     * the wide screen shows keeps a form here unless another part of the
     * screen shows it (the header shows the head's set). */
    int (*tight_text)(const es_live_snapshot *s, char *out, size_t n);
} ui_meter;

/* meter_head.c: head tracking's hooks (the orientation, its set, the
 * filter-exchange latency, the tracker's messages). */
void ui_meter_head_json(const es_live_snapshot *s, FILE *to);
void ui_meter_head_text(const es_live_snapshot *s, FILE *to);
/* The OSC listener's address and counts on the meters' line. */
int ui_meter_osc_short(const es_live_snapshot *s, char *out, size_t n);
int ui_meter_osc_tight(const es_live_snapshot *s, char *out, size_t n);
int ui_meter_head_short(const es_live_snapshot *s, char *out, size_t n);
int ui_meter_head_tight(const es_live_snapshot *s, char *out, size_t n);

/* meter_list.c: every meter, NULL-name-terminated, in report order. */
extern const ui_meter ui_meters[];

/* report.c: the reports made from a table (the shipped one, or a test's). */
void ui_report_json(const ui_meter *table, const es_live_snapshot *s, FILE *to);
void ui_report_text(const ui_meter *table, const es_live_snapshot *s, FILE *to);
/* The line of short figures, as wide as `w` allows: the short forms,
 * then the optional ones left out (the highest first), the tight forms
 * taking the short ones' place before any but the first to go. */
void ui_meters_line(const ui_meter *table, const es_live_snapshot *s, char *out, int w);
/* keys.c: the help's lines with a table's meters defined (UI_HELP_W wide
 * each, UI_HELP_CAP at most); returns how many. */
int ui_help_lines_with(const ui_meter *table, char lines[][100]);

#endif
