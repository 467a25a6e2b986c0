/* Every meter (meter.h): its name, unit, JSON key, definition, text-report
 * lines and short form on the screen, a row each, in the order the
 * reports give them. The hooks read the snapshot only. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/text.h"
#include "meter.h"

typedef unsigned long long ull;

/* ---- values for JSON ---- */

static void json_text(FILE *to, const char *text)
{
    es_json_string(to, text);
}

static void j_device(const es_live_snapshot *s, FILE *to) { json_text(to, s->device); }
static void j_engine(const es_live_snapshot *s, FILE *to) { json_text(to, s->stats.engine); }
static void j_rate(const es_live_snapshot *s, FILE *to) { fprintf(to, "%g", s->rate); }
static void j_block(const es_live_snapshot *s, FILE *to) { fprintf(to, "%d", s->playing.block); }
static void j_seconds(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.3f", s->elapsed); }
static void j_counted(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.3f", s->counted); }
static void j_blocks(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.blocks); }
static void j_expected(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.1f", s->blocks_expected); }
static void j_first_block(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "%lld", s->stats.first_block_ns);
}
static void j_skipped(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "%.6f", s->skipped_seconds);
}
static void j_misses(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.misses); }
static void j_late(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.late_results); }
static void j_stalls(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.stalls); }
static void j_xruns(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->xruns); }
static void j_p50(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.4f", s->load_p50); }
static void j_p99(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.4f", s->load_p99); }
static void j_max(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.4f", s->stats.load_max); }
static void j_engine_latency(const es_live_snapshot *s, FILE *to) { fprintf(to, "%d", s->stats.latency); }
static void j_throughput(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.0f", s->throughput); }
static void j_rt(const es_live_snapshot *s, FILE *to) { fprintf(to, "%.2f", s->realtime_factor); }
static void j_clipped(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.clipped); }
static void j_swaps(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.swaps); }
static void j_primed(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.primed); }
static void j_prime_late(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.prime_late); }
static void j_recorded(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->recorded_frames); }
static void j_dropped(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->record_dropped); }
static void j_created(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->engines_created); }
static void j_destroyed(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->engines_destroyed); }
static void j_limited(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.limited); }

static void j_bad_input(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.bad_input); }
static void j_bad_output(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.bad_output); }
static void j_engine_bad(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.engine_bad); }
static void j_runaways(const es_live_snapshot *s, FILE *to) { fprintf(to, "%llu", (ull)s->stats.runaways); }

/* Why the output is muted: "runaway", "panic", or null while it plays. */
static void j_muted(const es_live_snapshot *s, FILE *to)
{
    fputs(s->stats.muted == 1 ? "\"runaway\"" : s->stats.muted == 2 ? "\"panic\"" : "null", to);
}

/* A total that is not known is null in JSON, never a number. */
static void j_latency_frames(const es_live_snapshot *s, FILE *to)
{
    if (s->latency.known)
        fprintf(to, "%d", s->latency.total);
    else
        fputs("null", to);
}

static void j_latency_ms(const es_live_snapshot *s, FILE *to)
{
    if (s->latency.known)
        fprintf(to, "%.3f", s->latency.total * 1e3 / s->rate);
    else
        fputs("null", to);
}

/* When the latest misses happened, in seconds of audio since the stats
 * began (the stream's start, or its last block change or meter reset), so
 * a glitch can be lined up with what else the machine did. */
static void j_miss_at(const es_live_snapshot *s, FILE *to)
{
    const es_stats *st = &s->stats;
    const uint64_t kept = st->misses < ES_RECENT_MISSES ? st->misses : ES_RECENT_MISSES;
    fputc('[', to);
    for (uint64_t k = 0; k < kept; k++) {
        const uint64_t block = st->recent_misses[(st->misses - kept + k) % ES_RECENT_MISSES];
        fprintf(to, "%s%.3f", k ? "," : "", (double)block * s->playing.block / s->rate);
    }
    fputc(']', to);
}

