/* The processor's side of filter sets (a head-tracked room): requests from
 * a tracker's thread to the engines, and the filter-exchange latency of
 * each switch (es_stats).
 *
 * A tracker may send a hundred orientations a second, or ten thousand,
 * and only the newest matters. So a request is one 64-bit word, stored
 * over the one before (no ring to fill, no lock, nothing the audio thread
 * waits on): the set in the top 16 bits, the request's arrival in
 * microseconds below. The audio thread takes the word at the top of each
 * callback and hands the set to the engines; they switch within their
 * next block. The latency of a switch counts from the oldest request not
 * yet heard, so a request replaced before it was played still counts
 * from when the listener moved. */
#include <stdatomic.h>

#include "processor_private.h"

#define STAMP_BITS 48
#define STAMP_MASK ((UINT64_C(1) << STAMP_BITS) - 1)

void es_set_request(es_set_requests *r, int set, long long arrival_ns)
{
    if (set < 0 || set > 65534)
        return;
    const uint64_t word = (uint64_t)(set + 1) << STAMP_BITS |
                          ((uint64_t)(arrival_ns / 1000) & STAMP_MASK);
    atomic_store_explicit(&r->word, word, memory_order_release);
    atomic_fetch_add_explicit(&r->sent, 1, memory_order_relaxed);
}

void es_processor_select_set(es_processor *p, int set, long long arrival_ns)
{
    es_set_request(p->requests, set, arrival_ns);
}

ES_RT void es_sets_take(es_processor *p)
{
    if (!atomic_load_explicit(&p->requests->word, memory_order_relaxed))
        return;
    const uint64_t word = atomic_exchange_explicit(&p->requests->word, 0, memory_order_acquire);
    if (!word)
        return;
    const int set = (int)(word >> STAMP_BITS) - 1;
    p->acc.set_requests++;
    slot *a = &p->slots[p->active], *b = &p->slots[1 - p->active];
    /* In a crossfade the engine coming in takes it too, whatever the one
     * going out is: a head turned while a SOFA room fades in over a room
     * of one matrix plays at once. */
    if (p->fading && b->engine)
        es_engine_select_set(b->engine, set);
    if (!(a->engine->klass->caps & ES_CAP_SETS))
        return; /* a room of one matrix: nothing to switch, nothing to wait for */
    es_engine_select_set(a->engine, set);
    if (!p->set_waiting || a->engine != p->set_engine) {
        p->set_engine = a->engine;
        p->set_since_us = word & STAMP_MASK;
        es_engine_status st;
        es_engine_get_status(a->engine, &st);
        p->set_switches_before = st.set_switches;
    }
    p->set_waiting = 1;
    p->set_wanted = set;
}

ES_RT void es_sets_heard(es_processor *p, long long end_ns)
{
    if (!p->set_waiting)
        return;
    const es_engine *e = p->slots[p->active].engine;
    if (e != p->set_engine) { /* another engine plays now: a new room */
        p->set_waiting = 0;
        return;
    }
    es_engine_status st;
    es_engine_get_status(e, &st);
    p->acc.set = st.set;
    if (st.set_switches == p->set_switches_before) {
        /* Asked for the set that plays: nothing to hear, nothing to wait
         * for. Else the switch waits for the engine's next block. */
        if (st.set == p->set_wanted)
            p->set_waiting = 0;
        return;
    }
    const uint64_t now_us = ((uint64_t)end_ns / 1000) & STAMP_MASK;
    const double us = (double)((now_us - p->set_since_us) & STAMP_MASK);
    es_stats *s = &p->acc;
    s->set_switches++;
    s->exchange_last_us = us;
    s->exchange_max_us = us > s->exchange_max_us ? us : s->exchange_max_us;
    const int bin = (int)(us / ES_EXCHANGE_BIN_US);
    s->exchange_hist[bin < ES_EXCHANGE_BINS ? bin : ES_EXCHANGE_BINS - 1]++;
    p->set_waiting = 0;
}
