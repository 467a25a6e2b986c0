/* Where the processor's blocks come from and go to: a sound card through
 * PortAudio, earshot's own JACK client, or the null device, a thread that
 * calls back on a real-time clock with no sound card at all. All call the
 * same callback. Device names are known here and nowhere above: which
 * backend plays a name, what `auto` tries, which devices can capture, the
 * list, and what each name means (es_device_names_help). */
#ifndef ES_DEVICE_H
#define ES_DEVICE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Called once per block on the audio thread. in may hold silence (null
 * device, or no input device). flags: ES_XRUN_* the host reported, and
 * ES_FREEWHEEL. */
typedef void (*es_audio_callback)(void *ctx, const float *const *in, float *const *out,
                                  int frames, unsigned flags);

enum { ES_XRUN_INPUT = 1, ES_XRUN_OUTPUT = 2, ES_XRUNS = ES_XRUN_INPUT | ES_XRUN_OUTPUT };
/* A further flag: the host freewheels (a JACK server's freewheel mode, an
 * export): blocks come as fast as they are made, with no deadline, on a
 * thread that may wait. Every callback while it lasts carries it. */
enum { ES_FREEWHEEL = 4 };

#define ES_JACK_PORTS 64     /* the native JACK device's ports a side, at most */
#define ES_JACK_PORT_NAME 64 /* a port's own name (after "client:"), with its NUL */

/* How earshot stands in a JACK graph (the native JACK device): its
 * client's name, and what its ports are wired to when they are made. */
typedef struct {
    const char *client;      /* the client's name; NULL: "earshot" */
    /* Port patterns (regular expressions, as jack_lsp and jconvolver take
     * them) the inputs and the outputs are wired to, in order, when they
     * are registered; NULL: the physical capture and playback ports. */
    const char *connect_in, *connect_out;
    int no_connect;          /* wire nothing: the user's patch bay does */
    /* The ports' own names when first registered (a room's /input/name and
     * /output/name), ES_JACK_PORTS of each side; NULL, or "" for a port:
     * in_N, out_N (out_L and out_R for two). */
    const char (*input_names)[ES_JACK_PORT_NAME];
    const char (*output_names)[ES_JACK_PORT_NAME];
} es_jack_options;

typedef struct {
    const char *name;     /* "null" (the null device) */
    double sample_rate;
    int block;            /* frames per callback */
    int inputs, outputs;
    int live_input;       /* open the device's input (microphone) too */
    const char *input_name; /* the input device, when not the output's own */
    es_jack_options jack;   /* the native JACK device's */
    /* Frames the callback's output lags its input (the processor's
     * latency): a JACK client publishes it on its ports. */
    int own_latency;
} es_device_config;

typedef struct es_device es_device;

/* The null device's name. */
#define ES_DEVICE_NULL "null"
/* earshot's own JACK client (device_jack.c), on jackd or on PipeWire's
 * JACK library ("pipewire" there too): ports named and kept for as long as
 * earshot runs, the user's wiring kept through every change, its latency
 * published on its ports. */
#define ES_DEVICE_JACK "jack"

/* What "auto" (and any other name) tries, in order: for "auto", PipeWire
 * through its JACK library when this process runs on it
 * (es_sound_server_route), or a JACK server when one answers, then the
 * default device, then the null device; any other name is itself. Returns how many (tries[] holds them). */
#define ES_DEVICE_TRIES 3
int es_device_tries(const char *asked, const char *tries[ES_DEVICE_TRIES]);
/* One line for a try that did not open (`why`), before the next one:
 * "note: device 'pipewire' did not open (...); trying 'default'". */
void es_device_try_note(const char *failed, const char *next, const char *why, char *out,
                        size_t n);
/* 1 when the device of this name has inputs (a microphone can play);
 * 0 for the null device. */
int es_device_can_capture(const char *name);
/* Every device earshot can play on, a line each, or one JSON object a
 * line: the null device, then each backend's. 0, or -1 with why. */
int es_device_list(FILE *to, int json, char *err, size_t n);
/* The names a device is asked for by, as --help lists them, a line each
 * ("  null              a real-time clock with no sound card"): `auto`,
 * then each backend's names. */
