/* The session's state machine (live_state.h): three small tables, one
 * per part, of the state each event leads to. A cell holds the next
 * state + 1, so the cells left out (0) keep the state: an event that
 * means nothing there. */
#include "live_state.h"

#define TO(state) ((state) + 1)
#define STREAMS (ES_STREAM_STOPPED + 1)
#define CHANGES (ES_CHANGE_FELL_BACK + 1)
#define PROBES (ES_PROBE_RUNNING + 1)
#define EVENTS (ES_EV_PROBE_DONE + 1)

static const signed char stream_next[STREAMS][EVENTS] = {
    [ES_STREAM_OPENING] = {[ES_EV_OPENED] = TO(ES_STREAM_PLAYING),
                           [ES_EV_STOP] = TO(ES_STREAM_STOPPED)},
    [ES_STREAM_PLAYING] = {[ES_EV_QUIET] = TO(ES_STREAM_STALLED),
                           [ES_EV_GONE] = TO(ES_STREAM_LOST),
                           [ES_EV_STOP] = TO(ES_STREAM_STOPPED)},
    [ES_STREAM_STALLED] = {[ES_EV_BLOCKS] = TO(ES_STREAM_PLAYING),
                           [ES_EV_GONE] = TO(ES_STREAM_LOST),
                           [ES_EV_STOP] = TO(ES_STREAM_STOPPED)},
    /* Lost is for good: a dead server's stream is never touched again. */
    [ES_STREAM_LOST] = {[ES_EV_STOP] = TO(ES_STREAM_STOPPED)},
    [ES_STREAM_STOPPED] = {0},
};

static const signed char change_next[CHANGES][EVENTS] = {
    [ES_CHANGE_IDLE] = {[ES_EV_ASKED] = TO(ES_CHANGE_PREPARING),
                        [ES_EV_ENGINE_FAILED] = TO(ES_CHANGE_FALLBACK)},
    [ES_CHANGE_PREPARING] = {[ES_EV_ASKED] = TO(ES_CHANGE_PREPARING),
                             [ES_EV_WAITS] = TO(ES_CHANGE_WAITING),
                             [ES_EV_DONE] = TO(ES_CHANGE_IDLE),
                             [ES_EV_FAILED] = TO(ES_CHANGE_IDLE),
                             [ES_EV_ENGINE_FAILED] = TO(ES_CHANGE_FALLBACK)},
    [ES_CHANGE_WAITING] = {[ES_EV_ASKED] = TO(ES_CHANGE_PREPARING),
                           [ES_EV_DONE] = TO(ES_CHANGE_IDLE),
                           [ES_EV_FAILED] = TO(ES_CHANGE_IDLE),
                           [ES_EV_ENGINE_FAILED] = TO(ES_CHANGE_FALLBACK)},
    /* The fallback supersedes what was being built; while it is built or
     * waits for the crossfade, the failed engine is not asked about again.
     * A change asked meanwhile builds on it (the target holds it). */
    [ES_CHANGE_FALLBACK] = {[ES_EV_ASKED] = TO(ES_CHANGE_PREPARING),
                            [ES_EV_DONE] = TO(ES_CHANGE_FELL_BACK),
                            [ES_EV_FAILED] = TO(ES_CHANGE_FELL_BACK)},
    [ES_CHANGE_FELL_BACK] = {[ES_EV_ASKED] = TO(ES_CHANGE_PREPARING),
                           [ES_EV_ENGINE_FINE] = TO(ES_CHANGE_IDLE)},
};

static const signed char probe_next[PROBES][EVENTS] = {
    [ES_PROBE_IDLE] = {[ES_EV_PROBE_STARTED] = TO(ES_PROBE_RUNNING)},
    [ES_PROBE_RUNNING] = {[ES_EV_PROBE_DONE] = TO(ES_PROBE_IDLE),
                          [ES_EV_STOP] = TO(ES_PROBE_IDLE)},
};

static int step(const signed char *row, int state, es_live_event ev)
{
    return row[ev] ? row[ev] - 1 : state;
}

es_live_state es_live_next(es_live_state s, es_live_event ev)
{
    if ((int)ev < 0 || ev >= EVENTS)
        return s;
    s.stream = (es_stream_state)step(stream_next[s.stream], s.stream, ev);
    s.change = (es_change_state)step(change_next[s.change], s.change, ev);
    s.probe = (es_probe_state)step(probe_next[s.probe], s.probe, ev);
    return s;
}

int es_live_allows(es_live_state s, es_live_action action)
{
    const int running = s.stream == ES_STREAM_PLAYING || s.stream == ES_STREAM_STALLED;
    switch (action) {
    case ES_DO_CHANGE:
    case ES_DO_WATCH:
        return running;
    case ES_DO_FALLBACK:
        return running && s.change != ES_CHANGE_FALLBACK && s.change != ES_CHANGE_FELL_BACK;
    case ES_DO_PROBE:
        return running && s.probe == ES_PROBE_IDLE;
    }
    return 0;
}

const char *es_stream_state_name(es_stream_state s)
{
    static const char *const names[STREAMS] = {"OPENING", "PLAYING", "STALLED", "LOST",
                                               "STOPPED"};
    return (int)s >= 0 && s < STREAMS ? names[s] : "?";
}

const char *es_change_state_name(es_change_state s)
{
    static const char *const names[CHANGES] = {"IDLE", "PREPARING", "WAITING", "FALLBACK",
                                               "FELL_BACK"};
    return (int)s >= 0 && s < CHANGES ? names[s] : "?";
}

const char *es_live_event_name(es_live_event ev)
{
    static const char *const names[EVENTS] = {
        "OPENED", "BLOCKS", "QUIET", "GONE", "STOP", "ASKED", "WAITS", "DONE", "FAILED",
        "ENGINE_FAILED", "ENGINE_FINE", "PROBE_STARTED", "PROBE_DONE"};
    return (int)ev >= 0 && ev < EVENTS ? names[ev] : "?";
}
