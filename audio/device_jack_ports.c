/* The native JACK device's ports (device_jack.c's client): their names,
 * their wiring when they are made, and their latency as the graph has it.
 * Everything here runs with host.lock held. */
#include <stdio.h>
#include <string.h>

#include "device_jack_host.h"

#define host es_jack

/* A port's name: the room's for it when it gives one that no port of
 * that side has yet, else in_N, out_N, or out_L and out_R for two. */
static const char *port_name(char *buf, size_t n, int output, int index, int count,
                             const es_jack_options *o)
{
    const char(*given)[ES_JACK_PORT_NAME] = output ? o->output_names : o->input_names;
    char(*taken)[ES_JACK_PORT_NAME] = output ? host.out_name : host.in_name;
    int unique = given && given[index][0];
    for (int c = 0; unique && c < index; c++)
        unique = strcmp(taken[c], given[index]) != 0;
    if (unique)
        snprintf(buf, n, "%s", given[index]);
    else if (output && count == 2)
        snprintf(buf, n, "out_%c", index == 0 ? 'L' : 'R');
    else
        snprintf(buf, n, "%s_%d", output ? "out" : "in", index + 1);
    return buf;
}

/* Wires port `ours` (an input: from, an output: to) to the k-th port the
 * pattern lists; without one, the k-th physical port, or where the server
 * has none that way (PipeWire's virtual source: no capture port is
 * physical there), the k-th port named capture (playback). */
static void wire(jack_port_t *ours, int output, int k, const es_jack_options *o)
{
    const char *pattern = output ? o->connect_out : o->connect_in;
    const unsigned long way = output ? JackPortIsInput : JackPortIsOutput;
    const char **ports = jack_get_ports(host.client, pattern, JACK_DEFAULT_AUDIO_TYPE,
                                        way | (pattern ? 0 : JackPortIsPhysical));
    if (!pattern && (!ports || !ports[0])) {
        jack_free(ports);
        ports = jack_get_ports(host.client, output ? ":playback" : ":capture",
                               JACK_DEFAULT_AUDIO_TYPE, way);
    }
    int count = 0;
    while (ports && ports[count])
        count++;
    if (count > 0) {
        const char *theirs = ports[k % count];
        if (output)
            jack_connect(host.client, jack_port_name(ours), theirs);
        else
            jack_connect(host.client, theirs, jack_port_name(ours));
    }
    jack_free(ports);
}

/* Registers ports of one side (output 1: earshot's outputs) up to `count`,
 * keeping their names for a restart. 0, or -1 with the name that failed
 * in `name`. */
static int add_ports(int output, int count, const es_jack_options *o, char *name, size_t n)
{
    atomic_int *have = output ? &host.outs : &host.ins;
    jack_port_t **ports = output ? host.out : host.in;
    char(*names)[ES_JACK_PORT_NAME] = output ? host.out_name : host.in_name;
    while (*have < count) {
        const int c = atomic_load(have);
        port_name(name, n, output, c, count, o);
        jack_port_t *p = jack_port_register(host.client, name, JACK_DEFAULT_AUDIO_TYPE,
                                            output ? JackPortIsOutput : JackPortIsInput, 0);
        if (!p)
            return -1;
        snprintf(names[c], sizeof names[c], "%s", name);
        ports[c] = p;
        atomic_fetch_add(have, 1); /* the port is stored before its count */
    }
    return 0;
}

int es_jack_register_ports(int inputs, int outputs, const es_jack_options *o, char *err,
                           size_t n)
{
    char name[ES_JACK_PORT_NAME];
    const int first_in = host.ins, first_out = host.outs;
    if (add_ports(0, inputs, o, name, sizeof name) != 0 ||
        add_ports(1, outputs, o, name, sizeof name) != 0)
        goto failed;
    if (!o->no_connect) {
        for (int c = first_in; c < host.ins; c++)
            wire(host.in[c], 0, c, o);
        for (int c = first_out; c < host.outs; c++)
            wire(host.out[c], 1, c, o);
    }
    return 0;
failed:
    snprintf(err, n, "device '%s': cannot register port %s:%s", ES_DEVICE_JACK,
             host.name, name);
    return -1;
}

/* The largest latency the graph gives a port of ours, frames. */
int es_jack_port_latency(jack_port_t *const *ports, int count, jack_latency_callback_mode_t mode)
{
    int most = 0;
    for (int c = 0; c < count; c++) {
        jack_latency_range_t r;
        jack_port_get_latency_range(ports[c], mode, &r);
        most = (int)r.max > most ? (int)r.max : most;
    }
    return most;
}

int es_jack_looped(void)
{
    return host.client && !atomic_load(&host.dead) && host.ins > 0 && host.outs > 0 &&
           jack_port_connected_to(host.out[0], jack_port_name(host.in[0]));
}
