/* earshot devices: where earshot can play. */
#include <stdio.h>
#include <string.h>

#include "core/args.h"
#include "core/json.h"
#include "app.h"
#include "device.h"
#include "sound_server.h"

/* Which sound server answers, and what its graph runs: what --device
 * pipewire and jack would play on, at which rate and period. */
static void servers(int json)
{
    char where[128] = "";
    const int pipewire = es_pipewire_answers(where, sizeof where);
    es_jack_graph g;
    const int jack = es_jack_graph_read(&g, 1) == 0;
    if (json) {
        printf("{\"server\":\"pipewire\",\"answers\":%s,\"socket\":", pipewire ? "true" : "false");
        es_json_string(stdout, where);
        printf(",\"jack_library\":%s}\n", es_pipewire_jack_dir() ? "true" : "false");
        printf("{\"server\":\"jack\",\"answers\":%s,\"pipewire\":%s,\"rate\":%d,"
               "\"period\":%d}\n", jack ? "true" : "false", g.pipewire ? "true" : "false", g.rate,
               g.period);
        return;
    }
    printf("\nsound servers\n");
    if (pipewire)
        printf("  PipeWire answers at %s%s\n", where,
               g.pipewire ? "; --device pipewire plays through its JACK library"
               : es_pipewire_jack_dir() ? ""
               : "; its JACK library (package pipewire-jack) is not installed: --device "
                 "pipewire plays through its ALSA plugin, with PortAudio's ALSA figures");
    else
        printf("  PipeWire: no daemon answers%s%s\n", where[0] ? " at " : "", where);
    if (jack)
        printf("  JACK%s: rate %d Hz, period (quantum) %d frames, playback ports report %d "
               "frames, capture %d\n", g.pipewire ? " (PipeWire's library)" : "", g.rate,
               g.period, g.playback_latency, g.capture_latency);
    else
        printf("  JACK: no server answers\n");
}

void es_devices_help(FILE *to)
{
    fputs("\nDevices (--device NAME; earshot devices lists the sound devices):\n", to);
    es_device_names_help(to);
}

int es_cmd_devices(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: earshot devices [--json]\n"
                   "Lists the devices earshot can play on, a line each (name, host API,\n"
                   "channels, default rate), then says which sound server answers\n"
                   "(PipeWire, JACK) and the rate and period its graph runs. The names\n"
                   "earshot play --device takes are below.\n");
            es_devices_help(stdout);
            return 0;
        } else {
            es_error("devices: unknown option '%s'", argv[i]);
            return 2;
        }
    }
    es_app_route_device(NULL); /* on PipeWire's JACK library, as play would be */
    char why[256];
    if (es_device_list(stdout, json, why, sizeof why) != 0) {
        es_error("devices: %s", why);
        return 1;
    }
    servers(json);
    return 0;
}
