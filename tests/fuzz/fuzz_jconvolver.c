/* A jconvolver configuration through the importer. Beside it is ir.wav, a
 * real stereo file of 64 frames, so /impulse/read lines that name it run
 * all the way into the matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "fuzz_util.h"
#include "jconvolver.h"

static void make_ir(void)
{
    float left[64], right[64];
    for (int t = 0; t < 64; t++)
        left[t] = right[t] = 1.0f / (float)(1 + t);
    const float *ch[2] = {left, right};
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/ir.wav", fuzz_dir());
    es_audiofile *f = es_audiofile_create(path, &(es_write_spec){.sample_rate = 48000, .channels = 2}, err, sizeof err);
    if (!f || es_audiofile_write(f, ch, 64, err, sizeof err) != 0 ||
        es_audiofile_commit(f, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_jconvolver: %s\n", err);
        abort();
    }
    es_audiofile_close(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        make_ir();
        ready = 1;
    }
    const char *conf = fuzz_file("jc.conf", data, size);
    float **channels = NULL;
    int inputs = 0, outputs = 0, frames = 0;
    double rate = 0;
    char err[1024];
    if (es_jconvolver_read(conf, &channels, &inputs, &outputs, &frames, &rate, err,
                           sizeof err) == 0)
        es_audiofile_free_channels(channels, inputs * outputs);
    /* The ports' names alone (the JACK device's): every name kept is one
     * JACK takes, and within its side. */
    es_jconvolver_room names;
    if (es_jconvolver_names(conf, &names) == 0)
        for (int k = 0; k < ES_JCONVOLVER_SIDE; k++) {
            const char *in = names.input_name[k], *out = names.output_name[k];
            if ((in[0] && (k >= names.inputs || strchr(in, ':'))) ||
                (out[0] && (k >= names.outputs || strchr(out, ':'))))
                __builtin_trap();
        }
    return 0;
}
