/* The stream's stats as a person reads them after playing (the headless
 * table) or as a script reads them (one JSON object). */
#include <math.h>

#include "core/json.h"
#include "core/text.h"
#include "session_private.h"

/* Each A/B slot's own figures (es_ab_stats), as JSON. */
static void slots_json(es_session *s, const es_stats *st, FILE *to)
{
    fputs(",\"slots\":[", to);
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        es_session_slot sl;
        es_session_slot_info(s, k, st, &sl);
        const es_ab_stats *a = &sl.stats;
        fprintf(to, "%s{\"slot\":\"%c\",\"set\":%s", k ? "," : "", "AB"[k],
                sl.set ? "true" : "false");
        if (sl.set) {
            fputs(",\"room\":", to);
            es_json_string(to, sl.room);
            fputs(",\"engine\":", to);
            es_json_string(to, sl.engine->name);
            char heard[16] = "null"; /* -1: the device's figure failed its check */
            if (sl.latency >= 0)
                snprintf(heard, sizeof heard, "%d", sl.latency);
            fprintf(to, ",\"block\":%d,\"latency_frames\":%s,\"blocks\":%llu,"
                    "\"counted_seconds\":%.3f,\"misses\":%llu,\"late_results\":%llu,"
                    "\"load_p50\":%.4f,\"load_p99\":%.4f,\"load_max\":%.4f,"
                    "\"load_mean\":%.4f,\"throughput\":%.0f,\"realtime_factor\":%.2f",
                    sl.block, heard, (unsigned long long)a->blocks,
                    a->budget_total_us * 1e-6, (unsigned long long)a->misses,
                    (unsigned long long)a->late_results,
                    es_load_quantile(a->load_hist, a->load_max, 0.5),
                    es_load_quantile(a->load_hist, a->load_max, 0.99), a->load_max,
                    es_ab_stats_mean_load(a), es_ab_stats_throughput(a, st->inputs),
                    es_ab_stats_realtime_factor(a));
        }
        fputs("}", to);
    }
    fputs("]", to);
}

/* The table's lines for the slots that were played. */
static void slots_table(es_session *s, const es_stats *st, FILE *to)
{
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        es_session_slot sl;
        es_session_slot_info(s, k, st, &sl);
        if (!sl.set)
            continue;
        const es_ab_stats *a = &sl.stats;
        char room[1100];
        es_text_escape(room, sizeof room, sl.room); /* a file's path: anything */
        fprintf(to, "  slot %c      %s on %s, block %d: %.1f s alone, load p50 %.1f %% p99 "
                "%.1f %% max %.1f %%, %llu misses, %.1f x real time, %.0f samples/s\n",
                "AB"[k], sl.engine->name, room, sl.block, a->budget_total_us * 1e-6,
                100 * es_load_quantile(a->load_hist, a->load_max, 0.5),
                100 * es_load_quantile(a->load_hist, a->load_max, 0.99), 100 * a->load_max,
                (unsigned long long)a->misses, es_ab_stats_realtime_factor(a),
                es_ab_stats_throughput(a, st->inputs));
    }
}

/* A linear level in dB for JSON: null for off (JSON has no -inf). */
static void json_db(FILE *to, const char *name, double linear, int first)
{
    fprintf(to, "%s\"%s\":", first ? "" : ",", name);
    if (linear > 0)
        fprintf(to, "%.2f", 20 * log10(linear));
    else
        fputs("null", to);
}

/* The levels now: what `trim`, `wet`, `dry`, `gain`, `bypass` and
 * `limiter` set, in the same dB. */
static void levels_json(const es_mix *m, FILE *to)
{
    fprintf(to, "{\"trim_db\":%.2f", (double)m->trim_db);
    json_db(to, "wet_db", m->wet, 0);
    json_db(to, "dry_db", m->dry, 0);
    json_db(to, "gain_db", m->gain, 0);
    fprintf(to, ",\"bypass\":%s,\"limiter_db\":", m->bypass ? "true" : "false");
    if (m->limiter)
        fprintf(to, "%.2f}", (double)m->ceiling_db);
    else
        fputs("null}", to);
}

