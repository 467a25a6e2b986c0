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
 * from when the listener moved.
 *
 * Two latencies end where the block that carries the new set leaves
 * earshot: the filter exchange from when the set was asked of the stream
 * (the request's word), and motion-to-sound from the motion it answers
 * (a tracker's packet as the kernel received it: a second word, written
 * just before the request's). A newer request may write its motion
 * between the audio thread's taking of the word and its reading of the
 * motion; the word is then non-zero again, and that switch's
 * motion-to-sound is left uncounted rather than counted short. */
#include <stdatomic.h>

#include "ambisonic.h"
#include "processor_private.h"

#define STAMP_BITS 48
#define STAMP_MASK ((UINT64_C(1) << STAMP_BITS) - 1)

void es_set_request_moved(es_set_requests *r, int set, long long asked_ns, long long moved_ns)
{
    if (set < 0 || set > 65534)
        return;
    const uint64_t word = (uint64_t)(set + 1) << STAMP_BITS |
                          ((uint64_t)(asked_ns / 1000) & STAMP_MASK);
    atomic_store_explicit(&r->moved, (uint64_t)(moved_ns / 1000) & STAMP_MASK,
                          memory_order_relaxed);
    atomic_store_explicit(&r->word, word, memory_order_release);
    atomic_fetch_add_explicit(&r->sent, 1, memory_order_relaxed);
}

void es_set_request(es_set_requests *r, int set, long long arrival_ns)
{
    es_set_request_moved(r, set, arrival_ns, arrival_ns);
}

void es_processor_select_set(es_processor *p, int set, long long arrival_ns)
{
    es_set_request(p->sets.requests, set, arrival_ns);
}

void es_sets_init(es_set_watch *w, es_set_requests *from_host)
{
    w->requests = from_host ? from_host : &w->own;
    w->sent_before = atomic_load(&w->requests->sent);
}

void es_set_request_orientation(es_set_requests *r, float yaw, float pitch, float roll)
{
    atomic_store_explicit(&r->orientation, es_orientation_pack(yaw, pitch, roll),
                          memory_order_relaxed);
}

/* The head's orientation to both engines (a field room turns; any other
 * ignores it): each block, so an engine just swapped in turns at once. */
static ES_RT void orient(es_set_watch *w, const es_crossfade *x)
{
    const uint64_t word = atomic_load_explicit(&w->requests->orientation, memory_order_relaxed);
    if (!word)
        return;
    float a[3];
    es_orientation_unpack(word, a);
    es_engine *playing = es_crossfade_playing(x), *incoming = es_crossfade_incoming(x);
    if (playing)
        es_engine_orient(playing, a[0], a[1], a[2]);
    if (incoming)
        es_engine_orient(incoming, a[0], a[1], a[2]);
}

ES_RT void es_sets_take(es_set_watch *w, const es_crossfade *x, es_stats *st)
{
    orient(w, x);
    if (!atomic_load_explicit(&w->requests->word, memory_order_relaxed))
        return;
    const uint64_t word = atomic_exchange_explicit(&w->requests->word, 0, memory_order_acquire);
    if (!word)
        return;
    const int set = (int)(word >> STAMP_BITS) - 1;
    const uint64_t moved = atomic_load_explicit(&w->requests->moved, memory_order_relaxed);
    /* A newer word since: the motion read may be its. */
    const int moved_known = !atomic_load_explicit(&w->requests->word, memory_order_acquire);
    st->set_requests++;
    es_engine *a = es_crossfade_playing(x), *b = es_crossfade_incoming(x);
    /* In a crossfade the engine coming in takes it too, whatever the one
     * going out is: a head turned while a SOFA room fades in over a room
     * of one matrix plays at once. */
    if (b)
        es_engine_select_set(b, set);
    if (!(a->klass->caps & ES_CAP_SETS))
        return; /* a room of one matrix: nothing to switch, nothing to wait for */
    es_engine_select_set(a, set);
    if (!w->waiting || a != w->engine) {
        w->engine = a;
        w->since_us = word & STAMP_MASK;
        w->moved_us = moved;
        w->moved_known = moved_known;
        es_engine_status e;
        es_engine_get_status(a, &e);
        w->switches_before = e.set_switches;
    }
    w->waiting = 1;
    w->wanted = set;
}

/* One latency into its histogram, last and largest. */
static ES_RT void tally(double us, uint32_t *hist, double *last, double *max)
{
    *last = us;
    *max = us > *max ? us : *max;
    const int bin = (int)(us / ES_EXCHANGE_BIN_US);
    hist[bin < ES_EXCHANGE_BINS ? bin : ES_EXCHANGE_BINS - 1]++;
}

ES_RT void es_sets_heard(es_set_watch *w, const es_crossfade *x, es_stats *st, long long end_ns)
{
    if (!w->waiting)
        return;
    const es_engine *e = es_crossfade_playing(x);
    if (e != w->engine) { /* another engine plays now: a new room */
        w->waiting = 0;
        return;
    }
    es_engine_status now;
    es_engine_get_status(e, &now);
    st->set = now.set;
    if (now.set_switches == w->switches_before) {
        /* Asked for the set that plays: nothing to hear, nothing to wait
         * for. Else the switch waits for the engine's next block. */
        if (now.set == w->wanted)
            w->waiting = 0;
        return;
    }
    const uint64_t now_us = ((uint64_t)end_ns / 1000) & STAMP_MASK;
    st->set_switches++;
    tally((double)((now_us - w->since_us) & STAMP_MASK), st->exchange_hist,
          &st->exchange_last_us, &st->exchange_max_us);
    if (w->moved_known) {
        st->motion_switches++;
        tally((double)((now_us - w->moved_us) & STAMP_MASK), st->motion_hist,
              &st->motion_last_us, &st->motion_max_us);
    }
    w->waiting = 0;
}
