/* Sound cards through PortAudio: a stream of non-interleaved float32 at a
 * fixed block size, on any host API PortAudio has (ALSA, JACK, ...).
 *
 * Device names: "default" (PortAudio's default output), a host API
 * ("alsa", or "JACK Audio" for PortAudio's own JACK host: its default
 * devices), or part of a device's name ("USB", "hw:1"). "jack" is
 * earshot's own JACK client (device_jack.c). The input is opened only when the source needs it. */
#define _GNU_SOURCE /* RTLD_NODELETE, for the sanitizer build */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "portaudio_loaded.h"

#include "core/clock.h"
#include "core/json.h"
#include "core/text.h"
#include "device_class.h"
#include "engine.h"
#include "sound_server.h"

typedef struct {
    es_device base;
    PaStream *stream;
    es_audio_callback cb;
    void *ctx;
    int started;
    atomic_int finished; /* PortAudio's stream-finished callback ran */
    float **silence;    /* input when the stream has none */
    int inputs;
    int jack;           /* on PortAudio's JACK host API (jackd or PipeWire's) */
    int pipewire;       /* that JACK is PipeWire's library */
    int duplex, block;
    double rate;
    double said_input, said_output; /* PortAudio's stream latencies, seconds */
    /* Callbacks that follow each other within a quarter block are one
     * cycle of the server's; a cycle of several blocks is its period as it
     * runs (PipeWire's JACK library tells a client the quantum it asked
     * even when another client forced a longer one; its ALSA plugin tells
     * nothing). JACK and ALSA. Audio thread. */
    long long last_ns, block_ns; /* last_ns: when the last callback returned */
    int run;
    /* JACK, when PortAudio's figures failed their check: the graph's
     * model (latency_now) and what it needs. */
    int model, capture_port, playback_port, server_period;
} pa_device;

#ifdef ES_SANITIZE
/* LeakSanitizer reports at exit, by when alsa-lib has unloaded the plugins
 * it loaded (Pa_Terminate): what they leak (PipeWire's ALSA plugin: 17 kB
 * at every start) would come from "<unknown module>", which no suppression
 * can name, and every test would fail on it. The sanitizer build keeps
 * them loaded (each plugin of the multiarch folder, where Debian puts
 * them; elsewhere nothing is kept); tests/lsan.supp names them. */
static void keep_alsa_plugins(void)
{
#ifdef ES_MULTIARCH
    static int done;
    if (done++)
        return;
    const char *dir = "/usr/lib/" ES_MULTIARCH "/alsa-lib";
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "libasound_module_", 17) != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        dlopen(path, RTLD_LAZY | RTLD_NODELETE);
    }
    closedir(d);
#endif
}
#endif

/* PortAudio's scan of ALSA prints pages of "ALSA lib ..." lines on a
 * machine without sound cards. They are not ours to show: stderr is parked
 * on /dev/null while PortAudio initialises. */
static int portaudio_init(char *why, size_t n)
{
    if (!es_portaudio_load(why, n))
        return -1;
#ifdef ES_SANITIZE
    keep_alsa_plugins();
#endif
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, 2);
        close(null);
    }
    PaError rc = Pa_Initialize();
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    if (rc != paNoError)
        snprintf(why, n, "%s", Pa_GetErrorText(rc));
    return rc == paNoError ? 0 : -1;
}

