#include "core/json.h"
#include "core/text.h"

void es_json_string(FILE *to, const char *s)
{
    if (!s) {
        fputs("null", to);
        return;
    }
    fputc('"', to);
    for (const char *p = s; *p;) {
        unsigned cp;
        const int len = es_utf8_next(p, &cp);
        if (len < 0) {
            /* JSON is UTF-8: a byte that is not is the replacement
             * character, never passed on raw. */
            fputs("\\ufffd", to);
            p++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", to); break;
        case '\\': fputs("\\\\", to); break;
        case '\n': fputs("\\n", to); break;
        case '\r': fputs("\\r", to); break;
        case '\t': fputs("\\t", to); break;
        default:
            /* C0, DEL and C1 as \u escapes: valid JSON, and no byte a
             * terminal takes for a command when the report is shown. */
            if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
                fprintf(to, "\\u%04x", cp);
            else
                fwrite(p, 1, (size_t)len, to);
        }
        p += len;
    }
    fputc('"', to);
}
