/* earshot play: live playback through a device. Headless for now: it runs
 * for a while and prints the stream's final stats. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "room_loader.h"
#include "commands.h"
#include "engine.h"
#include "irfile.h"
#include "fallback.h"
#include "file_source.h"
#include "player.h"
#include "recorder.h"

/* Set by SIGINT/SIGTERM: the stream stops and the recording is finished. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char usage[] =
    "usage: earshot play [--room NAME|FILE] [--rooms DIR] [--engine NAME] [--block N]\n"
    "                    [--rate HZ]\n"
    "                    [--device auto|null|NAME] [--input signal|mic|FILE]\n"
    "                    [--crossfade-ms MS]\n"
    "                    [--record OUT.wav] [--record-input IN.wav] --headless [--seconds T] [--json]\n"
    "                    [--commands]\n"
    "\n"
    "Plays an input through a room on a device, for T seconds (default 10), then\n"
    "prints the stream's\n"
    "stats: blocks, deadline misses, xruns, DSP load p50/p99/max, latency in frames\n"
    "and ms (engine + device), throughput. With --json, one JSON object.\n"
    "\n"
    "  --room ROOM     a room of the library (earshot rooms lists them; prepared:\n"
    "                  resampled, trimmed, energy-normalised) or an IR file, used\n"
    "                  as it is (--ir FILE is the same); default: concert-hall\n"
    "  --rooms DIR     another library folder with a rooms.txt\n"
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
    "  --record OUT    record the output to a float WAV (finished on stop, on\n"
    "                  Ctrl-C, and after a write error, keeping what was written)\n"
    "  --record-input OUT  record the dry input too, sample-aligned with --record\n"
    "  --headless      no terminal UI (the only mode in this build)\n"
    "  --commands      read commands from standard input while playing, one a line:\n"
    "                    room ROOM     crossfade to another room (name or file; one that fails\n"
    "                                  to load is reported; the old one plays on)\n"
    "                    engine NAME   crossfade to another engine, same room\n"
    "                    block N       reopen the stream at N frames (latency)\n"
    "                    partition N   same engine and room, new partition size\n"
    "                    pipelined on|off   GPU engines' pipelined mode\n"
    "                    mix WET DRY GAIN   linear gains, ramped over a block\n"
    "                    reset         reset the meters (misses, load, counts)\n"
    "                    quit          stop (as Ctrl-C does)\n";

typedef struct {
    const char *ir, *rooms, *device, *input, *record, *record_input, *input_device;
    const es_engine_class *engine;
    int block, headless, json, commands;
    es_options options;       /* engine knobs: partition, GPU pipelining */
    double rate, seconds, crossfade_ms;
} play_args;

static int parse(int argc, char **argv, play_args *a)
{
    const char *v;
    *a = (play_args){.device = "auto", .input = "signal", .block = 256, .rate = 48000,
                     .seconds = 10, .engine = es_engine_find("cpu-partitioned"),
                     .options = {.fft_measure = 1}};
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
    if (!a->headless) {
        es_error("play: the terminal UI is not built yet; use --headless");
        return -1;
    }
    return 0;
}

/* elapsed: the whole run; counted: since the current processor started
 * (a block change starts a new one), what its block count is measured by. */
static void report(const play_args *a, es_player *pl, const es_stats *s, double elapsed,
                   double counted, const es_recorder *rec)
{
    const unsigned long long recorded = rec ? es_recorder_written(rec) : 0;
    const unsigned long long lost = rec ? es_recorder_dropped(rec) : 0;
    const double ms = 1e3 / a->rate;
    const int latency = es_player_latency(pl);
    const double p50 = es_stats_load_quantile(s, 0.5), p99 = es_stats_load_quantile(s, 0.99);
    const double expected = counted * a->rate / a->block;
    if (a->json) {
        printf("{\"device\":\"%s\",\"engine\":\"%s\",\"rate\":%g,\"block\":%d,"
               "\"seconds\":%.3f,\"blocks\":%llu,\"blocks_expected\":%.1f,\"misses\":%llu,"
               "\"late_results\":%llu,\"xruns\":%llu,\"load_p50\":%.4f,\"load_p99\":%.4f,"
               "\"load_max\":%.4f,\"latency_frames\":%d,\"latency_ms\":%.3f,"
               "\"engine_latency_frames\":%d,\"throughput\":%.0f,\"realtime_factor\":%.2f,"
               "\"clipped\":%llu,\"swaps\":%llu,\"recorded_frames\":%llu,"
               "\"record_dropped_frames\":%llu}\n",
               es_player_device(pl), s->engine, a->rate, a->block, elapsed,
               (unsigned long long)s->blocks, expected, (unsigned long long)s->misses,
               (unsigned long long)s->late_results, (unsigned long long)es_player_xruns(pl),
               p50, p99, s->load_max, latency, latency * ms, s->latency,
               es_stats_throughput(s), es_stats_realtime_factor(s, a->rate),
               (unsigned long long)s->clipped, (unsigned long long)s->swaps, recorded, lost);
        return;
    }
    printf("device %s, engine %s, %g Hz, block %d, %.2f s\n", es_player_device(pl), s->engine,
           a->rate, a->block, elapsed);
    printf("  blocks      %llu (%.0f expected from the clock)\n",
           (unsigned long long)s->blocks, expected);
    printf("  misses      %llu (GPU late: %llu)   xruns %llu   clipped samples %llu\n",
           (unsigned long long)s->misses, (unsigned long long)s->late_results,
           (unsigned long long)es_player_xruns(pl), (unsigned long long)s->clipped);
    printf("  DSP load    p50 %.1f %%   p99 %.1f %%   max %.1f %%\n", 100 * p50, 100 * p99,
           100 * s->load_max);
    printf("  latency     %d frames, %.2f ms (engine %d + device in/out)\n", latency,
           latency * ms, s->latency);
    printf("  throughput  %.0f samples/s, %.1f x real time\n", es_stats_throughput(s),
           es_stats_realtime_factor(s, a->rate));
    if (rec)
        printf("  recorded    %llu frames to %s, %llu lost to a full ring\n", recorded,
               a->record, lost);
}

