/* es_sofa_load: a SOFA file read in a child process, with a time limit.
 *
 * libmysofa 1.3 loops for ever on some damaged files (the fuzz target found
 * one: 100 s of CPU and counting, a third of it in system calls), and a
 * reader of HDF5 written by other people can crash on what it was never
 * shown. Neither may take the workstation with it. So the child reads the
 * file (es_sofa_read), writes the set or its one-line refusal into an
 * anonymous memory file, and exits; the parent waits for it up to
 * es_sofa_time_limit, kills it past that, and reads the answer back,
 * checking every size against the limits sofa.c reads by. Whatever went
 * wrong, the caller gets one line naming the file.
 *
 * The child does not read in the copy fork made: a process of several
 * threads (the live session: the preparer forks while the file source's
 * and the audio's threads run) may be forked while another thread holds a
 * lock of the allocator's, and then the child's first malloc waits for
 * ever (seen with ASan's allocator, which has no fork handlers). So the
 * child execs this same program afresh (/proc/self/exe), which reads the
 * file before main (sofa_reader_entry: the request comes in the
 * environment, made before the fork), and only where the exec fails does
 * the forked copy read itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/files.h"
#include "sofa.h"

#define ANSWER_MAGIC 0x53464131u /* "SFA1" */

/* What the child hands back ahead of the poses and the filters. */
typedef struct {
    uint32_t magic;
    int32_t ok;
    char err[512];
    char convention[48];
    int32_t varies, count, inputs, outputs, taps;
    int32_t emitters; /* 1: the emitters' positions follow the poses */
    int32_t field_order, field_norm; /* an AmbisonicsDRIR's (sofa.h) */
    double file_rate, rate, max_delay;
} answer_head;

double es_sofa_time_limit(long long bytes)
{
    return 10.0 + (bytes > 0 ? (double)bytes / 20e6 : 0);
}

/* The child's half: read, write the answer, exit. Only _exit: the
 * parent's atexit handlers and buffered streams are not the child's. */