/* The stall probe's view of the same time: how late a real-time thread
 * woke, whatever the engine did. */
static void j_stall_probe(const es_live_snapshot *s, FILE *to)
{
    if (!s->have_stalls) {
        fputs("null", to);
        return;
    }
    const es_stall_stats *sp = &s->stalls;
    fprintf(to, "{\"wakes\":%llu,\"late_periods\":%llu,\"worst_wake_ms\":%.3f,"
            "\"period_ms\":%.3f,\"watched_s\":%.3f,\"realtime\":%s,\"late_at_s\":[",
            (ull)sp->wakes, (ull)sp->late, 1e-3 * sp->worst_us, 1e-3 * sp->period_us,
            sp->seconds, sp->realtime ? "true" : "false");
    for (uint64_t k = 0; k < sp->late && k < ES_STALL_RECENT; k++)
        fprintf(to, "%s%.3f", k ? "," : "", sp->late_at_s[k]);
    fputs("]}", to);
}

static void j_shards(const es_live_snapshot *s, FILE *to)
{
    fputc('[', to);
    for (int k = 0; k < s->stats.shards; k++)
        fprintf(to, "%s{\"gpu\":%d,\"first_output\":%d,\"outputs\":%d,\"late\":%llu}",
                k ? "," : "", s->stats.shard[k].device, s->stats.shard[k].first_output + 1,
                s->stats.shard[k].outputs, (ull)s->stats.shard[k].late);
    fputc(']', to);
}

/* A linear level in dB for JSON: null for off (JSON has no -inf). */
static void json_db(FILE *to, const char *name, double linear)
{
    fprintf(to, ",\"%s\":", name);
    if (linear > 0)
        fprintf(to, "%.2f", 20 * log10(linear));
    else
        fputs("null", to);
}

/* The levels now: what `trim`, `wet`, `dry`, `gain`, `bypass` and
 * `limiter` set, in the same dB. */
static void j_levels(const es_live_snapshot *s, FILE *to)
{
    const es_mix *m = &s->mix;
    fprintf(to, "{\"trim_db\":%.2f", (double)m->trim_db);
    json_db(to, "wet_db", m->wet);
    json_db(to, "dry_db", m->dry);
    json_db(to, "gain_db", m->gain);
    fprintf(to, ",\"bypass\":%s,\"limiter_db\":", m->bypass ? "true" : "false");
    if (m->limiter)
        fprintf(to, "%.2f}", (double)m->ceiling_db);
    else
        fputs("null}", to);
}

/* Each A/B slot's own figures (es_live_slot). */
static void j_slots(const es_live_snapshot *s, FILE *to)
{
    fputc('[', to);
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        const es_live_slot *sl = &s->slot[k];
        fprintf(to, "%s{\"slot\":\"%c\",\"set\":%s", k ? "," : "", "AB"[k],
                sl->set ? "true" : "false");
        if (sl->set) {
            fputs(",\"room\":", to);
            es_json_string(to, sl->spec.room);
            fputs(",\"engine\":", to);
            es_json_string(to, sl->spec.engine->name);
            char heard[16] = "null"; /* -1: the device's figure failed its check */
            if (sl->latency >= 0)
                snprintf(heard, sizeof heard, "%d", sl->latency);
            char level[16] = "null";
            if (isfinite(sl->level_db))
                snprintf(level, sizeof level, "%.2f", sl->level_db);
            fprintf(to, ",\"block\":%d,\"latency_frames\":%s,\"blocks\":%llu,"
                    "\"counted_seconds\":%.3f,\"misses\":%llu,\"late_results\":%llu,"
                    "\"load_p50\":%.4f,\"load_p99\":%.4f,\"load_max\":%.4f,"
                    "\"load_mean\":%.4f,\"helpers_load_mean\":%.4f,\"gpu_load_mean\":%.4f,"
                    "\"throughput\":%.0f,\"realtime_factor\":%.2f,\"level_db\":%s",
                    sl->spec.block, heard, (ull)sl->stats.blocks, sl->seconds,
                    (ull)sl->stats.misses, (ull)sl->stats.late_results, sl->load_p50,
                    sl->load_p99, sl->load_max, sl->load_mean, sl->helpers_load, sl->gpu_load,
                    sl->throughput, sl->realtime_factor, level);
        }
        fputc('}', to);
    }
    fputc(']', to);
}

