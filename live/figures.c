/* The session's figures by name (figures.h): a row per figure, its value
 * read off the snapshot. */
#include <math.h>

#include "figures.h"

static double elapsed(const es_live_snapshot *s) { return s->elapsed; }
static double blocks(const es_live_snapshot *s) { return (double)s->stats.blocks; }
static double misses(const es_live_snapshot *s) { return (double)s->stats.misses; }
static double stalls(const es_live_snapshot *s) { return (double)s->stats.stalls; }
static double xruns(const es_live_snapshot *s) { return (double)s->xruns; }
static double load_p50(const es_live_snapshot *s) { return s->load_p50; }
static double load_p99(const es_live_snapshot *s) { return s->load_p99; }
static double load_max(const es_live_snapshot *s) { return s->stats.load_max; }
static double throughput(const es_live_snapshot *s) { return s->throughput; }
static double preparing(const es_live_snapshot *s) { return s->preparing; }
static double muted(const es_live_snapshot *s) { return s->stats.muted; }
static double slot(const es_live_snapshot *s) { return s->playing_slot; }
static double yaw(const es_live_snapshot *s) { return s->head.yaw; }
static double pitch(const es_live_snapshot *s) { return s->head.pitch; }
static double roll(const es_live_snapshot *s) { return s->head.roll; }
static double osc_taken(const es_live_snapshot *s) { return (double)s->head.osc_taken; }

/* What a person at the microphone hears, in ms; -1 while not known. */
static double latency_ms(const es_live_snapshot *s)
{
    return s->latency.known && s->rate > 0 ? 1e3 * s->latency.total / s->rate : -1;
}

const es_figure es_figures[] = {
    {"elapsed", 0, 0, elapsed},
    {"blocks", 1, 0, blocks},
    {"misses", 1, 1, misses},
    {"stalls", 1, 1, stalls},
    {"xruns", 1, 1, xruns},
    {"load_p50", 0, 1, load_p50},
    {"load_p99", 0, 1, load_p99},
    {"load_max", 0, 1, load_max},
    {"latency_ms", 0, 1, latency_ms},
    {"throughput", 0, 1, throughput},
    {"slot", 1, 1, slot},
    {"preparing", 1, 0, preparing},
    {"muted", 1, 0, muted},
    {"yaw", 0, 0, yaw},
    {"pitch", 0, 0, pitch},
    {"roll", 0, 0, roll},
    {"osc_taken", 1, 0, osc_taken},
    {NULL, 0, 0, NULL},
};

void es_figures_json(const es_live_snapshot *s, int blind, FILE *to)
{
    int first = 1;
    fputc('{', to);
    for (const es_figure *f = es_figures; f->name; f++) {
        if (blind && f->reveals)
            continue;
        const double v = f->value(s);
        fprintf(to, "%s\"%s\":", first ? "" : ",", f->name);
        if (!isfinite(v))
            fputs("null", to);
        else if (f->integer)
            fprintf(to, "%.0f", v);
        else
            fprintf(to, "%.6g", v);
        first = 0;
    }
    fputc('}', to);
}
