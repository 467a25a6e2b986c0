/* cuFFT through dlopen (cufft_loaded.h). ES_CUFFT_PATH is the library the
 * build found, ES_CUFFT_SONAME its name for the loader's search path (a
 * toolkit moved, or installed elsewhere). */
#include <cstdio>
#include <dlfcn.h>
#include <pthread.h>

#include "cufft_loaded.h"

extern "C" {
es_cufft_api es_cufft;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[320];

/* A symbol's address into a function pointer of the table's type. */
template <typename F> static bool take(void *lib, const char *name, F *to)
{
    void *at = dlsym(lib, name);
    *to = reinterpret_cast<F>(at);
    if (!at)
        snprintf(failure, sizeof failure, "cuFFT (%s) has no %s", ES_CUFFT_SONAME, name);
    return at != nullptr;
}

static void load(void)
{
    void *lib = dlopen(ES_CUFFT_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen(ES_CUFFT_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *words = dlerror();
        snprintf(failure, sizeof failure, "cuFFT cannot be loaded: %s",
                 words ? words : ES_CUFFT_SONAME);
        return;
    }
    es_cufft_api a;
    loaded = take(lib, "cufftPlanMany", &a.plan_many) && take(lib, "cufftSetStream", &a.set_stream) &&
             take(lib, "cufftExecR2C", &a.exec_r2c) && take(lib, "cufftExecC2R", &a.exec_c2r) &&
             take(lib, "cufftGetSize", &a.get_size) && take(lib, "cufftDestroy", &a.destroy);
    if (loaded)
        es_cufft = a;
    /* Kept loaded for the process's life: plans made with it may live
     * until exit. */
}

extern "C" int es_cufft_load(char *why, size_t n)
{
    pthread_once(&once, load);
    if (!loaded)
        snprintf(why, n, "%s", failure);
    return loaded;
}
