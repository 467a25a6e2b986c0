/* PortAudio's table (portaudio_loaded.h). */
#define ES_PORTAUDIO_LOADER
#include "core/library_loader.h"
#include "portaudio_loaded.h"

es_portaudio_api es_libportaudio;

#define ES_PORTAUDIO_NAME(name) #name,
static const char *const names[] = {ES_PORTAUDIO_CALLS(ES_PORTAUDIO_NAME)};

static es_dl_table portaudio = {.soname = "libportaudio.so.2", .names = names,
                               .table = &es_libportaudio,
                               .count = (int)(sizeof names / sizeof *names),
                               .once = PTHREAD_ONCE_INIT};

static void open_portaudio(void)
{
    _Static_assert(sizeof es_libportaudio ==
                       sizeof names / sizeof *names * sizeof(void (*)(void)),
                   "one function pointer a call");
    es_dl_table_open(&portaudio);
}

int es_portaudio_load(char *why, size_t n)
{
    return es_dl_table_load(&portaudio, open_portaudio, why, n);
}
