#include <stdio.h>
#include <string.h>

#include "core/text.h"

static int continuation(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

int es_utf8_next(const char *s, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char b = p[0];
    if (b == 0)
        return 0;
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    /* The second byte's range per lead byte (RFC 3629's table): it is what
     * rules out overlong forms, surrogates and code points past U+10FFFF. */
    unsigned char lo = 0x80, hi = 0xBF;
    int len;
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        if (b == 0xE0)
            lo = 0xA0;
        else if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        if (b == 0xF0)
            lo = 0x90;
        else if (b == 0xF4)
            hi = 0x8F;
    } else
        return -1;
    if (p[1] < lo || p[1] > hi)
        return -1;
    for (int k = 2; k < len; k++)
        if (!continuation(p[k]))
            return -1;
    unsigned v = b & (0xFFu >> (len + 1));
    for (int k = 1; k < len; k++)
        v = (v << 6) | (p[k] & 0x3Fu);
    *cp = v;
    return len;
}

/* The escape for the character at s, or "" when it is kept as it is; *len
 * gets the bytes it covers. */
static const char *escape_at(const char *s, int *len, char buf[8])
{
    unsigned cp;
    const int got = es_utf8_next(s, &cp);
    if (got < 0) {
        *len = 1;
        snprintf(buf, 8, "\\x%02x", (unsigned char)s[0]);
        return buf;
    }
    *len = got;
    if (cp < 0x20 || cp == 0x7F) {
        snprintf(buf, 8, "\\x%02x", cp);
        return buf;
    }
    if (cp >= 0x80 && cp <= 0x9F) {
        snprintf(buf, 8, "\\u%04x", cp);
        return buf;
    }
    return "";
}

char *es_text_escape(char *out, size_t n, const char *in)
{
    size_t used = 0;
    if (n == 0)
        return out;
    for (const char *s = in; s && *s;) {
        char buf[8];
        int len;
        const char *esc = escape_at(s, &len, buf);
        const char *piece = *esc ? esc : s;
        const size_t piece_len = *esc ? strlen(esc) : (size_t)len;
        if (used + piece_len >= n)
            break; /* cut before a whole escape or character, never inside */
        memcpy(out + used, piece, piece_len);
        used += piece_len;
        s += len;
    }
    out[used] = 0;
    return out;
}

void es_text_put(FILE *to, const char *in)
{
    for (const char *s = in; s && *s;) {
        char buf[8];
        int len;
        const char *esc = escape_at(s, &len, buf);
        if (*esc)
            fputs(esc, to);
        else
            fwrite(s, 1, (size_t)len, to);
        s += len;
    }
}

int es_text_check(const char *s, char *why, size_t n)
{
    for (const char *p = s; *p;) {
        char buf[8];
        int len;
        const char *esc = escape_at(p, &len, buf);
        if (*esc) {
            unsigned cp;
            snprintf(why, n, "%s (%s) at byte %ld",
                     es_utf8_next(p, &cp) < 0 ? "invalid UTF-8" : "a control character", esc,
                     (long)(p - s));
            return -1;
        }
        p += len;
    }
    return 0;
}
