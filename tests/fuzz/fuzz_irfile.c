/* An IR file through to an es_ir, as play and render load one: any bytes
 * as the file (WAV, or anything libsndfile recognises), the first byte
 * picking the input channels (1-4) and the stream's rate. */
#include <stdlib.h>

#include "fuzz_util.h"
#include "irfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double rates[] = {48000, 44100, 96000, 22050};
    if (size < 1)
        return 0;
    const int inputs = 1 + (data[0] & 3);
    const double rate = rates[(data[0] >> 2) & 3];
    const char *path = fuzz_file("ir.wav", data + 1, size - 1);
    es_ir_load_info info;
    char err[512];
    es_ir *ir = es_ir_load(path, rate, inputs, &info, err, sizeof err);
    es_ir_destroy(ir);
    return 0;
}
