/* A SOFA file through to its filter sets, as rooms/sofa.c reads one: any
 * bytes as the file (libmysofa's HDF5 reader, then earshot's checks of
 * conventions, sizes, rates, delays and samples, and what it refuses when
 * libmysofa reads alone), the first byte picking the stream's rate. The
 * reader in this process (es_sofa_read): the child es_sofa_load starts
 * would hide the checks from libFuzzer's coverage. netCDF is refused here
 * (tests/fuzz/CMakeLists.txt says why). */
#include <stdlib.h>

#include "fuzz_util.h"
#include "sofa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double rates[] = {48000, 44100, 96000, 0};
    if (size < 1)
        return 0;
    const double rate = rates[data[0] & 3];
    const char *path = fuzz_file("set.sofa", data + 1, size - 1);
    char err[512];
    es_sofa_free(es_sofa_read(path, rate, err, sizeof err));
    return 0;
}
