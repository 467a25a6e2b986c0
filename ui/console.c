/* What libraries print on stderr while the screen is up (PortAudio, JACK,
 * ALSA: from any thread, the audio thread included) goes into a pipe
 * rather than over the screen. The pipe's write end is non-blocking: a
 * library that floods it loses text, it never waits. The screen's loop
 * reads the pipe each frame and turns each line into a message. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "console.h"

static int saved_fd = -1, read_fd = -1;
static char pending[512]; /* a line not ended yet */
static size_t pending_n;

int ui_console_begin(void)
{
    int p[2];
    fflush(stderr);
    if (pipe(p) != 0)
        return -1;
    saved_fd = dup(STDERR_FILENO);
    if (saved_fd < 0 || dup2(p[1], STDERR_FILENO) < 0) {
        close(p[0]);
        close(p[1]);
        if (saved_fd >= 0)
            close(saved_fd);
        saved_fd = -1;
        return -1;
    }
    close(p[1]);
    fcntl(STDERR_FILENO, F_SETFL, fcntl(STDERR_FILENO, F_GETFL) | O_NONBLOCK);
    fcntl(STDERR_FILENO, F_SETFD, FD_CLOEXEC);
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    read_fd = p[0];
    pending_n = 0;
    return 0;
}

/* Each complete line to `line`; a line longer than the buffer is cut. */
static void split(const char *buf, size_t n, void (*line)(void *, const char *), void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n' || pending_n == sizeof pending - 1) {
            pending[pending_n] = '\0';
            if (pending_n && line)
                line(ctx, pending);
            pending_n = 0;
            if (buf[i] == '\n')
                continue;
        }
        if (buf[i] != '\r')
            pending[pending_n++] = buf[i] == '\t' ? ' ' : buf[i];
    }
}

void ui_console_drain(void (*line)(void *ctx, const char *text), void *ctx)
{
    if (read_fd < 0)
        return;
    char buf[4096];
    ssize_t got;
    while ((got = read(read_fd, buf, sizeof buf)) > 0)
        split(buf, (size_t)got, line, ctx);
}

static void print_line(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "%s\n", text);
}

void ui_console_end(void)
{
    if (saved_fd < 0)
        return;
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    saved_fd = -1;
    /* What was not read yet goes where it was meant to go. */
    ui_console_drain(print_line, NULL);
    if (pending_n) {
        pending[pending_n] = '\0';
        fprintf(stderr, "%s\n", pending);
        pending_n = 0;
    }
    close(read_fd);
    read_fd = -1;
}
