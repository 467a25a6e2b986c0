/* What the processor measures per block (stats.h), and what is read from
 * it. The counting runs on the audio thread: no allocation, no waiting. */
#include <math.h>
#include <string.h>

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

/* A latency histogram's quantile: a bin's upper edge, never above the
 * worst seen; 0 with none. */
static double latency_quantile(const uint32_t *hist, double max_us, double q)
{
    uint64_t total = 0, seen = 0;
    for (int b = 0; b < ES_EXCHANGE_BINS; b++)
        total += hist[b];
    if (!total)
        return 0;
    uint64_t want = (uint64_t)ceil(q * (double)total);
    want = want > 0 ? want : 1;
    for (int b = 0; b < ES_EXCHANGE_BINS; b++) {
        seen += hist[b];
        if (seen >= want) {
            const double edge = (b + 1) * ES_EXCHANGE_BIN_US;
            return b < ES_EXCHANGE_BINS - 1 && edge < max_us ? edge : max_us;
        }
    }
    return max_us;
}

double es_stats_exchange_quantile(const es_stats *s, double q)
{
    return latency_quantile(s->exchange_hist, s->exchange_max_us, q);
}

double es_stats_motion_quantile(const es_stats *s, double q)
{
    return latency_quantile(s->motion_hist, s->motion_max_us, q);
}

/* Everything the stream cost: the audio thread's CPU time and the
 * engines' helpers'. */
static double spent_us(double audio_cpu_us, double helpers_us)
{
    return audio_cpu_us + helpers_us;
}

double es_stats_throughput(const es_stats *s)
{
    const double us = spent_us(s->cpu_us, s->helpers_us);
    return us > 0 ? (double)s->frames * s->inputs / (us * 1e-6) : 0;
}

double es_stats_realtime_factor(const es_stats *s, double sample_rate)
{
    const double us = spent_us(s->cpu_us, s->helpers_us);
    return us > 0 ? (double)s->frames / sample_rate / (us * 1e-6) : 0;
}

double es_ab_stats_throughput(const es_ab_stats *a, int channels)
{
    const double us = spent_us(a->cpu_us, a->helpers_us);
    return us > 0 ? (double)a->frames * channels / (us * 1e-6) : 0;
}

double es_ab_stats_realtime_factor(const es_ab_stats *a)
{
    const double us = spent_us(a->cpu_us, a->helpers_us);
    return us > 0 ? a->budget_total_us / us : 0;
}

double es_ab_stats_mean_load(const es_ab_stats *a)
{
    return a->budget_total_us > 0 ? spent_us(a->cpu_us, a->helpers_us) / a->budget_total_us
                                  : 0;
}

double es_ab_stats_helpers_load(const es_ab_stats *a)
{
    return a->budget_total_us > 0 ? a->helpers_us / a->budget_total_us : 0;
}

double es_ab_stats_gpu_load(const es_ab_stats *a)
{
    return a->budget_total_us > 0 ? a->gpu_us / a->budget_total_us : 0;
}

double es_ab_stats_gain_db(const es_ab_stats *a)
{
    return a->in_energy > 0 && a->out_energy > 0 ? 10 * log10(a->out_energy / a->in_energy)
                                                 : NAN;
}

ES_RT double es_energy(const float *const *x, int channels, int frames)
{
    enum { LANES = 8 };
    double sum = 0;
    for (int c = 0; c < channels; c++) {
        /* Per block in float, in eight sums of their own: one running sum
         * is a chain the compiler may not reorder (a float's sum depends
         * on its order), eight independent ones are one vector. Summed in
         * double across blocks and channels. */
        const float *v = x[c];
        float lane[LANES] = {0};
        int t = 0;
        for (; t + LANES <= frames; t += LANES)
            for (int k = 0; k < LANES; k++)
                lane[k] += v[t + k] * v[t + k];
        float part = 0;
        for (; t < frames; t++)
            part += v[t] * v[t];
        for (int k = 0; k < LANES; k++)
            part += lane[k];
        sum += part;
    }
    return sum;
}

void es_ab_stats_add(es_ab_stats *dst, const es_ab_stats *src)
{
    dst->blocks += src->blocks;
    dst->frames += src->frames;
    dst->misses += src->misses;
    dst->late_results += src->late_results;
    dst->stalls += src->stalls;
    dst->total_us += src->total_us;
    dst->budget_total_us += src->budget_total_us;
    dst->cpu_us += src->cpu_us;
    dst->helpers_us += src->helpers_us;
    dst->gpu_us += src->gpu_us;
    dst->in_energy += src->in_energy;
    dst->out_energy += src->out_energy;
    dst->max_us = src->max_us > dst->max_us ? src->max_us : dst->max_us;
    dst->load_max = src->load_max > dst->load_max ? src->load_max : dst->load_max;
    for (int b = 0; b < ES_LOAD_BINS; b++)
        dst->load_hist[b] += src->load_hist[b];
}

