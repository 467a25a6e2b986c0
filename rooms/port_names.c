/* A room's JACK port names as a manifest keeps them (jconvolver.h): the
 * names of an imported configuration's /input/name and /output/name. */
#include <stdio.h>
#include <string.h>

#include "jconvolver.h"

void es_jconvolver_names_join(char names[][ES_JCONVOLVER_NAME], int count, char *out,
                              size_t n)
{
    size_t used = 0;
    int named = 0;
    out[0] = 0;
    for (int k = 0; k < count && k < ES_JCONVOLVER_SIDE; k++) {
        if (strchr(names[k], ',')) { /* the separator: nothing kept rather than a wrong name */
            out[0] = 0;
            return;
        }
        named |= names[k][0] != 0;
        if (used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s", k ? ", " : "", names[k]);
    }
    if (!named || used >= n)
        out[0] = 0;
}

void es_jconvolver_names_split(const char *text, char names[][ES_JCONVOLVER_NAME], int count)
{
    for (int k = 0; k < count; k++) {
        while (*text == ' ')
            text++;
        const size_t len = strcspn(text, ",");
        size_t end = len;
        while (end > 0 && text[end - 1] == ' ')
            end--;
        names[k][0] = 0;
        if (end < ES_JCONVOLVER_NAME) {
            snprintf(names[k], ES_JCONVOLVER_NAME, "%.*s", (int)end, text);
            if (!es_jconvolver_port_name_ok(names[k]))
                names[k][0] = 0;
        }
        text += len;
        if (*text == ',')
            text++;
    }
}
