/* A stream that plays: a source, the processor, a device, and the
 * callback that ties them together. `earshot play` and the workstation
 * both run one. */
#ifndef ES_PLAYER_H
#define ES_PLAYER_H

#include "device.h"
#include "processor.h"
#include "exchange.h"
#include "stall_probe.h"
#include "test_signal.h"

typedef struct es_player es_player;

/* A source of input blocks, called on the audio thread: real-time safe. */
typedef void (*es_source_fill)(void *ctx, float *const *out, int channels, int frames);

typedef struct {
    const char *device;     /* "null", "default", a host API or device name */
    int block;
    /* Where the input comes from: the device's input (microphone) when
     * live_input; else `source` if set; else the built-in test signal. */
    int live_input;
    const char *input_device; /* with live_input: the input's own device */
    es_jack_options jack;     /* on the native JACK device */
    es_source_fill source;
    /* Optional: `source` for a host that freewheels (ES_FREEWHEEL), where
     * the callback may wait for it (es_file_source_fill_wait). */
    es_source_fill source_wait;
    void *source_ctx;
    /* Optional: called on the audio thread with every output block after
     * the processor (the recorder's es_recorder_tap). Must be real-time safe. */
    void (*tap)(void *ctx, const float *const *out, int channels, int frames);
    void *tap_ctx;
    /* Optional: the same for every input block, before the processor (to
     * record the dry input). */
    void (*input_tap)(void *ctx, const float *const *in, int channels, int frames);
    void *input_tap_ctx;
} es_player_config;

/* Takes the processor (destroyed with the player); its format says the
 * rate, block and channels. On failure the processor is still the
 * caller's: a host that tries one device after another builds it once. */
es_player *es_player_open(const es_player_config *cfg, es_processor *take, char *err,
                          size_t n);
int es_player_start(es_player *pl, char *err, size_t n);
void es_player_stop(es_player *pl);
void es_player_close(es_player *pl);

/* Changes the block size (the latency) while playing: stops the device,
 * reopens it at `block` with `take`, a processor the caller built for the
 * new block (same room and engine), and starts again; the source and the
 * recording go on. Control side only. 0; or -1 with a message, and the old
 * stream plays on (take is destroyed either way). */
int es_player_reopen(es_player *pl, int block, es_processor *take, char *err, size_t n);

/* Changes what the stream is, while playing: its block, its source (live
 * input, a source callback, the test signal; the input channels may
 * change with it), its taps. `take` is a processor built for the new
 * block and inputs. Stops the device, opens it with `cfg`, starts again.
 * 0; or -1 with a message, and the old stream plays on as it was (take is
 * destroyed either way). Control side only. */
int es_player_reconfigure(es_player *pl, const es_player_config *cfg, es_processor *take,
                          char *err, size_t n);
/* The configuration the stream runs with now (strings are the caller's). */
const es_player_config *es_player_config_now(const es_player *pl);

/* The device stopped answering: leave it alone (es_device_abandon). The
 * processor stays readable; a reconfigure may open a new device. */
void es_player_abandon_device(es_player *pl);

/* Whether the device still calls back as far as its host API knows: 1
 * yes, 0 its stream finished or stopped (a sound server that went away).
 * Control side. */
int es_player_device_active(const es_player *pl);
/* es_device_paused of the device playing. Control side. */
int es_player_device_paused(const es_player *pl);

/* A measurement through the device (exchange.h) on the stream playing
 * now: `play` on the outputs whose bits are set, `inputs` channels of the
 * live input recorded. 0, or -1 with a message (no live input, one under
 * way, out of memory). The caller watches and finishes it through
 * es_player_exchange; a reconfigure aborts it. */
int es_player_exchange_start(es_player *pl, const float *play, size_t frames,
                             uint64_t outputs, int inputs, char *err, size_t n);
es_exchange *es_player_exchange(es_player *pl);

/* A round-trip measurement, for a loopback from the output to the input:
 * the audio thread puts ES_PROBE_CLICKS clicks on the first output channel,
 * one at the start of each of as many windows over `seconds` (after the
 * processor, so the engine's latency is not in it), and copies the
 * input's first channel, from the block that carried the first click on,
 * into a buffer prepared here (control side: nothing is allocated on the
 * audio path). Start: 0, or -1 with a message (no live input, one under
 * way). Poll: 0 while it runs; 1 when done, with the median delay of the
 * clicks when every one came back within a frame of the others, else no
 * figure (a loop that drops clicks or whose clicks disagree, or none came
 * back: the loop is not closed); it is then ready again. */
