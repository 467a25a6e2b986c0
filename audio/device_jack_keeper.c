/* What follows the JACK server for earshot's own client (device_jack.c):
 * a thread that looks every 100 ms. While the server runs it notes what
 * each of earshot's ports is wired to (twice a second). When the server
 * goes away (its shutdown callback) it closes the dead client and asks for
 * a new one under the same name until a server answers again; then the
 * same ports are registered, the playing stream goes on being called, and
 * the wiring noted last is given back, again and again for 10 s, so that
 * clients that come back after earshot are wired too. A wire the user
 * removes afterwards stays removed. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/rt_thread.h"
#include "device_jack_host.h"

#define LOOK_NS 100000000LL         /* the keeper's period */
#define NOTE_EVERY 5                /* looks between two notes of the wiring */
#define GIVE_BACK_NS 10000000000LL  /* after a restart, the wiring is given back this long */

#define host es_jack

/* The port's connections into wires[] (empty strings after the last). */
static void note(jack_port_t *port, char wires[WIRES_MAX][PORT_NAME_MAX])
{
    const char **to = jack_port_get_all_connections(host.client, port);
    int k = 0;
    for (; to && to[k] && k < WIRES_MAX; k++)
        snprintf(wires[k], PORT_NAME_MAX, "%s", to[k]);
    for (; k < WIRES_MAX; k++)
        wires[k][0] = 0;
    jack_free(to);
}

static void note_wiring(void)
{
    for (int c = 0; c < host.ins; c++)
        note(host.in[c], host.in_wire[c]);
    for (int c = 0; c < host.outs; c++)
        note(host.out[c], host.out_wire[c]);
}

/* Wires what was noted and is not there (a port that is not back yet
 * fails quietly, and is tried again on the next look). */
static void give_back(void)
{
    for (int c = 0; c < host.ins; c++)
        for (int k = 0; k < WIRES_MAX && host.in_wire[c][k][0]; k++)
            if (!jack_port_connected_to(host.in[c], host.in_wire[c][k]))
                jack_connect(host.client, host.in_wire[c][k], jack_port_name(host.in[c]));
    for (int c = 0; c < host.outs; c++)
        for (int k = 0; k < WIRES_MAX && host.out_wire[c][k][0]; k++)
            if (!jack_port_connected_to(host.out[c], host.out_wire[c][k]))
                jack_connect(host.client, jack_port_name(host.out[c]), host.out_wire[c][k]);
}

/* The server went away: the dead client closed, a new one asked for.
 * Lock held, and given up while the new client is asked for (that asks
 * the server, which may take its time): 0 when the keeper of `generation`
 * is still wanted afterwards. */
static int come_back(unsigned generation)
{
    if (host.client) {
        es_jack_shut_gate();
        jack_client_close(host.client);
        host.client = NULL;
    }
    char name[sizeof host.name];
    snprintf(name, sizeof name, "%s", host.name);
    pthread_mutex_unlock(&host.lock);
    jack_status_t status;
    jack_client_t *c = jack_client_open(name, JackNoStartServer | JackUseExactName, &status);
    pthread_mutex_lock(&host.lock);
    if (host.generation != generation || !host.handles) {
        if (c)
            jack_client_close(c);
        return -1;
    }
    if (!c)
        return 0;
    /* A server back at another rate would play every room at the wrong
     * pitch: not taken (the stream stays stalled, and is said lost). */
    if (jack_get_sample_rate(c) != host.rate) {
        jack_client_close(c);
        return 0;
    }
    atomic_store(&host.busy, 0);
    atomic_store(&host.gate, 0);
    if (es_jack_attach(c) != 0) {
        jack_client_close(c);
        return 0;
    }
    host.client = c;
    atomic_store(&host.dead, 0);
    host.restore_until_ns = es_now_ns() + GIVE_BACK_NS;
    give_back();
    jack_recompute_total_latencies(c);
    return 0;
}

static void *keep(void *arg)
{
    const unsigned generation = (unsigned)(unsigned long)arg;
    const struct timespec nap = {0, LOOK_NS};
    for (unsigned look = 0;; look++) {
        nanosleep(&nap, NULL);
        pthread_mutex_lock(&host.lock);
        int wanted = host.generation == generation && host.handles;
        if (wanted && atomic_load(&host.dead))
            wanted = come_back(generation) == 0;
        else if (wanted && host.client && es_now_ns() < host.restore_until_ns)
            give_back();
        else if (wanted && host.client && look % NOTE_EVERY == 0)
            note_wiring();
        /* On PipeWire the latency callback leaves the setting to here
         * (es_jack_host says why). */
        const int due = wanted && host.client ? atomic_exchange(&host.latency_due, 0) : 0;
        if (due & 1)
            es_jack_apply_latency(JackCaptureLatency);
        if (due & 2)
            es_jack_apply_latency(JackPlaybackLatency);
        pthread_mutex_unlock(&host.lock);
        if (!wanted)
            return NULL;
    }
}

void es_jack_keeper_start(void)
{
    pthread_t thread;
    if (es_thread_start(&thread, "es-jack-keeper", keep,
                        (void *)(unsigned long)host.generation) == 0)
        pthread_detach(thread);
}
