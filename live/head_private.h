/* The es_head itself, shared by head.c (orientation to set), head_osc.c
 * (what a head tracker's packets say) and osc_listener.c (the socket they
 * arrive on). Internal to live. */
#ifndef ES_HEAD_PRIVATE_H
#define ES_HEAD_PRIVATE_H

#include <lo/lo.h>
#include <pthread.h>

#include "head.h"
#include "head_blend.h"
#include "osc_control.h"

/* The UDP socket a head tracker sends to and the thread that reads it
 * (osc_listener.c). */
typedef struct es_osc_listener es_osc_listener;

struct es_head {
    pthread_mutex_t lock;
    es_set_requests *requests;
    es_sofa_pose *poses;     /* the room's, copied; NULL: not tracked */
    es_head_view view;       /* everything es_head_view_get hands out */
    es_osc_listener *osc;    /* NULL: not listening */
    es_head_blend *blend;    /* --interp linear: directions between the measured */
    int blending;            /* the room playing is blended for */
    es_osc_control *control; /* every other /earshot/ address; NULL: none */
};

/* Bundles inside bundles deeper than this are refused, counted as a bad
 * packet: no tracker nests them, and the walk recurses. */
#define ES_HEAD_OSC_DEPTH 8

/* One UDP packet from `from` (NULL: nobody to answer) that arrived at
 * `arrival` (es_now_ns): a message, or a
 * bundle whose messages are each taken or refused at once, whatever its
 * timetag. What is not OSC is counted as a bad packet. The listener's and
 * the fuzz target's way in. */
void es_head_osc_packet(es_head *h, const es_osc_peer *from, const void *data, size_t size,
                        long long arrival);

/* One OSC message, as the packet held it: taken, or counted as refused. */
void es_head_osc_message(es_head *h, const es_osc_peer *from, const char *path,
                         const char *types, lo_arg **argv, int argc, long long arrival);

/* Counts what a packet came to beyond its messages (head.c): `bad` parts
 * that were not OSC (why: the last one's words), and `early` messages
 * of bundles timed for later. */
void es_head_osc_packet_count(es_head *h, uint64_t bad, uint64_t early, const char *why);
/* The packets the system dropped, its count so far (osc_listener.c). */
void es_head_osc_dropped(es_head *h, uint64_t total);

/* Listens on UDP `port` of `address` (a literal) for packets, each handed
 * to es_head_osc_packet on a thread of its own. NULL and why (not an
 * address, cannot bind, no thread). */
es_osc_listener *es_osc_listen(es_head *h, const char *address, int port, char *why, size_t n);
/* Stops the thread and closes the socket. NULL-safe. */
void es_osc_listener_stop(es_osc_listener *l);

#endif
