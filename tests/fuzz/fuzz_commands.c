/* A line of `play --commands` (and of the workstation's keys and saved
 * settings) through the command parser, nothing run. */
#include <string.h>

#include "commands.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > ES_COMMAND_LINE_MAX)
        return 0; /* refused whole before parsing (es_command_run) */
    char *line = fuzz_text(data, size);
    const es_command *cmd;
    es_command_args args;
    int given;
    char err[512];
    es_command_parse(line, &cmd, &args, &given, err, sizeof err);
    return 0;
}
