/* earshot measure: a room measured through the sound card (or a JACK
 * graph) by exponential sweep, and kept in the library (session.h's
 * es_session_measure_room, which the workstation's key calls too). The
 * device options are play's own entries (es_play_params), so they read
 * and refuse the same. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "commands.h"
#include "core/args.h"
#include "core/json.h"
#include "core/param.h"
#include "device.h"
#include "session.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct {
    es_play_options play; /* first: es_play_params' offsets hold here too */
    es_sweep sweep;
    int outputs[ES_MEASURE_CHANNELS_MAX + 1]; /* [0]: how many, then each, from 1 */
    int reference, reference_output;          /* from 1; 0: none */
    const char *name, *description, *into;
    double wait;
    int json;
} measure_options;

#define OPT(f) offsetof(measure_options, f)

/* --outputs 1,2: the outputs swept in turn, from 1. */
static int parse_outputs(const char *text, void *dst, char *why, size_t n)
{
    int *list = dst, count = 0;
    const char *p = text;
    while (*p) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > ES_EXCHANGE_OUTPUTS_MAX || (*end && *end != ',')) {
            snprintf(why, n, "not a list of outputs (1,2: from 1)");
            return -1;
        }
        if (count == ES_MEASURE_CHANNELS_MAX) {
            snprintf(why, n, "%d outputs at most", ES_MEASURE_CHANNELS_MAX);
            return -1;
        }
        list[++count] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (count == 0) {
        snprintf(why, n, "no output named");
        return -1;
    }
    list[0] = count;
    return 0;
}

/* play's own entries for the device and the stream. */
static const char *const device_params[] = {"device", "input-device", "name", "connect-in",
                                            "connect-out", "no-connect", "rate", "block",
                                            "inputs", NULL};

/* The sweep's defaults are sweep.h's (ES_SWEEP_DEFAULTS), as the
 * workstation's form and the measure command take them. */
