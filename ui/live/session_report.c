/* The stream's stats as a person reads them after playing (the headless
 * table) or as a script reads them (one JSON object). */
#include "core/json.h"
#include "session_private.h"

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
    const double p50 = es_stats_load_quantile(&st, 0.5), p99 = es_stats_load_quantile(&st, 0.99);
    const unsigned long long recorded = es_session_recorded_frames(s);
    const unsigned long long lost = es_session_record_dropped(s);
    const unsigned long long xruns = es_player_xruns(pl);
    const char *engine = st.engine ? st.engine : s->cfg.engine->name;
    uint64_t created, destroyed;
    es_engine_counts(&created, &destroyed);
    if (json) {
        fputs("{\"device\":", to);
        es_json_string(to, es_player_device(pl));
        fputs(",\"engine\":", to);
        es_json_string(to, engine);
        fprintf(to, ",\"rate\":%g,\"block\":%d,"
                "\"seconds\":%.3f,\"blocks\":%llu,\"blocks_expected\":%.1f,\"misses\":%llu,"
                "\"late_results\":%llu,\"xruns\":%llu,\"load_p50\":%.4f,\"load_p99\":%.4f,"
                "\"load_max\":%.4f,\"latency_frames\":%d,\"latency_ms\":%.3f,"
                "\"engine_latency_frames\":%d,\"throughput\":%.0f,\"realtime_factor\":%.2f,"
                "\"clipped\":%llu,\"swaps\":%llu,\"recorded_frames\":%llu,"
                "\"record_dropped_frames\":%llu,\"engines_created\":%llu,"
                "\"engines_destroyed\":%llu,\"miss_at_s\":[",
                rate, s->cfg.block, elapsed,
                (unsigned long long)st.blocks, expected, (unsigned long long)st.misses,
                (unsigned long long)st.late_results, xruns, p50, p99, st.load_max, latency,
                latency * ms, st.latency, es_stats_throughput(&st),
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
        /* The latency's parts, and the host API's own figures they came
         * from, so a script can check the sum against its own expectation. */
        fprintf(to, "],\"latency\":{\"total\":%d,\"engine\":%d,\"input\":%d,\"output\":%d,"
                "\"input_counts\":%s,\"period\":%d,\"block\":%d,\"reported_input\":%d,"
                "\"reported_output\":%d}}\n", lp.total, lp.engine, lp.input, lp.output,
                lp.input_counts ? "true" : "false", lp.period, lp.block, lp.reported_input,
                lp.reported_output);
        return;
    }
    fprintf(to, "device %s, engine %s, %g Hz, block %d, %.2f s\n", es_player_device(pl),
            engine, rate, s->cfg.block, elapsed);
    fprintf(to, "  blocks      %llu (%.0f expected from the clock)\n",
            (unsigned long long)st.blocks, expected);
    fprintf(to, "  misses      %llu (GPU late: %llu)   xruns %llu   clipped samples %llu\n",
            (unsigned long long)st.misses, (unsigned long long)st.late_results, xruns,
            (unsigned long long)st.clipped);
    fprintf(to, "  DSP load    p50 %.1f %%   p99 %.1f %%   max %.1f %%\n", 100 * p50,
            100 * p99, 100 * st.load_max);
    fprintf(to, "  latency     %d frames, %.2f ms (engine %d + output %d%s", latency,
            latency * ms, lp.engine, lp.output, lp.input_counts ? " + input " : "");
    if (lp.input_counts)
        fprintf(to, "%d", lp.input);
    if (lp.period)
        fprintf(to, "; host period %d", lp.period);
    fprintf(to, ")\n");
    fprintf(to, "  throughput  %.0f samples/s, %.1f x real time\n", es_stats_throughput(&st),
            es_stats_realtime_factor(&st, rate));
    if (s->recorder[REC_OUTPUT])
        fprintf(to, "  recorded    %llu frames to %s, %llu lost to a full ring\n", recorded,
                s->record_path[REC_OUTPUT], lost);
}