static ES_RT void count_ab(es_ab_stats *a, const es_block_count *b, int missed, int stalled,
                           int bin)
{
    a->blocks++;
    a->frames += (uint64_t)b->frames;
    a->misses += missed;
    a->stalls += stalled;
    a->late_results += b->late;
    a->total_us += b->took_us;
    a->budget_total_us += b->budget_us;
    a->helpers_us += b->helpers_us;
    a->gpu_us += b->gpu_us;
    a->in_energy += b->in_energy;
    a->out_energy += b->out_energy;
    a->max_us = b->took_us > a->max_us ? b->took_us : a->max_us;
    const double load = b->took_us / b->budget_us;
    a->load_max = load > a->load_max ? load : a->load_max;
    a->load_hist[bin]++;
}

/* Samples beyond full scale (|x| > 1, infinities too, not NaN), on the
 * bits: integer compares with no branch, which the compiler vectorises
 * (the float compare with || was a branch per sample: most of a render's
 * time outside the engine). */
ES_RT uint32_t es_count_clipped(const float *x, int frames)
{
    uint32_t n = 0;
    for (int t = 0; t < frames; t++) {
        uint32_t b;
        memcpy(&b, x + t, sizeof b);
        b &= 0x7fffffffu;
        n += (b > 0x3f800000u) & (b <= 0x7f800000u);
    }
    return n;
}

ES_RT void es_stats_count_block(es_stats *s, const es_block_count *b)
{
    const double took_us = b->took_us, cpu_us = b->cpu_us, budget_us = b->budget_us;
    const uint64_t late = b->late;
    s->budget_us = budget_us;
    s->last_us = took_us;
    s->max_us = took_us > s->max_us ? took_us : s->max_us;
    s->total_us += took_us;
    s->load_now = took_us / budget_us;
    s->load_max = s->load_now > s->load_max ? s->load_now : s->load_max;
    const int bin100 = (int)(s->load_now * 100.0);
    const int bin = bin100 < ES_LOAD_BINS - 1 ? bin100 : ES_LOAD_BINS - 1;
    s->load_hist[bin]++;
    s->late_results += late;
    const int over = !b->freewheel && took_us > budget_us;
    const int missed = late > 0 || (over && cpu_us > ES_STALL_CPU_SHARE * budget_us);
    s->freewheel_blocks += (uint64_t)b->freewheel;
    s->freewheeling = b->freewheel;
    const int stalled = over && !missed;
    if (missed)
        s->recent_misses[s->misses++ % ES_RECENT_MISSES] = s->blocks;
    s->stalls += stalled;
    s->clipped += b->clipped;
    s->limited += b->limited;
    s->helpers_us += b->helpers_us;
    s->cpu_us += b->period_cpu_us;
    if (b->period_ab >= 0 && b->period_ab < ES_AB_SLOTS)
        s->ab[b->period_ab].cpu_us += b->period_cpu_us;
    s->load_recent[s->blocks % ES_LOAD_RECENT] = (float)s->load_now;
    if (b->ab >= 0 && b->ab < ES_AB_SLOTS)
        count_ab(&s->ab[b->ab], b, missed, stalled, bin);
    s->blocks++;
    s->frames += (uint64_t)b->frames;
}

/* Per channel: the block's peak; the RMS integrated over about
 * ES_METER_RMS_MS (exponentially, so a meter read 30 times a second shows
 * the level, not whichever block it caught); and the peak held with a fall
 * of ES_METER_FALL_DB per second, so no peak between reads is missed, and
 * never below that RMS: the integrated RMS lags a decay, and a peak
 * meter that read under its own RMS would contradict itself.
 * keep: the RMS integrator's weight for this block; fall: the hold's. */
static ES_RT void levels(const float *const *x, int channels, int frames, float keep,
                         float fall, float *peak, float *rms, float *hold)
{
    for (int c = 0; c < channels && c < ES_METER_CHANNELS; c++) {
        float pk = 0;
        double sq = 0;
        for (int t = 0; t < frames; t++) {
            float v = fabsf(x[c][t]);
            pk = v > pk ? v : pk;
            sq += (double)x[c][t] * x[c][t];
        }
        peak[c] = pk;
        const float ms = keep * rms[c] * rms[c] + (1.0f - keep) * (float)(sq / frames);
        rms[c] = sqrtf(ms);
        float h = pk > hold[c] * fall ? pk : hold[c] * fall;
        hold[c] = h > rms[c] ? h : rms[c];
    }
}

ES_RT void es_stats_measure_levels(es_stats *s, const float *const *in, int inputs,
                                   const float *const *out, int outputs, int frames,
                                   double rate)
{
    /* dB per second to a gain per block: 10^(-fall * frames / rate / 20). */
    const float fall = expf((float)(-ES_METER_FALL_DB * 0.11512925464970229 * frames / rate));
    const float keep = expf((float)(-1e3 * frames / (ES_METER_RMS_MS * rate)));
    levels(in, inputs, frames, keep, fall, s->in_peak, s->in_rms, s->in_hold);
    levels(out, outputs, frames, keep, fall, s->out_peak, s->out_rms, s->out_hold);
}