/* A figure that may have failed its check (-1): null. */
static void int_or_null(char *out, size_t n, int v, int known)
{
    if (known && v >= 0)
        snprintf(out, n, "%d", v);
    else
        snprintf(out, n, "null");
}

/* The latency's parts, and the host API's own figures they came from, so
 * a script can check the sum against its own expectation. Unknown: the
 * buffers are not numbers either. */
static void j_latency(const es_live_snapshot *s, FILE *to)
{
    const es_latency_parts *lp = &s->latency;
    char total[16], in[16], out[16], said_in[16], said_out[16];
    int_or_null(total, sizeof total, lp->total, lp->known);
    int_or_null(in, sizeof in, lp->input, lp->known);
    int_or_null(out, sizeof out, lp->output, lp->known);
    int_or_null(said_in, sizeof said_in, lp->reported_input, 1);
    int_or_null(said_out, sizeof said_out, lp->reported_output, 1);
    fprintf(to, "{\"total\":%s,\"engine\":%d,\"inside\":%d,\"own\":%d,\"input\":%s,"
            "\"output\":%s,\"input_counts\":%s,"
            "\"period\":%d,\"block\":%d,\"reported_input\":%s,\"reported_output\":%s,"
            "\"known\":%s,\"note\":", total, lp->engine, lp->inside, lp->engine + lp->inside,
            in, out,
            lp->input_counts ? "true" : "false", lp->period, lp->block, said_in, said_out,
            lp->known ? "true" : "false");
    es_json_string(to, lp->note);
    fputc('}', to);
}

static void j_freewheel(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "%llu", (unsigned long long)s->stats.freewheel_blocks);
}

/* ---- lines of the text report ---- */

static void t_device(const es_live_snapshot *s, FILE *to)
{
    char device[300];
    es_text_escape(device, sizeof device, s->device);
    fprintf(to, "device %s, engine %s, %g Hz, block %d, %.2f s\n", device, s->stats.engine,
            s->rate, s->playing.block, s->elapsed);
    /* Every count below is since the meters last started counting: the
     * start, a reset (c) or a reopened stream. */
    fprintf(to, "  counted     the last %.2f s (since the %s)\n", s->counted,
            s->counted + 0.05 < s->elapsed ? "meters were last cleared or the stream reopened"
                                            : "start");
}

static void t_blocks(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "  blocks      %llu (%.0f expected from the clock)\n", (ull)s->stats.blocks,
            s->blocks_expected);
}

static void t_misses(const es_live_snapshot *s, FILE *to)
{
    const es_stats *st = &s->stats;
    fprintf(to, "  misses      %llu engine (late results: %llu), %llu machine stalls   xruns %llu"
            "   clipped samples %llu\n", (ull)st->misses, (ull)st->late_results,
            (ull)st->stalls, (ull)s->xruns, (ull)st->clipped);
}

static void t_shards(const es_live_snapshot *s, FILE *to)
{
    const es_stats *st = &s->stats;
    for (int k = 0; k < st->shards; k++)
        fprintf(to, "  %s GPU %d, outputs %d-%d: %llu late blocks\n",
                k ? "           " : "shards     ", st->shard[k].device,
                st->shard[k].first_output + 1, st->shard[k].first_output + st->shard[k].outputs,
                (ull)st->shard[k].late);
}

