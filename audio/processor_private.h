/* What the processor's files share (internal to audio/): the processor,
 * which holds its stages (processor_stages.h) and the rings between the
 * two threads, and the commands the control side queues for the audio
 * thread. processor.c is the audio thread's side and the processor's
 * making; processor_control.c the control side's calls (swaps, levels,
 * the engines to collect, the statistics); processor_sets.c filter-set
 * requests. */
#ifndef ES_PROCESSOR_PRIVATE_H
#define ES_PROCESSOR_PRIVATE_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/spsc_ring.h"
#include "processor.h"
#include "processor_stages.h"

#define COMMANDS 64      /* queued commands; a UI sends a few per second */
#define RETIRED ES_PROCESSOR_SWAPS_MAX /* engines waiting to be destroyed */

enum { CMD_SWAP, CMD_MIX, CMD_RESET_STATS, CMD_MUTE, CMD_UNMUTE, CMD_HOLD, CMD_KINDS };

typedef struct {
    int kind;
    es_engine *engine;   /* CMD_SWAP */
    es_swap_how how;     /* CMD_SWAP: its A/B slot (-1: the one playing), ringing */
    uint64_t ticket;     /* CMD_SWAP */
    es_mix mix;          /* CMD_MIX */
    int panic;           /* CMD_MUTE */
    int hold;            /* CMD_HOLD */
} command;

/* Filter sets (processor_sets.c): where requests come in; on the audio
 * thread, the one waiting for its switch. */
typedef struct {
    es_set_requests own;     /* the processor's own requests */
    es_set_requests *requests; /* own or the host's (es_processor_config) */
    uint64_t sent_before;    /* requests made before this processor */
    int waiting, wanted;     /* a switch asked for, not heard yet: its set */
    uint64_t since_us;       /* arrival of the oldest request not yet heard */
    uint64_t moved_us;       /* the motion it answers (us) */
    int moved_known;         /* 0: the motion read may have been a newer request's */
    uint64_t switches_before;
    const es_engine *engine; /* the engine the waiting request went to */
} es_set_watch;

struct es_processor {
    es_format fmt;
    es_processor_config cfg;
    int latency;
    int freewheel;           /* es_processor_freewheel: the host freewheels */
    es_spsc_ring commands, retired;
    /* Swaps accepted and not yet collected: each is a queued engine, one
     * crossfading in, or an old engine in (or on its way to) the retired
     * ring. Kept at most RETIRED, so a retire always finds room. Written
     * by the control side only. */
    atomic_int uncollected;
    atomic_int pending_swaps; /* swaps queued whose crossfade has not ended */

    /* The stages, in the order a block meets them. */
    es_input_guard input;
    es_crossfade xfade;
    es_mixer mixer;
    es_output_guard output;
    es_accounting acct;
    es_set_watch sets;
};

/* ---- filter sets (processor_sets.c), audio thread ---- */

void es_sets_init(es_set_watch *w, es_set_requests *from_host);
/* Before the engines run: the newest request, if any, to the engines. */
ES_RT void es_sets_take(es_set_watch *w, const es_crossfade *x, es_stats *st);
/* After the block: whether the switch asked for is in it, and its
 * latency to `end_ns`. */
ES_RT void es_sets_heard(es_set_watch *w, const es_crossfade *x, es_stats *st, long long end_ns);

/* 1 when engine e (made for format f) can play in this processor: the
 * same rate and channels, a block it takes, no more latency than the
 * processor has; else 0 and why in err. */
int es_processor_fits(const es_processor *p, const es_engine *e, const es_format *f, char *err,
                      size_t n);

#endif
