/* Watching what the stream reports, once a poll: an engine that failed (a
 * GPU error: its CPU fallback is built) or whose output went non-finite
 * (built again, the same), a split engine's late shard, and the sound's
 * safety (safety.h): samples silenced on the way in or out, and a runaway
 * that muted the output. Each is said once, or at most once a second. */
#include <stdio.h>

#include "core/clock.h"
#include "session_private.h"

#define SAY_EVERY_S 1.0 /* a count that keeps rising is said at most this often */

/* A shard of a split engine that falls behind is named by its GPU in the
 * log, at most once a second, with its late blocks so far. A new instance
 * counts from 0 again. */
static void watch_shards(es_session *s, const es_stats *st)
{
    const double now = 1e-9 * (double)es_now_ns();
    const int quiet = now - s->shard_said_at < SAY_EVERY_S;
    for (int k = 0; k < st->shards; k++) {
        const uint64_t late = st->shard[k].late;
        if (late < s->shard_said[k])
            s->shard_said[k] = 0;
        if (late == s->shard_said[k] || quiet)
            continue;
        es_session_sayf(s, 1, "%s: GPU %d (shard %d of %d, outputs %d-%d) late: %llu blocks so far",
                        st->engine, st->shard[k].device, k + 1, st->shards,
                        st->shard[k].first_output + 1,
                        st->shard[k].first_output + st->shard[k].outputs,
                        (unsigned long long)late);
        s->shard_said[k] = late;
        s->shard_said_at = now;
    }
}

/* A failed engine (a GPU error): the preparer builds its CPU fallback for
 * the same room. An engine whose output went non-finite: built again, the
 * same (its history holds the fault for as long as its room). Either
 * crossfades in like any change, asked once per failure (the state
 * machine's FALLBACK and FELL_BACK). */
void es_session_watch_engine(es_session *s, const es_stats *st)
{
    watch_shards(s, st);
    if (!st->engine_failed && !st->engine_broken) {
        es_session_event(s, ES_EV_ENGINE_FINE);
        return;
    }
    if (!es_live_allows(s->state, ES_DO_FALLBACK))
        return;
    char what[160];
    if (st->engine_failed) {
        const es_engine_class *k = es_engine_fallback(st->engine);
        es_session_sayf(s, 1, "%s failed (%s); switching to %s, same room", st->engine,
                        st->engine_error, k->name);
        s->target.engine = k;
        snprintf(what, sizeof what, "engine %s (fallback)", k->name);
    } else {
        es_session_sayf(s, 1, "%s: its output went non-finite; it is muted and built again",
                        st->engine);
        snprintf(what, sizeof what, "engine %s (built again)", s->target.engine->name);
    }
    es_session_submit(s, what, 1, 1);
}

/* A count that rose since it was last said: said now, or once a second. */
static int due(uint64_t now, uint64_t *said, double *said_at)
{
    const double t = 1e-9 * (double)es_now_ns();
    if (now < *said)
        *said = 0; /* the meters were reset */
    if (now == *said || t - *said_at < SAY_EVERY_S)
        return 0;
    *said = now;
    *said_at = t;
    return 1;
}

void es_session_watch_safety(es_session *s, const es_stats *st)
{
    if (due(st->bad_input, &s->bad_input_said, &s->bad_input_at))
        es_session_sayf(s, 1, "input: %llu samples so far were not numbers (NaN, infinity) or "
                        "beyond +60 dBFS: played as silence",
                        (unsigned long long)st->bad_input);
    if (due(st->bad_output, &s->bad_output_said, &s->bad_output_at))
        es_session_sayf(s, 1, "output: %llu samples so far were not numbers: sent as silence",
                        (unsigned long long)st->bad_output);
    if (st->muted == 1 && s->muted_said != st->runaways) {
        es_session_sayf(s, 1, "runaway: %s (a feedback loop?); the output is muted: ! or "
                        "`unmute` plays again", st->mute_why ? st->mute_why : "the output ran away");
        s->muted_said = st->runaways;
    }
}
