/* Sound cards through PortAudio: a stream of non-interleaved float32 at a
 * fixed block size, on any host API PortAudio has (ALSA, JACK, ...).
 *
 * Device names: "default" (PortAudio's default output), a host API
 * ("jack", "alsa": its default devices), or part of a device's name
 * ("USB", "hw:1"). The input is opened only when the source needs it. */
#include <ctype.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <portaudio.h>
#ifdef ES_HAVE_JACK
#include <jack/jack.h>
#endif

#include "device_class.h"
#include "engine.h"
#include "device_portaudio.h"

typedef struct {
    es_device base;
    PaStream *stream;
    es_audio_callback cb;
    void *ctx;
    int started;
    atomic_int finished; /* PortAudio's stream-finished callback ran */
    float **silence;    /* input when the stream has none */
    int inputs;
} pa_device;

/* JACK's period: a short-lived client of the same server asks it (what
 * PortAudio's JACK host knows but does not tell). 0 when unknown. */
static int jack_period(void)
{
#ifdef ES_HAVE_JACK
    jack_client_t *c = jack_client_open("earshot-period", JackNoStartServer, NULL);
    if (!c)
        return 0;
    const int period = (int)jack_get_buffer_size(c);
    jack_client_close(c);
    return period;
#else
    return 0;
#endif
}

/* PortAudio's scan of ALSA prints pages of "ALSA lib ..." lines on a
 * machine without sound cards. They are not ours to show: stderr is parked
 * on /dev/null while PortAudio initialises. */