int es_player_probe_start(es_player *pl, double seconds, char *err, size_t n);
#define ES_PROBE_CLICKS 5
typedef struct {
    int frames;        /* the median delay, frames; -1: no figure (see heard, low, high) */
    int clicks, heard; /* clicks played, and found in the input */
    int low, high;     /* the shortest and longest delay found */
    int window;        /* frames from one click to the next: the longest delay seen */
} es_probe_result;
int es_player_probe_poll(es_player *pl, es_probe_result *r);

es_processor *es_player_processor(es_player *pl);
/* Host-reported over/underruns so far. */
uint64_t es_player_xruns(const es_player *pl);
/* The stall probe beside the running stream (stall_probe.h): 1 and its
 * counts (after a stop, what it had counted then), or 0 when it never ran.
 * It starts again from zero whenever the stream (re)starts. */
int es_player_stalls(const es_player *pl, es_stall_stats *out);
void es_player_stalls_reset(es_player *pl);
/* Seconds the device's clock skipped after overruns (es_device_skipped_seconds). */
double es_player_skipped_seconds(const es_player *pl);
/* What a person hears, in frames: the processor's latency, what the
 * device holds inside earshot, the output buffer, and the input buffer
 * when a live input (microphone) is used.
 * The buffers are the host API's reported stream latencies (PortAudio),
 * plus what PortAudio buffers without reporting it (JACK, output only: a
 * block longer than the period); the null device's are its block. -1
 * when the total is not known (es_latency_parts.known). */
int es_player_latency(const es_player *pl);
typedef struct {
    int total;            /* es_player_latency */
    int engine;           /* the processor's latency (padded engine latency) */
    /* Frames the device holds inside earshot on top of the processor (a
     * block gathered over shorter JACK periods): with engine, earshot's
     * own latency, the part it publishes on its JACK ports. */
    int inside;
    int input, output;    /* the device's buffers, as heard: the ports'
                             latencies on JACK */
    int input_counts;     /* a live input: the input buffer is part of the total */
    int period;           /* the host's period (es_device_reported), else 0 */
    int block;            /* the block earshot's processor runs */
    int reported_input, reported_output; /* the host API's own report; -1 when
                                            it failed es_latency_checked */
    /* 0 when the total is not known: a buffer it counts failed the check
     * (es_latency_checked), or their sum did; total is then 0 and note
     * says what the server reported. */
    int known;
    char note[192];       /* "" or why / where from (es_device_latency_note) */
    int pending;          /* es_device_latency_pending: the report at open for now */
    /* What a loop from the output back to the input should measure (the
     * round-trip probe puts its click after the processor): input +
     * inside + output; or inside + one period of the host's graph for a
     * loop that passes no buffer (looped): 1 the output wired straight to
     * the input (es_device_looped_inside), 2 ports that declare no
     * latency either way (a PipeWire null sink's monitor into its virtual
     * source). */
    int looped;
    int round_trip;
} es_latency_parts;
void es_player_latency_parts(const es_player *pl, es_latency_parts *parts);
/* The total as a person reads it: "13.33 ms (640 fr)", or the note when
 * it is not known ("unknown (the server reported ...)"). */
void es_latency_text(const es_latency_parts *p, double rate, char *out, size_t n);
/* Its parts: "128 in + 256 earshot + 256 out" (in only with a live input;
 * earshot is engine + inside); "" when the total is not known, or is the
 * host's report until the timestamps come. */
void es_latency_parts_text(const es_latency_parts *p, char *out, size_t n);
/* The two together: "13.33 ms (640 fr = 128 in + 256 earshot + 256 out)",
 * or es_latency_text's where the total is not known or still the host's
 * report. */
void es_latency_full_text(const es_latency_parts *p, double rate, char *out, size_t n);
/* What the round trip is made of, in words: "input 128 + output 256", or
 * for a loop inside the graph "a loop inside the JACK graph: earshot's
 * own buffering 0 + one period 128". */
void es_round_trip_text(const es_latency_parts *p, char *out, size_t n);
const char *es_player_device(const es_player *pl);

#endif
