#include "stats.h"

double es_load_quantile(const uint32_t hist[ES_LOAD_BINS], double load_max, double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < ES_LOAD_BINS; b++)
        total += hist[b];
    if (!total)
        return 0;
    const uint64_t want = (uint64_t)(q * (double)total + 0.5);
    for (int b = 0; b < ES_LOAD_BINS; b++) {
        seen += hist[b];
        if (seen >= want && seen > 0) {
            /* The bin's upper edge, but never above the worst block seen. */
            const double edge = (b + 1) / 100.0;
            return edge < load_max ? edge : load_max;
        }
    }
    return load_max;
}

double es_stats_load_quantile(const es_stats *s, double q)
{
    return es_load_quantile(s->load_hist, s->load_max, q);
}

double es_stats_throughput(const es_stats *s)
{
    return s->total_us > 0 ? (double)s->frames * s->inputs / (s->total_us * 1e-6) : 0;
}

double es_stats_realtime_factor(const es_stats *s, double sample_rate)
{
    return s->total_us > 0 ? (double)s->frames / sample_rate / (s->total_us * 1e-6) : 0;
}

double es_ab_stats_throughput(const es_ab_stats *a, int channels)
{
    return a->total_us > 0 ? (double)a->frames * channels / (a->total_us * 1e-6) : 0;
}

double es_ab_stats_realtime_factor(const es_ab_stats *a)
{
    return a->total_us > 0 ? a->budget_total_us / a->total_us : 0;
}

double es_ab_stats_mean_load(const es_ab_stats *a)
{
    return a->budget_total_us > 0 ? a->total_us / a->budget_total_us : 0;
}

void es_ab_stats_add(es_ab_stats *dst, const es_ab_stats *src)
{
    dst->blocks += src->blocks;
    dst->frames += src->frames;
    dst->misses += src->misses;
    dst->late_results += src->late_results;
    dst->total_us += src->total_us;
    dst->budget_total_us += src->budget_total_us;
    dst->max_us = src->max_us > dst->max_us ? src->max_us : dst->max_us;
    dst->load_max = src->load_max > dst->load_max ? src->load_max : dst->load_max;
    for (int b = 0; b < ES_LOAD_BINS; b++)
        dst->load_hist[b] += src->load_hist[b];
}
