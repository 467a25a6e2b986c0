/* Locking memory for the audio thread (core/rt_memory.h says why).
 *
 * With no limit to keep to (root, CAP_IPC_LOCK, or RLIMIT_MEMLOCK
 * unlimited, as the `audio` group's limits give): future mappings by
 * mlockall(MCL_FUTURE), current ones by mlock, one mapping of
 * /proc/self/maps at a time, so that a mapping can be left out (where
 * mlockall(MCL_CURRENT) would page in all 270 MB of cuFFT's kernels).
 *
 * Under a limit (Debian's default for a user is 8 MB): never MCL_FUTURE.
 * Once the locks reach the limit, every later mapping made under
 * MCL_FUTURE fails (malloc, thread stacks, an engine's buffers), which
 * is worse than any page fault. So the mappings there are now are locked
 * in the order the audio thread needs them (the program's own code and
 * data, the stack, the heap, the maths libraries it calls) while the
 * limit lasts, and what was left out is said. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/rt_memory.h"

/* Libraries whose code runs only on a GPU engine's worker thread, or on
 * the GPU. */
static const char *const skipped[] = {"/libcuda.so", "/libcudart.so", "/libcufft.so",
                                      "/libcublas", "/libnvrtc", "/libnvJitLink", NULL};

/* What the audio thread runs through, in the order a limit is spent on
 * it (the program itself is matched by /proc/self/exe's path). */
static const char *const audio_path[] = {"[stack]", "[heap]", "/libfftw3f", "/libc.so",
                                         "/libm.so", "/libgcc_s", NULL};

int es_rt_memory_skipped(const char *path)
{
    for (int k = 0; skipped[k]; k++)
        if (strstr(path, skipped[k]))
            return 1;
    return 0;
}

/* 1 when the process may lock beyond RLIMIT_MEMLOCK: CAP_IPC_LOCK (bit
 * 14 of the effective capabilities; root has it). */
static int may_lock_beyond_limit(void)
{
    FILE *st = fopen("/proc/self/status", "r");
    if (!st)
        return geteuid() == 0;
    char line[256];
    unsigned long long caps = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, st))
        found = sscanf(line, "CapEff: %llx", &caps) == 1;
    fclose(st);
    return found ? (int)((caps >> 14) & 1) : geteuid() == 0;
}

/* 1 when a mapping is the audio thread's (the program's own or one of
 * audio_path's). */
static int on_audio_path(const char *path, const char *self)
{
    if (self[0] && !strcmp(path, self))
        return 1;
    for (int k = 0; audio_path[k]; k++)
        if (strstr(path, audio_path[k]))
            return 1;
    return 0;
}

typedef struct {
    unsigned long long wanted, locked; /* bytes */
    unsigned long long budget;         /* at most this many locked (0: no bound) */
    int failed, first_errno;
} lock_tally;

/* Locks the readable mappings of /proc/self/maps: pass 0 those on the
 * audio path, pass 1 the rest (both passes when `audio_first` is 0). */
static void lock_mappings(FILE *maps, int pass, int audio_first, const char *self, lock_tally *t)
{
    char line[4096];
    rewind(maps);
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
        if (audio_first && on_audio_path(path, self) != (pass == 0))
            continue;
        t->wanted += end - start;
        if (t->budget && t->locked + (end - start) > t->budget)
            continue; /* past what is ours to spend: left for the libraries */
        if (mlock((void *)start, end - start) == 0)
            t->locked += end - start;
        else if (!t->failed++)
            t->first_errno = errno;
    }
}

int es_rt_memory_lock(char *why, size_t n)
{
    struct rlimit lim;
    int limited = getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
                  !may_lock_beyond_limit();
    if (!limited && mlockall(MCL_FUTURE) != 0) {
        snprintf(why, n, "memory not locked (%s)", strerror(errno));
        return -1;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) { /* no /proc: everything, as mlockall has always done */
        if (limited || mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
            return limited ? -1 : 0;
        snprintf(why, n, "memory not locked (%s)", strerror(errno));
        return -1;
    }
    char self[4096] = "";
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    /* Under a limit, half of it (at most 4 MB) is left for the libraries
     * that lock memory of their own: libjack locks its shared memory when
     * a client opens, and fails to open one when it cannot (a user's
     * earshot found no JACK server once its own locks had spent all 8 MB). */
    const unsigned long long reserve =
        limited ? (lim.rlim_cur / 2 < (4u << 20) ? lim.rlim_cur / 2 : (4u << 20)) : 0;
    lock_tally t = {.budget = limited ? lim.rlim_cur - reserve : 0};
    for (int pass = 0; pass < (limited ? 2 : 1); pass++)
        lock_mappings(maps, pass, limited, self, &t);
    fclose(maps);
    if (limited) {
        if (t.locked == t.wanted)
            snprintf(why, n, "the locked-memory limit (%.1f MB) holds what is mapped now, not "
                     "the rooms' buffers made later",
                     (double)lim.rlim_cur / 1048576.0);
        else
            snprintf(why, n, "the locked-memory limit (%.1f MB) holds %.1f of %.1f MB, the "
                     "audio path's code first, %.1f MB left for JACK's; the rest and the "
                     "rooms' buffers are not locked",
                     (double)lim.rlim_cur / 1048576.0, (double)t.locked / 1048576.0,
                     (double)t.wanted / 1048576.0, (double)reserve / 1048576.0);
        return -1;
    }
    if (t.failed && t.first_errno != ENOMEM && t.first_errno != EPERM && t.first_errno != EAGAIN)
        t.failed = 0; /* a mapping that cannot be locked (a device's), not a limit */
    if (t.failed) {
        snprintf(why, n, "memory not all locked (%d mappings: %s)", t.failed,
                 strerror(t.first_errno));
        return -1;
    }
    return 0;
}
