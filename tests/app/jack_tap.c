/* jack_tap: a JACK client that plays a sound file into ports and records
 * other ports, both starting in the same cycle, so that what comes back can
 * be lined up against what went out; and it counts the cycles it saw lost.
 *
 *   jack_tap [--play FILE --to PORT...] [--record FILE --from PORT...]
 *            --seconds T [--name NAME] [--wait] [--hold] [--probe] [--freewheel]
 *
 * FILE to play has one channel per --to port, or one for them all; the
 * recording (32-bit float WAV) one per --from port and T seconds. With
 * neither, it only watches the server for T seconds. The server is
 * JACK_DEFAULT_SERVER's.
 *
 * A lost cycle is counted two ways: the server's xrun callback, and a frame
 * time that did not advance by exactly one period from the cycle before
 * (a cycle the server skipped). Only the T seconds counted; the report:
 *   jack_tap: N frames at R Hz, period P; xruns X, skipped S
 * and, when there were any, the seconds at which the first few came.
 *
 * Joining and leaving a graph are changes a netjack2 slave can count as
 * xruns (a master's cycle held up while its graph changes reaches the slave
 * late), and so is a machine that stops while a large buffer is first
 * touched or a large file written. Two options keep them out of what is
 * being counted elsewhere:
 *   --wait  once connected and with every buffer touched, say
 *           "jack_tap: ready" and play silence until SIGUSR1 says go;
 *   --hold  after the report, stay in the graph, silent, until SIGTERM or
 *           SIGINT; then leave, and only then write the recording.
 * Each waits a minute at most. Without --hold, SIGTERM or SIGINT while it
 * plays ends it there (no report): a test done with its noise stops it.
 *
 * A machine that stops every thread for a few milliseconds (a virtual
 * machine's host taking its CPUs away) loses cycles on any JACK server.
 * --probe tells such a stop apart: a thread on each CPU, real-time where
 * the machine allows, wakes every millisecond; a wake later than half a
 * period is a stall of the machine. It adds a line:
 *   jack_tap: machine: worst wake W ms ...; lost cycles outside a stall U
 * U counts the xruns and skips that did not come during a stall or within
 * half a second after one: the ones the machine does not explain.
 *
 * --freewheel puts the server in freewheel mode (an export: cycles as fast
 * as the clients make them) for the T seconds it plays and records, and
 * back, from this client, which stays in the graph meanwhile, as a DAW
 * exporting does (jackd 1.9.21 loses track of the graph when the
 * jack_freewheel tool's client leaves while it freewheels), and adds:
 *   jack_tap: freewheeled T s in W s
 *
 * Its outputs are connected before its inputs. A tap that feeds a client
 * and records that client's output closes a loop in JACK's graph; JACK
 * orders a loop by the connection made first, so the tap always runs
 * before the client it feeds, and the delay it measures is the same from
 * one run to the next. */
#define _GNU_SOURCE /* pthread_setaffinity_np: a probe thread on each CPU */
#include <errno.h>
#include <jack/jack.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sndfile.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PORTS 16
#define RECENT 8
#define LOSSES 1024 /* times kept to be explained; past them, none is */
#define MAX_CPUS 64
#define STALLS 256

typedef struct {
    jack_client_t *client;
    jack_port_t *out[MAX_PORTS], *in[MAX_PORTS];
    int outs, ins;
    float *play[MAX_PORTS], *rec[MAX_PORTS]; /* one buffer a channel */
    long play_frames, rec_frames;
    long pos;                /* frames since the armed cycle */
    atomic_long pos_seen;    /* pos, for the xrun callback's thread */
    atomic_long cycles;      /* process calls, all of them */
    atomic_long arm_at;      /* the first cycle that plays and records; -1: not yet */
    atomic_int on;           /* from the armed cycle to the last counted one */
    atomic_int done;
    atomic_int shut;
    atomic_long xruns;
    atomic_long skipped;
    jack_nframes_t next_time;
    int have_time;
    long xrun_at[RECENT], skip_at[RECENT]; /* the first few, in frames since the armed cycle */
    atomic_long losses;          /* xruns and skips, for the probe to explain */
    long loss_at[LOSSES];        /* frames since the armed cycle */
    atomic_llong armed_ns;       /* CLOCK_MONOTONIC at the armed cycle */
    int rate;                    /* the server's, Hz */
    jack_nframes_t period;       /* the server's, frames */
} tap;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The probe: stalls as [from, to] in CLOCK_MONOTONIC ns. Stalls are rare,
 * so a lock around the list costs the probe nothing that matters. */
