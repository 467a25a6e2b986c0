/* One line of a room-recipe list ("NAME | description | options...")
 * through its parser and the room check. */
#include "fuzz_util.h"
#include "room_recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = fuzz_text(data, size);
    char *name, *description, err[512];
    es_room_spec spec;
    es_room_spec_defaults(&spec);
    if (es_room_recipe_line(line, &name, &description, &spec, err, sizeof err) == 1)
        es_room_spec_check(&spec, err, sizeof err);
    return 0;
}
