/* What a device backend provides (internal to audio/): a const table of
 * functions, like an engine class, and the names it takes with what each
 * means. device.c holds the table of backends, picks the first whose
 * `matches` takes a name, and lists every backend's names for --help. A
 * new host API outside PortAudio is one file ending in its class, its row
 * in device.c's table, and its sources in CMakeLists.txt: nothing else
 * names it. */
#ifndef ES_DEVICE_CLASS_H
#define ES_DEVICE_CLASS_H

#include <stdatomic.h>
#include <stdio.h>

#include "device.h"

typedef struct es_device_class es_device_class;

/* A name --device takes, as its help says it: "null", "a real-time clock
 * with no sound card" (a placeholder in capitals for a kind of name:
 * "HOST-API"); lines after the first with "\n". */
typedef struct {
    const char *name, *means;
} es_device_usage;

/* Every backend's device starts with this. */
struct es_device {
    const es_device_class *klass;
    char name[128];             /* what the user sees: "null", "JACK: system" */
    int input_latency, output_latency; /* frames heard, known after open */
    /* As the host API reported them (PortAudio's stream info; the null
     * device reports its model), and the host's own period when it sets
     * one (JACK), else 0. */
    int reported_input, reported_output, period;
    /* 0 where the figure is not known (the host API's report failed
     * es_latency_checked and no model stands in); latency_note says why,
     * or where a figure came from when it is not the host API's. */
    int input_known, output_known;
    char latency_note[192];
    /* The delays the running stream's timestamps give (frames; -1 until
     * a callback gave one, and on backends without them): written by the
     * audio thread, preferred to the figures at open when set. */
    atomic_int timed_input, timed_output;
    /* The host's period as the callbacks show it (frames, -1 unknown). */
    atomic_int timed_period;
    int timed;                  /* the backend writes timed_input/output */
    int abandoned;              /* it stopped answering: never touched again */
    int close_first;            /* es_device_close_first */
    /* Time the device's own clock skipped after overruns rather than rush
     * to catch up (the null device; 0 where the host API keeps time). */
    atomic_llong skipped_ns;
};

struct es_device_class {
    const char *name;
    const es_device_usage *names; /* those it takes, ended by a NULL name */
    /* 1 when this backend plays the device `name` ("null"); NULL: every
     * name no backend before it took. */
    int (*matches)(const char *name);
    int can_capture;            /* it has inputs: a microphone can play */
    /* 1 when stop and close never wait on the host API (they only stop
     * earshot's own side): an abandoned device is still stopped and
     * closed, so that its callback is never inside freed memory. */
    int stops_alone;
    /* es_device_hands_over: a second device started while one plays takes
     * over from it at a period's boundary, and stop waits for that. */
    int hands_over;
    /* Its devices, a line each ("NAME  HOST-API  IN in  OUT out  RATE"),
     * or one JSON object a line. 0, or -1 with why. */
    int (*list)(FILE *to, int json, char *err, size_t n);
    es_device *(*open)(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                       char *err, size_t n);
    int (*start)(es_device *d, char *err, size_t n);
    void (*stop)(es_device *d);
    void (*close)(es_device *d);
    int (*active)(const es_device *d); /* optional: NULL means it runs until stopped */
    /* Optional: es_device_paused (NULL: 0, a stall may be a loss). */
    int (*paused)(const es_device *d);
    /* Optional: the latency figures as the stream runs, given those from
     * open (es_device_latency, es_device_reported's period) to amend. */
    void (*now)(const es_device *d, int *input, int *output, int *period);
    /* Optional: es_device_inside_latency (NULL: 0). */
    int (*inside)(const es_device *d);
    /* Optional: es_device_looped_inside (NULL: 0). */
    int (*looped)(const es_device *d);
};

#endif
