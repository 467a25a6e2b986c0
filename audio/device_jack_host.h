/* The native JACK device's one client, shared by its three files
 * (internal to audio/): device_jack.c (the client and the device class),
 * device_jack_cycle.c (the process callback and the server's other
 * callbacks), device_jack_ports.c (its ports: names, wiring when
 * made, latency) and device_jack_keeper.c (what follows the server: the
 * wiring it keeps, and the client made again after a server restart). */
#ifndef ES_DEVICE_JACK_HOST_H
#define ES_DEVICE_JACK_HOST_H

#include <pthread.h>
#include <stdatomic.h>

#include "jack_loaded.h"
#include "device_class.h"

#define PORTS_MAX ES_JACK_PORTS
#define WIRES_MAX 8      /* connections a port has kept for it */
#define PORT_NAME_MAX 320 /* a full port name: client:port */

typedef struct jack_device jack_device;

/* `lock` guards everything but what the process callback reads: atomics,
 * and ports that are fixed while a handle plays. */
typedef struct {
    pthread_mutex_t lock;
    jack_client_t *client;    /* NULL while a restarted server is awaited */
    char name[64];            /* the client's name, kept for a restart */
    jack_port_t *in[PORTS_MAX], *out[PORTS_MAX];
    char in_name[PORTS_MAX][ES_JACK_PORT_NAME], out_name[PORTS_MAX][ES_JACK_PORT_NAME];
    atomic_int ins, outs;     /* registered (a port is stored before its count) */
    int handles;              /* open handles: the client closes with the last */
    _Atomic(jack_device *) playing; /* the handle called back, or NULL */
    /* A handle started while another plays: it takes over at the first
     * period it can play (device_jack.c's hand-over), then is `playing`. */
    _Atomic(jack_device *) next;
    atomic_int busy;          /* the process callback is inside a handle */
    atomic_int period;        /* the server's buffer size */
    atomic_uint xruns;        /* reported since the last cycle took them */
    atomic_int own;           /* frames published as earshot's own latency */
    /* What it is made of, for a period that changes: the processor's
     * latency, and the block when the handle can gather (else 0). */
    atomic_int own_engine, own_block;
    atomic_int dead;          /* the server went away (its shutdown callback) */
    atomic_int freewheel;     /* the server freewheels (its freewheel callback) */
    atomic_int gate;          /* 1: the callback leaves earshot alone (closing) */
    unsigned rate;            /* the server's, kept: a restart at another is refused */
    unsigned generation;      /* a keeper serves the client of its generation */
    /* What each port was wired to when last looked at: given back after a
     * restart, for a while (the other clients come back in their time). */
    char in_wire[PORTS_MAX][WIRES_MAX][PORT_NAME_MAX];
    char out_wire[PORTS_MAX][WIRES_MAX][PORT_NAME_MAX];
    long long restore_until_ns;
    /* PipeWire's JACK library (0.3.65) can deadlock when a port's latency
     * is set inside the latency callback (its lock is held around the
     * callback, and the set takes it again on the same thread): there the
     * callback only marks the mode due (bit mode), and the keeper sets it.
     * The range last set, per mode, so an unchanged one is not set again. */
    int on_pipewire;
    atomic_int latency_due;
    jack_latency_range_t latency_set[2];
    int latency_known[2];
} es_jack_host;

extern es_jack_host es_jack;

/* A handle on the client: a stream opened on it (device_jack.c). */
struct jack_device {
    es_device base;
    es_device_config cfg;
    es_audio_callback cb;
    void *ctx;
    int ins, outs;            /* the stream's channels */
    int counted;              /* one of host.handles */
    /* A block longer than the period: gathered here. */
    float **gather_in, **gather_out;
    int in_at, out_at;
    /* Pointer arrays handed to the callback. */
    const float **in_ptr;
    float **out_ptr;
};


/* Sets the client's callbacks, registers the ports host.in_name and
 * out_name hold (ins, outs of them), and activates it: a new client, or
 * one made again after a restart. Lock held. 0, or -1. */
int es_jack_attach(jack_client_t *client);
/* Keeps the callback out of earshot and waits for a cycle inside it to
 * end: before a client is closed (the gate opens again with the next). */
void es_jack_shut_gate(void);
/* Starts a keeper for the current client's generation. Lock held. */
void es_jack_keeper_start(void);

/* device_jack_ports.c, lock held: registers the ports a stream of
 * `inputs` and `outputs` needs that the client does not have yet, and
 * wires the new ones (0, or -1 with the port that failed in err); the
 * largest latency the graph gives one of `ports` that way; 1 when the
 * first output is wired straight to the first input. */
int es_jack_register_ports(int inputs, int outputs, const es_jack_options *o, char *err,
                           size_t n);
int es_jack_port_latency(jack_port_t *const *ports, int count, jack_latency_callback_mode_t mode);
int es_jack_looped(void);

/* Sets the ports' latency for `mode` from the graph's and earshot's own
 * (device_jack_cycle.c): inside the latency callback on jackd, from the
 * keeper on PipeWire. */
void es_jack_apply_latency(jack_latency_callback_mode_t mode);

#endif