int es_portaudio_init(void)
{
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
 * a host API ("jack", "alsa") gives that API's default, anything else the
 * first device whose name contains it and has channels that way.
 * paNoDevice if none. */
static PaDeviceIndex find_device(const char *name, int input)
{
    if (!strcmp(name, "default"))
        return input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice();
    for (PaHostApiIndex h = 0; h < Pa_GetHostApiCount(); h++) {
        const PaHostApiInfo *api = Pa_GetHostApiInfo(h);
        if (api && (contains(api->name, name) || (api->type == paJACK && !strcmp(name, "jack"))))
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

static int pa_callback(const void *input, void *output, unsigned long frames,
                       const PaStreamCallbackTimeInfo *time, PaStreamCallbackFlags status,
                       void *arg)
{
    pa_device *d = arg;
    (void)time;
    unsigned flags = 0;
    if (status & (paInputOverflow | paInputUnderflow))
        flags |= ES_XRUN_INPUT;
    if (status & (paOutputUnderflow | paOutputOverflow))
        flags |= ES_XRUN_OUTPUT;
    const float *const *in = input ? (const float *const *)input
                                   : (const float *const *)d->silence;
    d->cb(d->ctx, in, (float *const *)output, (int)frames, flags);
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

static es_device *pa_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                          char *err, size_t n)
{
    if (es_portaudio_init() != 0) {
        snprintf(err, n, "device '%s': PortAudio could not start", cfg->name);
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
    PaDeviceIndex out = find_device(cfg->name, 0);
    PaDeviceIndex in = find_device(cfg->input_name ? cfg->input_name : cfg->name, 1);
    if (out == paNoDevice) {
        /* PortAudio lists no JACK host API when no server answered its
         * client: "no such device" would send the person looking for a
         * name, not for the server. */
        if (!strcasecmp(cfg->name, "jack") && Pa_HostApiTypeIdToHostApiIndex(paJACK) < 0)
            snprintf(err, n, "device 'jack': no JACK server answered (PortAudio has no JACK "
                     "host API without one; is jackd or pipewire-jack running, and "
                     "JACK_DEFAULT_SERVER right?)");
        else
            snprintf(err, n, "device '%s': no such sound device (see earshot devices)",
                     cfg->name);
        pa_close(&d->base);
        return NULL;
    }
    const PaDeviceInfo *oi = Pa_GetDeviceInfo(out);
    if (oi->maxOutputChannels < cfg->outputs) {
        snprintf(err, n, "device '%s' (%s): has %d output channels, the room needs %d",
                 cfg->name, oi->name, oi->maxOutputChannels, cfg->outputs);
        pa_close(&d->base);
        return NULL;
    }
    PaStreamParameters op = {.device = out, .channelCount = cfg->outputs,
                             .sampleFormat = paFloat32 | paNonInterleaved,
                             .suggestedLatency = oi->defaultLowOutputLatency};
    PaStreamParameters ip = {0}, *ipp = NULL;
    if (cfg->live_input && cfg->input_name && in == paNoDevice) {
        snprintf(err, n, "input device '%s': no such input (see earshot devices)",
                 cfg->input_name);
        pa_close(&d->base);
        return NULL;
    }
    if (cfg->live_input) {
        const PaDeviceInfo *ii = in == paNoDevice ? NULL : Pa_GetDeviceInfo(in);
        if (!ii || ii->maxInputChannels < cfg->inputs) {
            snprintf(err, n, "device '%s': no input with %d channel%s", cfg->name,
                     cfg->inputs, cfg->inputs == 1 ? "" : "s");
            pa_close(&d->base);
            return NULL;
        }
        ip = (PaStreamParameters){.device = in, .channelCount = cfg->inputs,
                                  .sampleFormat = paFloat32 | paNonInterleaved,
                                  .suggestedLatency = ii->defaultLowInputLatency};
        ipp = &ip;
    }
    PaError rc = Pa_OpenStream(&d->stream, ipp, &op, cfg->sample_rate,
                               (unsigned long)cfg->block, paClipOff, pa_callback, d);
    if (rc != paNoError) {
        /* What was asked for and PortAudio's own words (the host API's too
         * when it has some): a refusal someone can act on. */
        const PaHostErrorInfo *host = rc == paUnanticipatedHostError ? Pa_GetLastHostErrorInfo()
                                                                     : NULL;
        snprintf(err, n, "device '%s' (%s): cannot open %g Hz, block %d, %d output "
                 "channel%s, %s: %s%s%s", cfg->name, oi->name, cfg->sample_rate, cfg->block,
                 cfg->outputs, cfg->outputs == 1 ? "" : "s",
                 ipp ? "with input" : "no input", Pa_GetErrorText(rc),
                 host && host->errorText ? "; host API: " : "",
                 host && host->errorText ? host->errorText : "");
        d->stream = NULL;
        pa_close(&d->base);
        return NULL;
    }
    /* The stream info is read here, at open: PortAudio's JACK host
     * rescales it when the stream starts (measured: five times the figure
     * at open, whatever the block). */
    const PaStreamInfo *si = Pa_GetStreamInfo(d->stream);
    d->base.reported_input = si && ipp ? (int)(si->inputLatency * cfg->sample_rate + 0.5) : 0;
    d->base.reported_output = si ? (int)(si->outputLatency * cfg->sample_rate + 0.5) : 0;
    d->base.input_latency = d->base.reported_input;
    d->base.output_latency = d->base.reported_output;
    if (Pa_GetHostApiInfo(oi->hostApi)->type == paJACK) {
        /* JACK calls back once a period whatever block was asked; PortAudio
         * adapts the two with a buffer. Duplex, it primes that buffer with
         * a block of silence and reports it (the output figure grows by the
         * block; a loopback in JACK's graph measures block + period).
         * Output only, it reports nothing for it, yet a block longer than
         * the period is computed at once and played over block/period
         * periods: its last frame leaves block - period later than a
         * period-sized one would. */
        d->base.period = jack_period();
        if (!ipp && d->base.period > 0 && cfg->block > d->base.period)
            d->base.output_latency += cfg->block - d->base.period;
    }
    snprintf(d->base.name, sizeof d->base.name, "%s: %s",
             Pa_GetHostApiInfo(oi->hostApi)->name, oi->name);
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

const es_device_class es_device_portaudio = {
    .name = "portaudio",
    .open = pa_open,
    .start = pa_start,
    .stop = pa_stop,
    .close = pa_close,
    .active = pa_active,
};

int es_portaudio_list(FILE *to, int json)
{
    if (es_portaudio_init() != 0)
        return -1;
    for (PaDeviceIndex d = 0; d < Pa_GetDeviceCount(); d++) {
        const PaDeviceInfo *i = Pa_GetDeviceInfo(d);
        const char *api = Pa_GetHostApiInfo(i->hostApi)->name;
        if (json)
            fprintf(to, "{\"name\":\"%s\",\"host_api\":\"%s\",\"inputs\":%d,\"outputs\":%d,"
                    "\"default_rate\":%g}\n", i->name, api, i->maxInputChannels,
                    i->maxOutputChannels, i->defaultSampleRate);
        else
            fprintf(to, "%-32s %-26s %3d in %3d out  %6g Hz\n", i->name, api,
                    i->maxInputChannels, i->maxOutputChannels, i->defaultSampleRate);
    }
    Pa_Terminate();
    return 0;
}
