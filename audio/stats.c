#include "stats.h"

double es_stats_load_quantile(const es_stats *s, double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < ES_LOAD_BINS; b++)
        total += s->load_hist[b];
    if (!total)
        return 0;
    const uint64_t want = (uint64_t)(q * (double)total + 0.5);
    for (int b = 0; b < ES_LOAD_BINS; b++) {
        seen += s->load_hist[b];
        if (seen >= want && seen > 0) {
            /* The bin's upper edge, but never above the worst block seen. */
            const double edge = (b + 1) / 100.0;
            return edge < s->load_max ? edge : s->load_max;
        }
    }
    return s->load_max;
}

double es_stats_throughput(const es_stats *s)
{
    return s->total_us > 0 ? (double)s->frames * s->inputs / (s->total_us * 1e-6) : 0;
}

double es_stats_realtime_factor(const es_stats *s, double sample_rate)
{
    return s->total_us > 0 ? (double)s->frames / sample_rate / (s->total_us * 1e-6) : 0;
}
