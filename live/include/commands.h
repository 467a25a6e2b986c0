/* play's settings and commands, one table each, on core/param.h: the
 * flags of `earshot play` and the workstation, the lines `play --commands`
 * reads and every --help come from here. The workstation's keys
 * (ui/keys.c) are bound to rows of the command table: a key runs its
 * command, or the command's relative change (its nudge), so a key and a
 * line take the same values, with the limits of the engine contract, and
 * refuse the same ones in the same words. */
#ifndef ES_COMMANDS_H
#define ES_COMMANDS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "core/param.h"
#include "session.h"

/* What a person sets when starting play or the workstation: the flags as
 * typed (--room and --ir are words until they name the spec's room), and
 * the spec they set (--engine, --block, --partition, --pipelined, --gpu). */
typedef struct {
    const char *room, *ir, *rooms, *device, *input, *input_device, *record, *record_input;
    const char *report;
    es_play_spec spec;  /* its room and source come from --room/--ir and --input */
    double trim, limiter; /* dB; limiter NAN: off */
    int headless, json, commands;
    int outputs[2];     /* --outputs A-B: the first output (from 0) and how
                         * many; {0, 0}: all */
    int restore, no_restore; /* remembered settings (settings.h) */
    int inputs;         /* --inputs N: the microphone's channels; 0: the room's */
    const char *layout; /* --layout IxO for a file room, or NULL */
    es_jack_options jack; /* --name, --connect-in, --connect-out, --no-connect */
    double rate, seconds, crossfade_ms, fps;
    int osc;            /* --osc PORT: a head tracker's messages; 0: none */
    const char *osc_bind; /* --osc-bind ADDR: where they are listened for; NULL: loopback */
    const char *log;    /* --log FILE: the session log, or NULL */
    int osc_help;       /* --osc-help: the OSC table printed */
    const char *headphone; /* --headphone FILE, or NULL */
    double split_ms;    /* --split: where a SOFA room's heads end (sofa.h's ES_SPLIT_*, or ms) */
    int interp;         /* --interp: sofa.h's es_interp */
    /* A room in spherical harmonics: --hrir FILE (NULL: KEMAR), --decoder
     * (ambi_decoder.h's es_decoder_kind), --speakers LAYOUT|FILE (NULL:
     * two ears). */
    const char *hrir, *speakers;
    int decoder;
} es_play_options;

/* How long `play --headless` plays without --seconds (the workstation
 * plays until q). */
#define ES_PLAY_HEADLESS_SECONDS 10

extern const es_param es_play_params[];
/* The options before any flag: each entry's default (es_params_defaults).
 * 0, or -1 with why (a default the table itself refuses). */
int es_play_options_default(es_play_options *o, char *err, size_t n);
/* The session's configuration for these options: slot A holds the spec,
 * and plays first. 0, or -1 with a message (--ir that is not a file,
 * options that do not go together). */
int es_play_options_session(const es_play_options *o, es_session_config *sc, char *err,
                            size_t n);
/* Which of the spec's parts and levels the command line gave (ES_SPEC_*
 * bits, and ES_MIX_* bits in *levels): what remembered settings must not
 * change. */
unsigned es_play_options_given(int argc, char **argv, unsigned *levels);

/* "off" (with `off`), or a number of dB in [lo, hi], into *dst (-inf for
 * off); -1 with why. Options and commands take levels alike. */
int es_parse_db(const char *text, double *dst, double lo, double hi, int off, char *why,
                size_t n);

/* ---- commands while playing ---- */

/* The values a command line parsed into (its fields say which). */
typedef struct {
    const char *text;
    const es_engine_class *engine;
    int number, choice, on;
    double mix[3];
    double db;           /* a level in dB; -inf: off */
} es_command_args;

#define ES_COMMAND_FIELDS 3
#define ES_COMMAND_LINE_MAX 8191 /* longer lines are refused whole */

typedef struct es_command {
    const char *name;    /* the first word of the line */
    const char *help;
    int optional;        /* fields from this index on may be left out */
    es_param fields[ES_COMMAND_FIELDS]; /* name NULL ends; a lone STRING takes the rest of the line */
    /* Calls the session. 0, -1 refused (the session said why), 1 quit. */
    int (*run)(es_session *s, const es_command_args *a, int given);
    /* Its relative change, for keys: from what was last asked for (so two
     * keys between polls both take), through the same session call as
     * `run`. up: 1 doubles, raises, turns on or goes on; 0 the other way.
     * 0 asked for, -1 refused: said by the session, or one line in err.
     * NULL: none (a key runs the command with no values instead). */
    int (*nudge)(es_session *s, int up, char *err, size_t n);
} es_command;

extern const es_command es_commands[];

/* One command line parsed in place, nothing run: `buf` (NUL-ended, at
 * most ES_COMMAND_LINE_MAX) is cut up and args' text points into it. 0
 * with *cmd the command (NULL: an empty line) and *given its fields, or -1
 * with one line in err naming the command and the field. */
int es_command_parse(char *buf, const es_command **cmd, es_command_args *args, int *given,
                     char *err, size_t n);

/* One command line. 0 done or asked for (the session says what happens),
 * 1 quit, -1 refused: err has one line naming the command and the field
 * (nothing reached the session), or the session refused it and said so
 * (err is then empty). */
int es_command_run(es_session *s, const char *line, char *err, size_t n);
/* The same, from `origin` ("key", "stdin", "osc 127.0.0.1:5000"), with
 * its reply: err's line, or the last line the session said of it ("" when
 * none), in reply[n]; logged (--log). While a blind test runs only the
 * subject's commands run (hear, answer, gain, panic, unmute, quit, head);
 * the others are refused in one line. */
int es_command_run_from(es_session *s, const char *origin, const char *line, char *reply,
                        size_t n);
/* The same for a line made from a format (a key's or a saved setting's). */
int es_command_vrunf(es_session *s, char *err, size_t n, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* The commands as help lists them: "  block N   ...". */
void es_commands_help(FILE *to);
/* The OSC addresses, a Markdown table made from the command table (and
 * the OSC-only addresses: get, subscribe, unsubscribe, ping). */
void es_commands_osc_help(FILE *to);
/* The command named `name`, or NULL. */
const es_command *es_command_find(const char *name);

/* A key's change through the command `name`: its nudge up (step > 0) or
 * down (step < 0), or with step 0 the command with no values (`slot`: the
 * other slot, `bypass`: on or off, `quit`). Returns as es_command_run. */
int es_command_key(es_session *s, const char *name, int step, char *err, size_t n);

#endif
