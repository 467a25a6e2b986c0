/* The session's state machine (live/live_state.h), event by event:
 * every move the session makes, the lost device, the fallback asked once
 * and given up on, and what each state allows. Each case is a start, a
 * string of events and the state they must end in. */
#include <stdio.h>
#include <string.h>

#include "live_state.h"

#define MAX_EVENTS 8

typedef struct {
    const char *what;
    es_live_state from;
    es_live_event events[MAX_EVENTS];
    int count;
    es_live_state to;
} transition_case;

#define S(stream, change, probe) {ES_STREAM_##stream, ES_CHANGE_##change, ES_PROBE_##probe}
#define EV(...) {__VA_ARGS__}, sizeof((es_live_event[]){__VA_ARGS__}) / sizeof(es_live_event)

static const transition_case cases[] = {
    {"the first stream plays", S(OPENING, IDLE, IDLE), EV(ES_EV_OPENED), S(PLAYING, IDLE, IDLE)},
    {"a change asked, then played", S(PLAYING, IDLE, IDLE), EV(ES_EV_ASKED, ES_EV_DONE),
     S(PLAYING, IDLE, IDLE)},
    {"a change that failed: as before", S(PLAYING, IDLE, IDLE), EV(ES_EV_ASKED, ES_EV_FAILED),
     S(PLAYING, IDLE, IDLE)},
    {"two changes asked: still preparing", S(PLAYING, IDLE, IDLE),
     EV(ES_EV_ASKED, ES_EV_ASKED), S(PLAYING, PREPARING, IDLE)},
    {"built while a crossfade runs: it waits, then plays", S(PLAYING, PREPARING, IDLE),
     EV(ES_EV_WAITS, ES_EV_DONE), S(PLAYING, IDLE, IDLE)},
    {"a change asked while one waits: preparing again", S(PLAYING, WAITING, IDLE),
     EV(ES_EV_ASKED), S(PLAYING, PREPARING, IDLE)},
    {"no block for a second: stalled; blocks again: playing", S(PLAYING, IDLE, IDLE),
     EV(ES_EV_QUIET, ES_EV_BLOCKS), S(PLAYING, IDLE, IDLE)},
    {"stalled, then gone: lost", S(PLAYING, IDLE, IDLE), EV(ES_EV_QUIET, ES_EV_GONE),
     S(LOST, IDLE, IDLE)},
    {"lost is for good: blocks do not bring it back", S(LOST, IDLE, IDLE),
     EV(ES_EV_BLOCKS, ES_EV_OPENED, ES_EV_QUIET), S(LOST, IDLE, IDLE)},
    {"lost, then stopped", S(LOST, IDLE, IDLE), EV(ES_EV_STOP), S(STOPPED, IDLE, IDLE)},
    {"stopped stays stopped", S(STOPPED, IDLE, IDLE), EV(ES_EV_OPENED, ES_EV_BLOCKS, ES_EV_QUIET),
     S(STOPPED, IDLE, IDLE)},
    {"the engine fails: the fallback is asked", S(PLAYING, IDLE, IDLE),
     EV(ES_EV_ENGINE_FAILED), S(PLAYING, FALLBACK, IDLE)},
    {"it still fails while the fallback is built: asked once", S(PLAYING, FALLBACK, IDLE),
     EV(ES_EV_ENGINE_FAILED, ES_EV_ENGINE_FAILED, ES_EV_WAITS), S(PLAYING, FALLBACK, IDLE)},
    {"the fallback plays: the failed engine's flag, still up while it fades, asks nothing",
     S(PLAYING, FALLBACK, IDLE), EV(ES_EV_DONE, ES_EV_ENGINE_FAILED), S(PLAYING, FELL_BACK, IDLE)},
    {"the fallback plays, then its engine is fine", S(PLAYING, FALLBACK, IDLE),
     EV(ES_EV_DONE, ES_EV_ENGINE_FAILED, ES_EV_ENGINE_FINE), S(PLAYING, IDLE, IDLE)},
    {"the fallback fails: given up, not asked again", S(PLAYING, FALLBACK, IDLE),
     EV(ES_EV_FAILED, ES_EV_ENGINE_FAILED), S(PLAYING, FELL_BACK, IDLE)},
    {"given up: a person's change is still taken", S(PLAYING, FELL_BACK, IDLE), EV(ES_EV_ASKED),
     S(PLAYING, PREPARING, IDLE)},
    {"given up: a new engine that works ends it", S(PLAYING, FELL_BACK, IDLE),
     EV(ES_EV_ENGINE_FINE), S(PLAYING, IDLE, IDLE)},
    {"the engine fails while a change is built: the fallback supersedes it",
     S(PLAYING, PREPARING, IDLE), EV(ES_EV_ENGINE_FAILED), S(PLAYING, FALLBACK, IDLE)},
    {"a measurement starts and ends", S(PLAYING, IDLE, IDLE),
     EV(ES_EV_PROBE_STARTED, ES_EV_PROBE_DONE), S(PLAYING, IDLE, IDLE)},
    {"a measurement under way ends with the stream", S(PLAYING, IDLE, RUNNING), EV(ES_EV_STOP),
     S(STOPPED, IDLE, IDLE)},
    {"a change and a stall are apart: both kept", S(PLAYING, IDLE, IDLE),
     EV(ES_EV_ASKED, ES_EV_QUIET), S(STALLED, PREPARING, IDLE)},
};

