/* A room library's manifest (rooms.txt) as the library reads it; the
 * files it names need not exist (each missing one is a message). */
#include <stdlib.h>

#include "fuzz_util.h"
#include "library.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        /* No shipped rooms and no user folder: only this manifest. */
        setenv("EARSHOT_SHIPPED_ROOMS", fuzz_dir(), 1);
        setenv("XDG_DATA_HOME", fuzz_dir(), 1);
        ready = 1;
    }
    fuzz_file("rooms.txt", data, size);
    es_library lib;
    es_library_open(&lib, fuzz_dir());
    for (int r = 0; r < lib.count; r++)
        (void)es_library_find(&lib, lib.rooms[r].name);
    es_library_close(&lib);
    return 0;
}
