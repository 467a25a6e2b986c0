/* earshot latency: the round trip measured through a loopback from the
 * output to the microphone input, against the one earshot computes from
 * the device's reported buffers. A click is put on the first output
 * channel after the processor (so the engine's latency is not in it) and
 * found in the input; the session's own probe (es_player_probe_start). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "core/args.h"
#include "core/param.h"
#include "device.h"
#include "engine_params.h"
#include "session.h"

typedef struct {
    const char *device, *input_device;
    int block, json;
    double rate, wait;
} latency_options;

#define OPT(f) offsetof(latency_options, f)
static const es_param params[] = {
    {"device", ES_PARAM_STRING, 0, 255, "NAME",
     "the sound device (earshot devices; default: the default device)", OPT(device), NULL,
     NULL},
    {"input-device", ES_PARAM_STRING, 0, 255, "NAME", "the microphone's own device",
     OPT(input_device), NULL, NULL},
    ES_PARAM_BLOCK(latency_options, block),
    {"rate", ES_PARAM_DOUBLE, 8000, 384000, "HZ", "sample rate (default 48000)", OPT(rate),
     NULL, NULL},
    {"wait", ES_PARAM_DOUBLE, 0, 60, "T",
     "seconds between opening the device and the click, to wire a\n"
     "loopback (default 0.5)", OPT(wait), NULL, NULL},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, "the result as one JSON object", OPT(json), NULL,
     NULL},
    {NULL, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static const char usage[] =
    "usage: earshot latency [--device NAME] [--input-device NAME] [--block N] [--rate HZ]\n"
    "                       [--json]\n"
    "\n"
    "Measures the round trip: plays one click on the device's first output and\n"
    "finds it in the microphone input, which must be looped back to the output\n"
    "(a cable, or a connection in the sound server's graph). Prints the measured\n"
    "frames against the computed ones (the device's input + output buffers) and\n"
    "what the engine adds on top. Exit 0 when the click came back, 1 when it did\n"
    "not (or the device could not play), 2 for bad arguments.\n"
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
    const double until = es_session_elapsed(s) + seconds;
    while (es_session_elapsed(s) < until) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
    }
}

int es_cmd_latency(int argc, char **argv)
{
    latency_options o = {.device = "auto", .block = ES_BLOCK_DEFAULT, .rate = 48000,
                         .wait = 0.5};
    char err[1024];
    int help;
    if (es_params_parse_argv(params, argc, argv, &o, NULL, 0, NULL, &help, err,
                             sizeof err) != 0) {
        es_error("latency: %s (see earshot latency --help)", err);
        return 2;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        return 0;
    }
    es_app_route_device(o.device);
    if (!es_device_can_capture(o.device)) {
        es_error("latency: the null device has no microphone to hear the click: give "
                 "--device a sound device with an input (earshot devices)");
        return 2;
    }
    const es_session_config sc = {.device = o.device, .input_device = o.input_device,
                                  .source = ES_SOURCE_MIC,
                                  .engine = es_engine_find("cpu-partitioned"),
                                  .options = {.fft_measure = 0}, .rate = o.rate,
                                  .crossfade_ms = 50, .block = o.block};
    es_session *s = es_session_open(&sc, say, NULL, err, sizeof err);
    if (!s) {
        es_error("latency: %s", err);
        return 1;
    }
    es_player *pl = es_session_player(s);
    if (!es_device_can_capture(es_player_device(pl))) { /* "auto" found no sound device */
        es_error("latency: no sound device here, only the null device, which has no "
                 "microphone: nothing to measure");
        es_session_stop(s);
        es_session_close(s);
        return 1;
    }
    /* Silence but the click: the room's sound through the loop would only
     * be more to find the click in. */
    es_mix quiet = *es_session_mix(s);
    quiet.wet = quiet.dry = 0;
    es_session_set_mix(s, &quiet);
    pause_polling(s, o.wait);
    int status = 1, frames = -1;
    if (es_player_probe_start(pl, 1.0, err, sizeof err) != 0) {
        es_error("latency: %s", err);
    } else {
        const struct timespec tick = {0, 10000000};
        while (!es_player_probe_poll(pl, &frames) && es_session_elapsed(s) < 1e6) {
            nanosleep(&tick, NULL);
            es_session_poll(s);
        }
        es_latency_parts lp;
        es_player_latency_parts(pl, &lp);
        const int computed = lp.input + lp.output;
        if (!lp.known && frames >= 0) {
            es_error("latency: measured %d frames, but the computed figure is %s", frames,
                     lp.note);
        } else if (frames < 0) {
            if (lp.known)
                es_error("latency: no click came back within 1 s: is the output looped to "
                         "the input? (computed %d frames)", computed);
            else
                es_error("latency: no click came back within 1 s: is the output looped to "
                         "the input? (computed: %s)", lp.note);
        } else if (o.json) {
            printf("{\"device\":\"%s\",\"rate\":%.0f,\"block\":%d,\"measured\":%d,"
                   "\"measured_ms\":%.3f,\"computed\":%d,\"input\":%d,\"output\":%d,"
                   "\"engine\":%d}\n", es_player_device(pl), o.rate, lp.block, frames,
                   1e3 * frames / o.rate, computed, lp.input, lp.output, lp.engine);
            status = 0;
        } else {
            printf("measured %d frames (%.2f ms), computed %d frames (input %d + output %d); "
                   "the engine adds %d\n", frames, 1e3 * frames / o.rate, computed, lp.input,
                   lp.output, lp.engine);
            status = 0;
        }
    }
    es_session_stop(s);
    es_session_close(s);
    return status;
}