static void t_stall_probe(const es_live_snapshot *s, FILE *to)
{
    const es_stall_stats *sp = &s->stalls;
    if (s->have_stalls)
        fprintf(to, "  machine     a %s thread woke %llu times in %.1f s: %llu over a period "
                "(%.2f ms) late, the worst %.2f ms late\n",
                sp->realtime ? "SCHED_FIFO" : "normal-priority", (ull)sp->wakes, sp->seconds,
                (ull)sp->late, 1e-3 * sp->period_us, 1e-3 * sp->worst_us);
}

static void t_levels(const es_live_snapshot *s, FILE *to)
{
    const es_mix *m = &s->mix;
    char wet[32], dry[32], gain[32], lim[48] = "off";
    es_level_text(m->wet, 1, wet, sizeof wet);
    es_level_text(m->dry, 1, dry, sizeof dry);
    es_level_text(m->gain, 1, gain, sizeof gain);
    if (m->limiter)
        snprintf(lim, sizeof lim, "%+.1f dBFS, %llu samples turned down",
                 (double)m->ceiling_db, (ull)s->stats.limited);
    fprintf(to, "  levels      trim %+.1f dB, wet %s, dry %s, out %s%s, limiter %s\n",
            (double)m->trim_db, wet, dry, gain, m->bypass ? ", BYPASS" : "", lim);
}

static void t_safety(const es_live_snapshot *s, FILE *to)
{
    const es_stats *st = &s->stats;
    fprintf(to, "  safety      %llu input samples silenced (not numbers, or beyond +60 dBFS), "
            "%llu output samples, %llu engine blocks; %llu runaways%s%s\n",
            (ull)st->bad_input, (ull)st->bad_output, (ull)st->engine_bad, (ull)st->runaways,
            st->muted ? "; muted: " : "", st->muted ? (st->mute_why ? st->mute_why : "") : "");
}

static void t_swaps(const es_live_snapshot *s, FILE *to)
{
    const es_stats *st = &s->stats;
    if (st->swaps)
        fprintf(to, "  swaps       %llu crossfades, %llu primed on what the stream heard, %llu "
                "not primed in time\n", (ull)st->swaps, (ull)st->primed, (ull)st->prime_late);
}

static void t_load(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "  DSP load    p50 %.1f %%   p99 %.1f %%   max %.1f %%\n", 100 * s->load_p50,
            100 * s->load_p99, 100 * s->stats.load_max);
}

static void t_latency(const es_live_snapshot *s, FILE *to)
{
    const es_latency_parts *lp = &s->latency;
    if (!lp->known) {
        fprintf(to, "  latency     %s\n", lp->note);
        return;
    }
    fprintf(to, "  latency     %d frames, %.2f ms (", lp->total, lp->total * 1e3 / s->rate);
    if (lp->input_counts)
        fprintf(to, "input %d + ", lp->input);
    fprintf(to, "earshot %d", lp->engine + lp->inside);
    if (lp->inside)
        fprintf(to, " [engine %d + gathered %d]", lp->engine, lp->inside);
    fprintf(to, " + output %d", lp->output);
    if (lp->period)
        fprintf(to, "; host period %d", lp->period);
    fprintf(to, ")\n");
    if (lp->note[0])
        fprintf(to, "              %s\n", lp->note);
}

static void t_throughput(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "  throughput  %.0f samples/s, %.1f x real time\n", s->throughput,
            s->realtime_factor);
}