#define SWEEP_DEFAULT(x) ES_PARAM_DEFAULT_OF(ES_SWEEP_##x##_DEFAULT)
static const es_param own_params[] = {
    {"seconds", ES_PARAM_DOUBLE, 0.1, ES_SWEEP_SECONDS_MAX, SWEEP_DEFAULT(SECONDS), "T",
     "the sweep's length (rounded to the synchronised sweep's)", OPT(sweep.seconds), NULL,
     NULL},
    {"from", ES_PARAM_DOUBLE, 1, 192000, SWEEP_DEFAULT(F1), "HZ",
     "the sweep's lowest frequency", OPT(sweep.f1), NULL, NULL},
    {"to", ES_PARAM_DOUBLE, 2, 192000, SWEEP_DEFAULT(F2), "HZ",
     "the sweep's highest (at most half the rate)", OPT(sweep.f2), NULL, NULL},
    {"level", ES_PARAM_DOUBLE, -80, 0, SWEEP_DEFAULT(LEVEL_DB), "DBFS", "the sweep's peak",
     OPT(sweep.level_db), NULL, NULL},
    {"fade-in", ES_PARAM_DOUBLE, 0, 10, SWEEP_DEFAULT(FADE_IN), "T",
     "seconds of fade at the start", OPT(sweep.fade_in), NULL, NULL},
    {"fade-out", ES_PARAM_DOUBLE, 0, 10, SWEEP_DEFAULT(FADE_OUT), "T",
     "seconds of fade at the end", OPT(sweep.fade_out), NULL, NULL},
    {"repeats", ES_PARAM_INT, 1, ES_SWEEP_REPEATS_MAX, SWEEP_DEFAULT(REPEATS), "N",
     "sweeps averaged: each doubling gains 3 dB over the noise", OPT(sweep.repeats), NULL,
     NULL},
    {"gap", ES_PARAM_DOUBLE, 0, ES_SWEEP_GAP_MAX, SWEEP_DEFAULT(GAP), "T",
     "silence after each sweep: longer than the room's decay\n"
     "and the loop's latency", OPT(sweep.gap), NULL, NULL},
    {"outputs", ES_PARAM_CUSTOM, 0, 0, "1", "LIST",
     "the outputs swept one after another, from 1: each\n"
     "is one of the room's inputs", OPT(outputs), NULL, parse_outputs},
    {"reference", ES_PARAM_INT, 1, 64, NULL, "IN",
     "the input wired straight from the sweep's output: time\n"
     "zero exact, the device divided out", OPT(reference), NULL, NULL},
    {"reference-output", ES_PARAM_INT, 1, 64, NULL, "OUT",
     "an output that plays every sweep for the reference\n"
     "(default: the reference is wired from each output swept)", OPT(reference_output), NULL,
     NULL},
    {"room", ES_PARAM_STRING, 1, ES_ROOM_NAME_MAX - 1, NULL, "NAME",
     "the room's name in the library (measured-DATE-TIME)", OPT(name), NULL, NULL},
    {"description", ES_PARAM_STRING, 1, 255, NULL, "TEXT", "the room's description",
     OPT(description), NULL, NULL},
    {"into", ES_PARAM_STRING, 1, 1023, NULL, "DIR",
     "the library folder the room goes into (the user's)", OPT(into), NULL, NULL},
    {"wait", ES_PARAM_DOUBLE, 0, 60, "0.5", "T",
     "seconds between opening the device and the first sweep", OPT(wait), NULL, NULL},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, NULL, "the result as one JSON object", OPT(json), NULL,
     NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

#define TABLE_MAX 40
#define SETTLE_S 0.5     /* the stream's run without an overrun before the first sweep */
#define SETTLE_MAX_S 5.0
static es_param table[TABLE_MAX];

static const char usage[] =
    "usage: earshot measure [--device NAME] [--inputs N] [--outputs LIST] [--reference IN]\n"
    "                       [--seconds T] [--from HZ] [--to HZ] [--level DBFS] [--repeats N]\n"
    "                       [--gap T] [--room NAME] [--json] ...\n"
    "\n"
    "Measures a room: an exponential sine sweep (Farina; synchronised, so that\n"
    "each harmonic product deconvolves to a pulse at a known time) plays out of\n"
    "each output in --outputs in turn while every input records, then the\n"
    "recordings are averaged over --repeats and deconvolved by the sweep's\n"
    "inverse (ISO 18233). With --reference, an input wired straight from the\n"
    "sweep's output, the room is divided by what that input heard: the device's\n"
    "own delay and converters drop out, and time zero is the moment the sweep\n"
    "left the output, to the frame; without one, time zero is the round trip\n"
    "earshot computes for the device. The harmonic products, which come before\n"
    "the room's response, are cut away and their levels reported per order.\n"
    "The response is kept from time zero to where its decay meets the noise\n"
    "(Lundeby) and saved into the library as an N x M room (the outputs swept\n"
    "are its inputs, the other inputs its outputs), its manifest saying how it\n"
    "was measured. A clipped, silent or too quiet recording, a stream that lost\n"
    "frames or changed during a sweep: one line saying so (and the level to use),\n"
    "nothing saved. Exit 0 with a room saved, 1 without, 2 for bad arguments.\n"
    "docs/MEASURING.md says how to measure well.\n"
    "\nOptions:\n";

/* The session's lines go to stderr, as every other message does; the
 * saved room's line is the result, which goes to stdout with the paths'
 * details (or into the JSON). */
static void say(void *ctx, int problem, const char *line)
{
    const int *json = ctx;
    /* Of the rest, the measurement's own lines: what the stream plays (the
     * stream's shape, a room of one Dirac) is this command's business. */
    if (problem || (!*json && !strncmp(line, "measur", 6) &&
                    strncmp(line, "measured room ", 14) != 0))
        es_error("%s", line);
}

static void json_number(const char *name, double v, int comma)
{
    if (isfinite(v))
        printf("\"%s\":%.6g%s", name, v, comma ? "," : "");
    else
        printf("\"%s\":null%s", name, comma ? "," : "");
}

static const char *verdict_word(es_response_verdict v)
{
    static const char *const words[] = {"good", "clipped", "silent", "quiet"};
    return words[v];
}

static void print_json(const es_measure_result *r)
{
    printf("{\"saved\":%s,\"line\":", r->saved ? "true" : "false");
    es_json_string(stdout, r->line);
    printf(",\"name\":");
    es_json_string(stdout, r->name);
    printf(",\"path\":");
    es_json_string(stdout, r->path);
    printf(",\"sources\":%d,\"receivers\":%d,\"frames\":%d,\"rate\":%.0f,"
           "\"referenced\":%s,\"zero\":%d,\"retries\":%d,", r->sources, r->receivers,
           r->frames, r->rate, r->referenced ? "true" : "false", r->zero, r->retries);
    json_number("seconds", r->seconds, 1);
    printf("\"band\":[%.1f,%.1f],", r->band_low, r->band_high);
    json_number("t30", r->saved ? r->acoustics.t30 : NAN, 1);
    json_number("edt", r->saved ? r->acoustics.edt : NAN, 1);
    json_number("c80", r->saved ? r->acoustics.c80 : NAN, 1);
    printf("\"paths\":[");
    for (int k = 0; k < r->sources * r->receivers; k++) {
        const es_response *p = &r->paths[k];
        printf("%s{\"source\":%d,\"receiver\":%d,\"verdict\":\"%s\",", k ? "," : "",
               k / r->receivers + 1, k % r->receivers + 1, verdict_word(p->verdict));
        json_number("recording_peak_db", p->recording_peak_db, 1);
        printf("\"clipped\":%ld,\"peak_at\":%zu,\"onset\":%zu,\"usable\":%zu,", p->clipped,
               p->peak_at, p->onset, p->usable);
        json_number("peak", p->peak, 1);
        json_number("pnr_db", p->pnr_db, 1);
        printf("\"harmonics_db\":[");
        for (int h = 0; h < p->orders; h++) {
            if (isfinite(p->harmonic_db[h]))
                printf("%s%.3f", h ? "," : "", p->harmonic_db[h]);
            else
                printf("%snull", h ? "," : "");
        }
        printf("],\"harmonic_floors_db\":[");
        for (int h = 0; h < p->orders; h++)
            printf("%s%.3f", h ? "," : "",
                   isfinite(p->harmonic_floor_db[h]) ? p->harmonic_floor_db[h] : -999.0);
        printf("]}");
    }
    printf("]}\n");
}

/* One line a path, for the person: its level, its noise, its harmonics. */
static void print_paths(const es_measure_result *r)
{
    for (int k = 0; k < r->sources * r->receivers; k++) {
        const es_response *p = &r->paths[k];
        printf("output %d -> input %d: recording peak %.1f dBFS, direct sound at %.2f ms, "
               "PNR %.1f dB, decay above the noise for %.2f s", k / r->receivers + 1,
               k % r->receivers + 1, p->recording_peak_db, 1e3 * (double)p->peak_at / r->rate,
               p->pnr_db, (double)p->usable / r->rate);
        for (int h = 0; h < p->orders; h++) {
            if (isfinite(p->harmonic_db[h]))
                printf("%s%d: %.1f dB", h ? ", " : "; orders ", h + 2, p->harmonic_db[h]);
            else
                printf("%s%d: under %.1f dB", h ? ", " : "; orders ", h + 2,
                       p->harmonic_floor_db[h]);
        }
        printf("\n");
    }
}

/* The stream's shape: `inputs` microphones and `outputs` loudspeakers
 * whatever room the library holds, as a jconvolver configuration of one
 * Dirac (the stream needs a room; none of it is heard: wet and dry are
 * off, and the sweeps replace the outputs) in a folder of its own. */
static int write_shape(int inputs, int outputs, char *path, size_t pn, char *err, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/earshot-measure-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, n, "%.900s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, pn, "%s/shape.conf", dir);
    FILE *f = fopen(path, "wx");
    if (!f || fprintf(f, "/convolver/new %d %d 256 64\n/impulse/dirac 1 1 1 0\n", inputs,
                      outputs) < 0 ||
        fclose(f) != 0) {
        snprintf(err, n, "%.900s: %s", path, strerror(errno));
        rmdir(dir);
        return -1;
    }
    return 0;
}

static void remove_shape(const char *path)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    unlink(path);
    if (slash) {
        *slash = 0;
        rmdir(dir);
    }
}