static struct {
    pthread_t thread[MAX_CPUS];
    int threads;
    atomic_int stop, realtime;
    long long late_ns;
    pthread_mutex_t lock;
    long long from[STALLS], to[STALLS];
    long long worst_ns[MAX_CPUS]; /* each thread its own */
    int count;
} probe = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void note_loss(tap *t, long at)
{
    const long k = atomic_fetch_add(&t->losses, 1);
    if (k < LOSSES)
        t->loss_at[k] = at;
}

static atomic_int go, leave;

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        atomic_store(&go, 1);
    else
        atomic_store(&leave, 1);
}

static int process(jack_nframes_t n, void *arg)
{
    tap *t = arg;
    const long cycle = atomic_fetch_add(&t->cycles, 1) + 1;
    const long arm = atomic_load(&t->arm_at);
    const int on = arm >= 0 && cycle >= arm && !atomic_load(&t->done);
    atomic_store(&t->on, on);
    const jack_nframes_t now = jack_last_frame_time(t->client);
    if (on && t->have_time && now != t->next_time) {
        const long k = atomic_fetch_add(&t->skipped, 1);
        if (k < RECENT)
            t->skip_at[k] = t->pos;
        note_loss(t, t->pos);
    }
    if (on && t->pos == 0 && atomic_load(&t->armed_ns) == 0)
        atomic_store(&t->armed_ns, now_ns());
    t->next_time = now + n;
    t->have_time = 1;

    for (int c = 0; c < t->outs; c++) {
        float *y = jack_port_get_buffer(t->out[c], n);
        for (jack_nframes_t k = 0; k < n; k++) {
            const long at = t->pos + (long)k;
            y[k] = on && at < t->play_frames ? t->play[c][at] : 0.0f;
        }
    }
    if (!on)
        return 0;
    for (int c = 0; c < t->ins; c++) {
        const float *x = jack_port_get_buffer(t->in[c], n);
        for (jack_nframes_t k = 0; k < n && t->pos + (long)k < t->rec_frames; k++)
            t->rec[c][t->pos + (long)k] = x[k];
    }
    t->pos += n;
    atomic_store(&t->pos_seen, t->pos);
    if (t->pos >= t->rec_frames) {
        atomic_store(&t->done, 1);
        atomic_store(&t->on, 0);
    }
    return 0;
}

static int xrun(void *arg)
{
    tap *t = arg;
    if (atomic_load(&t->on)) {
        const long at = atomic_load(&t->pos_seen);
        const long k = atomic_fetch_add(&t->xruns, 1);
        if (k < RECENT)
            t->xrun_at[k] = at;
        note_loss(t, at);
    }
    return 0;
}