/* The lines for the slots that were played. */
static void t_slots(const es_live_snapshot *s, FILE *to)
{
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        const es_live_slot *sl = &s->slot[k];
        if (!sl->set)
            continue;
        char room[1100];
        es_text_escape(room, sizeof room, sl->spec.room); /* a file's path: anything */
        char gpu[48] = "", level[48] = "";
        if (sl->gpu_load > 0)
            snprintf(gpu, sizeof gpu, ", GPU %.1f %% of real time", 100 * sl->gpu_load);
        if (isfinite(sl->level_db))
            snprintf(level, sizeof level, ", level %+.1f dB (output over input)", sl->level_db);
        fprintf(to, "  slot %c      %s on %s, block %d: %.1f s alone, load p50 %.1f %% p99 "
                "%.1f %% max %.1f %% (the audio thread), mean %.1f %% with helpers %.1f %%, "
                "%llu misses, %.1f x real time, %.0f samples/s%s%s\n",
                "AB"[k], sl->spec.engine->name, room, sl->spec.block, sl->seconds,
                100 * sl->load_p50, 100 * sl->load_p99, 100 * sl->load_max, 100 * sl->load_mean,
                100 * sl->helpers_load, (ull)sl->stats.misses, sl->realtime_factor,
                sl->throughput, gpu, level);
    }
}

/* The A/B pair's level difference, when both have played: a louder
 * slot sounds better to most ears, whatever it is. */
static void t_level_difference(const es_live_snapshot *s, FILE *to)
{
    const double a = s->slot[0].level_db, b = s->slot[1].level_db;
    if (s->slot[0].set && s->slot[1].set && isfinite(a) && isfinite(b))
        fprintf(to, "  A/B level   B is %+.1f dB against A (output over input, as heard)\n",
                b - a);
}

static void t_recorded(const es_live_snapshot *s, FILE *to)
{
    if (!s->record_path[0])
        return;
    char path[1100];
    es_text_escape(path, sizeof path, s->record_path);
    fprintf(to, "  recorded    %llu frames to %s, %llu lost to a full ring\n",
            (ull)s->recorded_frames, path, (ull)s->record_dropped);
}

/* ---- the screen's line of short figures ---- */

static int s_xruns(const es_live_snapshot *s, char *out, size_t n)
{
    snprintf(out, n, "xruns %llu", (ull)s->xruns);
    return 1;
}

static int s_stalls(const es_live_snapshot *s, char *out, size_t n)
{
    snprintf(out, n, "stalls %llu", (ull)s->stats.stalls);
    return 1;
}

static int s_wake(const es_live_snapshot *s, char *out, size_t n)
{
    if (!s->have_stalls)
        return 0;
    snprintf(out, n, "wake %.1fms", 1e-3 * s->stalls.worst_us);
    return 1;
}

/* The slot playing's speed (the one the screen's figures are for). */
static int s_speed(const es_live_snapshot *s, char *out, size_t n)
{
    const int k = s->playing_slot >= 0 ? s->playing_slot : s->active_slot;
    snprintf(out, n, "%.2f Msmp/s", s->slot[k].throughput / 1e6);
    return 1;
}

/* What an engine is comes from its capability bits, never its name. */
static int s_gpu(const es_live_snapshot *s, char *out, size_t n)
{
    if (s->playing.engine->caps & ES_CAP_GPU)
        snprintf(out, n, "GPU %.0f us/blk", s->stats.device_us);
    else
        snprintf(out, n, "GPU -");
    return 1;
}

#define ROW(name, unit, json, help) name, unit, json, help

