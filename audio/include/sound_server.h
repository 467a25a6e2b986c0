/* Which sound server answers on this machine, and what its graph runs:
 * JACK (jackd, or PipeWire through its JACK library) and PipeWire. The
 * device backend and `earshot devices` ask; the app asks before it starts
 * (es_sound_server_route) whether earshot must run on PipeWire's JACK
 * library, which, like `pw-jack`, is chosen when the program starts. */
#ifndef ES_SOUND_SERVER_H
#define ES_SOUND_SERVER_H

#include <stddef.h>

/* PipeWire's default max-quantum: the longest period its graph runs
 * unless configured otherwise (a JACK client cannot read the setting). */
#define ES_PIPEWIRE_MAX_QUANTUM 2048

/* What a short-lived JACK client sees of the server it reaches: its period
 * (buffer size), rate, and the latency its first physical ports report
 * (what PortAudio's JACK host connects to). answered 0: no server. */
typedef struct {
    int answered;
    int pipewire;            /* the JACK library is PipeWire's (pw-jack) */
    int period, rate;
    int capture_latency;     /* frames, the first physical capture port's (max); -1 */
    int playback_latency;    /* frames, the first physical playback port's (max); -1 */
} es_jack_graph;

/* 0 and the figures, or -1 when earshot has no JACK library or no server
 * answered (g->answered = 0). A port latency that is no figure (over 10 s)
 * is -1. Opens and closes a client: not real-time. silent: keep the JACK
 * library's "cannot connect" lines off stderr, which replaces its error
 * handler for good: only before PortAudio starts. */
int es_jack_graph_read(es_jack_graph *g, int silent);
/* 1 when the JACK library this process loaded is PipeWire's. */
int es_jack_is_pipewire(void);

/* 1 when a PipeWire daemon accepts a connection on its socket
 * ($PIPEWIRE_REMOTE, in $PIPEWIRE_RUNTIME_DIR or $XDG_RUNTIME_DIR); where
 * it looked, in `where`. */
int es_pipewire_answers(char *where, size_t n);
/* The folder of PipeWire's JACK library (package pipewire-jack), or NULL
 * when it is not installed. */
const char *es_pipewire_jack_dir(void);

/* Called by a command that will open the device `device` (NULL: one that
 * lists every device), before it opens any: when that device must be
 * served by PipeWire's JACK library (`pipewire`, or `auto` or `jack` with
 * PipeWire answering and no JACK server of its own) and this process did
 * not load it, runs the program again with `argv` (the whole command line,
 * argv[0] first) on it, as `pw-jack` would (LD_LIBRARY_PATH). Returns only
 * when nothing is to be done or the new run could not start (then the
 * program goes on as it is). */
void es_sound_server_route(const char *device, char **argv);

#endif
