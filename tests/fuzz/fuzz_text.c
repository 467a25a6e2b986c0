/* Any bytes as text that reaches a terminal or a JSON report, and as the
 * lines of a file: the escaped form holds no control byte, C1 control or
 * invalid UTF-8; es_text_check accepts exactly what needs no escape; JSON
 * is valid UTF-8 with no raw control; a line read never overruns its
 * buffer and the lines account for every byte. A broken promise aborts. */
#define _GNU_SOURCE /* fmemopen, open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/lines.h"
#include "core/text.h"
#include "fuzz_util.h"

/* 1 when s is valid UTF-8 with no C0, DEL or C1 control, but \n and \t
 * where `allow_layout`. */
static int clean(const char *s, size_t len, int allow_layout)
{
    for (size_t at = 0; at < len;) {
        unsigned cp;
        const int n = es_utf8_next(s + at, &cp);
        if (n <= 0)
            return 0;
        const int layout = allow_layout && (cp == '\n' || cp == '\t');
        if (!layout && (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)))
            return 0;
        at += (size_t)n;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = fuzz_text(data, size);
    const size_t len = strlen(text); /* up to the first NUL, as a C string */
    char *out = malloc(4 * len + 16);
    if (!out)
        return 0;
    es_text_escape(out, 4 * len + 16, text);
    if (!clean(out, strlen(out), 0))
        abort();
    char why[128];
    if ((es_text_check(text, why, sizeof why) == 0) != (strcmp(out, text) == 0))
        abort();
    char small[9];
    es_text_escape(small, sizeof small, text);
    if (strlen(small) >= sizeof small || !clean(small, strlen(small), 0))
        abort();

    char *json = NULL, *put = NULL;
    size_t json_len = 0, put_len = 0;
    FILE *j = open_memstream(&json, &json_len);
    es_json_string(j, text);
    fclose(j);
    FILE *p = open_memstream(&put, &put_len);
    es_text_put(p, text);
    fclose(p);
    if (!clean(json, json_len, 0) || strcmp(put, out) != 0)
        abort();
    free(json);
    free(put);
    free(out);

    /* The bytes as a file of lines, read through a 32-byte buffer. */
    if (size) {
        FILE *f = fmemopen((void *)data, size, "r");
        char line[32];
        size_t got_len, total = 0;
        int got, lines = 0;
        while ((got = es_line_read(f, line, sizeof line, &got_len)) != ES_LINE_END) {
            if (got_len >= sizeof line || line[got_len < sizeof line ? got_len : 0] != 0)
                abort();
            lines++;
            total += 1;
            if (got == ES_LINE_ERROR || lines > (int)size + 1)
                abort();
        }
        fclose(f);
        (void)total;
    }
    return 0;
}
