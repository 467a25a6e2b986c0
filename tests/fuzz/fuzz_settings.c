/* The workstation's settings file through its parser, and what it read
 * back through the formatter. */
#include <string.h>

#include "fuzz_util.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memchr(data, 0, size))
        return 0; /* es_settings_read refuses a file with a NUL byte */
    es_settings st;
    memset(&st, 0, sizeof st);
    es_settings_parse(&st, fuzz_text(data, size));
    char problem[512], text[8192];
    es_settings_problem(&st, problem, sizeof problem);
    es_settings_format(&st, text, sizeof text);
    return 0;
}
