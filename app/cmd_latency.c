/* earshot latency: the round trip measured through a loopback from the
 * output to the microphone input, against the one earshot computes from
 * the device's reported buffers. A click is put on the first output
 * channel after the processor (so the engine's latency is not in it) and
 * found in the input; the session's own probe (es_player_probe_start). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "core/args.h"
#include "core/param.h"
#include "device.h"
#include "engine_params.h"
#include "core/json.h"
#include "commands.h"
#include "session.h"

typedef struct {
    es_play_options play; /* first: es_play_params' offsets hold here too */
    int json;
    double wait;
} latency_options;

#define OPT(f) offsetof(latency_options, f)
/* play's own entries for the device and the stream, as measure has them. */
static const char *const device_params[] = {"device", "input-device", "name", "connect-in",
                                            "connect-out", "no-connect", "rate", "block",
                                            NULL};
static const es_param own_params[] = {
    {"wait", ES_PARAM_DOUBLE, 0, 60, "0.5", "T",
     "seconds between opening the device and the click, to wire a\n"
     "loopback", OPT(wait), NULL, NULL},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, NULL, "the result as one JSON object", OPT(json), NULL,
     NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};
#define TABLE_MAX 16
static es_param params[TABLE_MAX];

static const char usage[] =
    "usage: earshot latency [--device NAME] [--input-device NAME] [--block N] [--rate HZ]\n"
    "                       [--name NAME] [--connect-in PATTERN] [--connect-out PATTERN]\n"
    "                       [--no-connect] [--wait T] [--json]\n"
    "\n"
    "Measures the round trip: plays five clicks, half a second apart, on the\n"
    "device's first output and finds each in the microphone input, which must\n"
    "be looped back to the output (a cable, or a connection in the sound\n"
    "server's graph). Prints the median against the computed figure (the\n"
    "device's input + output buffers, and a block gathered over JACK periods;\n"
    "for earshot's JACK output wired straight to its input, one period and\n"
    "the gathering, as no port latency is passed), the clicks' spread, and\n"
    "what the engine adds on top. A loop that drops a click, or clicks more\n"
    "than a frame apart, give no figure. Exit 0 with a figure, 1 without one\n"
    "(or when the device could not play), 2 for bad arguments.\n"
    "\nOptions:\n";

static void say(void *ctx, int problem, const char *line)
{
    (void)ctx;
    if (problem) /* the session's lines are noise here unless they are problems */
        es_error("%s", line);
}

static void pause_polling(es_session *s, double seconds)
{
    const struct timespec tick = {0, 10000000};
    const double until = es_session_snapshot(s)->elapsed + seconds;
    while (es_session_snapshot(s)->elapsed < until) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
    }
}

/* The probe's clicks take 2.5 s of the stream's time; a stream that stops
 * delivering blocks would never finish them. The session calls a device
 * lost after 5 s without a block (the usual end of the wait), and the wait
 * has a wall-clock end of its own besides. */
#define PROBE_WAIT_S 15.0

/* The measurement: 0 and the round trip in *frames once the click came
 * back (or -1 frames: it did not, said by the session), -1 when it could
 * not start or the stream stopped (said). */
static int measure(es_session *s, int *frames)
{
    const unsigned before = es_session_snapshot(s)->probes;
    if (es_session_measure_latency(s) != 0)
        return -1;
    const struct timespec tick = {0, 10000000};
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const uint64_t frames0 = es_session_snapshot(s)->stats.frames;
    while (es_session_snapshot(s)->probes == before) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
        if (es_session_snapshot(s)->device_state == ES_DEVICE_LOST) {
            es_error("latency: the device was lost while the click was out (%.1f s of blocks "
                     "arrived): nothing measured",
                     (double)(es_session_snapshot(s)->stats.frames - frames0) /
                         es_session_snapshot(s)->rate);
            return -1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) >
            PROBE_WAIT_S) {
            es_error("latency: no round trip within %.0f s: the stream delivered %.1f s of "
                     "blocks in that time (the device stopped calling back?)", PROBE_WAIT_S,
                     (double)(es_session_snapshot(s)->stats.frames - frames0) /
                         es_session_snapshot(s)->rate);
            return -1;
        }
    }
    *frames = es_session_snapshot(s)->probe_frames;
    return 0;
}

