/* earshot play (and earshot with no command): a room played live. With
 * --headless it runs for a while, reading commands from stdin if asked,
 * and prints the stream's stats; without, it opens the workstation. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/args.h"
#include "commands.h"
#include "session.h"
#include "workstation.h"

/* Set by SIGINT/SIGTERM: the stream stops and the recording is finished. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char usage[] =
    "usage: earshot [play] [--room NAME|FILE] [--rooms DIR] [--engine NAME] [--block N]\n"
    "                      [--rate HZ] [--device auto|null|NAME] [--input signal|mic|FILE]\n"
    "                      [--input-device NAME] [--partition P] [--pipelined]\n"
    "                      [--crossfade-ms MS] [--record OUT.wav] [--record-input IN.wav]\n"
    "                      [--fps N] [--seconds T] [--report FILE]\n"
    "       earshot play --headless [--seconds T] [--json] [--commands] [options above]\n"
    "\n"
    "Plays an input through a room on a device. Without --headless it opens the\n"
    "workstation, a terminal screen with the room library, the engines, meters\n"
    "and a live spectrum, every action one key away (press ? there for the keys).\n"
    "With --headless it plays for T seconds (default 10) and prints the stream's\n"
    "stats: blocks, deadline misses, xruns, DSP load p50/p99/max, latency in frames\n"
    "and ms (engine + device), throughput. With --json, one JSON object.\n"
    "\n"
    "  --room ROOM     a room of the library (earshot rooms lists them; prepared:\n"
    "                  resampled, trimmed, energy-normalised) or an IR file, used\n"
    "                  as it is (--ir FILE is the same); default: concert-hall\n"
    "  --rooms DIR     another library folder with a rooms.txt\n"
    "  --engine NAME   cpu-direct, cpu-partitioned (default), cuda-circular,\n"
    "                  cuda-partitioned (earshot engines says which run here)\n"
    "  --block N       frames per callback, 16-8192 (default 256)\n"
    "  --rate HZ       stream sample rate (default 48000)\n"
    "  --device NAME   a sound device through PortAudio: 'default', a host API\n"
    "                  ('jack', 'alsa') or part of a device name (see earshot\n"
    "                  devices); 'null' for the null device, a real-time clock\n"
    "                  with no sound card; 'auto' (the default): the default\n"
    "                  sound device, or the null device with a notice if none\n"
    "  --input IN      'signal': the built-in test signal (clicks, a noise burst, a\n"
    "                  sweep; the default); 'mic': the device's input; or a sound\n"
    "                  file, read ahead, looped, resampled to the stream rate\n"
    "  --input-device NAME  with --input mic: take the input from this device\n"
    "                  (as --device names it) instead of the output's\n"
    "  --partition P   partition size for the partitioned engines\n"
    "  --pipelined     GPU engines: result one block later (+1 block latency)\n"
    "  --crossfade-ms MS  the equal-power crossfade of a room or engine swap (50)\n"
    "  --record OUT    record the output to a float WAV (finished on stop, on\n"
    "                  Ctrl-C, and after a write error, keeping what was written)\n"
    "  --record-input OUT  record the dry input too, sample-aligned with --record\n"
    "  --seconds T     stop after T seconds (headless: default 10; the\n"
    "                  workstation: runs until q)\n"
    "\n"
    "The workstation:\n"
    "  --fps N         redraws a second, 1-1000 (default 30)\n"
    "  --report FILE   on quit, write the stream's stats there as one JSON object\n"
    "\n"
    "Headless:\n"
    "  --headless      no terminal screen\n"
    "  --json          the stats as one JSON object\n"
    "  --commands      read commands from standard input while playing, one a line:\n"
    "                    room ROOM     crossfade to another room (name or file; one that fails\n"
    "                                  to load is reported; the old one plays on)\n"
    "                    engine NAME   crossfade to another engine, same room\n"
    "                    block N       reopen the stream at N frames (latency)\n"
    "                    partition N   same engine and room, new partition size\n"
    "                    pipelined on|off   GPU engines' pipelined mode\n"
    "                    mix WET DRY GAIN   linear gains, ramped over a block\n"
    "                    source signal|file|mic   another input (the stream reopens)\n"
    "                    record OUT    start recording the output; again: stop\n"
    "                    reset         reset the meters (misses, load, counts)\n"
    "                    quit          stop (as Ctrl-C does)\n";

typedef struct {
    const char *ir, *rooms, *device, *input, *record, *record_input, *input_device;
    const es_engine_class *engine;
    int block, headless, json, commands;
    es_options options;       /* engine knobs: partition, GPU pipelining */
    double rate, seconds, crossfade_ms;
    es_ui_options ui;
} play_args;

