/* dlopen and a table of dlsym'd calls (core/library_loader.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/library_loader.h"

void es_dl_table_open(es_dl_table *lib)
{
    void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *words = dlerror();
        snprintf(lib->failure, sizeof lib->failure, "%s cannot be loaded: %s", lib->soname,
                 words ? words : "not found");
        return;
    }
    for (int k = 0; k < lib->count; k++) {
        /* dlsym's data pointer into the table's function (or variable)
         * pointer by its bytes: the conversion ISO C leaves to the
         * platform and POSIX defines (every pointer here has one size). */
        void *at = dlsym(h, lib->names[k]);
        if (!at) {
            snprintf(lib->failure, sizeof lib->failure, "%s has no %s", lib->soname,
                     lib->names[k]);
            return; /* kept mapped: the process may have other users of it */
        }
        memcpy((char *)lib->table + (size_t)k * sizeof(void (*)(void)), &at, sizeof at);
    }
    lib->loaded = 1;
}

int es_dl_table_load(es_dl_table *lib, void (*once)(void), char *why, size_t n)
{
    pthread_once(&lib->once, once);
    if (!lib->loaded && n)
        snprintf(why, n, "%s", lib->failure);
    return lib->loaded;
}