void es_session_report(es_session *s, FILE *to, int json)
{
    es_player *pl = s->player;
    es_stats st;
    es_processor_stats(es_player_processor(pl), &st);
    const double rate = s->cfg.rate, ms = 1e3 / rate;
    const double elapsed = es_session_elapsed(s);
    const double expected = es_session_counted(s) * rate / s->cfg.block;
    es_latency_parts lp;
    es_player_latency_parts(pl, &lp);
    const int latency = lp.total;
    /* A total that is not known is null in JSON, never a number. */
    char total[24] = "null", total_ms[24] = "null";
    if (lp.known) {
        snprintf(total, sizeof total, "%d", latency);
        snprintf(total_ms, sizeof total_ms, "%.3f", latency * ms);
    }
    const double p50 = es_stats_load_quantile(&st, 0.5), p99 = es_stats_load_quantile(&st, 0.99);
    const unsigned long long recorded = es_session_recorded_frames(s);
    const unsigned long long lost = es_session_record_dropped(s);
    const unsigned long long xruns = es_session_xruns(s);
    const double counted = es_session_counted(s);
    const char *engine = st.engine ? st.engine : s->cfg.engine->name;
    uint64_t created, destroyed;
    es_engine_counts(&created, &destroyed);
    if (json) {
        fputs("{\"device\":", to);
        es_json_string(to, es_player_device(pl));
        fputs(",\"engine\":", to);
        es_json_string(to, engine);
        fprintf(to, ",\"rate\":%g,\"block\":%d,"
                "\"seconds\":%.3f,\"counted_seconds\":%.3f,\"blocks\":%llu,\"blocks_expected\":%.1f,\"misses\":%llu,"
                "\"late_results\":%llu,\"stalls\":%llu,\"xruns\":%llu,\"load_p50\":%.4f,\"load_p99\":%.4f,"
                "\"load_max\":%.4f,\"latency_frames\":%s,\"latency_ms\":%s,"
                "\"engine_latency_frames\":%d,\"throughput\":%.0f,\"realtime_factor\":%.2f,"
                "\"clipped\":%llu,\"swaps\":%llu,\"recorded_frames\":%llu,"
                "\"record_dropped_frames\":%llu,\"engines_created\":%llu,"
                "\"engines_destroyed\":%llu,\"miss_at_s\":[",
                rate, s->cfg.block, elapsed, counted,
                (unsigned long long)st.blocks, expected, (unsigned long long)st.misses,
                (unsigned long long)st.late_results, (unsigned long long)st.stalls, xruns, p50,
                p99, st.load_max, total, total_ms, st.latency, es_stats_throughput(&st),
                es_stats_realtime_factor(&st, rate), (unsigned long long)st.clipped,
                (unsigned long long)st.swaps, recorded, lost, (unsigned long long)created,
                (unsigned long long)destroyed);
        /* When the latest misses happened, in seconds of audio since the
         * stats began (the stream's start, or its last block change or
         * meter reset), so a glitch can be lined up with what else the
         * machine did. */
        const uint64_t kept = st.misses < ES_RECENT_MISSES ? st.misses : ES_RECENT_MISSES;
        for (uint64_t k = 0; k < kept; k++) {
            const uint64_t block = st.recent_misses[(st.misses - kept + k) % ES_RECENT_MISSES];
            fprintf(to, "%s%.3f", k ? "," : "", (double)block * s->cfg.block / rate);
        }
        fprintf(to, "],\"limited\":%llu,", (unsigned long long)st.limited);
        /* The stall probe's view of the same time: how late a real-time
         * thread woke, whatever the engine did. */
        es_stall_stats sp;
        if (es_player_stalls(pl, &sp)) {
            fprintf(to, "\"stall_probe\":{\"wakes\":%llu,\"late_periods\":%llu,"
                    "\"worst_wake_ms\":%.3f,\"period_ms\":%.3f,\"watched_s\":%.3f,"
                    "\"realtime\":%s,\"late_at_s\":[", (unsigned long long)sp.wakes,
                    (unsigned long long)sp.late, 1e-3 * sp.worst_us, 1e-3 * sp.period_us,
                    sp.seconds, sp.realtime ? "true" : "false");
            for (uint64_t k = 0; k < sp.late && k < ES_STALL_RECENT; k++)
                fprintf(to, "%s%.3f", k ? "," : "", sp.late_at_s[k]);
            fputs("]},", to);
        } else
            fputs("\"stall_probe\":null,", to);
        fputs("\"shards\":[", to);
        for (int k = 0; k < st.shards; k++)
            fprintf(to, "%s{\"gpu\":%d,\"first_output\":%d,\"outputs\":%d,\"late\":%llu}",
                    k ? "," : "", st.shard[k].device, st.shard[k].first_output + 1,
                    st.shard[k].outputs, (unsigned long long)st.shard[k].late);
        fputs("],\"levels\":", to);
        levels_json(&s->pc.mix, to);
        slots_json(s, &st, to);
        /* The latency's parts, and the host API's own figures they came
         * from, so a script can check the sum against its own expectation. */
        char said_in[16] = "null", said_out[16] = "null"; /* -1: failed the check */
        if (lp.reported_input >= 0)
            snprintf(said_in, sizeof said_in, "%d", lp.reported_input);
        if (lp.reported_output >= 0)
            snprintf(said_out, sizeof said_out, "%d", lp.reported_output);
        /* Unknown: the buffers are not numbers either. */
        char in[16] = "null", out[16] = "null";
        if (lp.known) {
            snprintf(in, sizeof in, "%d", lp.input);
            snprintf(out, sizeof out, "%d", lp.output);
        }
        fprintf(to, ",\"latency\":{\"total\":%s,\"engine\":%d,\"input\":%s,\"output\":%s,"
                "\"input_counts\":%s,\"period\":%d,\"block\":%d,\"reported_input\":%s,"
                "\"reported_output\":%s,\"known\":%s,\"note\":", total, lp.engine, in,
                out, lp.input_counts ? "true" : "false", lp.period, lp.block,
                said_in, said_out, lp.known ? "true" : "false");
        es_json_string(to, lp.note);
        fputs("}}\n", to);
        return;
    }
    char device[300];
    es_text_escape(device, sizeof device, es_player_device(pl));
    fprintf(to, "device %s, engine %s, %g Hz, block %d, %.2f s\n", device, engine, rate,
            s->cfg.block, elapsed);
    /* Every count below is since the meters last started counting: the
     * start, a reset (c) or a reopened stream. */
    fprintf(to, "  counted     the last %.2f s (since the %s)\n", counted,
            counted + 0.05 < elapsed ? "meters were last cleared or the stream reopened"
                                     : "start");
    fprintf(to, "  blocks      %llu (%.0f expected from the clock)\n",
            (unsigned long long)st.blocks, expected);
    fprintf(to, "  misses      %llu engine (late results: %llu), %llu machine stalls   xruns %llu"
            "   clipped samples %llu\n",
            (unsigned long long)st.misses, (unsigned long long)st.late_results,
            (unsigned long long)st.stalls, xruns, (unsigned long long)st.clipped);
    for (int k = 0; k < st.shards; k++)
        fprintf(to, "  %s GPU %d, outputs %d-%d: %llu late blocks\n",
                k ? "           " : "shards     ", st.shard[k].device,
                st.shard[k].first_output + 1, st.shard[k].first_output + st.shard[k].outputs,
                (unsigned long long)st.shard[k].late);
    es_stall_stats sp;
    if (es_player_stalls(pl, &sp))
        fprintf(to, "  machine     a %s thread woke %llu times in %.1f s: %llu over a period "
                "(%.2f ms) late, the worst %.2f ms late\n",
                sp.realtime ? "SCHED_FIFO" : "normal-priority", (unsigned long long)sp.wakes,
                sp.seconds, (unsigned long long)sp.late, 1e-3 * sp.period_us,
                1e-3 * sp.worst_us);
    char wet[32], dry[32], gain[32], lim[48] = "off";
    es_level_text(s->pc.mix.wet, 1, wet, sizeof wet);
    es_level_text(s->pc.mix.dry, 1, dry, sizeof dry);
    es_level_text(s->pc.mix.gain, 1, gain, sizeof gain);
    if (s->pc.mix.limiter)
        snprintf(lim, sizeof lim, "%+.1f dBFS, %llu samples turned down",
                 (double)s->pc.mix.ceiling_db, (unsigned long long)st.limited);
    fprintf(to, "  levels      trim %+.1f dB, wet %s, dry %s, out %s%s, limiter %s\n",
            (double)s->pc.mix.trim_db, wet, dry, gain, s->pc.mix.bypass ? ", BYPASS" : "", lim);
    fprintf(to, "  DSP load    p50 %.1f %%   p99 %.1f %%   max %.1f %%\n", 100 * p50,
            100 * p99, 100 * st.load_max);
    if (!lp.known) {
        fprintf(to, "  latency     %s\n", lp.note);
    } else {
        fprintf(to, "  latency     %d frames, %.2f ms (engine %d + output %d%s", latency,
                latency * ms, lp.engine, lp.output, lp.input_counts ? " + input " : "");
        if (lp.input_counts)
            fprintf(to, "%d", lp.input);
        if (lp.period)
            fprintf(to, "; host period %d", lp.period);
        fprintf(to, ")\n");
        if (lp.note[0])
            fprintf(to, "              %s\n", lp.note);
    }
    fprintf(to, "  throughput  %.0f samples/s, %.1f x real time\n", es_stats_throughput(&st),
            es_stats_realtime_factor(&st, rate));
    slots_table(s, &st, to);
    if (s->recorder[REC_OUTPUT]) {
        char path[1100];
        es_text_escape(path, sizeof path, s->record_path[REC_OUTPUT]);
        fprintf(to, "  recorded    %llu frames to %s, %llu lost to a full ring\n", recorded,
                path, lost);
    }
}
