/* A/B slots (slots.h). */
#include <math.h>
#include <string.h>

#include "slots.h"

void es_slots_init(es_slots *sl, const es_play_spec *a, const es_play_spec *b, int playing,
                   int latency)
{
    memset(sl, 0, sizeof *sl);
    sl->ab[ES_SLOT_A] = (es_slot){.set = 1, .spec = *a, .latency = -1};
    if (b)
        sl->ab[ES_SLOT_B] = (es_slot){.set = 1, .spec = *b, .latency = -1};
    sl->playing = playing;
    sl->ab[playing].played = 1;
    sl->ab[playing].latency = latency;
}

int es_slots_restarts(const es_slots *sl, int slot, const es_play_spec *spec)
{
    const es_slot *a = &sl->ab[slot];
    return !a->set || (es_play_spec_diff(&a->spec, spec) & ES_SPEC_SLOT) != 0;
}

void es_slots_played(es_slots *sl, int slot, const es_play_spec *spec, int restart,
                     int latency)
{
    es_slot *a = &sl->ab[slot];
    if (restart) {
        memset(&a->carried, 0, sizeof a->carried);
        a->generation++;
    }
    a->set = a->played = 1;
    a->spec = *spec;
    a->latency = latency;
    sl->playing = slot;
}

void es_slots_carry(es_slots *sl, const es_stats *old, int restart_slot)
{
    for (int k = 0; k < ES_AB_SLOTS; k++)
        if (k != restart_slot)
            es_ab_stats_add(&sl->ab[k].carried, &old->ab[k]);
}

void es_slots_reset(es_slots *sl)
{
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        memset(&sl->ab[k].carried, 0, sizeof sl->ab[k].carried);
        sl->ab[k].generation++;
    }
}

void es_slots_view(const es_slots *sl, int slot, const es_stats *now, es_live_slot *out)
{
    const es_slot *a = &sl->ab[slot];
    *out = (es_live_slot){.set = a->set, .played = a->played, .spec = a->spec,
                          .latency = a->latency, .generation = a->generation,
                          .stats = a->carried};
    es_ab_stats_add(&out->stats, &now->ab[slot]);
    out->stats.restarts = now->ab[slot].restarts;
    const es_ab_stats *s = &out->stats;
    out->seconds = s->budget_total_us * 1e-6;
    out->load_p50 = es_load_quantile(s->load_hist, s->load_max, 0.5);
    out->load_p99 = es_load_quantile(s->load_hist, s->load_max, 0.99);
    out->load_max = s->load_max;
    out->load_mean = es_ab_stats_mean_load(s);
    out->helpers_load = es_ab_stats_helpers_load(s);
    out->gpu_load = es_ab_stats_gpu_load(s);
    /* A slot's first seconds hear the new room ring with what came before
     * it (a primed swap continues the past), against an input counted
     * from the change only: the ratio read +27 dB for a moment where it
     * settled at +5. It is shown once it has settled. */
    out->level_db = out->seconds >= ES_SLOT_LEVEL_SETTLE_S ? es_ab_stats_gain_db(s) : NAN;
    out->throughput = es_ab_stats_throughput(s, now->inputs);
    out->realtime_factor = es_ab_stats_realtime_factor(s);
}

void es_slots_hold(es_slots *sl, int slot, const es_play_spec *spec)
{
    es_slot *a = &sl->ab[slot];
    a->spec = *spec;
    a->set = 1;
}
