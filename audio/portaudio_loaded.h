/* PortAudio's calls through a table loaded when first needed (internal to
 * audio/; core/library_loader.h says why). Include this, not <portaudio.h>:
 * the calls keep their names, each one a macro for its table entry.
 * portaudio_init (device_portaudio.c), every way in, loads it first. */
#ifndef ES_PORTAUDIO_LOADED_H
#define ES_PORTAUDIO_LOADED_H

#include <stddef.h>

#include <portaudio.h>

#define ES_PORTAUDIO_CALLS(X)                                                                  \
    X(Pa_CloseStream) X(Pa_GetDefaultInputDevice) X(Pa_GetDefaultOutputDevice)                 \
    X(Pa_GetDeviceCount) X(Pa_GetDeviceInfo) X(Pa_GetErrorText) X(Pa_GetHostApiCount)         \
    X(Pa_GetHostApiInfo) X(Pa_GetLastHostErrorInfo) X(Pa_GetStreamInfo) X(Pa_Initialize)      \
    X(Pa_IsStreamActive) X(Pa_OpenStream) X(Pa_SetStreamFinishedCallback) X(Pa_StartStream)   \
    X(Pa_StopStream) X(Pa_Terminate)

typedef struct {
#define ES_PORTAUDIO_SLOT(name) __typeof__(name) *name;
    ES_PORTAUDIO_CALLS(ES_PORTAUDIO_SLOT)
#undef ES_PORTAUDIO_SLOT
} es_portaudio_api;

extern es_portaudio_api es_libportaudio;

/* Loads libportaudio.so.2 once (and with it ALSA's and JACK's libraries):
 * 1, or 0 with why in `why` (n may be 0). */
int es_portaudio_load(char *why, size_t n);

#ifndef ES_PORTAUDIO_LOADER
#define Pa_CloseStream (es_libportaudio.Pa_CloseStream)
#define Pa_GetDefaultInputDevice (es_libportaudio.Pa_GetDefaultInputDevice)
#define Pa_GetDefaultOutputDevice (es_libportaudio.Pa_GetDefaultOutputDevice)
#define Pa_GetDeviceCount (es_libportaudio.Pa_GetDeviceCount)
#define Pa_GetDeviceInfo (es_libportaudio.Pa_GetDeviceInfo)
#define Pa_GetErrorText (es_libportaudio.Pa_GetErrorText)
#define Pa_GetHostApiCount (es_libportaudio.Pa_GetHostApiCount)
#define Pa_GetHostApiInfo (es_libportaudio.Pa_GetHostApiInfo)
#define Pa_GetLastHostErrorInfo (es_libportaudio.Pa_GetLastHostErrorInfo)
#define Pa_GetStreamInfo (es_libportaudio.Pa_GetStreamInfo)
#define Pa_Initialize (es_libportaudio.Pa_Initialize)
#define Pa_IsStreamActive (es_libportaudio.Pa_IsStreamActive)
#define Pa_OpenStream (es_libportaudio.Pa_OpenStream)
#define Pa_SetStreamFinishedCallback (es_libportaudio.Pa_SetStreamFinishedCallback)
#define Pa_StartStream (es_libportaudio.Pa_StartStream)
#define Pa_StopStream (es_libportaudio.Pa_StopStream)
#define Pa_Terminate (es_libportaudio.Pa_Terminate)
#endif

#endif
