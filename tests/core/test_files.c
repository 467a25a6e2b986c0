/* core's text, line and file helpers on hostile input: escapes that leave
 * no control byte, UTF-8 judged as RFC 3629 does, JSON that stays valid,
 * line reads that keep within their buffer, opens that never block and
 * never take a FIFO or a folder for a file, links followed to their
 * target, and a file replaced whole through its link but never over a
 * FIFO. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/files.h"
#include "core/json.h"
#include "core/lines.h"
#include "core/text.h"

static int failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

/* 1 when s holds a byte a terminal takes for a control: C0, DEL, or any
 * byte >= 0x80 that is part of a C1 control or of no valid UTF-8. */
static int has_control(const char *s)
{
    for (const char *p = s; *p;) {
        unsigned cp;
        const int len = es_utf8_next(p, &cp);
        if (len < 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
            return 1;
        p += len;
    }
    return 0;
}

static void escapes(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"plain room", "plain room"},
        {"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x8e\xb5", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x8e\xb5"},
        {"\x1b[2Jgone", "\\x1b[2Jgone"},
        {"\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"},
        {"a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd"},
        {"del\x7f", "del\\x7f"},
        {"csi \xc2\x9b" "2J", "csi \\u009b2J"},
        {"bad \xff\xfe", "bad \\xff\\xfe"},
        {"overlong \xc0\xaf", "overlong \\xc0\\xaf"},
        {"surrogate \xed\xa0\x80", "surrogate \\xed\\xa0\\x80"},
        {"past \xf4\x90\x80\x80", "past \\xf4\\x90\\x80\\x80"},
        {"cut \xe2\x86", "cut \\xe2\\x86"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char out[256], what[600];
        es_text_escape(out, sizeof out, cases[k].in);
        snprintf(what, sizeof what, "escape case %zu gives '%s'", k, out);
        check(!strcmp(out, cases[k].want) && !has_control(out), what);
    }
    /* Cut only at a whole escape or character. */
    char small[8];
    es_text_escape(small, sizeof small, "ab\x1b\x1b");
    check(!strcmp(small, "ab\\x1b"), "a short buffer is cut before an escape, not inside it");
    es_text_escape(small, sizeof small, "abcdef\xc3\xa9");
    check(!strcmp(small, "abcdef"), "  and before a character, not inside it");
    char why[128];
    check(es_text_check("Stone nave, 60 \xc3\x97 25 m", why, sizeof why) == 0,
          "es_text_check takes valid UTF-8 text");
    check(es_text_check("a\x1b[31m", why, sizeof why) != 0 && strstr(why, "\\x1b") &&
              strstr(why, "byte 1"),
          "  and refuses ESC, naming it and where");
    check(es_text_check("x\xc2\x9b", why, sizeof why) != 0 && strstr(why, "\\u009b"),
          "  and a C1 control");
    check(es_text_check("x\xff", why, sizeof why) != 0 && strstr(why, "invalid UTF-8"),
          "  and invalid UTF-8");
}

static void json(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    es_json_string(f, "q\"b\\ \x1b[2J \xc2\x9b \xff \xc3\xa9\n");
    fclose(f);
    check(!strcmp(text, "\"q\\\"b\\\\ \\u001b[2J \\u009b \\ufffd \xc3\xa9\\n\""),
          "JSON: quote, backslash, ESC, C1, a bad byte and a newline escaped, UTF-8 kept");
    check(!has_control(text), "  with no control byte left");
    free(text);
}

/* A file of `text`, read back with a buffer of cap bytes. */
static void lines(void)
{
    char path[] = "/tmp/es_lines_XXXXXX";
    const int fd = mkstemp(path);
    FILE *w = fdopen(fd, "w");
    fputs("short\n", w);
    for (int k = 0; k < 100000; k++)
        fputc('x', w);
    fputs("\nafter\n", w);
    fwrite("nul\0x\n", 1, 6, w);
    fputs("no newline at the end", w);
    fclose(w);
    FILE *f = fopen(path, "r");
    char buf[64];
    size_t len;
    int got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_OK && !strcmp(buf, "short"), "lines: a short line whole");
    got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_LONG && len == sizeof buf - 1,
          "  a 100000-byte line: refused, 63 bytes kept, the rest skipped");
    got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_OK && !strcmp(buf, "after"), "  the next line read whole after it");
    got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_NUL, "  a NUL byte in a line is said");
    got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_OK && !strcmp(buf, "no newline at the end"),
          "  a last line without a newline is a line");
    got = es_line_read(f, buf, sizeof buf, &len);
    check(got == ES_LINE_END, "  then the end");
    fclose(f);
    unlink(path);
}