/* measure's options, into *o and the plan they make: 0, 1 after --help,
 * or 2 after saying what is wrong. */
static int read_options(int argc, char **argv, measure_options *o, es_measure_plan *plan)
{
    es_app_params_with_play(table, TABLE_MAX, device_params, own_params);
    *o = (measure_options){0};
    char err[1024];
    int help;
    if (es_play_options_default(&o->play, err, sizeof err) != 0 ||
        es_params_defaults(own_params, o, err, sizeof err) != 0 ||
        es_params_parse_argv(table, argc, argv, o, NULL, 0, NULL, &help, err, sizeof err)) {
        es_error("measure: %s (see earshot measure --help)", err);
        return 2;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(table, stdout);
        es_devices_help(stdout);
        return 1;
    }
    *plan = (es_measure_plan){.sweep = o->sweep, .reference_input = o->reference - 1,
                              .reference_output = o->reference_output - 1};
    plan->sweep.rate = o->play.rate;
    if (es_sweep_check(&plan->sweep, err, sizeof err) != 0) {
        es_error("measure: %s", err);
        return 2;
    }
    plan->output_count = o->outputs[0] ? o->outputs[0] : 1;
    for (int k = 0; k < plan->output_count; k++)
        plan->outputs[k] = o->outputs[0] ? o->outputs[k + 1] - 1 : 0;
    snprintf(plan->name, sizeof plan->name, "%s", o->name ? o->name : "");
    snprintf(plan->description, sizeof plan->description, "%s",
             o->description ? o->description : "");
    snprintf(plan->dir, sizeof plan->dir, "%s", o->into ? o->into : "");
    if (plan->name[0] && !es_room_name_valid(plan->name)) {
        es_error("measure: --room '%s' is not a room name (letters, digits, '-', '_' and '.', "
                 "not starting with '.')", plan->name);
        return 2;
    }
    return 0;
}

