/* The processor's control side (processor_private.h): swaps queued for
 * the audio thread, levels, mutes, the retired engines collected, and the
 * statistics read under their seqlock. Never on the audio thread. */
#include <stdatomic.h>
#include <stdio.h>

#include "processor_private.h"

int es_processor_can_swap(const es_processor *p)
{
    return atomic_load(&((es_processor *)p)->uncollected) < RETIRED;
}

int es_processor_swap(es_processor *p, es_engine *take_engine, const es_format *fmt, char *err,
                      size_t n)
{
    return es_processor_swap_ab(p, take_engine, fmt, -1, 0, err, n);
}

int es_processor_swap_ab(es_processor *p, es_engine *take_engine, const es_format *fmt, int ab,
                         int restart, char *err, size_t n)
{
    const es_swap_how how = {.ab = ab, .restart = restart};
    uint64_t ticket;
    return es_processor_swap_with(p, take_engine, fmt, &how, &ticket, err, n);
}

es_history *es_processor_history(es_processor *p)
{
    return es_history_ref(p->input.history);
}

int es_processor_history_frames(const es_processor *p)
{
    return p->input.history ? p->cfg.history_frames : 0;
}

/* Tickets are unique in the process, so that one processor's never
 * stands for another's. */
static atomic_uint_fast64_t tickets;

int es_processor_swap_with(es_processor *p, es_engine *take_engine, const es_format *fmt,
                           const es_swap_how *how, uint64_t *ticket, char *err, size_t n)
{
    const int ab = how->ab;
    if (ab < -1 || ab >= ES_AB_SLOTS) {
        snprintf(err, n, "A/B slot %d: there are %d", ab, ES_AB_SLOTS);
        return -1;
    }
    if (how->ringing && !p->input.history) {
        snprintf(err, n, "a primed swap on a stream that keeps no history");
        return -1;
    }
    if (!es_processor_fits(p, take_engine, fmt, err, n))
        return -1;
    /* Accepting one more could leave the audio thread an engine the
     * retired ring has no room for. */
    if (!es_processor_can_swap(p)) {
        snprintf(err, n, "too many changes under way; try again in a moment");
        return -1;
    }
    command c = {.kind = CMD_SWAP, .engine = take_engine, .how = *how,
                 .ticket = atomic_fetch_add(&tickets, 1) + 1};
    *ticket = c.ticket;
    atomic_fetch_add(&p->pending_swaps, 1);
    atomic_fetch_add(&p->uncollected, 1);
    if (!es_spsc_push(&p->commands, &c)) {
        atomic_fetch_sub(&p->uncollected, 1);
        atomic_fetch_sub(&p->pending_swaps, 1);
        snprintf(err, n, "too many changes queued; try again in a moment");
        return -1;
    }
    return 0;
}

int es_processor_set_mix(es_processor *p, const es_mix *mix)
{
    if (!es_mix_check(mix, NULL, 0))
        return -1;
    command c = {.kind = CMD_MIX, .mix = *mix};
    return es_spsc_push(&p->commands, &c) ? 0 : -1;
}

int es_processor_mute(es_processor *p, int panic)
{
    command c = {.kind = CMD_MUTE, .panic = panic};
    return es_spsc_push(&p->commands, &c) ? 0 : -1;
}

int es_processor_unmute(es_processor *p)
{
    command c = {.kind = CMD_UNMUTE};
    return es_spsc_push(&p->commands, &c) ? 0 : -1;
}

int es_processor_hold_input(es_processor *p, int hold)
{
    command c = {.kind = CMD_HOLD, .hold = hold};
    return es_spsc_push(&p->commands, &c) ? 0 : -1;
}

int es_processor_reset_stats(es_processor *p)
{
    command c = {.kind = CMD_RESET_STATS};
    return es_spsc_push(&p->commands, &c) ? 0 : -1;
}

static void destroy_engine(void *ctx, es_engine *e)
{
    (void)ctx;
    es_engine_destroy(e);
}

int es_processor_collect_with(es_processor *p, void (*take)(void *ctx, es_engine *e),
                              void *ctx)
{
    es_engine *e;
    int count = 0;
    while (es_spsc_pop(&p->retired, &e)) {
        take(ctx, e);
        atomic_fetch_sub(&p->uncollected, 1);
        count++;
    }
    return count;
}

int es_processor_collect(es_processor *p)
{
    return es_processor_collect_with(p, destroy_engine, NULL);
}

int es_processor_swap_pending(const es_processor *p)
{
    return atomic_load(&((es_processor *)p)->pending_swaps) > 0;
}

void es_processor_stats(const es_processor *p, es_stats *out)
{
    es_accounting_read(&p->acct, out);
    /* Filter-set requests made and not taken: the one waiting in the
     * word, and those a newer one replaced. */
    es_set_requests *r = p->sets.requests;
    const uint64_t sent = atomic_load(&r->sent) - p->sets.sent_before;
    const uint64_t waiting = atomic_load(&r->word) != 0;
    out->set_superseded = sent > out->set_requests + waiting ? sent - out->set_requests - waiting
                                                             : 0;
}