static int parse(int argc, char **argv, play_args *a)
{
    const char *v;
    *a = (play_args){.device = "auto", .input = "signal", .block = 256, .rate = 48000,
                     .engine = es_engine_find("cpu-partitioned"),
                     .options = {.fft_measure = 1}, .ui = {.fps = 30}};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(o, "--ir") || !strcmp(o, "--room")) {
            if (!(a->ir = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--rooms")) {
            if (!(a->rooms = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--record")) {
            if (!(a->record = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--record-input")) {
            if (!(a->record_input = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--device")) {
            if (!(a->device = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--input-device")) {
            if (!(a->input_device = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--input")) {
            if (!(a->input = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--engine")) {
            if (!(v = es_arg_value(argc, argv, &i)) || es_arg_engine(o, v, &a->engine))
                return -1;
        } else if (!strcmp(o, "--block")) {
            if (!(v = es_arg_value(argc, argv, &i)) || es_arg_int(o, v, 16, 8192, &a->block))
                return -1;
        } else if (!strcmp(o, "--rate")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 8000, 384000, &a->rate))
                return -1;
        } else if (!strcmp(o, "--seconds")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 0.1, 86400, &a->seconds))
                return -1;
        } else if (!strcmp(o, "--partition")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_int(o, v, 16, 65536, &a->options.partition))
                return -1;
        } else if (!strcmp(o, "--pipelined")) {
            a->options.gpu_pipelined = 1;
        } else if (!strcmp(o, "--crossfade-ms")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 1, 5000, &a->crossfade_ms))
                return -1;
        } else if (!strcmp(o, "--fps")) {
            if (!(v = es_arg_value(argc, argv, &i)) || es_arg_double(o, v, 1, 1000, &a->ui.fps))
                return -1;
        } else if (!strcmp(o, "--report")) {
            if (!(a->ui.report = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--headless")) {
            a->headless = 1;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--commands")) {
            a->commands = 1;
        } else {
            es_error("play: unknown option '%s' (see earshot play --help)", o);
            return -1;
        }
    }
    if (a->headless && a->seconds == 0)
        a->seconds = 10;
    a->ui.seconds = a->seconds;
    if (!a->headless && (a->json || a->commands)) {
        es_error("play: --json and --commands go with --headless");
        return -1;
    }
    return 0;
}

/* The session's lines go to stderr, as every other message does. */
static void say(void *ctx, int problem, const char *line)
{
    (void)ctx;
    (void)problem;
    fprintf(stderr, "earshot: %s\n", line);
}

/* One command line. Returns 1 for quit. */
static int run_command(es_session *s, char *line)
{
    char word[16] = "", arg[4096] = "";
    line[strcspn(line, "\r\n")] = 0;
    if (sscanf(line, "%15s %4095[^\n]", word, arg) < 1)
        return 0;
    es_options next = es_session_now(s)->options;
    if (!strcmp(word, "quit")) {
        return 1;
    } else if (!strcmp(word, "room")) {
        es_session_set_room(s, arg);
    } else if (!strcmp(word, "engine")) {
        const es_engine_class *k;
        if (es_arg_engine("engine", arg, &k) == 0)
            es_session_set_engine(s, k);
    } else if (!strcmp(word, "partition")) {
        if (es_arg_int("partition", arg, 16, 65536, &next.partition) == 0)
            es_session_set_options(s, &next);
    } else if (!strcmp(word, "pipelined")) {
        if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0) {
            es_error("pipelined takes on or off");
            return 0;
        }
        next.gpu_pipelined = !strcmp(arg, "on");
        es_session_set_options(s, &next);
    } else if (!strcmp(word, "block")) {
        int block;
        if (es_arg_int("block", arg, 16, 8192, &block) == 0)
            es_session_set_block(s, block);
    } else if (!strcmp(word, "reset")) {
        es_session_reset_meters(s);
    } else if (!strcmp(word, "mix")) {
        es_mix m;
        if (sscanf(arg, "%f %f %f", &m.wet, &m.dry, &m.gain) != 3)
            es_error("mix needs three numbers: WET DRY GAIN");
        else
            es_session_set_mix(s, &m);
    } else if (!strcmp(word, "source")) {
        if (!strcmp(arg, "signal"))
            es_session_set_source(s, ES_SOURCE_SIGNAL);
        else if (!strcmp(arg, "file"))
            es_session_set_source(s, ES_SOURCE_FILE);
        else if (!strcmp(arg, "mic"))
            es_session_set_source(s, ES_SOURCE_MIC);
        else
            es_error("source takes signal, file or mic");
    } else if (!strcmp(word, "record")) {
        es_session_record(s, arg[0] ? arg : NULL, NULL);
    } else {
        es_error("unknown command '%s' (room, engine, block, partition, pipelined, mix, "
                 "source, record, reset, quit)", word);
    }
    return 0;
}

/* Reads whatever whole lines stdin has, without waiting. 1 to quit. */
static int poll_commands(es_session *s, char *buf, size_t cap, size_t *used)
{
    struct pollfd pfd = {.fd = 0, .events = POLLIN};
    while (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP))) {
        ssize_t got = read(0, buf + *used, cap - 1 - *used);
        if (got <= 0)
            return 0; /* end of input: keep playing until the time is up */
        *used += (size_t)got;
        buf[*used] = 0;
        char *nl;
        while ((nl = strchr(buf, '\n'))) {
            *nl = 0;
            if (run_command(s, buf))
                return 1;
            *used -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, *used + 1);
        }
        if (*used == cap - 1)
            *used = 0; /* a line longer than the buffer: drop it */
    }
    return 0;
}

static void session_config(const play_args *a, es_session_config *sc)
{
    es_source_kind kind = ES_SOURCE_SIGNAL;
    if (!strcmp(a->input, "mic"))
        kind = ES_SOURCE_MIC;
    else if (strcmp(a->input, "signal") != 0)
        kind = ES_SOURCE_FILE;
    *sc = (es_session_config){.device = a->device, .input_device = a->input_device,
                              .rooms_dir = a->rooms, .room = a->ir,
                              .file = kind == ES_SOURCE_FILE ? a->input : NULL,
                              .source = kind, .engine = a->engine, .options = a->options,
                              .rate = a->rate, .crossfade_ms = a->crossfade_ms,
                              .block = a->block, .record = a->record,
                              .record_input = a->record_input};
}

int es_cmd_play(int argc, char **argv)
{
    play_args a;
    char err[1024];
    if (parse(argc, argv, &a) != 0)
        return 2;
    es_session_config sc;
    session_config(&a, &sc);
    if (!a.headless)
        return es_workstation_run(&sc, &a.ui);
    es_session *s = es_session_open(&sc, say, NULL, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const struct timespec tick = {0, 20000000};
    char line[8192];
    size_t used = 0;
    while (!interrupted && es_session_elapsed(s) < a.seconds) {
        nanosleep(&tick, NULL);
        es_session_poll(s);
        if (a.commands && poll_commands(s, line, sizeof line, &used))
            break;
    }
    const int status = es_session_stop(s) == 0 ? 0 : 1;
    es_session_report(s, stdout, a.json);
    es_session_close(s);
    return status;
}
