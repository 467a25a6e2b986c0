/* The session log (internal to live/): `--log FILE`, one JSON object a
 * line, for an experiment to be replayed and audited. Each command, from
 * whichever origin (a key, a line of --commands, an OSC sender), with its
 * time, the reply it got and the session's figures at that moment (those
 * of the last poll); each line the session says; a listening test's
 * trials, with what was behind each label. Any thread: a head tracker's
 * commands are logged from the OSC thread, the rest from the session's.
 *
 * Each line is one write(2) to a file opened for appending, so a process
 * killed (-9) leaves every line it wrote, whole; lines are not synced to
 * the disk one by one (1,000 commands a second would wait on it), the
 * listening test's answers are (answers.h). */
#ifndef ES_SESSION_LOG_H
#define ES_SESSION_LOG_H

#include <stddef.h>

#include "snapshot.h"

typedef struct es_session_log es_session_log;

/* Appends to `path` (made when it is not there). NULL and one line when it
 * cannot: a folder, a FIFO or a device, no permission. */
es_session_log *es_session_log_open(const char *path, char *err, size_t n);
/* NULL-safe. */
void es_session_log_close(es_session_log *l);

/* The figures from now on written beside each command (the session
 * thread, each poll). */
void es_session_log_figures(es_session_log *l, const es_live_snapshot *s);

/* A command: where it came from ("key", "stdin", "osc 127.0.0.1:5000"),
 * the line, its status ("done", "refused", "quit") and the reply's line
 * ("" none). NULL-safe. */
void es_session_log_command(es_session_log *l, const char *origin, const char *line,
                            const char *status, const char *reply);
/* An event of another kind: {"t":..,"event":KIND, FIELDS}, where fields is
 * the inside of a JSON object ("\"trial\":3,..."), or "". NULL-safe. */
void es_session_log_event(es_session_log *l, const char *kind, const char *fields);

/* The seconds since the log was opened, on the monotonic clock: the `t`
 * of every line. */
double es_session_log_seconds(const es_session_log *l);

#endif