static int contains(const char *hay, const char *needle)
{
    for (; *hay; hay++) {
        size_t k = 0;
        while (needle[k] && hay[k] &&
               tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (!needle[k])
            return 1;
    }
    return 0;
}

/* A device for a name, in one direction: "default" is PortAudio's default,
 * a host API ("alsa", "JACK Audio" for PortAudio's JACK host) gives that
 * API's default, anything else the
 * first device whose name contains it and has channels that way.
 * paNoDevice if none. */
static PaDeviceIndex find_device(const char *name, int input)
{
    if (!strcmp(name, "default"))
        return input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
    for (PaHostApiIndex h = 0; h < Pa_GetHostApiCount(); h++) {
        const PaHostApiInfo *api = Pa_GetHostApiInfo(h);
        if (api && contains(api->name, name))
            return input ? api->defaultInputDevice : api->defaultOutputDevice;
    }
    for (PaDeviceIndex d = 0; d < Pa_GetDeviceCount(); d++) {
        const PaDeviceInfo *info = Pa_GetDeviceInfo(d);
        if (info && (input ? info->maxInputChannels : info->maxOutputChannels) > 0 &&
            contains(info->name, name))
            return d;
    }
    return paNoDevice;
}

/* The delay each side of the callback, from PortAudio's timestamps (on
 * ALSA, the driver's own delay, snd_pcm_delay): when the first frame of
 * this output block reaches the converter, and how long ago the first
 * frame of the input was taken. Stored for the control thread when each
 * passes es_latency_checked; two atomic stores, nothing else. */
static void note_timestamps(pa_device *d, const PaStreamCallbackTimeInfo *t)
{
    int frames;
    if (t->currentTime <= 0)
        return;
    if (t->outputBufferDacTime > 0 &&
        es_latency_checked(t->outputBufferDacTime - t->currentTime, d->rate, &frames))
        atomic_store_explicit(&d->base.timed_output, frames, memory_order_relaxed);
    if (d->duplex && t->inputBufferAdcTime > 0 &&
        es_latency_checked(t->currentTime - t->inputBufferAdcTime, d->rate, &frames))
        atomic_store_explicit(&d->base.timed_input, frames, memory_order_relaxed);
}

/* Called as a callback starts; last_ns is when the one before returned,
 * so the gap is the time between them, not their work. */
static void note_cycle(pa_device *d)
{
    const long long now = es_now_ns();
    if (now - d->last_ns < d->block_ns / 4) {
        d->run++;
    } else {
        if (d->last_ns)
            atomic_store_explicit(&d->base.timed_period, d->run >= 2 ? d->run * d->block : -1,
                                  memory_order_relaxed);
        d->run = 1;
    }
}

static int pa_callback(const void *input, void *output, unsigned long frames,
                       const PaStreamCallbackTimeInfo *time, PaStreamCallbackFlags status,
                       void *arg)
{
    pa_device *d = arg;
    if (d->base.timed && time)
        note_timestamps(d, time);
    if (d->jack || d->base.timed)
        note_cycle(d);
    unsigned flags = 0;
    if (status & (paInputOverflow | paInputUnderflow))
        flags |= ES_XRUN_INPUT;
    if (status & (paOutputUnderflow | paOutputOverflow))
        flags |= ES_XRUN_OUTPUT;
    const float *const *in = input ? (const float *const *)input
                                   : (const float *const *)d->silence;
    d->cb(d->ctx, in, (float *const *)output, (int)frames, flags);
    if (d->jack || d->base.timed)
        d->last_ns = es_now_ns();
    return paContinue;
}

static void pa_close(es_device *base);

/* PortAudio calls this when the stream stops for any reason, a server
 * that shut down included; it only sets a flag. */
static void pa_finished(void *arg)
{
    pa_device *d = arg;
    atomic_store(&d->finished, 1);
}

static int pa_active(const es_device *base)
{
    pa_device *d = (pa_device *)base;
    if (!d->started || atomic_load(&d->finished))
        return 0;
    return Pa_IsStreamActive(d->stream) == 1;
}

/* The latency the device adds, from PortAudio's stream info checked
 * (es_latency_checked), and on JACK from the graph itself.
 *
 * JACK calls back once a period whatever block was asked; PortAudio adapts
 * the two with a buffer. Duplex, it primes that buffer with a block of
 * silence and reports it (the output figure grows by the block; a loopback
 * in JACK's graph measures block + period). Output only, it reports
 * nothing for it, yet a block longer than the period is computed at once
 * and played over block/period periods: its last frame leaves
 * block - period later than a period-sized one would.
 *
 * PortAudio's JACK host works its figure out as port latency - period in
 * unsigned arithmetic: a server whose ports report less than a period
 * (PipeWire's JACK library for a null sink reports 0) gets about 2^32
 * frames. Such a figure fails the check, and the graph's own model is
 * used: what a loopback in the graph measures, block + period, plus what
 * the ports report beyond the graph (a sound card's own buffers). */
static void set_latency(pa_device *d)
{
    es_device *b = &d->base;
    int in = 0, out = 0;
    const int in_ok = !d->duplex || es_latency_checked(d->said_input, d->rate, &in);
    const int out_ok = es_latency_checked(d->said_output, d->rate, &out);
    b->reported_input = in_ok ? in : -1;
    b->reported_output = out_ok ? out : -1;
    b->input_known = b->output_known = 1;
    b->input_latency = in;
    b->output_latency = out;
    b->latency_note[0] = '\0';
    char said[96] = "";
    if (!in_ok || !out_ok)
        snprintf(said, sizeof said, "unknown (the server reported %s%.0f ms)",
                 !out_ok ? "output " : "input ", 1e3 * (!out_ok ? d->said_output : d->said_input));
    if (!d->jack) {
        b->input_known = in_ok;
        b->output_known = out_ok;
        snprintf(b->latency_note, sizeof b->latency_note, "%s", said);
        return;
    }
    es_jack_graph g;
    es_jack_graph_read(&g, 0);
    b->period = d->server_period = g.period;
    d->capture_port = g.capture_latency;
    d->playback_port = g.playback_latency;
    d->model = !(in_ok && out_ok);
    if (d->model && (g.period <= 0 || g.capture_latency < 0 || g.playback_latency < 0)) {
        d->model = 0;
        b->input_known = in_ok;
        b->output_known = out_ok;
        snprintf(b->latency_note, sizeof b->latency_note, "%s; the JACK server did not "
                 "say its period and port latencies", said);
    } else if (d->model && d->duplex && d->pipewire &&
               d->block > ES_PIPEWIRE_MAX_QUANTUM) {
        /* PipeWire caps its quantum at its max-quantum, which a JACK client
         * cannot read: the round trip (block + quantum) is then not known. */
        d->model = 0;
        b->input_known = b->output_known = 0;
        snprintf(b->latency_note, sizeof b->latency_note, "unknown (PipeWire runs at most "
                 "its max-quantum, %d by default and not told to JACK clients, below the "
                 "block %d)", ES_PIPEWIRE_MAX_QUANTUM, d->block);
    } else if (d->model) {
        snprintf(b->latency_note, sizeof b->latency_note, "PortAudio's figure is %s; "
                 "earshot's model of the JACK graph stands in: %s", said,
                 d->duplex ? "block + period + the ports' latencies"
                           : "the longer of block and period + the playback port's latency");
    }
}

/* The figures as the stream runs (the device class's `now`): on JACK the
 * period is the cycle the callbacks show when it is several blocks, else
 * the server's word; a block longer than the period is buffered unreported
 * (output only), and the graph's model stands in for figures that failed
 * their check. */
static void latency_now(const es_device *base, int *in, int *out, int *period)
{
    const pa_device *d = (const pa_device *)base;
    const int seen = atomic_load_explicit(&((pa_device *)d)->base.timed_period,
                                          memory_order_relaxed);
    if (!d->jack) { /* ALSA: a period only where the callbacks show one */
        if (seen > 0)
            *period = seen;
        return;
    }
    int p = seen > 0 ? seen : d->server_period;
    /* PipeWire's JACK library says the quantum asked; above its default
     * max-quantum the graph may run less, which no callback shows. */
    if (seen <= 0 && d->pipewire && d->block > ES_PIPEWIRE_MAX_QUANTUM)
        p = 0;
    *period = p;
    if (!d->model) {
        if (!d->duplex && p > 0 && d->block > p)
            *out += d->block - p;
        return;
    }
    const int cycle = d->duplex || d->block < p ? p : d->block; /* p = 0: output only, the block */
    *in = d->duplex ? d->block + d->capture_port : 0;
    *out = cycle + d->playback_port;
}

/* On PipeWire the block is asked as the graph's quantum: its JACK library
 * opens PortAudio's client with this node latency, and its ALSA plugin its
 * stream (a request: a lower one, or one another client forces, wins; on
 * JACK the period as the stream runs says which). A sound card's own ALSA
 * driver ignores it. */
static void ask_pipewire_for_block(const es_device_config *cfg)
{
    if (!es_jack_is_pipewire() && !es_pipewire_answers(NULL, 0))
        return;
    char latency[32];
    snprintf(latency, sizeof latency, "%d/%.0f", cfg->block, cfg->sample_rate);
    setenv("PIPEWIRE_LATENCY", latency, 1);
}

/* What the stream is opened with: the output device and its parameters,
 * and the input's when the source is live (duplex). */
typedef struct {
    const PaDeviceInfo *out_info;
    PaStreamParameters out, in;
    int duplex;
} pa_streams;

/* The devices cfg names, and the channels the room needs on them: 0, or
 * -1 and why. */
static int choose_streams(const es_device_config *cfg, pa_streams *s, char *err, size_t n)
{
    /* "pipewire" here is the ALSA plugin's device of that name (on
     * PipeWire's JACK library the native JACK device takes it). */
    char where[128] = "";
    if (!strcasecmp(cfg->name, "pipewire") && !es_pipewire_answers(where, sizeof where)) {
        snprintf(err, n, "device 'pipewire': no PipeWire daemon answered%s%s",
                 where[0] ? " at " : "",
                 where[0] ? where : " (neither XDG_RUNTIME_DIR nor PIPEWIRE_RUNTIME_DIR is set)");
        return -1;
    }
    const char *input_name = cfg->input_name ? cfg->input_name : cfg->name;
    PaDeviceIndex out = find_device(cfg->name, 0);
    PaDeviceIndex in = find_device(input_name, 1);
    if (out == paNoDevice) {
        snprintf(err, n, "device '%s': no such sound device (see earshot devices)", cfg->name);
        return -1;
    }
    const PaDeviceInfo *oi = s->out_info = Pa_GetDeviceInfo(out);
    if (oi->maxOutputChannels < cfg->outputs) {
        snprintf(err, n, "device '%s' (%s): has %d output channels, the room needs %d",
                 cfg->name, oi->name, oi->maxOutputChannels, cfg->outputs);
        return -1;
    }
    s->out = (PaStreamParameters){.device = out, .channelCount = cfg->outputs,
                                  .sampleFormat = paFloat32 | paNonInterleaved,
                                  .suggestedLatency = oi->defaultLowOutputLatency};
    s->duplex = cfg->live_input != 0;
    if (!cfg->live_input)
        return 0;
    if (cfg->input_name && in == paNoDevice) {
        snprintf(err, n, "input device '%s': no such input (see earshot devices)",
                 cfg->input_name);
        return -1;
    }
    const PaDeviceInfo *ii = in == paNoDevice ? NULL : Pa_GetDeviceInfo(in);
    if (!ii || ii->maxInputChannels < cfg->inputs) {
        snprintf(err, n, "device '%s': no input with %d channel%s", cfg->name, cfg->inputs,
                 cfg->inputs == 1 ? "" : "s");
        return -1;
    }
    s->in = (PaStreamParameters){.device = in, .channelCount = cfg->inputs,
                                 .sampleFormat = paFloat32 | paNonInterleaved,
                                 .suggestedLatency = ii->defaultLowInputLatency};
    return 0;
}

/* The stream opened on d: 0, or -1 with what was asked for and
 * PortAudio's own words (the host API's too when it has some): a refusal
 * someone can act on. */
static int open_stream(pa_device *d, const es_device_config *cfg, const pa_streams *s,
                       char *err, size_t n)
{
    PaError rc = Pa_OpenStream(&d->stream, s->duplex ? &s->in : NULL, &s->out,
                               cfg->sample_rate, (unsigned long)cfg->block, paClipOff,
                               pa_callback, d);
    if (rc == paNoError)
        return 0;
    const PaHostErrorInfo *host = rc == paUnanticipatedHostError ? Pa_GetLastHostErrorInfo()
                                                                 : NULL;
    snprintf(err, n, "device '%s' (%s): cannot open %g Hz, block %d, %d output "
             "channel%s, %s: %s%s%s", cfg->name, s->out_info->name, cfg->sample_rate,
             cfg->block, cfg->outputs, cfg->outputs == 1 ? "" : "s",
             s->duplex ? "with input" : "no input", Pa_GetErrorText(rc),
             host && host->errorText ? "; host API: " : "",
             host && host->errorText ? host->errorText : "");
    d->stream = NULL;
    return -1;
}

/* What the open stream is: its shape, its host API, the latencies
 * PortAudio says, the name it is shown by. */
static void note_stream(pa_device *d, const es_device_config *cfg, const pa_streams *s)
{
    const PaHostApiInfo *api = Pa_GetHostApiInfo(s->out_info->hostApi);
    /* The stream info is read here, at open: PortAudio's JACK host
     * rescales it when the stream starts (measured: five times the figure
     * at open, whatever the block). */
    const PaStreamInfo *si = Pa_GetStreamInfo(d->stream);
    d->said_input = si && s->duplex ? si->inputLatency : 0;
    d->said_output = si ? si->outputLatency : 0;
    d->duplex = s->duplex;
    d->block = cfg->block;
    d->rate = cfg->sample_rate;
    d->block_ns = (long long)(1e9 * cfg->block / cfg->sample_rate);
    d->jack = api->type == paJACK;
    /* ALSA's timestamps are its delay: the buffers PortAudio reports and
     * what lies beyond them (measured on PipeWire's ALSA plugin: the
     * graph's cycles, which the stream info leaves out, and a phase
     * between capture and playback that differs from run to run; the two
     * delays summed matched a loopback to the frame). JACK's follow its
     * period model below. */
    d->base.timed = api->type == paALSA;
    d->pipewire = d->jack && es_jack_is_pipewire();
    d->base.close_first = d->pipewire;
    set_latency(d);
    snprintf(d->base.name, sizeof d->base.name, "%s: %s",
             d->pipewire ? "PipeWire (JACK API)" : api->name, s->out_info->name);
}

static es_device *pa_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                          char *err, size_t n)
{
    ask_pipewire_for_block(cfg);
    char why[320];
    if (portaudio_init(why, sizeof why) != 0) {
        snprintf(err, n, "device '%s': PortAudio could not start: %s", cfg->name, why);
        return NULL;
    }
    pa_device *d = calloc(1, sizeof *d);
    if (!d) {
        Pa_Terminate();
        snprintf(err, n, "out of memory");
        return NULL;
    }
    d->cb = cb;
    d->ctx = ctx;
    d->inputs = cfg->inputs;
    d->silence = es_alloc_channels(cfg->inputs, (size_t)cfg->block);
    pa_streams s = {0};
    if (choose_streams(cfg, &s, err, n) != 0 || open_stream(d, cfg, &s, err, n) != 0) {
        pa_close(&d->base);
        return NULL;
    }
    note_stream(d, cfg, &s);
    return &d->base;
}

