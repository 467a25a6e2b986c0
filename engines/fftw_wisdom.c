/* FFTW wisdom kept between runs. FFTW_MEASURE plans time several
 * algorithms for each transform size; wisdom is FFTW's record of the
 * winners, so a size measured once is planned instantly afterwards. The
 * file is read when a program starts and written back, whole and by
 * rename, only when planning learned something new. Planner calls only,
 * under the planner lock: never on the audio thread. */
#include <errno.h>
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files.h"
#include "fftw_planner.h"

/* Planning measured a transform the wisdom did not hold (or the file was
 * damaged): only then is the file written. Knowing it this way, not by
 * exporting the wisdom at start to compare at exit, spares every command
 * two exports, each an MD5 over FFTW's solvers: 5 % of a small room's
 * render. Under the planner lock. */
static int learned;

void es_fftw_wisdom_learned(void)
{
    learned = 1;
}

const char *es_fftw_wisdom_default_path(char *buf, size_t n)
{
    const char *set = getenv("EARSHOT_WISDOM");
    if (set)
        return (*set && strcmp(set, "off") != 0) ? set : NULL;
    return es_xdg_path(buf, n, "XDG_CACHE_HOME", ".cache", "earshot/fftwf.wisdom") == 0 ? buf
                                                                                      : NULL;
}

int es_fftw_wisdom_load(const char *path, char *err, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return 0;
    /* A regular file only: EARSHOT_WISDOM naming a FIFO or a device would
     * hold every command at its start. */
    char why[600];
    FILE *f = es_fopen_regular(path, why, sizeof why);
    if (!f) {
        snprintf(err, n, "FFTW wisdom %s; planning from scratch", why);
        return -2;
    }
    es_fftw_planner_lock();
    const int ok = fftwf_import_wisdom_from_file(f);
    if (!ok)
        learned = 1; /* written again after this run */
    es_fftw_planner_unlock();
    fclose(f);
    if (!ok) {
        snprintf(err, n, "FFTW wisdom '%s' is damaged or from another FFTW; ignored (it is "
                 "rewritten after this run)", path);
        return -1;
    }
    return 1;
}

/* mkdir -p of the file's folder. */
static int make_folder(const char *path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -1;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int es_fftw_wisdom_save(const char *path, char *err, size_t n)
{
    es_fftw_planner_lock();
    char *wisdom = learned ? fftwf_export_wisdom_to_string() : NULL;
    es_fftw_planner_unlock();
    if (!wisdom)
        return 0; /* nothing new */
    /* Through a link to the file it names, and never over something that
     * is not a regular file (EARSHOT_WISDOM=/dev/null as root would
     * otherwise replace the system's /dev/null). */
    char why[4400];
    if (make_folder(path) != 0 ||
        es_file_replace(path, wisdom, strlen(wisdom), 0644, why, sizeof why) != 0) {
        snprintf(err, n, "FFTW wisdom not saved: %s", why);
        free(wisdom);
        return -1;
    }
    es_fftw_planner_lock();
    learned = 0;
    es_fftw_planner_unlock();
    free(wisdom);
    return 1;
}

static char program_path[4096];
static const char *program_wisdom;

void es_fftw_wisdom_open(FILE *notice)
{
    char err[4400];
    program_wisdom = es_fftw_wisdom_default_path(program_path, sizeof program_path);
    if (program_wisdom && es_fftw_wisdom_load(program_wisdom, err, sizeof err) < 0 && notice)
        fprintf(notice, "earshot: note: %s\n", err);
}

void es_fftw_wisdom_close(FILE *notice)
{
    char err[4400];
    if (program_wisdom && es_fftw_wisdom_save(program_wisdom, err, sizeof err) < 0 && notice)
        fprintf(notice, "earshot: note: %s\n", err);
    program_wisdom = NULL;
}
