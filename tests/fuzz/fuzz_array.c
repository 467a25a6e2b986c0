/* A loudspeaker array's file (--speakers FILE: lines AZIMUTH ELEVATION
 * [NAME]) through its reader and, when it reads, AllRAD's decoder at
 * first order; and the first line as a room's layout word (ambix3,
 * 5xfuma1, ...). */
#include <stdlib.h>
#include <string.h>

#include "ambi_decoder.h"
#include "field_layout.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *newline = strchr(text, '\n');
    if (newline)
        *newline = 0;
    es_field_layout f;
    es_field_layout_parse(text, &f);
    const char *path = fuzz_file("array.txt", data, size);
    es_sofa_pose places[ES_ARRAY_MAX];
    int lfe[ES_ARRAY_MAX];
    char err[512];
    const int count = es_array_read(path, places, lfe, err, sizeof err);
    if (count > 0)
        es_ir_destroy(es_ambi_allrad_decoder(places, lfe, count, 1, 48000, err, sizeof err));
    return 0;
}
