/* es_make_wav: writes the test files the app tests need, good and bad.
 *
 *   es_make_wav OUT KIND [RATE] [CHANNELS] [FRAMES] [SEED] [GAIN] [AT]
 *
 * KIND: noise    uniform noise in [-0.5, 0.5), float WAV
 *       decay    noise under an exponential decay (an IR), float WAV
 *       nan      noise with one NaN sample in the middle
 *       inf      noise with one +Inf sample in the middle
 *       empty    a valid WAV with 0 frames
 *       text     a file that is not audio at all
 *       truncated a float WAV cut off in the middle of its data
 *       pluck    a plucked note (six harmonics of 110 Hz, decaying) every
 *                half second, its peak at GAIN (-2.7 dBFS: 0.733)
 *       room     a room's impulse response: a direct sound of GAIN at 10 ms,
 *                then from 11 ms noise of +-GAIN/64 decaying 60 dB by the
 *                end (FRAMES long: its T60 is about FRAMES / RATE; for a
 *                2 s room about as much energy after the direct sound as
 *                in it, and a gain at its strongest frequencies of about
 *                4 times the direct sound's)
 *       dirac    one sample of GAIN at frame SEED, silence elsewhere
 *       sine     a sine of SEED Hz at GAIN, on every channel
 *       bformat  a first-order B-format room (FuMa: W X Y Z, W at -3 dB;
 *                CHANNELS must be 4): a direct sound of GAIN at frame AT
 *                (default 10 ms) from azimuth SEED degrees (counter-
 *                clockwise from ahead, level), then from 1 ms after it a
 *                diffuse tail of
 *                +-GAIN/64 decaying 60 dB by the end, each channel's own
 *                noise at a diffuse field's level for it */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sndfile.h>

/* "room": the noise in buf shaped as a room's response. */
static void shape_room(float *buf, long frames, int channels, int rate, float gain)
{
    const long direct = rate / 100, tail = direct + rate / 1000;
    for (long t = 0; t < frames; t++)
        for (int c = 0; c < channels; c++) {
            float v = 0;
            if (t == direct)
                v = gain;
            else if (t >= tail)
                v = buf[t * channels + c] / 32 *
                    (float)exp(-6.9 * (double)(t - direct) / (double)(frames - direct));
            buf[t * channels + c] = v;
        }
}

/* "bformat": the noise in buf (4 channels) shaped as a B-format room. */
static void shape_bformat(float *buf, long frames, int rate, unsigned azimuth, float gain,
                          long direct)
{
    const long tail = direct + rate / 1000;
    const double az = (double)azimuth * 3.14159265358979 / 180;
    const double at[4] = {1 / sqrt(2.0), cos(az), sin(az), 0};
    const double diffuse[4] = {1 / sqrt(2.0), 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)};
    for (long t = 0; t < frames; t++)
        for (int c = 0; c < 4; c++) {
            float v = 0;
            if (t == direct)
                v = (float)(gain * at[c]);
            else if (t >= tail)
                v = (float)(buf[t * 4 + c] / 32 * diffuse[c] *
                            exp(-6.9 * (double)(t - direct) / (double)(frames - direct)));
            buf[t * 4 + c] = v;
        }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: es_make_wav OUT KIND [RATE] [CHANNELS] [FRAMES] [SEED] [GAIN] [AT]\n");
        return 2;
    }
    const char *path = argv[1], *kind = argv[2];
    int rate = argc > 3 ? atoi(argv[3]) : 48000;
    int channels = argc > 4 ? atoi(argv[4]) : 1;
    long frames = argc > 5 ? atol(argv[5]) : 4800;
    unsigned seed = argc > 6 ? (unsigned)atol(argv[6]) : 1;
    float gain = argc > 7 ? (float)atof(argv[7]) : 1.0f;
    if (!strcmp(kind, "text")) {
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fputs("this is not a sound file\n", f);
        return fclose(f) != 0;
    }
    if (!strcmp(kind, "empty"))
        frames = 0;
    SF_INFO info = {.samplerate = rate, .channels = channels,
                    .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT};
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    if (!sf) {
        fprintf(stderr, "es_make_wav: %s: %s\n", path, sf_strerror(NULL));
        return 1;
    }
    float *buf = calloc((size_t)(frames ? frames : 1) * (size_t)channels, sizeof(float));
    srand(seed);
    for (long t = 0; t < frames; t++)
        for (int c = 0; c < channels; c++) {
            float v = gain * ((float)rand() / (float)RAND_MAX - 0.5f);
            if (!strcmp(kind, "decay"))
                v *= (float)exp(-6.9 * (double)t / (double)frames);
            buf[t * channels + c] = v;
        }
    if (!strcmp(kind, "dirac"))
        for (long t = 0; t < frames * channels; t++)
            buf[t] = t / channels == (long)seed ? gain : 0;
    for (long t = 0; !strcmp(kind, "sine") && t < frames; t++)
        for (int c = 0; c < channels; c++)
            buf[t * channels + c] = gain * (float)sin(2 * 3.14159265358979 * seed * t / rate);
    if (!strcmp(kind, "room"))
        shape_room(buf, frames, channels, rate, gain);
    if (!strcmp(kind, "bformat") && channels == 4)
        shape_bformat(buf, frames, rate, seed, gain, argc > 8 ? atol(argv[8]) : rate / 100);
    if (!strcmp(kind, "pluck")) {
        float peak = 0;
        for (long t = 0; t < frames; t++) {
            const double at = (double)(t % (rate / 2)) / rate; /* since the last pluck */
            double v = 0;
            for (int h = 1; h <= 6; h++)
                v += sin(2 * 3.14159265358979 * 110.0 * h * at) / h * exp(-at * (1.0 + h));
            for (int c = 0; c < channels; c++)
                buf[t * channels + c] = (float)v;
            peak = fabsf((float)v) > peak ? fabsf((float)v) : peak;
        }
        for (long k = 0; peak > 0 && k < frames * channels; k++)
            buf[k] *= gain / peak;
    }
    if (frames > 0 && !strcmp(kind, "nan"))
        buf[(frames / 2) * channels] = NAN;
    if (frames > 0 && !strcmp(kind, "inf"))
        buf[(frames / 2) * channels] = INFINITY;
    sf_writef_float(sf, buf, frames);
    sf_close(sf);
    free(buf);
    if (!strcmp(kind, "truncated")) {
        /* Keep the header and half of the samples. */
        long keep = 80 + frames * channels * 2;
        if (truncate(path, keep) != 0)
            return 1;
    }
    return 0;
}
