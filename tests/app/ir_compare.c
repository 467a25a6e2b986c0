/* es_ir_compare: a measured impulse response against the one it should be.
 *
 *   es_ir_compare GOT.wav WANT.wav LOW HIGH [CHANNEL]
 *       the error energy of GOT (its channel CHANNEL, from 1; default 1)
 *       against WANT (mono) over LOW..HIGH Hz, relative to WANT's energy
 *       there, both from frame 0 and zero-padded to the longer; where each
 *       peaks; and each one's T30 (ISO 3382-1, acoustics.h):
 *         error E dB over L-H Hz; peak at P (want Q); T30 A s (want B s)
 *   es_ir_compare --noise NOISY.wav CLEAN.wav
 *       the noise in NOISY (the same measurement with noise added): the
 *       energy per frame of NOISY - CLEAN over NOISY's length, against
 *       CLEAN's peak frame:
 *         PNR X dB
 * Exit 0 when it could compare, 1 when not. */
#include <fftw3.h>
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"

static float *load(const char *path, int channel, long *frames, double *rate)
{
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "es_ir_compare: %s: %s\n", path, sf_strerror(NULL));
        return NULL;
    }
    if (channel < 1 || channel > info.channels) {
        fprintf(stderr, "es_ir_compare: %s has %d channels, not %d\n", path, info.channels,
                channel);
        sf_close(sf);
        return NULL;
    }
    float *all = malloc((size_t)info.frames * (size_t)info.channels * sizeof *all + 4);
    float *x = malloc((size_t)info.frames * sizeof *x + 4);
    if (!all || !x || sf_readf_float(sf, all, info.frames) != info.frames) {
        fprintf(stderr, "es_ir_compare: %s: cannot read it\n", path);
        free(all), free(x);
        sf_close(sf);
        return NULL;
    }
    for (long t = 0; t < (long)info.frames; t++)
        x[t] = all[t * info.channels + channel - 1];
    free(all);
    sf_close(sf);
    *frames = (long)info.frames;
    *rate = info.samplerate;
    return x;
}

static long peak_at(const float *x, long n)
{
    long at = 0;
    for (long i = 1; i < n; i++)
        if (fabsf(x[i]) > fabsf(x[at]))
            at = i;
    return at;
}

static int noise(const char *noisy_path, const char *clean_path)
{
    long nn, nc;
    double rate;
    float *noisy = load(noisy_path, 1, &nn, &rate), *clean = load(clean_path, 1, &nc, &rate);
    if (!noisy || !clean)
        return 1;
    double e = 0;
    for (long i = 0; i < nn; i++) {
        const double d = (double)noisy[i] - (i < nc ? clean[i] : 0);
        e += d * d;
    }
    const double p = clean[peak_at(clean, nc)];
    printf("PNR %.2f dB\n", 10 * log10(p * p / (e / (double)nn)));
    free(noisy), free(clean);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--noise"))
        return noise(argv[2], argv[3]);
    if (argc < 5) {
        fprintf(stderr, "usage: es_ir_compare GOT.wav WANT.wav LOW HIGH [CHANNEL]\n"
                        "       es_ir_compare --noise NOISY.wav CLEAN.wav\n");
        return 1;
    }
    const double low = atof(argv[3]), high = atof(argv[4]);
    long ng, nw;
    double rate, want_rate;
    float *got = load(argv[1], argc > 5 ? atoi(argv[5]) : 1, &ng, &rate);
    float *want = load(argv[2], 1, &nw, &want_rate);
    if (!got || !want)
        return 1;
    const long n = ng > nw ? ng : nw, m = 2 * n;
    float *a = fftwf_malloc((size_t)m * sizeof *a), *b = fftwf_malloc((size_t)m * sizeof *b);
    fftwf_complex *fa = fftwf_malloc((size_t)(m / 2 + 1) * sizeof *fa);
    fftwf_complex *fb = fftwf_malloc((size_t)(m / 2 + 1) * sizeof *fb);
    fftwf_plan pa = fftwf_plan_dft_r2c_1d((int)m, a, fa, FFTW_ESTIMATE);
    fftwf_plan pb = fftwf_plan_dft_r2c_1d((int)m, b, fb, FFTW_ESTIMATE);
    memset(a, 0, (size_t)m * sizeof *a);
    memset(b, 0, (size_t)m * sizeof *b);
    memcpy(a, got, (size_t)ng * sizeof *a);
    memcpy(b, want, (size_t)nw * sizeof *b);
    fftwf_execute(pa);
    fftwf_execute(pb);
    double err = 0, all = 0;
    for (long k = 0; k <= m / 2; k++) {
        const double f = (double)k * rate / (double)m;
        if (f < low || f > high)
            continue;
        const double dr = (double)fa[k][0] - fb[k][0], di = (double)fa[k][1] - fb[k][1];
        err += dr * dr + di * di;
        all += (double)fb[k][0] * fb[k][0] + (double)fb[k][1] * fb[k][1];
    }
    es_acoustics ag, aw;
    es_acoustics_measure(got, (int)ng, rate, &ag);
    es_acoustics_measure(want, (int)nw, want_rate, &aw);
    printf("error %.2f dB over %.0f-%.0f Hz; peak at %ld (want %ld); T30 %.4f s (want %.4f s)\n",
           10 * log10(err / all + 1e-300), low, high, peak_at(got, ng), peak_at(want, nw),
           ag.t30, aw.t30);
    fftwf_destroy_plan(pa);
    fftwf_destroy_plan(pb);
    fftwf_free(a), fftwf_free(b), fftwf_free(fa), fftwf_free(fb);
    free(got), free(want);
    return rate == want_rate ? 0 : 1;
}