void es_device_names_help(FILE *to);

/* Opens without starting. NULL and a message naming the device on error. */
es_device *es_device_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                          char *err, size_t n);
int es_device_start(es_device *d, char *err, size_t n);
/* Stops and waits for the callback to return for the last time. */
void es_device_stop(es_device *d);
void es_device_close(es_device *d);

/* For a device whose stream stopped calling back (a sound server that
 * died): stop and close leave it alone from now on, because asking a dead
 * server to stop can hang or abort inside the host API. Its memory is left
 * behind; that is the price of exiting cleanly. */
void es_device_abandon(es_device *d);

/* Frames of delay the device adds before and after the callback (what a
 * person at the microphone hears on top of the engine). */
void es_device_latency(const es_device *d, int *input, int *output);
/* 0 for a device that was abandoned and whose stop cannot be trusted (a
 * host API's stream that stopped answering): its callback may yet run,
 * so what it calls into must outlive it. 1 otherwise. */
int es_device_stopped_for_good(const es_device *d);
/* Frames the device holds inside earshot, beyond the processor: a block
 * gathered over shorter JACK periods (block - period); 0 on the other
 * devices, whose buffers are all in es_device_latency's figures. */
int es_device_inside_latency(const es_device *d);
/* 1 when the device's first output is wired straight back to its first
 * input inside the host's graph (a JACK connection from earshot's out_L
 * to its in_1): a round trip there passes no port's latency and takes
 * one period. 0 otherwise, and on devices without a graph. */
int es_device_looped_inside(const es_device *d);
/* What those figures came from: the host API's own report (PortAudio's
 * stream info, read when the stream opened; -1 where it failed
 * es_latency_checked) and the host's period: JACK's, or the cycle the
 * callbacks show when it is several blocks (JACK, ALSA); 0 otherwise. */
void es_device_reported(const es_device *d, int *input, int *output, int *period);
/* 1 when each figure of es_device_latency is known; a note for the person
 * ("unknown (the server reported ...)", or where a modelled figure came
 * from), "" when the host API's report stands as it is. */
void es_device_latency_known(const es_device *d, int *input, int *output);
const char *es_device_latency_note(const es_device *d);
/* 1 while a device whose latency comes from the stream's timestamps has
 * not had one yet: the figures are the host API's report at open until
 * then. */
int es_device_latency_pending(const es_device *d);

/* A stream latency as a host API reported it, in seconds, checked before
 * it is used: finite, not negative and under ES_LATENCY_MAX_S. 1 and the
 * frames at `rate` when it passes; 0 (frames 0) when it does not. */
#define ES_LATENCY_MAX_S 10.0
int es_latency_checked(double seconds, double rate, int *frames);

/* 1 when a new stream on this device's host only takes its settings once
 * this one is closed (PipeWire's JACK library reads the quantum asked when
 * PortAudio's one client opens, and PortAudio keeps that client while any
 * stream is open): a reopen must close first. */
int es_device_close_first(const es_device *d);

/* 1 when another device of this one's name can be opened and started
 * while this one plays, and takes over from it at a period's boundary:
 * the native JACK device, whose handles share one client. A stream
 * reconfigured on it starts the new device before it stops this one
 * (es_device_stop then waits for the hand-over), so no period is lost. */
int es_device_hands_over(const es_device *d);

/* Seconds the device's clock skipped after overruns (the null device's
 * periods that no callback ran for); 0 for a host API's device. */
double es_device_skipped_seconds(const es_device *d);
const char *es_device_name(const es_device *d);
/* 1 while the stream runs as far as the host API knows; 0 once it finished
 * or was stopped from outside (a sound server that went away), or was
 * abandoned. Control side. */
int es_device_active(const es_device *d);
/* 1 when a device that stopped calling is held by a host that is paused,
 * not gone: the JACK server still holds earshot's client and ports (it
 * was stopped with SIGSTOP, a debugger, a suspended machine) and will
 * call again when it resumes, however long that takes. 0 where a long
 * stall cannot be told from a loss. Control side. */
int es_device_paused(const es_device *d);

#endif
