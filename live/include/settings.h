/* Remembered settings: what the workstation played last (both A/B slots'
 * play specs: room, engine, partition, pipelining and block; the slot
 * playing, the levels and the view), kept in a plain text file of
 * `key = value` lines so the next start plays the same. The bypass is
 * never remembered: a start is never silent of the room by surprise.
 *
 * Every value is checked with the same table (commands.h) as the command
 * that sets it, so the file takes what a person can type and nothing
 * else; a bad line costs that value (its default plays), never the start.
 * A restore is a session configuration: the slots, the slot playing and
 * the levels are what the session opens with, so nothing is replayed as
 * changes once it plays (no "levels unchanged", B restored as B). */
#ifndef ES_SETTINGS_H
#define ES_SETTINGS_H

#include <stddef.h>

#include "commands.h"
#include "session.h"

/* Which values beside the slots the file held (and were good). */
enum {
    ES_SET_SLOT = 1 << 0,
    ES_SET_VIEW = 1 << 1,
};

typedef struct {
    unsigned have;             /* ES_SET_* */
    unsigned parts[ES_AB_SLOTS]; /* ES_SPEC_* parts of each slot the file held */
    es_play_spec slot[ES_AB_SLOTS];
    unsigned levels;           /* ES_MIX_* of the levels the file held (trim, wet,
                                * dry, gain, limiter) */
    double trim, wet, dry, gain; /* dB; wet, dry, gain -inf: off */
    double limiter;            /* ceiling dB, -inf: off */
    unsigned restored_levels;  /* ES_MIX_* of those es_settings_to_config took */
    int playing;               /* ES_SLOT_A or ES_SLOT_B */
    int spectrogram;           /* the view: 0 spectrum, 1 spectrogram */
    char path[1024];
    /* Lines of keys this earshot does not know (a newer one's), written
     * back as they were: a file is never narrowed to what the older
     * program reads. Bounded: what does not fit is counted a problem. */
    char kept[4096];
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

/* The session's start from the file, over what the command line set
 * (sc, from es_play_options_session): slot A's parts the command line did
 * not give (`given`, ES_SPEC_* bits) and the levels it did not give
 * (`given_levels`, ES_MIX_* bits), slot B, and the slot playing (A when
 * the command line gave any part: what a person typed plays). The rooms
 * are marked remembered: one that is gone is left out, not fatal. */
void es_settings_to_config(es_settings *st, unsigned given, unsigned given_levels,
                           es_session_config *sc);
/* The slots whose remembered room was gone (the snapshot's
 * remembered_gone), counted as problems: "b.room 'x': no such room now". */
void es_settings_rooms_gone(es_settings *st, unsigned gone);
/* One line when something was wrong: "settings: first (and N more) in FILE;
 * the defaults play for those". 0 when there is nothing to say. */
int es_settings_problem(const es_settings *st, char *out, size_t n);
/* One line naming the levels restored that are not their defaults ("levels
 * restored from the last session: gain -25.0 dB ..."): a level turned
 * down to escape a fault is not carried into a start unsaid. 0 when
 * every restored level is its default. */
int es_settings_restored(const es_settings *st, char *out, size_t n);

/* What the session plays now (its snapshot), and the view, into st. */
void es_settings_capture(es_settings *st, const es_live_snapshot *snap, int spectrogram);
/* Writes st to st->path atomically (through a link, never over a FIFO or
 * a device; the folder made if need be). 0, or -1 with one line. */
int es_settings_write(const es_settings *st, char *err, size_t n);
/* The file's text (for tests, and es_settings_write). */
void es_settings_format(const es_settings *st, char *out, size_t n);

#endif