static void shutdown_cb(void *arg)
{
    atomic_store(&((tap *)arg)->shut, 1);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Naps until *flag is set or the server goes, a minute at most. */
static void wait_for(atomic_int *flag, const tap *t)
{
    for (int k = 0; k < 6000 && !atomic_load(flag) && !atomic_load(&t->shut); k++)
        nap_ms(10);
}

static void *probe_run(void *arg)
{
    const int cpu = (int)(long)arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    /* Above JACK's threads: held up by the machine, never by the audio. */
    struct sched_param sp = {.sched_priority = sched_get_priority_max(SCHED_FIFO) - 1};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
        atomic_store(&probe.realtime, 0);
    long long next = now_ns();
    while (!atomic_load(&probe.stop)) {
        next += 1000000;
        const struct timespec at = {next / 1000000000LL, next % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {
        }
        const long long now = now_ns(), late = now - next;
        if (late > probe.worst_ns[cpu])
            probe.worst_ns[cpu] = late;
        if (late <= probe.late_ns)
            continue;
        pthread_mutex_lock(&probe.lock);
        if (probe.count < STALLS) {
            probe.from[probe.count] = next;
            probe.to[probe.count++] = now;
        }
        pthread_mutex_unlock(&probe.lock);
        next = now; /* on from here, not back to back for the wakes missed */
    }
    return NULL;
}

static void probe_start(long long late_ns)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpus = cpus < 1 ? 1 : cpus > MAX_CPUS ? MAX_CPUS : cpus;
    probe.late_ns = late_ns;
    atomic_store(&probe.realtime, 1);
    for (long c = 0; c < cpus; c++)
        if (pthread_create(&probe.thread[probe.threads], NULL, probe_run, (void *)c) == 0)
            probe.threads++;
}

static void probe_stop(void)
{
    atomic_store(&probe.stop, 1);
    for (int k = 0; k < probe.threads; k++)
        pthread_join(probe.thread[k], NULL);
}

/* The probe's line: its stalls in seconds since the armed cycle, and the
 * lost cycles that none of them explains. */
static void probe_report(const tap *t, int rate)
{
    const long long armed = atomic_load(&t->armed_ns);
    const long losses = atomic_load(&t->losses);
    long unexplained = losses > LOSSES ? losses - LOSSES : 0;
    for (long k = 0; k < losses && k < LOSSES; k++) {
        const long long at = armed + (long long)((double)t->loss_at[k] / rate * 1e9);
        int seen = 0;
        for (int j = 0; j < probe.count && !seen; j++)
            seen = at >= probe.from[j] - 50000000LL && at <= probe.to[j] + 500000000LL;
        unexplained += !seen;
    }
    long long worst = 0;
    for (int k = 0; k < MAX_CPUS; k++)
        worst = probe.worst_ns[k] > worst ? probe.worst_ns[k] : worst;
    printf("jack_tap: machine: worst wake %.2f ms on %d CPUs (%s), %d stalls over %.1f ms",
           1e-6 * (double)worst, probe.threads,
           atomic_load(&probe.realtime) ? "real-time" : "not real-time", probe.count,
           1e-6 * (double)probe.late_ns);
    for (int j = 0; j < probe.count && j < RECENT; j++)
        printf("%s%.3f s (%.1f ms)", j ? ", " : " at ", 1e-9 * (double)(probe.from[j] - armed),
               1e-6 * (double)(probe.to[j] - probe.from[j]));
    printf("; lost cycles outside a stall %ld\n", unexplained);
    fflush(stdout);
}

/* The whole file, one buffer a channel; NULL with a message. */
static float **load(const char *path, int *channels, long *frames, int rate)
{
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "jack_tap: %s: %s\n", path, sf_strerror(NULL));
        return NULL;
    }
    if (info.samplerate != rate || info.channels > MAX_PORTS) {
        fprintf(stderr, "jack_tap: %s: %d Hz, %d channels; the server runs at %d Hz\n", path,
                info.samplerate, info.channels, rate);
        sf_close(sf);
        return NULL;
    }
    float *all = malloc((size_t)info.frames * (size_t)info.channels * sizeof(float) + 1);
    float **ch = calloc((size_t)info.channels, sizeof *ch);
    if (!all || !ch || sf_readf_float(sf, all, info.frames) != info.frames) {
        fprintf(stderr, "jack_tap: %s: cannot read it\n", path);
        sf_close(sf);
        free(all);
        free(ch);
        return NULL;
    }
    sf_close(sf);
    for (int c = 0; c < info.channels; c++) {
        ch[c] = malloc((size_t)info.frames * sizeof(float) + 1);
        if (!ch[c])
            return NULL;
        for (sf_count_t k = 0; k < info.frames; k++)
            ch[c][k] = all[k * info.channels + c];
    }
    free(all);
    *channels = info.channels;
    *frames = (long)info.frames;
    return ch;
}

