/* earshot: a convolution workstation for hearing rooms. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/args.h"
#include "core/files.h"
#include "core/suggest.h"
#include "app.h"
#include "fftw_planner.h"
#include "sound_server.h"

/* The subcommands. Each is one file, app/cmd_NAME.c, whose es_cmd_NAME
 * takes argv with argv[0] = its own name and returns the process exit
 * status. A new subcommand is that file and two lines here: es_cmd_NAME
 * declared below, and its row in the table (which --help, the manual page
 * and "did you mean" read). app/CMakeLists.txt builds every .c file in
 * app/, so nothing else changes. */
int es_cmd_play(int argc, char **argv);
int es_cmd_render(int argc, char **argv);
int es_cmd_bench(int argc, char **argv);
int es_cmd_devices(int argc, char **argv);
int es_cmd_rooms(int argc, char **argv);
int es_cmd_latency(int argc, char **argv);
int es_cmd_measure(int argc, char **argv);
int es_cmd_engines(int argc, char **argv);
int es_cmd_wisdom(int argc, char **argv);
int es_cmd_test(int argc, char **argv);

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int own_wisdom; /* the command reads and writes the wisdom file itself */
} es_command;

static const es_command commands[] = {
    {"play", es_cmd_play, "play a room live: the workstation, or --headless", 0},
    {"render", es_cmd_render, "convolve a file offline through the live processing path", 0},
    {"bench", es_cmd_bench, "measure engine speed on this machine", 0},
    {"devices", es_cmd_devices, "list the sound devices earshot can play on", 0},
    {"rooms", es_cmd_rooms, "the room library: list, --show, new, add, import-jconvolver", 0},
    {"latency", es_cmd_latency, "measure the round trip through a loopback, against computed", 0},
    {"measure", es_cmd_measure, "measure a room by sweep through the sound card, into the library", 0},
    {"engines", es_cmd_engines, "list the convolution engines and whether they run here", 0},
    {"test", es_cmd_test, "a blind listening test (AB, ABX, same/different) from a plan file", 0},
    {"wisdom", es_cmd_wisdom, "plan the CPU engines' FFTs ahead, patiently, for this machine", 1},
    {NULL, NULL, NULL, 0},
};

/* The whole command line, for es_app_route_device's new run: set once,
 * first thing in main, read-only after. */
static char **command_line;

void es_app_route_device(const char *device)
{
    es_sound_server_route(device, command_line);
}

static void usage(FILE *to)
{
    fprintf(to, "usage: earshot <command> [options]   (earshot <command> --help for more)\n\n");
    for (const es_command *c = commands; c->name; c++)
        fprintf(to, "  %-9s %s\n", c->name, c->summary);
    fprintf(to, "\nWith no command (or only play's options) earshot opens the workstation:\n"
                "the room library, the engines, meters and a live spectrum in the terminal,\n"
                "every action one key away. earshot play --help lists its options.\n"
                "\nEnvironment: EARSHOT_WISDOM=FILE|off, where FFTW's measured plans are kept\n"
                "between runs (default ~/.cache/earshot/fftwf.wisdom).\n"
                "\nman earshot has every command's options; the docs/ folder of the source\n"
                "says what each does and why.\n");
}

/* Every command may plan FFTs (FFTW_MEASURE): the wisdom file makes that
 * instant for sizes any earlier run measured. */
static int run_command(int (*run)(int, char **), int argc, char **argv)
{
    es_fftw_wisdom_open(stderr);
    const int status = run(argc, argv);
    es_fftw_wisdom_close(stderr);
    return status;
}

int main(int argc, char **argv)
{
    /* Before anything opens a file: a closed standard stream would be
     * reused by the next file opened (core/files.h). */
    if (es_std_streams_guard() != 0)
        return 1;
    /* A file grown past `ulimit -f` is a write that fails (EFBIG), said in
     * one line like a full disk, not a signal that kills earshot halfway. */
    signal(SIGXFSZ, SIG_IGN);
    /* On PipeWire, the JACK route needs PipeWire's JACK library, which is
     * chosen when a program starts (as pw-jack does): the commands that
     * open a device may start earshot again on it (es_app_route_device). */
    command_line = argv;
    /* No command, or options only: the workstation, as `earshot play`. */
    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "-h") != 0 &&
                     strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "--version") != 0)) {
        char play[] = "play";
        argv[0] = play;
        return run_command(es_cmd_play, argc, argv);
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("earshot 0.1.0\n");
        return 0;
    }
    for (const es_command *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name))
            return c->own_wisdom ? c->run(argc - 1, argv + 1)
                                 : run_command(c->run, argc - 1, argv + 1);
    es_suggestion near = {0};
    for (const es_command *c = commands; c->name; c++)
        es_suggest_consider(&near, argv[1], c->name);
    char mean[96];
    es_error("unknown command '%s'%s (try earshot --help)", argv[1],
             es_suggest_text(&near, "earshot ", mean, sizeof mean));
    return 2;
}