/* The outputs the stream opens: two at least, and every one that plays a
 * sweep or the reference's. */
static int outputs_needed(const measure_options *o, const es_measure_plan *plan)
{
    int outputs = 2;
    for (int k = 0; k < plan->output_count; k++)
        outputs = plan->outputs[k] + 1 > outputs ? plan->outputs[k] + 1 : outputs;
    return o->reference_output > outputs ? o->reference_output : outputs;
}

/* The stream the sweeps play on, the room it plays the shape in `shape`:
 * the session, or NULL said with the exit status in *status. */
static es_session *open_stream(measure_options *o, const char *shape, int *status)
{
    char err[1024];
    o->play.ir = shape;
    es_session_config sc;
    if (es_play_options_session(&o->play, &sc, err, sizeof err) != 0) {
        es_error("measure: %s", err);
        *status = 2;
        return NULL;
    }
    /* Nothing but the sweep reaches the outputs: the room the stream plays
     * would come round through the microphone. */
    sc.mix.wet = 0;
    sc.mix.dry = 0;
    es_session *s = es_session_open(&sc, say, &o->json, err, sizeof err);
    if (!s) {
        es_error("measure: %s", err);
        *status = 1;
    }
    return s;
}

/* `wait` seconds from the device's opening, then until the stream has
 * settled. */
static void settle(es_session *s, double wait)
{
    const struct timespec tick = {0, 10000000};
    const double start_at = es_session_snapshot(s)->elapsed + wait;
    while (!interrupted && es_session_snapshot(s)->elapsed < start_at) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
    }
    /* A stream's first cycles may overrun while the graph takes the new
     * client in, and an overrun said during the first sweep plays it
     * again: it waits until the stream has run SETTLE_S without one
     * (SETTLE_MAX_S more at most). */
    uint64_t xruns = es_session_snapshot(s)->xruns;
    double quiet_since = start_at;
    while (!interrupted && es_session_snapshot(s)->elapsed - quiet_since < SETTLE_S &&
           es_session_snapshot(s)->elapsed < start_at + SETTLE_MAX_S) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
        if (es_session_snapshot(s)->xruns != xruns) {
            xruns = es_session_snapshot(s)->xruns;
            quiet_since = es_session_snapshot(s)->elapsed;
        }
    }
}

/* The room measured on the stream and what came of it said: as JSON, or
 * for a person when a room was saved (the session said why not). The exit
 * status: 0 with a room saved, else 1. */
static int measure(es_session *s, const es_measure_plan *plan, int json)
{
    const struct timespec tick = {0, 10000000};
    if (interrupted || es_session_measure_room(s, plan) != 0)
        return 1;
    while (!interrupted && !es_session_measure_result(s)) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
    }
    const es_measure_result *r = es_session_measure_result(s);
    if (!r)
        return 1;
    if (json)
        print_json(r);
    else if (r->saved) {
        printf("%s\n", r->line);
        printf("flat from %.0f to %.0f Hz\n", r->band_low, r->band_high);
        print_paths(r);
        printf("saved: %s\n", r->path);
    }
    return r->saved ? 0 : 1;
}

int es_cmd_measure(int argc, char **argv)
{
    measure_options o;
    es_measure_plan plan;
    const int read = read_options(argc, argv, &o, &plan);
    if (read != 0)
        return read == 1 ? 0 : 2;
    es_app_route_device(o.play.device);
    if (!es_device_can_capture(o.play.device)) {
        es_error("measure: the null device has no input to hear the room with: give "
                 "--device a sound device with an input (earshot devices)");
        return 2;
    }
    /* The microphones and the reference: every input is opened. */
    o.play.input = "mic";
    if (o.play.inputs == 0)
        o.play.inputs = 1 + (o.reference > 0);
    char shape[1100], err[1024];
    if (write_shape(o.play.inputs, outputs_needed(&o, &plan), shape, sizeof shape, err,
                    sizeof err) != 0) {
        es_error("measure: %s", err);
        return 1;
    }
    int status = 1;
    es_session *s = open_stream(&o, shape, &status);
    if (s) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        settle(s, o.wait);
        status = measure(s, &plan, o.json);
        es_session_stop(s);
        es_session_close(s);
    }
    remove_shape(shape);
    return status;
}
