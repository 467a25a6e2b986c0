/* The app tests' shared helpers (app_test.h). */
#define _DEFAULT_SOURCE /* realpath, mkdtemp */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "app_test.h"

char app_dir[256];
char app_earshot[4096], app_make_wav[4096];
int app_failures;

void app_test_start(const char *name, int argc, char **argv)
{
    if (argc < 3 || !realpath(argv[1], app_earshot) || !realpath(argv[2], app_make_wav)) {
        fprintf(stderr, "usage: %s EARSHOT MAKE_WAV (both there)\n", name);
        exit(2);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    snprintf(app_dir, sizeof app_dir, "/tmp/es-%s-XXXXXX", name);
    if (!mkdtemp(app_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    /* The test's own folders: nothing of the user's read or written (a
     * room a test makes, a decoder it caches). */
    setenv("XDG_CONFIG_HOME", app_dir, 1);
    setenv("XDG_DATA_HOME", app_dir, 1);
    setenv("XDG_CACHE_HOME", app_dir, 1);
    setenv("EARSHOT_WISDOM", "off", 1);
}

int app_test_end(void)
{
    app_sh("rm -rf '%s'", app_dir);
    printf("%s\n", app_failures ? "FAILED" : "PASSED");
    return app_failures ? 1 : 0;
}

void app_check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    app_failures += !ok;
}

int app_sh(const char *fmt, ...)
{
    char cmd[8192];
    const int used = snprintf(cmd, sizeof cmd, "cd '%s' && ", app_dir);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd + used, sizeof cmd - (size_t)used, fmt, ap);
    va_end(ap);
    const int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

void app_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", app_dir, name);
}

int app_line_with(const char *name, const char *text, char *line, size_t n)
{
    char p[512], buf[4096];
    app_path(p, sizeof p, name);
    FILE *f = fopen(p, "r");
    int found = 0;
    while (f && !found && fgets(buf, sizeof buf, f))
        if ((found = strstr(buf, text) != NULL) && line)
            snprintf(line, n, "%s", buf);
    if (f)
        fclose(f);
    return found;
}

int app_lines_with(const char *name, const char *text)
{
    char p[512], line[4096];
    app_path(p, sizeof p, name);
    FILE *f = fopen(p, "r");
    int count = 0;
    while (f && fgets(line, sizeof line, f))
        count += strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return count;
}

float **app_load(const char *name, es_audio_info *info)
{
    char p[512], err[512];
    app_path(p, sizeof p, name);
    float **ch = NULL;
    if (es_audiofile_load(p, &ch, info, err, sizeof err) != 0) {
        printf("FAIL %s\n", err);
        app_failures++;
        return NULL;
    }
    return ch;
}

size_t app_read(const char *name, char *buf, size_t n)
{
    char p[512];
    app_path(p, sizeof p, name);
    FILE *f = fopen(p, "r");
    size_t got = f ? fread(buf, 1, n - 1, f) : 0;
    buf[got] = 0;
    if (f)
        fclose(f);
    return got;
}
