/* earshot devices: where earshot can play. */
#include <stdio.h>
#include <string.h>

#include "core/args.h"
#include "app.h"
#ifdef ES_HAVE_PORTAUDIO
#include "device_portaudio.h"
#endif

int es_cmd_devices(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: earshot devices [--json]\n"
                   "Lists the sound devices (PortAudio: name, host API, channels, default\n"
                   "rate) and the null device. Pass a name, a host API ('jack', 'alsa') or\n"
                   "part of a name to earshot play --device.\n");
            return 0;
        } else {
            es_error("devices: unknown option '%s'", argv[i]);
            return 2;
        }
    }
    if (json)
        printf("{\"name\":\"null\",\"host_api\":\"earshot\",\"inputs\":0,\"outputs\":64,"
               "\"default_rate\":48000}\n");
    else
        printf("%-32s %-26s %3d in %3d out  %6s\n", "null", "earshot (no sound card)", 0, 64,
               "any");
#ifdef ES_HAVE_PORTAUDIO
    if (es_portaudio_list(stdout, json) != 0) {
        es_error("devices: PortAudio could not start");
        return 1;
    }
#else
    fprintf(stderr, "earshot: note: built without PortAudio: only the null device\n");
#endif
    return 0;
}
