/* libjack's calls through a table loaded when first needed (internal to
 * audio/; core/library_loader.h says why). Include this, not <jack/jack.h>: the
 * calls keep their names, each one a macro for its table entry. Every way
 * into the JACK code calls es_jack_load() first. */
#ifndef ES_JACK_LOADED_H
#define ES_JACK_LOADED_H

#include <stddef.h>

#include <jack/jack.h>

#define ES_JACK_CALLS(X)                                                                       \
    X(jack_activate) X(jack_client_close) X(jack_client_open) X(jack_connect)                  \
    X(jack_deactivate) X(jack_free) X(jack_get_buffer_size) X(jack_get_client_name)            \
    X(jack_get_ports) X(jack_get_sample_rate) X(jack_get_version_string)                       \
    X(jack_on_info_shutdown) X(jack_port_by_name) X(jack_port_connected_to)                    \
    X(jack_port_get_all_connections) X(jack_port_get_buffer) X(jack_port_get_latency_range)    \
    X(jack_port_name) X(jack_port_register) X(jack_port_set_latency_range)                     \
    X(jack_recompute_total_latencies) X(jack_set_buffer_size) X(jack_set_buffer_size_callback) \
    X(jack_set_error_function) X(jack_set_freewheel_callback) X(jack_set_info_function)        \
    X(jack_set_latency_callback) X(jack_set_process_callback) X(jack_set_xrun_callback)

typedef struct {
#define ES_JACK_SLOT(name) __typeof__(name) *name;
    ES_JACK_CALLS(ES_JACK_SLOT)
#undef ES_JACK_SLOT
} es_jack_api;

extern es_jack_api es_libjack;

/* Loads libjack.so.0 once (PipeWire's, when es_sound_server_route put its
 * folder first): 1, or 0 with why in `why` (n may be 0). */
int es_jack_load(char *why, size_t n);

#ifndef ES_JACK_LOADER
#define jack_activate (es_libjack.jack_activate)
#define jack_client_close (es_libjack.jack_client_close)
#define jack_client_open (es_libjack.jack_client_open)
#define jack_connect (es_libjack.jack_connect)
#define jack_deactivate (es_libjack.jack_deactivate)
#define jack_free (es_libjack.jack_free)
#define jack_get_buffer_size (es_libjack.jack_get_buffer_size)
#define jack_get_client_name (es_libjack.jack_get_client_name)
#define jack_get_ports (es_libjack.jack_get_ports)
#define jack_get_sample_rate (es_libjack.jack_get_sample_rate)
#define jack_get_version_string (es_libjack.jack_get_version_string)
#define jack_on_info_shutdown (es_libjack.jack_on_info_shutdown)
#define jack_port_by_name (es_libjack.jack_port_by_name)
#define jack_port_connected_to (es_libjack.jack_port_connected_to)
#define jack_port_get_all_connections (es_libjack.jack_port_get_all_connections)
#define jack_port_get_buffer (es_libjack.jack_port_get_buffer)
#define jack_port_get_latency_range (es_libjack.jack_port_get_latency_range)
#define jack_port_name (es_libjack.jack_port_name)
#define jack_port_register (es_libjack.jack_port_register)
#define jack_port_set_latency_range (es_libjack.jack_port_set_latency_range)
#define jack_recompute_total_latencies (es_libjack.jack_recompute_total_latencies)
#define jack_set_buffer_size (es_libjack.jack_set_buffer_size)
#define jack_set_buffer_size_callback (es_libjack.jack_set_buffer_size_callback)
#define jack_set_error_function (es_libjack.jack_set_error_function)
#define jack_set_freewheel_callback (es_libjack.jack_set_freewheel_callback)
#define jack_set_info_function (es_libjack.jack_set_info_function)
#define jack_set_latency_callback (es_libjack.jack_set_latency_callback)
#define jack_set_process_callback (es_libjack.jack_set_process_callback)
#define jack_set_xrun_callback (es_libjack.jack_set_xrun_callback)
#endif

#endif