/* In the text report's order; a JSON object's keys have none. */
const ui_meter ui_meters[] = {
    {ROW("device", "", "device", NULL), j_device, t_device, NULL, 0, NULL},
    {ROW("engine", "", "engine", NULL), j_engine, NULL, NULL, 0, NULL},
    {ROW("rate", "Hz", "rate", NULL), j_rate, NULL, NULL, 0, NULL},
    {ROW("block", "frames", "block", NULL), j_block, NULL, NULL, 0, NULL},
    {ROW("seconds", "s", "seconds", NULL), j_seconds, NULL, NULL, 0, NULL},
    {ROW("counted", "s", "counted_seconds", NULL), j_counted, NULL, NULL, 0, NULL},
    {ROW("blocks", "", "blocks", NULL), j_blocks, t_blocks, NULL, 0, NULL},
    {ROW("expected", "", "blocks_expected", NULL), j_expected, NULL, NULL, 0, NULL},
    {ROW("first", "ns", "first_block_ns",
         "when the first counted block left earshot, on the machine's monotonic clock "
         "(CLOCK_MONOTONIC): block k left about k periods later on a device that keeps time"),
     j_first_block, NULL, NULL, 0, NULL},
    {ROW("skipped", "s", "skipped_seconds",
         "time the device's clock skipped after overruns: a device that keeps time (the null "
         "device) starts the period after an overrun late rather than rushing, and every later "
         "block leaves that much after its place on the grid"),
     j_skipped, NULL, NULL, 0, NULL},
    {ROW("miss", "blocks", "misses",
         "an engine miss: a block over its budget while the audio thread was busy for 80 % "
         "of it or more, or a GPU or tail result not ready in time"),
     j_misses, t_misses, NULL, 0, NULL},
    {ROW("late", "blocks", "late_results", NULL), j_late, NULL, NULL, 0, NULL},
    {ROW("xruns", "", "xruns",
         "over- and underruns the device reported since the meters were last cleared"),
     j_xruns, NULL, s_xruns, 0, NULL},
    {ROW("stalls", "blocks", "stalls",
         "blocks over their budget while the audio thread was mostly off the CPU: the "
         "machine's, not the engine's"),
     j_stalls, NULL, s_stalls, 0, NULL},
    {ROW("shards", "", "shards", NULL), j_shards, t_shards, NULL, 0, NULL},
    {ROW("wake", "ms", "stall_probe",
         "the stall probe: the latest a real-time thread beside the audio woke, every "
         "period since the stream started or c"),
     j_stall_probe, t_stall_probe, s_wake, 2, NULL},
    {ROW("levels", "dB", "levels", NULL), j_levels, t_levels, NULL, 0, NULL},
    {ROW("bad in", "samples", "bad_input",
         "input samples that were not numbers (NaN, infinity) or beyond +60 dBFS: played as "
         "silence, never given to an engine (NaN on the input's row)"),
     j_bad_input, t_safety, NULL, 0, NULL},
    {ROW("bad out", "samples", "bad_output",
         "output samples that were not numbers: sent as silence (NaN on the output's row)"),
     j_bad_output, NULL, NULL, 0, NULL},
    {ROW("engine bad", "blocks", "engine_bad",
         "blocks whose engine output was not finite: muted, and the engine built again"),
     j_engine_bad, NULL, NULL, 0, NULL},
    {ROW("runaway", "", "runaways",
         "the output muted by the runaway detector: above full scale for 0.25 s, or swelling "
         "8 dB in 0.4 s and rising (a feedback loop); ! plays again"),
     j_runaways, NULL, NULL, 0, NULL},
    {ROW("muted", "", "muted", NULL), j_muted, NULL, NULL, 0, NULL},
    {ROW("freewheel", "blocks", "freewheel_blocks",
         "blocks run while the JACK server freewheeled (an export: as fast as the graph "
         "goes, no deadline, so none is a miss; every engine waits for its results)"),
     j_freewheel, NULL, NULL, 0, NULL},
    {ROW("head", "degrees, ms", "head",
         "head tracking: the orientation, the SOFA set it picked, and two latencies to the "
         "end of the callback whose block carries the new set, p50 p99 max: motion-to-sound "
         "(m2s) from the turn itself (an OSC packet as the kernel received it, a key), and "
         "the filter exchange (xchg) from when the set was asked of the stream"),
     ui_meter_head_json, ui_meter_head_text, ui_meter_head_short, 1, ui_meter_head_tight},
    {ROW("OSC", "messages", NULL,
         "the head tracker's OSC listener: the address it listens on (127.0.0.1 unless "
         "--osc-bind says otherwise), the messages taken, refused (bad values, form, address, "
         "packets not OSC) and lost (dropped by the system); narrow: taken/refused/lost, the "
         "loopback as lo"),
     NULL, NULL, ui_meter_osc_short, 0, ui_meter_osc_tight},
    {ROW("DSP load", "of the budget", "load_p50",
         "processing time / the block's budget (its frames / rate)"),
     j_p50, t_load, NULL, 0, NULL},
    {ROW("p50 p99 max", "of the budget", "load_p99",
         "the load over the blocks the slot's engine played alone since the slot last changed"),
     j_p99, NULL, NULL, 0, NULL},
    {ROW("max", "of the budget", "load_max", NULL), j_max, NULL, NULL, 0, NULL},
    {ROW("latency", "frames", "latency_frames",
         "what a person at the mic hears: earshot's own (the engine, and a block gathered "
         "over JACK periods) + the output buffer (+ the input's with the mic); on JACK, the "
         "ports' latencies"),
     j_latency_frames, NULL, NULL, 0, NULL},
    {ROW("latency ms", "ms", "latency_ms", NULL), j_latency_ms, NULL, NULL, 0, NULL},
    {ROW("engine latency", "frames", "engine_latency_frames", NULL), j_engine_latency, NULL,
     NULL, 0, NULL},
    {ROW("latency parts", "frames", "latency", NULL), j_latency, t_latency, NULL, 0, NULL},
    {ROW("Msmp/s", "samples/s", "throughput",
         "samples (frames x channels) processed a second of processing time: the audio "
         "thread's and the engine's helper threads' CPU time (a GPU's own time apart)"),
     j_throughput, t_throughput, s_speed, 3, NULL},
    {ROW("x RT", "", "realtime_factor",
         "the real time those blocks stood for / the CPU time they took, the audio thread's "
         "and the engine's helpers' = 1 / mean load"),
     j_rt, NULL, NULL, 0, NULL},
    {ROW("clipped", "samples", "clipped", NULL), j_clipped, NULL, NULL, 0, NULL},
    {ROW("swaps", "", "swaps", NULL), j_swaps, t_swaps, NULL, 0, NULL},
    {ROW("primed", "swaps", "primed",
         "swaps whose engine was primed on what the stream heard: it continues the room's "
         "sound, the past's tail included, from its first block"),
     j_primed, NULL, NULL, 0, NULL},
    {ROW("prime late", "swaps", "prime_late",
         "swaps whose priming did not come within 2 s: played without the past"),
     j_prime_late, NULL, NULL, 0, NULL},
    {ROW("recorded", "frames", "recorded_frames", NULL), j_recorded, NULL, NULL, 0, NULL},
    {ROW("record dropped", "frames", "record_dropped_frames", NULL), j_dropped, NULL, NULL, 0, NULL},
    {ROW("engines built", "", "engines_created", NULL), j_created, NULL, NULL, 0, NULL},
    {ROW("engines destroyed", "", "engines_destroyed", NULL), j_destroyed, NULL, NULL, 0, NULL},
    {ROW("miss times", "s", "miss_at_s", NULL), j_miss_at, NULL, NULL, 0, NULL},
    {ROW("limited", "samples", "limited", NULL), j_limited, NULL, NULL, 0, NULL},
    {ROW("slots", "", "slots", NULL), j_slots, t_slots, NULL, 0, NULL},
    {ROW("dB", "dB", NULL,
         "an A/B slot's level: its output over its input, as heard, over the blocks it "
         "played alone; B against A is the difference a listener hears"),
     NULL, t_level_difference, NULL, 0, NULL},
    {ROW("GPU", "us a block", NULL,
         "GPU engines: the GPU's time for the last block (CUDA events)"),
     NULL, NULL, s_gpu, 3, NULL},
    {ROW("record", "", NULL, NULL), NULL, t_recorded, NULL, 0, NULL},
    {ROW(NULL, NULL, NULL, NULL), NULL, NULL, NULL, 0, NULL},
};