static _Noreturn void child_reads(int out, const char *path, double rate, double limit)
{
    /* Gone with the thread that waits for it, and never past its limit
     * even if nobody waits. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm((unsigned)limit + 2);
    answer_head head = {.magic = ANSWER_MAGIC};
    es_sofa *s = es_sofa_read(path, rate, head.err, sizeof head.err);
    if (!s)
        _exit(es_fd_write_all(out, &head, sizeof head) == 0 ? 0 : 1);
    head.ok = 1;
    memcpy(head.convention, s->convention, sizeof head.convention);
    head.varies = (int32_t)s->varies;
    head.count = s->count;
    head.inputs = s->inputs;
    head.outputs = s->outputs;
    head.taps = s->taps;
    head.file_rate = s->file_rate;
    head.rate = s->rate;
    head.max_delay = s->max_delay;
    head.field_order = s->field_order;
    head.field_norm = (int32_t)s->field_norm;
    head.emitters = s->emitter != NULL;
    int bad = es_fd_write_all(out, &head, sizeof head) ||
              es_fd_write_all(out, s->pose, (size_t)s->count * sizeof *s->pose) ||
              (s->emitter &&
               es_fd_write_all(out, s->emitter, (size_t)s->inputs * sizeof *s->emitter));
    const size_t rows = (size_t)s->inputs * (size_t)s->outputs;
    for (int m = 0; !bad && m < s->count; m++)
        for (size_t r = 0; !bad && r < rows; r++) {
            const float *row = s->sets[m]->taps[r];
            const uint8_t present = row != NULL;
            bad = es_fd_write_all(out, &present, 1) ||
                  (present && es_fd_write_all(out, row, (size_t)s->taps * sizeof(float)));
        }
    _exit(bad ? 1 : 0);
}

/* The request a reader started afresh finds in its environment. */
#define READER_FD "EARSHOT_SOFA_READER_FD"
#define READER_RATE "EARSHOT_SOFA_READER_RATE"
#define READER_LIMIT "EARSHOT_SOFA_READER_LIMIT"
#define READER_PATH "EARSHOT_SOFA_READER_PATH"

/* Before main, in every program that reads SOFA: a process started to
 * read one (es_sofa_load's child, exec'd) reads it and exits here. */
__attribute__((constructor)) static void sofa_reader_entry(void)
{
    const char *fd = getenv(READER_FD), *rate = getenv(READER_RATE);
    const char *limit = getenv(READER_LIMIT), *path = getenv(READER_PATH);
    if (!fd || !rate || !limit || !path)
        return;
    child_reads(atoi(fd), path, atof(rate), atof(limit));
}

extern char **environ;

/* The environment of a reader started afresh: this one's, less any
 * reader's request, and this request. NULL when out of memory; free with
 * free_environment. */
static char **reader_environment(int fd, const char *path, double rate, double limit)
{
    size_t count = 0;
    while (environ && environ[count])
        count++;
    char **env = calloc(count + 5, sizeof *env);
    size_t at = 0;
    for (size_t k = 0; env && k < count; k++)
        if (strncmp(environ[k], "EARSHOT_SOFA_READER_", 20) != 0)
            env[at++] = environ[k];
    char *own[4] = {malloc(64), malloc(64), malloc(64), malloc(strlen(path) + 40)};
    if (!env || !own[0] || !own[1] || !own[2] || !own[3]) {
        for (int k = 0; k < 4; k++)
            free(own[k]);
        free(env);
        return NULL;
    }
    snprintf(own[0], 64, "%s=%d", READER_FD, fd);
    snprintf(own[1], 64, "%s=%.17g", READER_RATE, rate);
    snprintf(own[2], 64, "%s=%.17g", READER_LIMIT, limit);
    snprintf(own[3], strlen(path) + 40, "%s=%s", READER_PATH, path);
    for (int k = 0; k < 4; k++)
        env[at++] = own[k];
    return env;
}

static void free_environment(char **env)
{
    size_t k = 0;
    while (env && env[k] && strncmp(env[k], "EARSHOT_SOFA_READER_", 20) != 0)
        k++;
    for (; env && env[k]; k++)
        free(env[k]);
    free(env);
}

/* Waits up to `limit` seconds for the child to end; its status in
 * *status. 1: it ended; 0: time ran out. The pipe wakes the wait as soon
 * as the child exits (its end closes); the poll is also cut to 100 ms, as
 * another thread's fork may hold a copy of that end for a while. */
static int wait_child(pid_t pid, int done, double limit, int *status)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        const pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return 1;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        const double left = limit - ((double)(t.tv_sec - t0.tv_sec) +
                                     1e-9 * (double)(t.tv_nsec - t0.tv_nsec));
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = done, .events = POLLIN};
        poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100);
    }
}