static int save(const char *path, float *const *ch, int channels, long frames, int rate)
{
    SF_INFO info = {.samplerate = rate, .channels = channels,
                    .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    float *all = malloc((size_t)frames * (size_t)channels * sizeof(float) + 1);
    if (!sf || !all) {
        fprintf(stderr, "jack_tap: %s: %s\n", path, sf_strerror(NULL));
        free(all);
        if (sf)
            sf_close(sf);
        return -1;
    }
    for (long k = 0; k < frames; k++)
        for (int c = 0; c < channels; c++)
            all[k * channels + c] = ch[c][k];
    const int ok = sf_writef_float(sf, all, frames) == frames;
    free(all);
    return sf_close(sf) == 0 && ok ? 0 : -1;
}

static void report(const tap *t, int rate, jack_nframes_t period, long xruns, long skipped)
{
    printf("jack_tap: %ld frames at %d Hz, period %u; xruns %ld, skipped %ld\n", t->rec_frames,
           rate, (unsigned)period, xruns, skipped);
    /* When, to tell a start-up or an end from a run's middle. */
    for (long k = 0; k < xruns && k < RECENT; k++)
        printf("%s%.3f s%s", k ? ", " : "jack_tap: xruns at ", (double)t->xrun_at[k] / rate,
               k + 1 < xruns && k + 1 < RECENT ? "" : "\n");
    for (long k = 0; k < skipped && k < RECENT; k++)
        printf("%s%.3f s%s", k ? ", " : "jack_tap: skips at ", (double)t->skip_at[k] / rate,
               k + 1 < skipped && k + 1 < RECENT ? "" : "\n");
    fflush(stdout);
}

typedef struct {
    const char *play, *record, *name;
    const char *to[MAX_PORTS], *from[MAX_PORTS];
    int tos, froms;
    int hold, wait, probing, freewheel;
    double seconds;
} options;

/* An option without a value: 1 if it was one. */
static int parse_switch(options *o, const char *a)
{
    const struct {
        const char *name;
        int *set;
    } switches[] = {
        {"--freewheel", &o->freewheel},
        {"--hold", &o->hold},
        {"--wait", &o->wait},
        {"--probe", &o->probing},
    };
    for (size_t k = 0; k < sizeof switches / sizeof *switches; k++)
        if (!strcmp(a, switches[k].name)) {
            *switches[k].set = 1;
            return 1;
        }
    return 0;
}

/* An option with its value: 1 if it was one (and a port fits). */
static int parse_valued(options *o, const char *a, const char *v)
{
    if (!strcmp(a, "--play"))
        o->play = v;
    else if (!strcmp(a, "--record"))
        o->record = v;
    else if (!strcmp(a, "--to") && o->tos < MAX_PORTS)
        o->to[o->tos++] = v;
    else if (!strcmp(a, "--from") && o->froms < MAX_PORTS)
        o->from[o->froms++] = v;
    else if (!strcmp(a, "--seconds"))
        o->seconds = atof(v);
    else if (!strcmp(a, "--name"))
        o->name = v;
    else
        return 0;
    return 1;
}

/* 0, or -1 for a wrong call. */
static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (parse_switch(o, a))
            continue;
        if (!v || !parse_valued(o, a, v))
            return -1;
        i++;
    }
    return o->seconds <= 0 || !o->play != !o->tos || !o->record != !o->froms ? -1 : 0;
}

static void catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* The client, and the server's rate and period: 0, or 1 said. */
static int open_client(tap *t, const options *o)
{
    jack_status_t status;
    t->client = jack_client_open(o->name, JackNoStartServer, &status);
    if (!t->client) {
        fprintf(stderr, "jack_tap: no JACK server to join (status 0x%x)\n", (unsigned)status);
        return 1;
    }
    t->rate = (int)jack_get_sample_rate(t->client);
    t->period = jack_get_buffer_size(t->client);
    return 0;
}

/* The file to play, a buffer a --to port: 0, or 1 said. */
static int load_play(tap *t, const options *o)
{
    if (!o->play)
        return 0;
    float **ch = load(o->play, &t->outs, &t->play_frames, t->rate);
    if (!ch)
        return 1;
    if (t->outs != o->tos && t->outs != 1) {
        fprintf(stderr, "jack_tap: %s has %d channels for %d --to ports\n", o->play, t->outs,
                o->tos);
        return 1;
    }
    for (int c = 0; c < o->tos; c++) /* a mono file feeds every port */
        t->play[c] = ch[t->outs == 1 ? 0 : c];
    t->outs = o->tos;
    free(ch);
    return 0;
}

/* The recording's buffers, a --from port each: 0, or 1. */
static int make_recording(tap *t, const options *o)
{
    t->ins = o->froms;
    t->rec_frames = (long)(o->seconds * t->rate);
    for (int c = 0; c < t->ins; c++) {
        /* Touched now: a first touch in the callback would be a page fault there. */
        t->rec[c] = malloc((size_t)t->rec_frames * sizeof(float) + 1);
        if (!t->rec[c])
            return 1;
        memset(t->rec[c], 0, (size_t)t->rec_frames * sizeof(float));
    }
    return 0;
}

/* Ports registered, callbacks set, the client active and connected: 0, or
 * 1 said. */
