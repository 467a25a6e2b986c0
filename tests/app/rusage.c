/* es_rusage: what a whole process cost, for the benchmarks that compare
 * earshot with other programs.
 *
 *   es_rusage OUT COMMAND [ARG...]
 *
 * Runs COMMAND (its output where this one's goes), waits for it, and
 * writes one line to OUT: its CPU seconds (user + system, to the
 * microsecond: bash's time gives milliseconds, GNU time hundredths), its
 * peak resident memory in KB, and its exit status. Exits with COMMAND's
 * status (127 when it could not be started). */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: es_rusage OUT COMMAND [ARG...]\n");
        return 2;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        perror("es_rusage: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("es_rusage: wait4");
        return 127;
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 127;
    }
    fprintf(out, "%.6f %ld %d\n",
            (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec,
            ru.ru_maxrss, code);
    fclose(out);
    return code;
}
