/* The session's state machine (internal to live/): what the stream is
 * doing, what a change is doing, and whether a latency measurement runs,
 * as named states that move only through es_live_next, on named events.
 * The session asks es_live_allows before it acts, so what is refused in a
 * state is refused in one place, and the transitions are a unit test
 * (tests/app/test_live_state.c).
 *
 *   stream:  OPENING -opened-> PLAYING <-blocks- STALLED (no block for 1 s)
 *            STALLED -host stopped, or 5 s quiet-> LOST; any -stop-> STOPPED
 *   change:  IDLE -asked-> PREPARING -waits-> WAITING (the processor is
 *            crossfading: the built change waits for it)
 *            PREPARING/WAITING -done, failed-> IDLE (the session asks
 *            again at once when a newer change is still being built)
 *            any -engine failed-> FALLBACK (the CPU fallback is asked once)
 *            FALLBACK -done or failed-> FELL_BACK: the failure is not asked
 *            about again until the engine playing is fine (the fallback
 *            crossfading in, or another engine a person picks)
 *            FELL_BACK -engine fine-> IDLE
 *   probe:   IDLE -started-> RUNNING -done-> IDLE
 */
#ifndef ES_LIVE_STATE_H
#define ES_LIVE_STATE_H

typedef enum {
    ES_STREAM_OPENING,
    ES_STREAM_PLAYING,
    ES_STREAM_STALLED,  /* no block for a second; the host says it runs */
    ES_STREAM_LOST,     /* left alone: its host ended it, or 5 s without a block */
    ES_STREAM_STOPPED,  /* es_session_stop ran */
} es_stream_state;

typedef enum {
    ES_CHANGE_IDLE,
    ES_CHANGE_PREPARING, /* the preparer builds the latest change asked for */
    ES_CHANGE_WAITING,   /* built; waits for the processor's crossfade to end */
    ES_CHANGE_FALLBACK,  /* the engine failed: its CPU fallback is being built */
    ES_CHANGE_FELL_BACK,   /* the fallback was tried: not again until an engine is fine */
} es_change_state;

typedef enum { ES_PROBE_IDLE, ES_PROBE_RUNNING } es_probe_state;

typedef struct {
    es_stream_state stream;
    es_change_state change;
    es_probe_state probe;
} es_live_state;

typedef enum {
    ES_EV_OPENED,          /* the first stream plays */
    ES_EV_BLOCKS,          /* blocks arrive */
    ES_EV_QUIET,           /* no block for a second */
    ES_EV_GONE,            /* the host ended the stream, or 5 s quiet */
    ES_EV_STOP,
    ES_EV_ASKED,           /* a change was handed to the preparer */
    ES_EV_WAITS,           /* a built change waits for the processor */
    ES_EV_DONE,            /* the change played */
    ES_EV_FAILED,          /* the change failed (said); what played plays on */
    ES_EV_ENGINE_FAILED,   /* the engine playing reports itself dead */
    ES_EV_ENGINE_FINE,     /* the engine playing does not */
    ES_EV_PROBE_STARTED,
    ES_EV_PROBE_DONE,
} es_live_event;

/* What the session may do, asked before it does it. */
typedef enum {
    ES_DO_CHANGE,   /* ask for a change (room, engine, block, ...) */
    ES_DO_FALLBACK, /* ask for the failed engine's fallback */
    ES_DO_PROBE,    /* start a latency measurement */
    ES_DO_WATCH,    /* watch the device for stalls */
} es_live_action;

/* The state after `ev`; an event with no meaning in a state leaves it. */
es_live_state es_live_next(es_live_state s, es_live_event ev);
/* 1 when `action` may happen in state s. */
int es_live_allows(es_live_state s, es_live_action action);

/* Names, for logs and tests: "PLAYING", "FALLBACK", "ASKED". */
const char *es_stream_state_name(es_stream_state s);
const char *es_change_state_name(es_change_state s);
const char *es_live_event_name(es_live_event ev);

#endif
