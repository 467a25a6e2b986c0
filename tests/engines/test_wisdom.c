/* FFTW wisdom is saved and reused between runs:
 *   - no file yet: load says so (0), nothing fails;
 *   - an engine planned with FFTW_MEASURE, then save: the file (in a folder
 *     that did not exist) holds FFTW wisdom; a second save writes nothing;
 *   - with FFTW's memory wiped, a wisdom-only plan of the engine's
 *     transform is refused (so the next check can fail), and after loading
 *     the file it is granted: the measurement was reused, not redone;
 *   - a damaged file is a one-line error naming it, and planning goes on;
 *   - EARSHOT_WISDOM picks the file, and "off" turns wisdom off. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fftw_planner.h"

#define PART 1536 /* a 3072-point transform: not one FFTW has built in */

static int fail;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    fail |= !ok;
}

/* The forward plan cpu-partitioned makes for partition PART (a real
 * transform of 2P points, out of place, into interleaved bins), asking
 * FFTW only for what its wisdom already knows. */
static int wisdom_knows_engine_plan(void)
{
    const int size = 2 * PART;
    float *time = fftwf_alloc_real((size_t)size);
    fftwf_complex *bins = fftwf_alloc_complex((size_t)PART + 1);
    es_fftw_planner_lock();
    fftwf_plan p = fftwf_plan_dft_r2c_1d(size, time, bins, FFTW_MEASURE | FFTW_WISDOM_ONLY);
    if (p)
        fftwf_destroy_plan(p);
    es_fftw_planner_unlock();
    fftwf_free(time);
    fftwf_free(bins);
    return p != NULL;
}

static void plan_engine(void)
{
    es_ir *ir = es_ir_create(1, 1, 4 * PART, 48000);
    es_ir_path(ir, 0, 0)[0] = 1.0f;
    const es_format fmt = {.sample_rate = 48000, .max_block = PART, .inputs = 1, .outputs = 1};
    const es_options opt = {.partition = PART, .fft_measure = 1};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-partitioned"), &fmt, ir, &opt, err, sizeof err);
    check(e != NULL, "cpu-partitioned created with FFTW_MEASURE");
    es_engine_destroy(e);
    es_ir_destroy(ir);
}

int main(void)
{
    char dir[] = "/tmp/earshot-wisdom-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/new/folder/fftwf.wisdom", dir);

    check(es_fftw_wisdom_load(path, err, sizeof err) == 0, "no file yet: load returns 0");
    check(!wisdom_knows_engine_plan(), "before planning, FFTW has no wisdom for the size");
    plan_engine();
    check(es_fftw_wisdom_save(path, err, sizeof err) == 1, "save writes the file");
    FILE *f = fopen(path, "r");
    char head[32] = "";
    if (f) {
        if (!fgets(head, sizeof head, f))
            head[0] = '\0';
        fclose(f);
    }
    check(strncmp(head, "(fftw-3", 7) == 0, "the file holds FFTW wisdom");
    check(es_fftw_wisdom_save(path, err, sizeof err) == 0, "saving again writes nothing new");

    es_fftw_planner_lock();
    fftwf_forget_wisdom();
    es_fftw_planner_unlock();
    check(!wisdom_knows_engine_plan(), "wisdom forgotten: a wisdom-only plan is refused");
    check(es_fftw_wisdom_load(path, err, sizeof err) == 1, "load reads the file");
    check(wisdom_knows_engine_plan(), "after loading, the measured plan is reused");

    f = fopen(path, "w");
    if (f) {
        fputs("(not wisdom at all", f);
        fclose(f);
    }
    err[0] = '\0';
    const int damaged = es_fftw_wisdom_load(path, err, sizeof err);
    printf("     %s\n", err);
    check(damaged == -1 && strstr(err, path) && !strchr(err, '\n'),
          "a damaged file: -1 and one line naming it");
    plan_engine();

    char buf[256];
    setenv("EARSHOT_WISDOM", path, 1);
    const char *chosen = es_fftw_wisdom_default_path(buf, sizeof buf);
    check(chosen && !strcmp(chosen, path), "EARSHOT_WISDOM names the file");
    setenv("EARSHOT_WISDOM", "off", 1);
    check(es_fftw_wisdom_default_path(buf, sizeof buf) == NULL, "EARSHOT_WISDOM=off: none");
    unsetenv("EARSHOT_WISDOM");
    setenv("XDG_CACHE_HOME", dir, 1);
    chosen = es_fftw_wisdom_default_path(buf, sizeof buf);
    check(chosen && strstr(chosen, "/earshot/fftwf.wisdom"), "else the user's cache folder");

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("     (could not remove %s)\n", dir);
    return fail;
}
