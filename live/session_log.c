/* The session log (session_log.h): lines put together in memory under the
 * log's lock and written whole, each with one write(2). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/json.h"
#include "figures.h"
#include "session_log.h"

/* A line's most: a command line (8 KB at most) and its reply, escaped,
 * with the figures. */
#define LOG_LINE_MAX 32768

struct es_session_log {
    pthread_mutex_t lock;
    int fd;
    long long opened_ns;
    char figures[2048];        /* the last poll's, as a JSON object */
    char line[LOG_LINE_MAX];
};

es_session_log *es_session_log_open(const char *path, char *err, size_t n)
{
    /* O_NONBLOCK: a FIFO with no reader is refused at once, not waited on. */
    const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(err, n, "--log %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, n, "--log %s: not a regular file (a log is appended to a file)", path);
        close(fd);
        return NULL;
    }
    (void)fcntl(fd, F_SETFL, O_APPEND); /* a full disk is an error, not a wait */
    es_session_log *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, n, "--log %s: out of memory", path);
        close(fd);
        return NULL;
    }
    pthread_mutex_init(&l->lock, NULL);
    l->fd = fd;
    l->opened_ns = es_now_ns();
    snprintf(l->figures, sizeof l->figures, "{}");
    return l;
}

void es_session_log_close(es_session_log *l)
{
    if (!l)
        return;
    close(l->fd);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

double es_session_log_seconds(const es_session_log *l)
{
    return 1e-9 * (double)(es_now_ns() - l->opened_ns);
}

void es_session_log_figures(es_session_log *l, const es_live_snapshot *s)
{
    if (!l)
        return;
    char buf[sizeof l->figures];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    if (!f)
        return;
    es_figures_json(s, 0, f);
    const int ok = !ferror(f) && ftell(f) < (long)sizeof buf - 1;
    fclose(f);
    pthread_mutex_lock(&l->lock);
    if (ok)
        memcpy(l->figures, buf, sizeof buf);
    pthread_mutex_unlock(&l->lock);
}

/* The UTC time now, ISO 8601 to the millisecond. */
static void wall_time(char *out, size_t n)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, n, "%.24s.%03dZ", day, (int)(ts.tv_nsec / 1000000));
}

/* Writes the line put together in l->line (under the lock): whole, or
 * not at all where the disk refuses it. */
static void write_line(es_session_log *l, FILE *f)
{
    fputc('\n', f);
    const long len = ftell(f);
    const int whole = !ferror(f) && len > 0 && len < (long)sizeof l->line;
    fclose(f);
    if (!whole)
        return;
    for (size_t done = 0; done < (size_t)len;) {
        const ssize_t w = write(l->fd, l->line + done, (size_t)len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* Opens the line: {"t":..,"time":"..", */
static FILE *begin(es_session_log *l)
{
    FILE *f = fmemopen(l->line, sizeof l->line, "w");
    if (!f)
        return NULL;
    char when[40];
    wall_time(when, sizeof when);
    fprintf(f, "{\"t\":%.6f,\"time\":\"%s\",", es_session_log_seconds(l), when);
    return f;
}

void es_session_log_command(es_session_log *l, const char *origin, const char *line,
                            const char *status, const char *reply)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    FILE *f = begin(l);
    if (f) {
        fputs("\"event\":\"command\",\"origin\":", f);
        es_json_string(f, origin);
        fputs(",\"command\":", f);
        es_json_string(f, line);
        fputs(",\"status\":", f);
        es_json_string(f, status);
        fputs(",\"reply\":", f);
        es_json_string(f, reply);
        fprintf(f, ",\"figures\":%s}", l->figures);
        write_line(l, f);
    }
    pthread_mutex_unlock(&l->lock);
}

void es_session_log_event(es_session_log *l, const char *kind, const char *fields)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    FILE *f = begin(l);
    if (f) {
        fputs("\"event\":", f);
        es_json_string(f, kind);
        fprintf(f, "%s%s}", fields && *fields ? "," : "", fields ? fields : "");
        write_line(l, f);
    }
    pthread_mutex_unlock(&l->lock);
}