/* What a running stream is playing, for the commands to change. */
typedef struct {
    play_args *a;
    es_player *pl;
    es_ir **ir;               /* the room, kept for engine swaps and fallback */
    es_room_loader *rooms;
    int inputs;
    es_processor_config pc;
    struct timespec since;    /* when the current processor started counting */
} stream;

static es_processor *build_processor(stream *s, const es_ir *ir, int block, char *err,
                                     size_t n)
{
    es_format fmt = {.sample_rate = s->a->rate, .max_block = block, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    char why[256];
    es_engine *e = es_engine_create(s->a->engine, &fmt, ir, &s->a->options, why, sizeof why);
    if (!e) {
        snprintf(err, n, "%s", why);
        return NULL;
    }
    return es_processor_create(&fmt, e, &s->pc, err, n);
}

/* One command line; reports on stderr. Returns 1 for quit. */
static int run_command(stream *s, char *line)
{
    char word[16] = "", arg[4096] = "", err[768], why[256];
    line[strcspn(line, "\r\n")] = 0;
    if (sscanf(line, "%15s %4095[^\n]", word, arg) < 1)
        return 0;
    es_processor *proc = es_player_processor(s->pl);
    if (!strcmp(word, "quit"))
        return 1;
    if (!strcmp(word, "room") || !strcmp(word, "engine")) {
        const int is_room = word[0] == 'r';
        if (!is_room && es_arg_engine("engine", arg, &s->a->engine))
            return 0;
        char note[300];
        es_ir *ir = is_room ? es_room_loader_get(s->rooms, arg, s->a->rate, s->inputs, note,
                                                 sizeof note, err, sizeof err)
                            : *s->ir;
        if (!ir) {
            fprintf(stderr, "earshot: %s; still playing the previous room\n", err);
            return 0;
        }
        if (is_room && ir->outputs != es_processor_format(proc)->outputs) {
            fprintf(stderr, "earshot: %s: %d output channels, the stream has %d; still "
                    "playing the previous room\n", arg, ir->outputs,
                    es_processor_format(proc)->outputs);
            es_ir_destroy(ir);
            return 0;
        }
        es_engine *e = es_engine_create(s->a->engine, es_processor_format(proc), ir,
                                        &s->a->options, why, sizeof why);
        if (!e || es_processor_swap(proc, e, why, sizeof why) != 0) {
            fprintf(stderr, "earshot: %s: %s; still playing as before\n", arg, why);
            es_engine_destroy(e);
            if (is_room)
                es_ir_destroy(ir);
            return 0;
        }
        if (is_room) {
            es_ir_destroy(*s->ir);
            *s->ir = ir;
        }
        fprintf(stderr, "earshot: %s %s\n", is_room ? "room" : "engine", arg);
        return 0;
    }
    if (!strcmp(word, "partition") || !strcmp(word, "pipelined")) {
        es_options next = s->a->options;
        if (word[1] == 'a') {
            if (es_arg_int("partition", arg, 16, 65536, &next.partition))
                return 0;
        } else if (!strcmp(arg, "on") || !strcmp(arg, "off")) {
            next.gpu_pipelined = !strcmp(arg, "on");
        } else {
            fprintf(stderr, "earshot: pipelined takes on or off\n");
            return 0;
        }
        es_engine *e = es_engine_create(s->a->engine, es_processor_format(proc), *s->ir, &next,
                                        why, sizeof why);
        if (!e) {
            fprintf(stderr, "earshot: %s %s: %s; still playing as before\n", word, arg, why);
            return 0;
        }
        s->a->options = next;
        if (es_engine_latency(e) <= es_processor_latency(proc) &&
            es_processor_swap(proc, e, why, sizeof why) == 0) {
            fprintf(stderr, "earshot: %s %s\n", word, arg);
            return 0;
        }
        /* More latency than the stream was opened with: a crossfade would
         * move the sound in time, so the stream reopens with room for it. */
        es_engine_destroy(e);
        s->pc.max_latency = s->a->options.gpu_pipelined ? s->a->block : 0;
        es_processor *np = build_processor(s, *s->ir, s->a->block, err, sizeof err);
        if (!np || es_player_reopen(s->pl, s->a->block, np, err, sizeof err) != 0) {
            fprintf(stderr, "earshot: %s %s: %s; still playing as before\n", word, arg, err);
            return 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &s->since);
        fprintf(stderr, "earshot: %s %s: the stream reopened, latency now %d frames\n", word,
                arg, es_player_latency(s->pl));
        return 0;
    }
    if (!strcmp(word, "block")) {
        int block;
        if (es_arg_int("block", arg, 16, 8192, &block))
            return 0;
        es_processor *next = build_processor(s, *s->ir, block, err, sizeof err);
        if (!next || es_player_reopen(s->pl, block, next, err, sizeof err) != 0) {
            fprintf(stderr, "earshot: block %d: %s; still playing at %d\n", block, err,
                    s->a->block);
            return 0;
        }
        s->a->block = block;
        clock_gettime(CLOCK_MONOTONIC, &s->since);
        fprintf(stderr, "earshot: block %d: latency now %d frames (%.2f ms)\n", block,
                es_player_latency(s->pl), 1e3 * es_player_latency(s->pl) / s->a->rate);
        return 0;
    }
    if (!strcmp(word, "reset")) {
        if (es_processor_reset_stats(proc) != 0)
            fprintf(stderr, "earshot: reset: too many changes queued; try again\n");
        clock_gettime(CLOCK_MONOTONIC, &s->since);
        return 0;
    }
    if (!strcmp(word, "mix")) {
        es_mix m;
        if (sscanf(arg, "%f %f %f", &m.wet, &m.dry, &m.gain) != 3) {
            fprintf(stderr, "earshot: mix needs three numbers: WET DRY GAIN\n");
            return 0;
        }
        s->pc.mix = m;
        if (es_processor_set_mix(proc, &m) != 0)
            fprintf(stderr, "earshot: mix: too many changes queued; try again\n");
        return 0;
    }
    fprintf(stderr, "earshot: unknown command '%s' (room, engine, block, partition, "
            "pipelined, mix, reset, quit)\n", word);
    return 0;
}

/* Reads whatever whole lines stdin has, without waiting. 1 to quit. */
static int poll_commands(stream *s, char *buf, size_t cap, size_t *used)
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

int es_cmd_play(int argc, char **argv)
{
    play_args a;
    char err[512], why[256];
    if (parse(argc, argv, &a) != 0)
        return 2;
    /* The source decides the input channels the room is laid out for. */
    int inputs = 1, live = !strcmp(a.input, "mic");
    es_file_source *file = NULL;
    if (live && !strcmp(a.device, "null")) {
        es_error("--input mic: the null device has no microphone; use --input signal or a file");
        return 1;
    }
    if (!live && strcmp(a.input, "signal") != 0 &&
        !(file = es_file_source_open(a.input, a.rate, &inputs, err, sizeof err))) {
        es_error("%s", err);
        return 1;
    }
    es_room_loader rooms;
    es_room_loader_open(&rooms, a.rooms);
    for (int m = 0; m < rooms.lib.message_count; m++)
        fprintf(stderr, "earshot: %s\n", rooms.lib.messages[m]);
    if (!a.ir && !(a.ir = es_room_loader_default(&rooms))) {
        es_error("play: no room given and the shipped rooms are not found; use --room FILE");
        es_room_loader_close(&rooms);
        es_file_source_close(file);
        return 1;
    }
    char note[300];
    es_ir *ir = es_room_loader_get(&rooms, a.ir, a.rate, inputs, note, sizeof note, err,
                                   sizeof err);
    if (!ir) {
        es_error("%s", err);
        es_room_loader_close(&rooms);
        es_file_source_close(file);
        return 1;
    }
    if (note[0])
        fprintf(stderr, "earshot: %s\n", note);
    es_format fmt = {.sample_rate = a.rate, .max_block = a.block, .inputs = ir->inputs,
                     .outputs = ir->outputs};
    es_engine *e = es_engine_create(a.engine, &fmt, ir, &a.options, why, sizeof why);
    if (!e) {
        es_error("%s: %s", a.ir, why);
        es_ir_destroy(ir);
        es_file_source_close(file);
        es_room_loader_close(&rooms);
        return 1;
    }
    es_processor_config pc = {.mix = {.wet = 1, .dry = 0, .gain = 1},
                              .crossfade_ms = a.crossfade_ms};
    es_processor *proc = es_processor_create(&fmt, e, &pc, err, sizeof err);
    const int automatic = !strcmp(a.device, "auto");
    es_recorder *rec = NULL, *rec_in = NULL;
    if ((a.record && !(rec = es_recorder_open(a.record, a.rate, fmt.outputs, 0, err,
                                              sizeof err))) ||
        (a.record_input && !(rec_in = es_recorder_open(a.record_input, a.rate, fmt.inputs, 0,
                                                       err, sizeof err)))) {
        es_error("%s", err);
        es_recorder_free(rec);
        es_processor_destroy(proc);
        es_ir_destroy(ir);
        es_file_source_close(file);
        es_room_loader_close(&rooms);
        return 1;
    }
    es_player_config plc = {.device = automatic ? "default" : a.device, .block = a.block,
                            .tap = rec ? es_recorder_tap : NULL, .tap_ctx = rec,
                            .live_input = live, .input_device = a.input_device,
                            .source = file ? es_file_source_fill : NULL,
                            .source_ctx = file,
                            .input_tap = rec_in ? es_recorder_tap : NULL,
                            .input_tap_ctx = rec_in};
    es_player *pl = NULL;
    if (proc && automatic && !(pl = es_player_open(&plc, proc, err, sizeof err))) {
        /* The player took the processor even on failure: build it again. */
        fprintf(stderr, "earshot: note: no usable sound device (%s); playing on the null "
                "device\n", err);
        plc.device = "null";
        e = es_engine_create(a.engine, &fmt, ir, &a.options, why, sizeof why);
        proc = e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
    }
    if (proc && !pl)
        pl = es_player_open(&plc, proc, err, sizeof err);
    if (!pl || es_player_start(pl, err, sizeof err) != 0) {
        es_error("%s", err);
        es_player_close(pl);
        es_recorder_free(rec);
        es_recorder_free(rec_in);
        es_ir_destroy(ir);
        es_file_source_close(file);
        es_room_loader_close(&rooms);
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* The control loop: free what the audio thread retires, fall back when
     * the engine fails, watch the clock and Ctrl-C. */
    struct timespec t0, t1, tick = {0, 20000000};
    int fallback_stuck = 0, source_said = 0;
    stream st = {.a = &a, .pl = pl, .ir = &ir, .rooms = &rooms, .inputs = inputs, .pc = pc};
    char line[8192];
    size_t used = 0, stdin_open = a.commands;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st.since = t0;
    for (;;) {
        nanosleep(&tick, NULL);
        es_processor_collect(es_player_processor(pl));
        char what[768];
        if (file && !source_said && es_file_source_error(file)[0]) {
            fprintf(stderr, "earshot: input stopped: %s\n", es_file_source_error(file));
            source_said = 1;
        }
        int fell = fallback_stuck ? 0 : es_fallback_poll(es_player_processor(pl), ir, what,
                                                          sizeof what);
        if (fell != 0)
            fprintf(stderr, "earshot: %s\n", what);
        fallback_stuck |= fell < 0; /* said once; the stream plays on, silent */
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double elapsed = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (stdin_open && poll_commands(&st, line, sizeof line, &used))
            break;
        if (interrupted || elapsed >= a.seconds)
            break;
    }
    es_player_stop(pl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int status = 0;
    if (rec && es_recorder_finish(rec, err, sizeof err) != 0) {
        es_error("%s", err);
        status = 1;
    }
    if (rec_in && es_recorder_finish(rec_in, err, sizeof err) != 0) {
        es_error("%s", err);
        status = 1;
    }
    es_stats s;
    es_processor_stats(es_player_processor(pl), &s);
    report(&a, pl, &s, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
           (double)(t1.tv_sec - st.since.tv_sec) + 1e-9 * (double)(t1.tv_nsec - st.since.tv_nsec),
           rec);
    if (file && es_file_source_starved(file))
        fprintf(stderr, "earshot: note: the input file fell behind: %llu frames of silence\n",
                (unsigned long long)es_file_source_starved(file));
    es_recorder_free(rec);
    es_recorder_free(rec_in);
    es_player_close(pl);
    es_file_source_close(file);
    es_ir_destroy(ir);
    es_room_loader_close(&rooms);
    return status;
}
