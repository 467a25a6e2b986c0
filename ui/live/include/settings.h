/* Remembered settings: what the workstation played last (both A/B slots'
 * room, engine, partition, pipelining and block, the slot playing, the
 * levels and the view), kept in a plain text file of `key = value` lines
 * so the next start plays the same. The bypass is never remembered: a
 * start is never silent of the room by surprise.
 *
 * Every value is checked with the same table (commands.h) as the command
 * that sets it, so the file takes what a person can type and nothing
 * else; a bad line costs that value (its default plays), never the start.
 * Applying goes through the command table too, from the control thread,
 * never the audio path. */
#ifndef ES_SETTINGS_H
#define ES_SETTINGS_H

#include <stddef.h>

#include "commands.h"
#include "session.h"

/* Which values the file held (and were good). */
enum {
    ES_SET_SLOT = 1 << 0,
    ES_SET_VIEW = 1 << 1,
    ES_SET_TRIM = 1 << 2,
    ES_SET_WET = 1 << 3,
    ES_SET_DRY = 1 << 4,
    ES_SET_GAIN = 1 << 5,
    ES_SET_LIMITER = 1 << 6,
    /* per slot, shifted by ES_SET_SLOT_SHIFT * slot */
    ES_SET_ROOM = 1 << 8,
    ES_SET_ENGINE = 1 << 9,
    ES_SET_PARTITION = 1 << 10,
    ES_SET_PIPELINED = 1 << 11,
    ES_SET_BLOCK = 1 << 12,
};
#define ES_SET_SLOT_SHIFT 8

typedef struct {
    char room[1024];
    const es_engine_class *engine;
    int partition;             /* 0: from the block */
    int pipelined, block;
} es_settings_slot;

typedef struct {
    unsigned have;             /* ES_SET_* of the values read */
    es_settings_slot slot[2];
    int playing;               /* ES_SLOT_A or ES_SLOT_B */
    int spectrogram;           /* the view: 0 spectrum, 1 spectrogram */
    double trim, wet, dry, gain; /* dB; wet, dry, gain -inf: off */
    double limiter;            /* ceiling dB, -inf: off */
    char path[1024];
    int problems;              /* bad lines and values, the first said in: */
    char first[300];
} es_settings;

/* $XDG_CONFIG_HOME/earshot/workstation.conf, else
 * $HOME/.config/earshot/workstation.conf. -1 when neither is set. */
int es_settings_path(char *out, size_t n);

/* Reads the file at st->path (absent: nothing, no problem). Every bad line
 * or value is counted (the first kept, es_settings_problem says it) and
 * leaves that value out. */
void es_settings_read(es_settings *st);
/* Parses the file's text (for tests, and es_settings_read). */
void es_settings_parse(es_settings *st, const char *text);

/* Forgets what command-line flags set (flags win over the file). */
void es_settings_drop_given(es_settings *st, int argc, char **argv);
/* Slot A's engine, options and block into the start's options (the stream
 * opens with them: no reopen at once). */
void es_settings_to_options(const es_settings *st, es_play_options *o);
/* After the session opened: slot A's room, the levels, slot B and the slot
 * playing, through the command table; waits (polling) for each slot to be
 * prepared, at most a few seconds. Rooms that are no longer in the list
 * count as problems. */
void es_settings_apply(es_settings *st, es_session *s);
/* One line when something was wrong: "FILE: first (and N more); the
 * defaults play for those". 0 when there is nothing to say. */
int es_settings_problem(const es_settings *st, char *out, size_t n);

/* What the session plays now (and the view), into st. */
void es_settings_capture(es_settings *st, es_session *s, int spectrogram);
/* Writes st to st->path atomically (a temp file in the same folder,
 * fsync, rename; the folder made if need be). 0, or -1 with one line. */
int es_settings_write(const es_settings *st, char *err, size_t n);
/* The file's text (for tests, and es_settings_write). */
void es_settings_format(const es_settings *st, char *out, size_t n);

#endif
