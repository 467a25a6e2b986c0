/* Every command over OSC (internal to live/): a message to
 * /earshot/COMMAND with the command's values as its arguments runs the
 * command-table row of that name, as a line of `play --commands` would,
 * and is answered at the sender's address and port (liblo's convention):
 *   /earshot/done    ,ss  ADDRESS LINE   done or asked for; what the
 *                                        session said of it ("" none)
 *   /earshot/refused ,ss  ADDRESS LINE   the one line the command line
 *                                        would print
 *   /earshot/value   ,s.. NAME VALUES... to /earshot/get ,s NAME
 * /earshot/subscribe ,f RATE sends /earshot/meters (the session's figures
 * as name/value pairs, figures.h) RATE times a second to the sender, and
 * what the session says as /earshot/said ,is PROBLEM LINE; rate 0 or
 * /earshot/unsubscribe stops; /earshot/ping answers /earshot/pong.
 *
 * Threads: the OSC thread (osc_listener.c) reads the packets, queues the
 * commands (a bounded queue: one that does not fit is refused at once,
 * "busy") and sends the meters when they are due; the session's thread
 * runs what is queued at each poll (es_osc_control_poll), since only it
 * may call the session. The head's own commands (head, pitch, roll) are
 * taken on the OSC thread, as a tracker's messages are (head_osc.c): the
 * motion-to-sound latency counts from the packet's arrival. */
#ifndef ES_OSC_CONTROL_H
#define ES_OSC_CONTROL_H

#include <lo/lo.h>
#include <stddef.h>
#include <sys/socket.h>

#include "head.h"
#include "session.h"
#include "session_log.h"

/* Where a message came from: where its reply goes. */
typedef struct {
    struct sockaddr_storage addr;
    socklen_t len;
} es_osc_peer;

typedef struct es_osc_control es_osc_control;

/* Messages not yet run that the queue holds; one more is refused. */
#define ES_OSC_QUEUE 512
/* Senders that may subscribe at once, and the rates they may ask. */
#define ES_OSC_SUBSCRIBERS 8
#define ES_OSC_RATE_MIN 0.1
#define ES_OSC_RATE_MAX 200.0

/* Counts into the head's OSC figures (head.h's osc_*): commands taken,
 * refused for their values or form, addresses not known. */
es_osc_control *es_osc_control_create(es_head *head);
void es_osc_control_destroy(es_osc_control *c);
/* The socket replies go out of (the listener's), and the log commands go
 * to (NULL: none). */
void es_osc_control_set_socket(es_osc_control *c, int fd);
void es_osc_control_set_log(es_osc_control *c, es_session_log *log);

/* ---- the OSC thread ---- */
/* 1 when `path` is one of the control's (/earshot/ but a tracker's). */
int es_osc_control_owns(const char *path);
/* A message to one of the control's addresses. */
void es_osc_control_message(es_osc_control *c, const es_osc_peer *from, const char *path,
                            const char *types, lo_arg **argv, int argc);
/* A reply of `types` (s, i, f only) to `to`. NULL-safe on c. */
void es_osc_control_reply(es_osc_control *c, const es_osc_peer *to, const char *path,
                          const char *types, ...);
/* A command run on the OSC thread (the head's): its line, answered and
 * logged; rc as es_command_run's, reply the line that says why. */
void es_osc_control_answered(es_osc_control *c, const es_osc_peer *from, const char *address,
                             const char *line, int rc, const char *reply);
/* Sends the meters that are due; the nanoseconds (es_now_ns) until the
 * next is, or -1 when nobody subscribed. */
long long es_osc_control_tick(es_osc_control *c);

/* ---- the session's thread ---- */
/* Readable once a command waits (an eventfd): a loop that waits on it
 * runs the command at once, not at its next tick. */
int es_osc_control_wake_fd(const es_osc_control *c);
/* Runs the commands queued, each answered and logged, answers the gets,
 * and takes the figures the meters send from the session's snapshot
 * (those a blind test hides left out), and the lines it said since.
 * 1 when one of them was `quit`. */
int es_osc_control_poll(es_osc_control *c, es_session *s);

/* A message's arguments as a command line's values ("256", "cathedral",
 * "on" for true): `name` then each, into out[n]. 0, or -1 with why (an
 * argument that is no value: a blob, nil, a timetag). */
int es_osc_args_line(const char *name, const char *types, lo_arg **argv, int argc, char *out,
                     size_t n, char *why, size_t wn);
/* "127.0.0.1:5000", "[::1]:5000". */
void es_osc_peer_text(const es_osc_peer *p, char *out, size_t n);

#endif
