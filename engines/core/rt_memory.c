/* Locking memory for the audio thread (core/rt_memory.h says why). Future
 * mappings: mlockall(MCL_FUTURE). Current ones: mlock, one mapping of
 * /proc/self/maps at a time, so that a mapping can be left out (where
 * mlockall(MCL_CURRENT) would page in all 270 MB of cuFFT's kernels). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "core/rt_memory.h"

/* Libraries whose code runs only on a GPU engine's worker thread, or on
 * the GPU. */
static const char *const skipped[] = {"/libcuda.so", "/libcudart.so", "/libcufft.so",
                                      "/libcublas", "/libnvrtc", "/libnvJitLink", NULL};

int es_rt_memory_skipped(const char *path)
{
    for (int k = 0; skipped[k]; k++)
        if (strstr(path, skipped[k]))
            return 1;
    return 0;
}

int es_rt_memory_lock(char *why, size_t n)
{
    if (mlockall(MCL_FUTURE) != 0) {
        snprintf(why, n, "memory not locked (%s; RLIMIT_MEMLOCK too low?)", strerror(errno));
        return -1;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) /* no /proc: everything, as mlockall has always done */
        return mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : -1;
    char line[4096];
    int failed = 0, first_errno = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[8] = "", path[4096] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &start, &end, perms, path) < 3)
            continue;
        /* Guard pages (no access), the kernel's [vvar] (not all of it
         * can be touched) and the GPU libraries stay as they are. */
        if (perms[0] != 'r' || !strcmp(path, "[vvar]") || !strcmp(path, "[vsyscall]") ||
            es_rt_memory_skipped(path))
            continue;
        if (mlock((void *)start, end - start) != 0) {
            if (!failed++)
                first_errno = errno;
        }
    }
    fclose(maps);
    if (failed && first_errno != ENOMEM && first_errno != EPERM && first_errno != EAGAIN)
        failed = 0; /* a mapping that cannot be locked (a device's), not a limit */
    if (failed) {
        snprintf(why, n, "memory not all locked (%d mappings: %s; RLIMIT_MEMLOCK too low?)",
                 failed, strerror(first_errno));
        return -1;
    }
    return 0;
}