static void say_state(char *out, size_t n, es_live_state s)
{
    snprintf(out, n, "%s/%s/%s", es_stream_state_name(s.stream), es_change_state_name(s.change),
             s.probe == ES_PROBE_RUNNING ? "RUNNING" : "IDLE");
}

static int same(es_live_state a, es_live_state b)
{
    return a.stream == b.stream && a.change == b.change && a.probe == b.probe;
}

/* What each state allows. */
static int allows(void)
{
    static const struct {
        es_live_state s;
        es_live_action a;
        int allowed;
    } rules[] = {
        {S(PLAYING, IDLE, IDLE), ES_DO_CHANGE, 1},   {S(STALLED, IDLE, IDLE), ES_DO_CHANGE, 1},
        {S(LOST, IDLE, IDLE), ES_DO_CHANGE, 0},      {S(STOPPED, IDLE, IDLE), ES_DO_CHANGE, 0},
        {S(OPENING, IDLE, IDLE), ES_DO_CHANGE, 0},   {S(PLAYING, IDLE, IDLE), ES_DO_FALLBACK, 1},
        {S(PLAYING, FALLBACK, IDLE), ES_DO_FALLBACK, 0},
        {S(PLAYING, FELL_BACK, IDLE), ES_DO_FALLBACK, 0},
        {S(LOST, IDLE, IDLE), ES_DO_FALLBACK, 0},   {S(PLAYING, IDLE, IDLE), ES_DO_PROBE, 1},
        {S(PLAYING, IDLE, RUNNING), ES_DO_PROBE, 0}, {S(LOST, IDLE, IDLE), ES_DO_PROBE, 0},
        {S(STOPPED, IDLE, IDLE), ES_DO_WATCH, 0},    {S(STALLED, IDLE, IDLE), ES_DO_WATCH, 1},
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
        if (es_live_allows(rules[k].s, rules[k].a) != rules[k].allowed) {
            char st[64];
            say_state(st, sizeof st, rules[k].s);
            printf("FAIL in %s, action %d is %s\n", st, rules[k].a,
                   rules[k].allowed ? "refused" : "allowed");
            bad++;
        }
    printf("%s what each state allows (%zu rules)\n", bad ? "FAIL" : "ok  ",
           sizeof rules / sizeof *rules);
    return bad;
}

int main(void)
{
    int failures = 0;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const transition_case *c = &cases[k];
        es_live_state s = c->from;
        char path[512] = "";
        size_t used = 0;
        for (int e = 0; e < c->count; e++) {
            s = es_live_next(s, c->events[e]);
            used += (size_t)snprintf(path + used, sizeof path - used, "%s%s", e ? " " : "",
                                     es_live_event_name(c->events[e]));
        }
        char got[64], want[64];
        say_state(got, sizeof got, s);
        say_state(want, sizeof want, c->to);
        const int ok = same(s, c->to);
        printf("%s %s (%s: %s)\n", ok ? "ok  " : "FAIL", c->what, path,
               ok ? got : want);
        if (!ok)
            printf("     got %s\n", got);
        failures += !ok;
    }
    failures += allows();
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
