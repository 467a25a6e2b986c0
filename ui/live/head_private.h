/* The es_head itself, shared by head.c (orientation to set) and
 * head_osc.c (the OSC listener). Internal to live. */
#ifndef ES_HEAD_PRIVATE_H
#define ES_HEAD_PRIVATE_H

#include <lo/lo.h>
#include <pthread.h>

#include "head.h"

struct es_head {
    pthread_mutex_t lock;
    es_set_requests *requests;
    es_sofa_pose *poses;     /* the room's, copied; NULL: not tracked */
    es_head_view view;       /* everything es_head_view_get hands out */
    lo_server_thread osc;    /* NULL: not listening */
};

/* One OSC message, as liblo's thread hands it over (head_osc.c), that
 * arrived at `arrival` (es_now_ns): taken, or counted as refused. Also
 * the fuzz target's way in. */
void es_head_osc_message(es_head *h, const char *path, const char *types, lo_arg **argv,
                         int argc, long long arrival);

#endif
