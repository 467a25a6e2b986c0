/* es_no_netcdf: preloaded (LD_PRELOAD) to run earshot as on a machine
 * without libnetcdf. dlopen of it fails as the loader's would for a
 * library that is not installed; every other library loads. What
 * rooms/sofa.c does when libmysofa alone can read a file. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

typedef void *(*dlopen_fn)(const char *, int);

void *dlopen(const char *file, int mode)
{
    static dlopen_fn real;
    if (file && strstr(file, "libnetcdf"))
        return NULL;
    if (!real) {
        /* dlsym's data pointer as a function pointer by its bytes: POSIX
         * defines the conversion ISO C leaves open. */
        void *at = dlsym(RTLD_NEXT, "dlopen");
        memcpy(&real, &at, sizeof real);
    }
    return real ? real(file, mode) : NULL;
}
