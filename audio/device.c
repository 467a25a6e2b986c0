/* Device dispatch through the table of backends, and what every name
 * means: "auto"'s order, which devices capture, the list, the names. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device_class.h"
#include "sound_server.h"

/* Each backend's class, in its own file (device_null.c, device_jack.c,
 * device_portaudio.c). */
extern const es_device_class es_device_null, es_device_jack, es_device_portaudio;

/* The backends, in the order a name is offered to them: the null device
 * takes "null", the native JACK device "jack" (earshot's own client; and
 * "pipewire" on PipeWire's JACK library), PortAudio (every host API:
 * ALSA, JACK, PipeWire's plugins) any other name. */
static const es_device_class *const backends[] = {
    &es_device_null,
#ifdef ES_HAVE_JACK
    &es_device_jack,
#endif
#ifdef ES_HAVE_PORTAUDIO
    &es_device_portaudio,
#endif
    NULL,
};

static const es_device_class *backend_for(const char *name)
{
    for (int k = 0; backends[k]; k++)
        if (!backends[k]->matches || backends[k]->matches(name))
            return backends[k];
    return NULL;
}

int es_device_tries(const char *asked, const char *tries[ES_DEVICE_TRIES])
{
    if (strcmp(asked, "auto") != 0) {
        tries[0] = asked;
        return 1;
    }
    int n = 0;
    es_jack_graph g;
    if (es_jack_is_pipewire())
        tries[n++] = "pipewire";
    else if (es_jack_graph_read(&g, 1) == 0)
        tries[n++] = ES_DEVICE_JACK;
    tries[n++] = "default";
    tries[n++] = ES_DEVICE_NULL;
    return n;
}

void es_device_try_note(const char *failed, const char *next, const char *why, char *out,
                        size_t n)
{
    if (!strcmp(next, ES_DEVICE_NULL))
        snprintf(out, n, "note: no usable sound device (%s); playing on the null device", why);
    else
        snprintf(out, n, "note: device '%s' did not open (%s); trying '%s'", failed, why, next);
}

/* What es_device_tries makes of "auto", for the help. */
static const es_device_usage automatic = {
    "auto", "PipeWire through its JACK library when its daemon answers,\n"
            "else a JACK server that answers, else the default device,\n"
            "else the null device"};

#define NAME_COLUMN 17 /* as the engines' names in the help */

static void name_help(FILE *to, const es_device_usage *d)
{
    const char *line = d->means;
    for (const char *name = d->name;; name = "") {
        const char *nl = strchr(line, '\n');
        const int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(to, "  %-*s %.*s\n", NAME_COLUMN, name, len, line);
        if (!nl)
            return;
        line = nl + 1;
    }
}

void es_device_names_help(FILE *to)
{
    name_help(to, &automatic);
    for (int k = 0; backends[k]; k++)
        for (const es_device_usage *d = backends[k]->names; d && d->name; d++)
            name_help(to, d);
}

int es_device_can_capture(const char *name)
{
    const es_device_class *k = backend_for(name);
    return k && k->can_capture;
}

int es_device_list(FILE *to, int json, char *err, size_t n)
{
    for (int k = 0; backends[k]; k++)
        if (backends[k]->list(to, json, err, n) != 0)
            return -1;
#ifndef ES_HAVE_PORTAUDIO
    if (!json)
        fprintf(to, "(built without PortAudio: only the null device)\n");
#endif
    return 0;
}

es_device *es_device_open(const es_device_config *cfg, es_audio_callback cb, void *ctx,
                          char *err, size_t n)
{
    const es_device_class *k = backend_for(cfg->name);
    if (!k) {
        snprintf(err, n, "device '%s': this earshot was built without PortAudio; only "
                 "the null device is available", cfg->name);
        return NULL;
    }
    es_device *d = k->open(cfg, cb, ctx, err, n);
    if (d) {
        d->klass = k;
        atomic_store(&d->timed_input, -1); /* none until a callback gives one */
        atomic_store(&d->timed_output, -1);
        atomic_store(&d->timed_period, -1);
    }
    return d;
}

int es_device_start(es_device *d, char *err, size_t n)
{
    if (d->abandoned) {
        snprintf(err, n, "device '%s' stopped answering", d->name);
        return -1;
    }
    return d->klass->start(d, err, n);
}

void es_device_stop(es_device *d)
{
    if (d && (!d->abandoned || d->klass->stops_alone))
        d->klass->stop(d);
}

void es_device_close(es_device *d)
{
    if (d && (!d->abandoned || d->klass->stops_alone))
        d->klass->close(d);
}

void es_device_abandon(es_device *d)
{
    d->abandoned = 1;
}

/* The figures as the stream runs: the timestamps' where a backend writes
 * them, else those from open, amended by the backend's `now`. */
static void figures_now(const es_device *d, int *input, int *output, int *period)
{
    const int in = atomic_load_explicit(&((es_device *)d)->timed_input, memory_order_relaxed);
    const int out = atomic_load_explicit(&((es_device *)d)->timed_output, memory_order_relaxed);
    *input = in >= 0 ? in : d->input_latency;
    *output = out >= 0 ? out : d->output_latency;
    *period = d->period;
    if (d->klass->now && !d->abandoned)
        d->klass->now(d, input, output, period);
}

void es_device_latency(const es_device *d, int *input, int *output)
{
    int period;
    figures_now(d, input, output, &period);
}

int es_device_inside_latency(const es_device *d)
{
    return d->klass->inside && !d->abandoned ? d->klass->inside(d) : 0;
}

int es_device_looped_inside(const es_device *d)
{
    return d->klass->looped && !d->abandoned ? d->klass->looped(d) : 0;
}

const char *es_device_name(const es_device *d)
{
    return d->name;
}

void es_device_reported(const es_device *d, int *input, int *output, int *period)
{
    int in, out;
    figures_now(d, &in, &out, period);
    *input = d->reported_input;
    *output = d->reported_output;
}

double es_device_skipped_seconds(const es_device *d)
{
    return 1e-9 * (double)atomic_load(&((es_device *)d)->skipped_ns);
}

int es_device_active(const es_device *d)
{
    if (d->abandoned)
        return 0;
    return d->klass->active ? d->klass->active(d) : 1;
}

int es_device_paused(const es_device *d)
{
    return !d->abandoned && d->klass->paused && d->klass->paused(d);
}

void es_device_latency_known(const es_device *d, int *input, int *output)
{
    *input = d->input_known;
    *output = d->output_known;
}

const char *es_device_latency_note(const es_device *d)
{
    return d->latency_note;
}

int es_latency_checked(double seconds, double rate, int *frames)
{
    *frames = 0;
    if (!isfinite(seconds) || seconds < 0 || seconds >= ES_LATENCY_MAX_S || !(rate > 0))
        return 0;
    *frames = (int)lround(seconds * rate);
    return 1;
}

int es_device_close_first(const es_device *d)
{
    return d && !d->abandoned && d->close_first;
}

int es_device_stopped_for_good(const es_device *d)
{
    return !d || !d->abandoned || d->klass->stops_alone;
}

int es_device_hands_over(const es_device *d)
{
    return d && !d->abandoned && d->klass->hands_over;
}

int es_device_latency_pending(const es_device *d)
{
    return d->timed &&
           atomic_load_explicit(&((es_device *)d)->timed_output, memory_order_relaxed) < 0;
}
