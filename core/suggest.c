/* Did you mean (core/suggest.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/suggest.h"

#define WORD_MAX 63

int es_word_distance(const char *a, const char *b)
{
    const int la = (int)(strlen(a) < WORD_MAX ? strlen(a) : WORD_MAX);
    const int lb = (int)(strlen(b) < WORD_MAX ? strlen(b) : WORD_MAX);
    /* Three rows of the table: two back (for a swap), one back, this one. */
    int rows[3][WORD_MAX + 1];
    for (int j = 0; j <= lb; j++)
        rows[1][j] = j;
    for (int i = 1; i <= la; i++) {
        int *now = rows[(i + 1) % 3], *up = rows[i % 3], *up2 = rows[(i + 2) % 3];
        now[0] = i;
        for (int j = 1; j <= lb; j++) {
            const int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            int d = up[j - 1] + (ca != cb);
            d = up[j] + 1 < d ? up[j] + 1 : d;
            d = now[j - 1] + 1 < d ? now[j - 1] + 1 : d;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && up2[j - 2] + 1 < d)
                d = up2[j - 2] + 1;
            now[j] = d;
        }
    }
    return la == 0 ? lb : rows[(la + 1) % 3][lb];
}

void es_suggest_consider(es_suggestion *s, const char *word, const char *candidate)
{
    const size_t len = strlen(word);
    int allowed = (int)len / 3;
    allowed = allowed < 1 ? 1 : allowed > 3 ? 3 : allowed;
    int d = es_word_distance(word, candidate);
    if (d > allowed && len >= 3 && !strncasecmp(candidate, word, len))
        d = allowed; /* the start of it: what was meant, as near as a typo */
    if (d > allowed || (s->best && d >= s->distance))
        return;
    s->best = candidate;
    s->distance = d;
}

const char *es_suggest_text(const es_suggestion *s, const char *prefix, char *out, size_t n)
{
    if (s->best)
        snprintf(out, n, " (did you mean %s%s?)", prefix, s->best);
    else if (n)
        out[0] = 0;
    return out;
}