static int pa_start(es_device *base, char *err, size_t n)
{
    pa_device *d = (pa_device *)base;
    atomic_store(&d->finished, 0);
    Pa_SetStreamFinishedCallback(d->stream, pa_finished);
    PaError rc = Pa_StartStream(d->stream);
    if (rc != paNoError) {
        snprintf(err, n, "device '%s': cannot start: %s", d->base.name, Pa_GetErrorText(rc));
        return -1;
    }
    d->started = 1;
    /* The quantum PipeWire granted is the server's word once the client
     * runs (and the callbacks' cycle, latency_now, once they come). */
    if (d->jack)
        set_latency(d);
    return 0;
}

static void pa_stop(es_device *base)
{
    pa_device *d = (pa_device *)base;
    if (d->started)
        Pa_StopStream(d->stream);
    d->started = 0;
}

static void pa_close(es_device *base)
{
    pa_device *d = (pa_device *)base;
    pa_stop(base);
    if (d->stream)
        Pa_CloseStream(d->stream);
    es_free_channels(d->silence, d->inputs);
    free(d);
    Pa_Terminate();
}

static int pa_list(FILE *to, int json, char *err, size_t n)
{
    char why[320];
    if (portaudio_init(why, sizeof why) != 0) {
        snprintf(err, n, "PortAudio could not start: %s", why);
        return -1;
    }
    for (PaDeviceIndex d = 0; d < Pa_GetDeviceCount(); d++) {
        const PaDeviceInfo *i = Pa_GetDeviceInfo(d);
        const char *api = Pa_GetHostApiInfo(i->hostApi)->name;
        if (json) {
            /* A device's name is the driver's text: anything. */
            fputs("{\"name\":", to);
            es_json_string(to, i->name);
            fputs(",\"host_api\":", to);
            es_json_string(to, api);
            fprintf(to, ",\"inputs\":%d,\"outputs\":%d,\"default_rate\":%g}\n",
                    i->maxInputChannels, i->maxOutputChannels, i->defaultSampleRate);
        } else {
            char name[200], host[120];
            es_text_escape(name, sizeof name, i->name);
            es_text_escape(host, sizeof host, api);
            fprintf(to, "%-32s %-26s %3d in %3d out  %6g Hz\n", name, host,
                    i->maxInputChannels, i->maxOutputChannels, i->defaultSampleRate);
        }
    }
    Pa_Terminate();
    return 0;
}

static const es_device_usage pa_names[] = {
    {"default", "the default sound device, through PortAudio"},
    {"HOST-API", "a host API of PortAudio's ('alsa'; 'JACK Audio' its own\n"
                 "JACK host): that API's default device"},
    {"PART-OF-NAME", "the first sound device whose name holds it ('USB',\n"
                     "'hw:1'; earshot devices lists them)"},
    {NULL, NULL},
};

const es_device_class es_device_portaudio = {
    .name = "portaudio",
    .names = pa_names,
    .matches = NULL, /* every name the backends before it do not take */
    .can_capture = 1,
    .list = pa_list,
    .open = pa_open,
    .start = pa_start,
    .stop = pa_stop,
    .close = pa_close,
    .active = pa_active,
    .now = latency_now,
};
