/* es_json_keys: the key paths of one JSON document on standard input, one
 * a line, sorted by the caller: an object's key as "a.b", an array's
 * elements as "a[]" (every element's keys under the same path). A test
 * compares them with the keys a report had before a change, so a key that
 * was renamed or dropped is caught. Exit 1 and one line when the input is
 * not JSON. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *at;

static void fail(const char *what)
{
    fprintf(stderr, "es_json_keys: not JSON: %s at '%.20s'\n", what, at);
    exit(1);
}

static void skip_space(void)
{
    while (isspace((unsigned char)*at))
        at++;
}

/* A string's text (escapes kept as they are: keys are plain). */
static void string(char *out, size_t n)
{
    if (*at != '"')
        fail("a string expected");
    size_t len = 0;
    for (at++; *at && *at != '"'; at++) {
        if (*at == '\\' && at[1])
            at++;
        if (len + 1 < n)
            out[len++] = *at;
    }
    if (*at != '"')
        fail("an unterminated string");
    at++;
    out[len] = 0;
}

static void value(const char *path);

static void object(const char *path)
{
    at++; /* { */
    skip_space();
    if (*at == '}') {
        at++;
        return;
    }
    for (;;) {
        char key[256], sub[1024];
        skip_space();
        string(key, sizeof key);
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
        puts(sub);
        skip_space();
        if (*at++ != ':')
            fail("':' expected");
        value(sub);
        skip_space();
        if (*at == ',') {
            at++;
            continue;
        }
        if (*at++ != '}')
            fail("',' or '}' expected");
        return;
    }
}

static void array(const char *path)
{
    char sub[1024];
    snprintf(sub, sizeof sub, "%s[]", path);
    at++; /* [ */
    skip_space();
    if (*at == ']') {
        at++;
        return;
    }
    for (;;) {
        value(sub);
        skip_space();
        if (*at == ',') {
            at++;
            continue;
        }
        if (*at++ != ']')
            fail("',' or ']' expected");
        return;
    }
}

static void value(const char *path)
{
    skip_space();
    if (*at == '{')
        object(path);
    else if (*at == '[')
        array(path);
    else if (*at == '"') {
        char skip[4096];
        string(skip, sizeof skip);
    } else if (!strncmp(at, "true", 4) || !strncmp(at, "null", 4))
        at += 4;
    else if (!strncmp(at, "false", 5))
        at += 5;
    else if (*at == '-' || isdigit((unsigned char)*at))
        at += strspn(at, "-+.eE0123456789");
    else
        fail("a value expected");
}

int main(void)
{
    static char text[1 << 20];
    const size_t got = fread(text, 1, sizeof text - 1, stdin);
    text[got] = 0;
    at = text;
    value("");
    skip_space();
    if (*at)
        fail("text after the document");
    return 0;
}