/* The parent's half: the answer in `in` (at its start), checked. */
static es_sofa *read_answer(int in, const char *path, char *err, size_t n)
{
    answer_head head;
    if (es_fd_read_all(in, &head, sizeof head) != 0 || head.magic != ANSWER_MAGIC) {
        snprintf(err, n, "%s: its reader gave no answer", path);
        return NULL;
    }
    if (!head.ok) {
        head.err[sizeof head.err - 1] = '\0';
        snprintf(err, n, "%s", head.err);
        return NULL;
    }
    head.convention[sizeof head.convention - 1] = '\0';
    const double samples = (double)head.count * head.inputs * head.outputs * head.taps;
    if (head.count < 1 || head.inputs < 1 || head.outputs < 1 || head.taps < 1 ||
        head.taps > ES_SOFA_TAPS_MAX || samples > ES_SOFA_SAMPLES_MAX ||
        head.varies < ES_SOFA_SOURCE || head.varies > ES_SOFA_REFITTED ||
        head.field_order < 0 || head.field_order > ES_AMBI_ORDER_MAX ||
        (head.field_order && ES_AMBI_CHANNELS(head.field_order) != head.outputs) ||
        head.field_norm < ES_AMBI_SN3D || head.field_norm > ES_AMBI_FUMA) {
        snprintf(err, n, "%s: its reader's answer does not hold together", path);
        return NULL;
    }
    es_sofa *s = calloc(1, sizeof *s);
    if (!s || !(s->pose = calloc((size_t)head.count, sizeof *s->pose)) ||
        !(s->sets = calloc((size_t)head.count, sizeof *s->sets))) {
        es_sofa_free(s);
        snprintf(err, n, "%s: out of memory", path);
        return NULL;
    }
    memcpy(s->convention, head.convention, sizeof s->convention);
    s->varies = (es_sofa_varies)head.varies;
    s->count = head.count;
    s->inputs = head.inputs;
    s->outputs = head.outputs;
    s->taps = head.taps;
    s->file_rate = head.file_rate;
    s->rate = head.rate;
    s->max_delay = head.max_delay;
    s->field_order = head.field_order;
    s->field_norm = (es_ambi_norm)head.field_norm;
    if (es_fd_read_all(in, s->pose, (size_t)s->count * sizeof *s->pose) != 0)
        goto short_answer;
    if (head.emitters && !(s->emitter = calloc((size_t)s->inputs, sizeof *s->emitter)))
        goto no_memory;
    if (s->emitter && es_fd_read_all(in, s->emitter, (size_t)s->inputs * sizeof *s->emitter))
        goto short_answer;
    for (int m = 0; m < s->count; m++) {
        es_ir *ir = s->sets[m] = es_ir_create(s->inputs, s->outputs, s->taps, s->rate);
        if (!ir)
            goto no_memory;
        for (int i = 0; i < s->inputs; i++)
            for (int o = 0; o < s->outputs; o++) {
                uint8_t present;
                if (es_fd_read_all(in, &present, 1) != 0)
                    goto short_answer;
                if (!present)
                    continue;
                float *row = es_ir_path(ir, i, o);
                if (!row)
                    goto no_memory;
                if (es_fd_read_all(in, row, (size_t)s->taps * sizeof(float)) != 0)
                    goto short_answer;
            }
    }
    return s;
short_answer:
    es_sofa_free(s);
    snprintf(err, n, "%s: its reader's answer was cut short", path);
    return NULL;
no_memory:
    es_sofa_free(s);
    snprintf(err, n, "%s: out of memory", path);
    return NULL;
}

es_sofa *es_sofa_load(const char *path, double rate, char *err, size_t n)
{
    /* The checks that need no child: a FIFO would block it, and a name
     * that is not there is said as such. */
    const long long bytes = es_sofa_regular(path, err, n);
    if (bytes < 0)
        return NULL;
    const double limit = es_sofa_time_limit(bytes);
    int answer = memfd_create("earshot-sofa", MFD_CLOEXEC);
    int done[2];
    if (answer < 0 || pipe2(done, O_CLOEXEC) != 0) {
        if (answer >= 0)
            close(answer);
        snprintf(err, n, "%s: cannot start its reader (%s)", path, strerror(errno));
        return NULL;
    }
    char **env = reader_environment(answer, path, rate, limit);
    char *const argv[] = {"earshot-sofa-reader", NULL};
    const pid_t pid = fork();
    if (pid == 0) {
        close(done[0]);
        /* Both kept across the exec: the answer, and the pipe whose end
         * tells the parent the reader has gone. */
        fcntl(answer, F_SETFD, 0);
        fcntl(done[1], F_SETFD, 0);
        if (env)
            execve("/proc/self/exe", argv, env);
        child_reads(answer, path, rate, limit);
    }
    free_environment(env);
    close(done[1]);
    if (pid < 0) {
        snprintf(err, n, "%s: cannot start its reader (%s)", path, strerror(errno));
        close(done[0]);
        close(answer);
        return NULL;
    }
    int status = 0;
    const int finished = wait_child(pid, done[0], limit, &status);
    close(done[0]);
    if (!finished) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    es_sofa *s = NULL;
    if (!finished)
        snprintf(err, n, "%s: not read within %.0f s (libmysofa loops on some damaged files): "
                 "damaged?", path, limit);
    else if (WIFSIGNALED(status))
        snprintf(err, n, "%s: its reader (libmysofa, or HDF5 under netCDF) crashed on it "
                 "(signal %d): damaged",
                 path, WTERMSIG(status));
    else if (lseek(answer, 0, SEEK_SET) == 0)
        s = read_answer(answer, path, err, n);
    else
        snprintf(err, n, "%s: its reader's answer cannot be read (%s)", path, strerror(errno));
    close(answer);
    return s;
}