static void opens(void)
{
    char dir[] = "/tmp/es_files_XXXXXX", path[600], err[700];
    if (!mkdtemp(dir)) {
        check(0, "a folder to work in (mkdtemp)");
        return;
    }
    snprintf(path, sizeof path, "%s/fifo", dir);
    mkfifo(path, 0600);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fd = es_open_regular(path, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    check(fd < 0 && strstr(err, "a FIFO, not a regular file") && took < 1,
          "open: a FIFO with no writer is refused at once");
    fd = es_open_regular(dir, err, sizeof err);
    check(fd < 0 && strstr(err, "a folder"), "  a folder is refused");
    fd = es_open_regular("/dev/zero", err, sizeof err);
    check(fd < 0 && strstr(err, "a character device"), "  /dev/zero is refused");
    snprintf(path, sizeof path, "%s/none", dir);
    fd = es_open_regular(path, err, sizeof err);
    check(fd < 0 && strstr(err, "No such file"), "  a missing file names why");
    snprintf(path, sizeof path, "%s/real.txt", dir);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    chmod(path, 0600);
    fd = es_open_regular(path, err, sizeof err);
    check(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK), "  a regular file opens, blocking");
    if (fd >= 0)
        close(fd);

    /* Links: a chain with a relative step, to a file that may not exist. */
    char link1[600], link2[600], target[700], followed[4096];
    snprintf(link1, sizeof link1, "%s/link1", dir);
    snprintf(link2, sizeof link2, "%s/link2", dir);
    check(symlink("link2", link1) == 0 && symlink(path, link2) == 0, "  links made");
    check(es_path_follow(link1, followed, sizeof followed, err, sizeof err) == 0 &&
              !strcmp(followed, path),
          "follow: two links, one relative, lead to the file");
    char loop[600];
    snprintf(loop, sizeof loop, "%s/loop", dir);
    check(symlink("loop", loop) == 0, "  a looping link made");
    check(es_path_follow(loop, followed, sizeof followed, err, sizeof err) != 0 &&
              strstr(err, "symbolic links"),
          "  a link to itself is refused, not followed for ever");

    /* es_file_replace through the link: the link stays, the target gets
     * the new text and keeps its permissions. */
    check(es_file_replace(link1, "new\n", 4, 0644, err, sizeof err) == 0,
          "replace: through a link");
    struct stat st;
    lstat(link1, &st);
    const int still_link = S_ISLNK(st.st_mode);
    stat(path, &st);
    char text[16] = "";
    f = fopen(path, "r");
    if (f) {
        (void)!fgets(text, sizeof text, f);
        fclose(f);
    }
    check(still_link && !strcmp(text, "new\n") && (st.st_mode & 0777) == 0600,
          "  the link kept, its target replaced, mode 0600 kept");
    snprintf(target, sizeof target, "%s/fifo", dir);
    check(es_file_replace(target, "x", 1, 0644, err, sizeof err) != 0 &&
              strstr(err, "a FIFO") && (stat(target, &st) == 0 && S_ISFIFO(st.st_mode)),
          "  a FIFO is refused and left a FIFO");
    check(es_same_file(link1, path) && !es_same_file(path, target) && !es_same_file("-", path),
          "same file: by device and inode through a link; '-' is no file");
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    (void)!system(cmd);
}

int main(void)
{
    escapes();
    json();
    lines();
    opens();
    return failed;
}
