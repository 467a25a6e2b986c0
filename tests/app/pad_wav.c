/* pad_wav: a WAV with zeros after it, as a float WAV.
 *
 *   pad_wav IN.wav OUT.wav FRAMES
 *
 * fconvolver 1.1 stops when its input ends and goes on convolving what it
 * last read: the tests give it the input followed by as many zeros as its
 * longest filter. Exit 1 when it cannot read or write. */
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4 || atol(argv[3]) < 0) {
        fprintf(stderr, "usage: pad_wav IN.wav OUT.wav FRAMES\n");
        return 2;
    }
    SF_INFO info = {0};
    SNDFILE *in = sf_open(argv[1], SFM_READ, &info);
    if (!in) {
        fprintf(stderr, "pad_wav: %s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    const sf_count_t pad = atol(argv[3]), total = info.frames + pad;
    float *x = calloc((size_t)total * (size_t)info.channels, sizeof *x);
    if (!x || sf_readf_float(in, x, info.frames) != info.frames) {
        fprintf(stderr, "pad_wav: %s: cannot read it whole\n", argv[1]);
        return 1;
    }
    sf_close(in);
    SF_INFO spec = {.samplerate = info.samplerate, .channels = info.channels,
                    .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *out = sf_open(argv[2], SFM_WRITE, &spec);
    if (!out || sf_writef_float(out, x, total) != total) {
        fprintf(stderr, "pad_wav: %s: %s\n", argv[2], sf_strerror(out));
        return 1;
    }
    sf_close(out);
    free(x);
    return 0;
}
