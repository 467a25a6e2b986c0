/* PortAudio-specific entry points outside the device contract (internal). */
#ifndef ES_DEVICE_PORTAUDIO_H
#define ES_DEVICE_PORTAUDIO_H

#include <stdio.h>

/* Pa_Initialize with ALSA's scan noise kept off stderr. 0 or -1. */
int es_portaudio_init(void);
/* Every PortAudio device: name, host API, channels, default rate. 0 or -1. */
int es_portaudio_list(FILE *to, int json);

#endif