int es_cmd_latency(int argc, char **argv)
{
    es_app_params_with_play(params, TABLE_MAX, device_params, own_params);
    latency_options o = {0};
    char err[1024];
    int help;
    if (es_play_options_default(&o.play, err, sizeof err) != 0 ||
        es_params_defaults(own_params, &o, err, sizeof err) != 0 ||
        es_params_parse_argv(params, argc, argv, &o, NULL, 0, NULL, &help, err,
                             sizeof err) != 0) {
        es_error("latency: %s (see earshot latency --help)", err);
        return 2;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        es_devices_help(stdout);
        return 0;
    }
    es_app_route_device(o.play.device);
    if (!es_device_can_capture(o.play.device)) {
        es_error("latency: the null device has no microphone to hear the click: give "
                 "--device a sound device with an input (earshot devices)");
        return 2;
    }
    /* Silence but the click: the room's sound through the loop would only
     * be more to find the click in. */
    es_session_config sc = {.device = o.play.device, .input_device = o.play.input_device,
                            .jack = o.play.jack, .rate = o.play.rate, .crossfade_ms = 50,
                            .playing = ES_SLOT_A,
                            .mix = {.wet = 0, .dry = 0, .gain = 1}};
    sc.slot[ES_SLOT_A] = (es_play_spec){.engine = es_engine_find("cpu-partitioned"),
                                        .options = {.fft_measure = 0}, .block = o.play.spec.block,
                                        .source = ES_SOURCE_MIC};
    es_session *s = es_session_open(&sc, say, NULL, err, sizeof err);
    if (!s) {
        es_error("latency: %s", err);
        return 1;
    }
    if (!es_session_snapshot(s)->can_capture) { /* "auto" found no sound device */
        es_error("latency: no sound device here, only the null device, which has no "
                 "microphone: nothing to measure");
        es_session_stop(s);
        es_session_close(s);
        return 1;
    }
    pause_polling(s, o.wait);
    int status = 1, frames = -1;
    if (measure(s, &frames) == 0 && frames >= 0) {
        const es_live_snapshot *snap = es_session_snapshot(s);
        const es_latency_parts *lp = &snap->latency;
        const int computed = lp->round_trip;
        char parts[200];
        es_round_trip_text(lp, parts, sizeof parts);
        if (!lp->known) {
            es_error("latency: measured %d frames, but the computed figure is %s", frames,
                     lp->note);
        } else if (o.json) {
            printf("{\"device\":");
            es_json_string(stdout, snap->device);
            printf(",\"rate\":%.0f,\"block\":%d,\"measured\":%d,\"measured_ms\":%.3f,"
                   "\"clicks\":%d,\"low\":%d,\"high\":%d,"
                   "\"computed\":%d,\"input\":%d,\"inside\":%d,\"output\":%d,"
                   "\"period\":%d,\"looped_inside\":%s,\"engine\":%d}\n", o.play.rate,
                   lp->block, frames, 1e3 * frames / o.play.rate, snap->probe_clicks,
                   snap->probe_low, snap->probe_high, computed, lp->input, lp->inside,
                   lp->output, lp->period, lp->looped ? "true" : "false", lp->engine);
            status = 0;
        } else {
            printf("measured %d frames (%.2f ms; the median of %d clicks, %d to %d), "
                   "computed %d frames (%s); the engine adds %d\n", frames,
                   1e3 * frames / o.play.rate, snap->probe_clicks, snap->probe_low,
                   snap->probe_high, computed, parts, lp->engine);
            status = 0;
        }
    }
    es_session_stop(s);
    es_session_close(s);
    return status;
}
