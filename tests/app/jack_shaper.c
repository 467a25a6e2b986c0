/* es_jack_shaper: a JACK client that is a known non-linear system, for
 * measuring its distortion: a memoryless y = x + A x^2 on what comes into
 * its port in, delayed by D frames, out of its port out.
 *
 *   es_jack_shaper [--name NAME] [--square A] [--delay D]
 *
 * (defaults shaper, 0.1, 240: 5 ms at 48 kHz, so that a measurement's
 * band-limited pulse has room before it). It says "es_jack_shaper: ready"
 * once its ports are in the graph, and runs until SIGTERM or SIGINT. The
 * server is JACK_DEFAULT_SERVER's. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <jack/jack.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DELAY_MAX 48000

static volatile sig_atomic_t stop;
static jack_port_t *in, *out;
static float square = 0.1f, line[DELAY_MAX];
static int delay = 240, at;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

/* The delay line holds what the shaper made; with no delay it is the
 * output straight away. */
static int process(jack_nframes_t n, void *arg)
{
    (void)arg;
    const float *x = jack_port_get_buffer(in, n);
    float *y = jack_port_get_buffer(out, n);
    for (jack_nframes_t i = 0; i < n; i++) {
        const float v = x[i] + square * x[i] * x[i];
        if (delay == 0) {
            y[i] = v;
            continue;
        }
        y[i] = line[at];
        line[at] = v;
        at = (at + 1) % delay;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *name = "shaper";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--name"))
            name = argv[i + 1];
        else if (!strcmp(argv[i], "--square"))
            square = (float)atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--delay"))
            delay = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: es_jack_shaper [--name NAME] [--square A] [--delay D]\n");
            return 2;
        }
    }
    if (delay < 0 || delay > DELAY_MAX) {
        fprintf(stderr, "es_jack_shaper: a delay of 0 to %d frames\n", DELAY_MAX);
        return 2;
    }
    jack_status_t status;
    jack_client_t *c = jack_client_open(name, JackNoStartServer, &status);
    if (!c) {
        fprintf(stderr, "es_jack_shaper: no JACK server to join (status 0x%x)\n",
                (unsigned)status);
        return 1;
    }
    in = jack_port_register(c, "in", JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    out = jack_port_register(c, "out", JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    if (!in || !out || jack_set_process_callback(c, process, NULL) != 0 ||
        jack_activate(c) != 0) {
        fprintf(stderr, "es_jack_shaper: cannot make its ports or start\n");
        jack_client_close(c);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    printf("es_jack_shaper: ready\n");
    fflush(stdout);
    const struct timespec nap = {0, 20000000};
    while (!stop)
        nanosleep(&nap, NULL);
    jack_client_close(c);
    return 0;
}