static int join_graph(tap *t, const options *o)
{
    char port[32];
    for (int c = 0; c < t->outs; c++) {
        snprintf(port, sizeof port, "out_%d", c + 1);
        t->out[c] =
            jack_port_register(t->client, port, JACK_DEFAULT_AUDIO_TYPE, JackPortIsOutput, 0);
    }
    for (int c = 0; c < t->ins; c++) {
        snprintf(port, sizeof port, "in_%d", c + 1);
        t->in[c] = jack_port_register(t->client, port, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
    }
    jack_set_process_callback(t->client, process, t);
    jack_set_xrun_callback(t->client, xrun, t);
    jack_on_shutdown(t->client, shutdown_cb, t);
    if (jack_activate(t->client) != 0) {
        fprintf(stderr, "jack_tap: cannot activate\n");
        return 1;
    }
    /* Outputs first: see the top of the file. */
    for (int c = 0; c < t->outs; c++)
        if (jack_connect(t->client, jack_port_name(t->out[c]), o->to[c]) != 0) {
            fprintf(stderr, "jack_tap: cannot connect %s to %s\n", jack_port_name(t->out[c]),
                    o->to[c]);
            return 1;
        }
    for (int c = 0; c < t->ins; c++)
        if (jack_connect(t->client, o->from[c], jack_port_name(t->in[c])) != 0) {
            fprintf(stderr, "jack_tap: cannot connect %s to %s\n", o->from[c],
                    jack_port_name(t->in[c]));
            return 1;
        }
    return 0;
}

/* The T seconds played and recorded, freewheeling if asked: until done,
 * the server gone, or (without --hold) told to leave. 0, or 1 said. */
static int play_and_record(tap *t, const options *o)
{
    struct timespec wheel_from, wheel_to;
    clock_gettime(CLOCK_MONOTONIC, &wheel_from);
    if (o->freewheel && jack_set_freewheel(t->client, 1) != 0) {
        fprintf(stderr, "jack_tap: the server would not freewheel\n");
        return 1;
    }
    /* A connection takes effect at a cycle's start after the request
     * returns: start a few cycles on, when every one of them is in place. */
    atomic_store(&t->arm_at, atomic_load(&t->cycles) + 4);
    for (long ms = (long)(o->seconds * 1000) + 10000;
         ms > 0 && !atomic_load(&t->done) && !atomic_load(&t->shut) &&
         (o->hold || !atomic_load(&leave));
         ms -= 10)
        nap_ms(10);
    if (o->freewheel) {
        jack_set_freewheel(t->client, 0);
        clock_gettime(CLOCK_MONOTONIC, &wheel_to);
        printf("jack_tap: freewheeled %.1f s in %.2f s\n", o->seconds,
               (double)(wheel_to.tv_sec - wheel_from.tv_sec) +
                   1e-9 * (double)(wheel_to.tv_nsec - wheel_from.tv_nsec));
    }
    return 0;
}

/* The report (when the T seconds were counted), held in the graph if
 * asked, then out of it and the recording written: the exit status. */
static int finish(tap *t, const options *o)
{
    const int finished = atomic_load(&t->done);
    const long xruns = atomic_load(&t->xruns), skipped = atomic_load(&t->skipped);
    if (o->probing)
        probe_stop();
    if (finished && !atomic_load(&t->shut)) {
        report(t, t->rate, t->period, xruns, skipped);
        if (o->probing)
            probe_report(t, t->rate);
    }
    if (o->hold)
        wait_for(&leave, t);
    const int shut = atomic_load(&t->shut);
    jack_deactivate(t->client);
    jack_client_close(t->client);
    if (shut) {
        fprintf(stderr, "jack_tap: the server shut down\n");
        return 1;
    }
    if (!finished) {
        fprintf(stderr, "jack_tap: the server stopped calling back\n");
        return 1;
    }
    return o->record && save(o->record, t->rec, t->ins, t->rec_frames, t->rate) != 0;
}

int main(int argc, char **argv)
{
    options o = {.name = "earshot-tap"};
    if (parse_options(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: jack_tap [--play FILE --to PORT...] [--record FILE --from "
                "PORT...] --seconds T [--name NAME] [--wait] [--hold] [--probe] [--freewheel]\n");
        return 2;
    }
    catch_signals();
    static tap t; /* large enough to keep off the stack; zeroed */
    atomic_store(&t.arm_at, -1);
    if (open_client(&t, &o) || load_play(&t, &o) || make_recording(&t, &o) ||
        join_graph(&t, &o))
        return 1;
    if (o.probing)
        probe_start(500000000LL * t.period / t.rate);
    if (o.wait) {
        printf("jack_tap: ready\n");
        fflush(stdout);
        wait_for(&go, &t);
    }
    if (play_and_record(&t, &o) != 0)
        return 1;
    return finish(&t, &o);
}
