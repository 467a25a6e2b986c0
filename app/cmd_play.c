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

#include "app.h"
#include "commands.h"
#include "engine.h"
#include "core/args.h"
#include "session.h"
#include "settings.h"
#include "report.h"
#include "workstation.h"

/* Set by SIGINT/SIGTERM: the stream stops and the recording is finished. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char usage[] =
    "usage: earshot [play] [options]\n"
    "       earshot play --headless [--seconds T] [--json] [--commands] [options]\n"
    "\n"
    "Plays an input through a room on a device. Without --headless it opens the\n"
    "workstation, a terminal screen with the room library, the engines, meters\n"
    "and a live spectrum, every action one key away (press ? there for the keys).\n"
    "With --headless it plays for T seconds (default "
    ES_PARAM_DEFAULT_OF(ES_PLAY_HEADLESS_SECONDS) ") and prints the stream's\n"
    "stats: blocks, engine misses (the engine's: over budget while busy, or a late\n"
    "GPU or tail result) apart from machine stalls (the thread was not running),\n"
    "xruns, a real-time stall probe's late wakes, DSP load p50/p99/max, latency\n"
    "in frames and ms (engine + device), throughput. With --json, one JSON object.\n"
    "A latency is checked before it is shown: a host API's figure that is not\n"
    "finite, negative or over 10 s is 'unknown (the server reported X)', and on\n"
    "JACK (PipeWire's too) earshot's model of the graph stands in for it: block +\n"
    "period + port latencies. On ALSA it is read off the stream's timestamps.\n"
    "\n"
    "Options:\n";

/* `quit` lets a change asked for just before it finish preparing, for
 * this long; with the session's own wait for its preparer (0.5 s at most)
 * the process ends within 2 s of quit, whatever is being prepared. */
#define QUIT_WAIT_SECONDS 0.5

/* The session's lines go to stderr, as every other message does. */
static void say(void *ctx, int problem, const char *line)
{
    (void)ctx;
    (void)problem;
    es_error("%s", line); /* escaped, as every line of earshot's */
}

/* Reads whatever whole lines stdin has, without waiting, and runs them.
 * A line longer than the buffer is refused whole: its pieces never run as
 * commands. 1 to quit. */
typedef struct {
    char buf[ES_COMMAND_LINE_MAX + 2];
    size_t used;
    int skipping;              /* inside a line that was too long */
} line_reader;

static int run_line(es_session *s, const char *line)
{
    char reply[600];
    const int said = es_session_said_count(s);
    const int rc = es_command_run_from(s, "stdin", line, reply, sizeof reply);
    /* The session said its own refusal; the command line's is said here. */
    if (rc < 0 && reply[0] && es_session_said_count(s) == said)
        es_error("%s", reply);
    return rc == 1;
}

static int poll_commands(es_session *s, line_reader *r)
{
    struct pollfd pfd = {.fd = 0, .events = POLLIN};
    while (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP))) {
        const ssize_t got = read(0, r->buf + r->used, sizeof r->buf - 1 - r->used);
        if (got <= 0)
            return 0; /* end of input: keep playing until the time is up */
        const size_t end = r->used + (size_t)got;
        size_t start = 0;
        for (size_t i = r->used; i < end; i++) {
            if (r->buf[i] != '\n')
                continue;
            r->buf[i] = 0;
            if (!r->skipping) {
                /* a NUL inside the line shortens it: refused as damaged */
                if (strlen(r->buf + start) != i - start)
                    es_error("a command line with a NUL byte; ignored");
                else if (run_line(s, r->buf + start))
                    return 1;
            }
            r->skipping = 0;
            start = i + 1;
        }
        memmove(r->buf, r->buf + start, end - start);
        r->used = end - start;
        if (r->used == sizeof r->buf - 1) { /* no newline in a whole buffer */
            if (!r->skipping)
                es_error("a command line over %d characters; ignored", ES_COMMAND_LINE_MAX);
            r->skipping = 1;
            r->used = 0;
        }
    }
    return 0;
}

/* --help: play's options, the engines, the commands --commands reads and
 * the workstation's keys. */
static void print_help(void)
{
    fputs(usage, stdout);
    es_params_help(es_play_params, stdout);
    es_devices_help(stdout);
    es_engines_help(stdout);
    fputs("\nCommands (--commands: one a line on standard input):\n", stdout);
    es_commands_help(stdout);
    fputs("\nThe workstation's keys (? there shows them, with what the meters mean):\n",
          stdout);
    es_workstation_keys_help(stdout);
}

