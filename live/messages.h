/* The session's message log (internal to live/): every line the session
 * says, escaped once so that it is safe on any terminal (a line may name
 * a file, a room or a device), stamped with the time, handed to whoever
 * listens (play's stderr, the workstation) and kept: the newest
 * ES_LIVE_MESSAGES, the history the screen shows, which each snapshot
 * copies. It also remembers which lines were said once: a topic (a small
 * number of the caller's) said about a value is not said again about the
 * same value until the topic is forgotten. */
#ifndef ES_MESSAGES_H
#define ES_MESSAGES_H

#include <stdarg.h>
#include <stdint.h>

#include "snapshot.h"

/* The topics a log remembers as said once (0 .. ES_MESSAGE_TOPICS - 1). */
#define ES_MESSAGE_TOPICS 8

/* Whoever hears each line as it is said (es_session_say's shape). */
typedef void (*es_message_listener)(void *ctx, int problem, const char *line);

typedef struct {
    es_live_message lines[ES_LIVE_MESSAGES]; /* a ring: line k at k % ES_LIVE_MESSAGES */
    int count;                 /* lines ever said */
    /* What each topic was last said about, where said[topic]. */
    uint64_t said_about[ES_MESSAGE_TOPICS];
    unsigned char said[ES_MESSAGE_TOPICS];
    es_message_listener listener; /* or NULL */
    void *listener_ctx;
} es_message_log;

/* An empty log whose lines also go to `listener` (NULL: kept only). */
void es_message_log_init(es_message_log *log, es_message_listener listener, void *ctx);

/* Says one line: escaped, stamped, kept and heard. problem: it went wrong. */
void es_message_log_add(es_message_log *log, int problem, const char *line);
void es_message_log_sayf(es_message_log *log, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void es_message_log_vsayf(es_message_log *log, int problem, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Said once: 1 when `topic` has not been said about `about` (any value:
 * a slot's generation, or 1 for a line said once at all) since it was
 * last forgotten, and from now on it has; 0 when it has been. The caller
 * says the line on 1. */
int es_message_log_once(es_message_log *log, int topic, uint64_t about);
/* The topic may be said again (what it was about is over). */
void es_message_log_forget(es_message_log *log, int topic);

/* The history: how many lines the log keeps, and line k of them (0: the
 * oldest kept), NULL past the end. */
int es_message_log_kept(const es_message_log *log);
const es_live_message *es_message_log_at(const es_message_log *log, int k);
/* A snapshot's copy of the history brought up to date: only the lines
 * said since it was last copied are copied. */
void es_message_log_copy(const es_message_log *log, es_live_snapshot *snap);

#endif
