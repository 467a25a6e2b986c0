/* Asking the sound servers what they run (sound_server.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifdef ES_HAVE_JACK
#include "jack_loaded.h"
#endif

#include "sound_server.h"

#ifdef ES_HAVE_JACK
/* jackd2's library prints "cannot connect" lines when no server runs:
 * asking is how earshot finds out, so they are not shown. */
static void quiet(const char *msg)
{
    (void)msg;
}

/* The latency range's maximum of the first physical port one way; 0 with
 * no such port; -1 when the figure is not one (over ES_LATENCY_MAX_S at the
 * server's rate: a wrapped subtraction somewhere). */
static int port_latency(jack_client_t *c, unsigned long flags, jack_latency_callback_mode_t mode,
                        int rate)
{
    const char **ports = jack_get_ports(c, NULL, JACK_DEFAULT_AUDIO_TYPE,
                                        JackPortIsPhysical | flags);
    int frames = 0;
    if (ports && ports[0]) {
        jack_port_t *p = jack_port_by_name(c, ports[0]);
        if (p) {
            jack_latency_range_t r = {0, 0};
            jack_port_get_latency_range(p, mode, &r);
            frames = rate > 0 && r.max < (jack_nframes_t)(10.0 * rate) ? (int)r.max : -1;
        }
    }
    jack_free(ports);
    return frames;
}
#endif

int es_jack_graph_read(es_jack_graph *g, int silent)
{
    *g = (es_jack_graph){0};
#ifdef ES_HAVE_JACK
    if (!es_jack_load(NULL, 0))
        return -1;
    /* Only before PortAudio starts: it sets its own handlers then, which
     * this would replace for good (JACK has no way to read them back). */
    if (silent) {
        jack_set_error_function(quiet);
        jack_set_info_function(quiet);
    }
    jack_client_t *c = jack_client_open("earshot-graph", JackNoStartServer, NULL);
    if (!c)
        return -1;
    g->answered = 1;
    g->pipewire = es_jack_is_pipewire();
    g->period = (int)jack_get_buffer_size(c);
    g->rate = (int)jack_get_sample_rate(c);
    g->capture_latency = port_latency(c, JackPortIsOutput, JackCaptureLatency, g->rate);
    g->playback_latency = port_latency(c, JackPortIsInput, JackPlaybackLatency, g->rate);
    jack_client_close(c);
    return 0;
#else
    (void)silent;
    return -1;
#endif
}

int es_jack_is_pipewire(void)
{
#ifdef ES_HAVE_JACK
    /* PipeWire's JACK library says so in its version ("3.0.0.0 (using
     * PipeWire 0.3.65)"), wherever a distribution installs it. */
    if (!es_jack_load(NULL, 0))
        return 0;
    const char *v = jack_get_version_string();
    return v && strstr(v, "PipeWire") != NULL;
#else
    return 0;
#endif
}

int es_pipewire_answers(char *where, size_t n)
{
    const char *remote = getenv("PIPEWIRE_REMOTE");
    const char *dir = getenv("PIPEWIRE_RUNTIME_DIR");
    if (!dir || !*dir)
        dir = getenv("XDG_RUNTIME_DIR");
    char path[sizeof ((struct sockaddr_un *)0)->sun_path];
    if (remote && remote[0] == '/')
        snprintf(path, sizeof path, "%s", remote);
    else if (dir && *dir)
        snprintf(path, sizeof path, "%s/%s", dir, remote && *remote ? remote : "pipewire-0");
    else
        return 0;
    if (where)
        snprintf(where, n, "%s", path);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    const int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

const char *es_pipewire_jack_dir(void)
{
    /* Where Debian, Fedora and Arch put it (pw-jack's own folder). */
    static const char *const dirs[] = {
#ifdef ES_MULTIARCH
        "/usr/lib/" ES_MULTIARCH "/pipewire-0.3/jack",
#endif
        "/usr/lib64/pipewire-0.3/jack", "/usr/lib/pipewire-0.3/jack", NULL};
    for (int i = 0; dirs[i]; i++) {
        char lib[256];
        snprintf(lib, sizeof lib, "%s/libjack.so.0", dirs[i]);
        if (access(lib, R_OK) == 0)
            return dirs[i];
    }
    return NULL;
}

void es_sound_server_route(const char *device, char **argv)
{
#ifdef ES_HAVE_JACK
    if (getenv("EARSHOT_ROUTED") || es_jack_is_pipewire())
        return;
    /* NULL: every device is listed, as `pipewire` would play. */
    const int any = device == NULL;
    if (any)
        device = "pipewire";
    if (strcasecmp(device, "pipewire") && strcasecmp(device, "auto") &&
        strcasecmp(device, "jack"))
        return;
    const char *dir = es_pipewire_jack_dir();
    if (!dir || !es_pipewire_answers(NULL, 0))
        return;
    /* A JACK server of its own (jackd) keeps "jack", "auto" and the list on it. */
    if (any || strcasecmp(device, "pipewire") != 0) {
        es_jack_graph g;
        if (es_jack_graph_read(&g, 1) == 0)
            return;
    }
    const char *was = getenv("LD_LIBRARY_PATH");
    char *old = was ? strdup(was) : NULL;
    char *path = malloc(strlen(dir) + (old ? strlen(old) : 0) + 2);
    if (!path || (was && !old)) {
        free(path);
        free(old);
        return;
    }
    sprintf(path, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    setenv("LD_LIBRARY_PATH", path, 1);
    setenv("EARSHOT_ROUTED", "pipewire-jack", 1);
    free(path);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    /* Not started: earshot goes on with the library and environment it
     * had. */
    if (old)
        setenv("LD_LIBRARY_PATH", old, 1);
    else
        unsetenv("LD_LIBRARY_PATH");
    unsetenv("EARSHOT_ROUTED");
    free(old);
#else
    (void)device;
    (void)argv;
#endif
}