/* The settings remembered between runs: the workstation's by default,
 * play's when asked; the flags given win over the file. --no-restore
 * neither reads nor writes it; play --headless never writes it. */
typedef struct {
    es_settings file;
    int restore, remember;
} remembered;

static void remembered_read(remembered *m, const es_play_options *o, int argc, char **argv,
                            es_session_config *sc)
{
    const int have_path = es_settings_path(m->file.path, sizeof m->file.path) == 0;
    m->restore = have_path && (o->headless ? o->restore : !o->no_restore);
    m->remember = have_path && !o->headless && !o->no_restore;
    if (!m->restore)
        return;
    es_settings_read(&m->file);
    unsigned given_levels;
    const unsigned given = es_play_options_given(argc, argv, &given_levels);
    es_settings_to_config(&m->file, given, given_levels, sc);
}

/* What restoring the settings could not do (a room gone, a value
 * refused), said once the session has opened. */
static void remembered_say(remembered *m, es_session *s)
{
    char err[1024];
    if (!m->restore)
        return;
    es_settings_rooms_gone(&m->file, es_session_snapshot(s)->remembered_gone);
    if (es_settings_problem(&m->file, err, sizeof err))
        es_error("%s", err);
    if (es_settings_restored(&m->file, err, sizeof err))
        es_error("%s", err);
}

/* Plays for o->seconds, or until a signal or `quit` (--commands, OSC). */
static void play_for(es_session *s, const es_play_options *o)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const struct timespec tick = {0, 20000000};
    static line_reader reader;
    while (!interrupted && es_session_snapshot(s)->elapsed < o->seconds) {
        es_app_wait(s, 20);
        es_session_poll(s);
        if (es_session_quit_asked(s) || (o->commands && poll_commands(s, &reader))) {
            /* quit comes after the lines before it: what they asked for is
             * prepared and played (or said to fail) first, for a while. */
            const double until = es_session_snapshot(s)->elapsed + QUIT_WAIT_SECONDS;
            while (!interrupted && es_session_snapshot(s)->preparing &&
                   es_session_snapshot(s)->elapsed < until) {
                nanosleep(&tick, NULL);
                es_session_poll(s);
            }
            break;
        }
    }
}

/* play --headless: the session played, then its report. The exit
 * status. */
static int play_headless(const es_session_config *sc, const es_play_options *o,
                         remembered *m)
{
    char err[1024];
    es_session *s = es_session_open(sc, say, NULL, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    remembered_say(m, s);
    play_for(s, o);
    const int status = es_session_stop(s) == 0 ? 0 : 1;
    es_report_write(es_session_snapshot(s), stdout, o->json);
    es_session_close(s);
    /* For scripts: every engine built for a change, played or dropped, is
     * gone now. */
    if (o->json) {
        uint64_t created, destroyed;
        es_engine_counts(&created, &destroyed);
        fprintf(stderr, "earshot: engines: %llu built, %llu destroyed\n",
                (unsigned long long)created, (unsigned long long)destroyed);
    }
    return status;
}

int es_cmd_play(int argc, char **argv)
{
    /* A recording may go into a FIFO or pipe: a reader that goes away is a
     * write error (said, the take kept), not the end of the stream. */
    signal(SIGPIPE, SIG_IGN);
    es_play_options o;
    char err[1024];
    int help;
    if (es_play_options_default(&o, err, sizeof err) != 0 ||
        es_params_parse_argv(es_play_params, argc, argv, &o, NULL, 0, NULL, &help, err,
                             sizeof err) != 0) {
        es_error("play: %s (see earshot play --help)", err);
        return 2;
    }
    if (help) {
        print_help();
        exit(0);
    }
    if (o.osc_help) {
        es_commands_osc_help(stdout);
        return 0;
    }
    es_app_route_device(o.device);
    if (o.headless && o.seconds == 0)
        o.seconds = ES_PLAY_HEADLESS_SECONDS;
    es_session_config sc;
    if (es_play_options_session(&o, &sc, err, sizeof err) != 0) {
        es_error("play: %s", err);
        return 2;
    }
    static remembered m;
    remembered_read(&m, &o, argc, argv, &sc);
    if (o.headless)
        return play_headless(&sc, &o, &m);
    const es_ui_options ui = {.fps = o.fps, .seconds = o.seconds, .report = o.report,
                              .settings = m.remember || m.restore ? &m.file : NULL,
                              .restore = m.restore, .remember = m.remember};
    return es_workstation_run(&sc, &ui);
}
