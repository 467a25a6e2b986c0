/* libjack's table (jack_loaded.h). */
#define ES_JACK_LOADER
#include "jack_loaded.h"
#include "core/library_loader.h"

es_jack_api es_libjack;

#define ES_JACK_NAME(name) #name,
static const char *const names[] = {ES_JACK_CALLS(ES_JACK_NAME)};

static es_dl_table jack = {.soname = "libjack.so.0", .names = names, .table = &es_libjack,
                          .count = (int)(sizeof names / sizeof *names),
                          .once = PTHREAD_ONCE_INIT};

static void open_jack(void)
{
    _Static_assert(sizeof es_libjack == sizeof names / sizeof *names * sizeof(void (*)(void)),
                   "one function pointer a call");
    es_dl_table_open(&jack);
}

int es_jack_load(char *why, size_t n)
{
    return es_dl_table_load(&jack, open_jack, why, n);
}
