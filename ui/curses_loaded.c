/* ncurses's table (curses_loaded.h). */
#define ES_CURSES_LOADER
#include "curses_loaded.h"
#include "core/library_loader.h"

es_curses_api es_libcurses;

#define ES_CURSES_NAME(name) #name,
static const char *const names[] = {ES_CURSES_CALLS(ES_CURSES_NAME)
                                        ES_CURSES_VARIABLES(ES_CURSES_NAME)};

/* The library the build compiled against: ncurses's ABI 6, as Debian's
 * libncurses6 installs it. */
static es_dl_table curses = {.soname = "libncurses.so.6", .names = names,
                             .table = &es_libcurses,
                             .count = (int)(sizeof names / sizeof *names),
                             .once = PTHREAD_ONCE_INIT};

static void open_curses(void)
{
    _Static_assert(sizeof es_libcurses == sizeof names / sizeof *names * sizeof(void *),
                   "one pointer a name");
    es_dl_table_open(&curses);
}

int es_curses_load(char *why, size_t n)
{
    return es_dl_table_load(&curses, open_curses, why, n);
}
