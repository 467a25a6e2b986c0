/* The floor of jconvolver's stress1 with FFTW: what the leanest render of
 * its shape costs, to judge earshot's and fconvolver's against. A
 * 64-channel float WAV through a diagonal of 64 filters of 4096 taps
 * (random: the cost does not depend on them), one partition a filter,
 * overlap-save with N-point transforms and N - 4096 frames a block,
 * channels 16 at a time (a cache line of each frame), complex products
 * on FFTW's own interleaved spectra, the block's buffer reused for the
 * output. No checks, no safety, no generality. docs/PERFORMANCE.md
 * ("stress1's floor") has what it measured.
 *
 *   cc -O3 -march=native bench/stress1_floor.c -lfftw3f -lm -o stress1-floor
 *   stress1-floor IN.wav OUT.wav N
 *
 * WIS=FILE imports FFTW wisdom, WOUT=FILE exports it after planning (plan
 * once, then time); CHECK=1 uses unit impulses and prints the largest
 * difference between output and input. */
#include <fcntl.h>
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define C 64
#define G 16
static long find_data(int fd, uint32_t *size)
{
    unsigned char h[12];
    if (read(fd, h, 12) != 12)
        return -1;
    for (;;) {
        unsigned char c[8];
        if (read(fd, c, 8) != 8)
            return -1;
        uint32_t n = c[4] | c[5] << 8 | c[6] << 16 | (uint32_t)c[7] << 24;
        if (!memcmp(c, "data", 4)) {
            *size = n;
            return lseek(fd, 0, SEEK_CUR);
        }
        lseek(fd, n + (n & 1), SEEK_CUR);
    }
}
static size_t rd(int fd, void *p, size_t n)
{
    size_t d = 0;
    while (d < n) {
        ssize_t g = read(fd, (char *)p + d, n - d);
        if (g <= 0)
            break;
        d += (size_t)g;
    }
    return d;
}
/* Overlap-save over a group of G channels at a time: the group's
 * segments (history, then the block) and one spectrum, the plans, and each
 * channel's filter spectrum and history. */
typedef struct {
    int N, H, K, D; /* transform points, frames a block, bins, history kept */
    float *x[G];
    fftwf_complex *X;
    fftwf_plan fw, bw;
    fftwf_complex *flt[C];
    float *hist[C];
} ols;
/* The WAV's header to the output, its sizes those of outframes frames. */
static int copy_header(int in, int out, long off, long outframes)
{
    unsigned char *hdr = malloc(off);
    if (pread(in, hdr, off, 0) != off)
        return -1;
    uint32_t ds = (uint32_t)(outframes * 4 * C), rs = (uint32_t)(off - 8 + ds);
    memcpy(hdr + off - 4, &ds, 4);
    memcpy(hdr + 4, &rs, 4);
    return write(out, hdr, off) != off ? -1 : 0;
}
static void plan(ols *s)
{
    if (getenv("WIS"))
        fftwf_import_wisdom_from_filename(getenv("WIS"));
    s->X = fftwf_alloc_complex(s->K);
    for (int j = 0; j < G; j++)
        s->x[j] = fftwf_alloc_real(s->N);
    s->fw = fftwf_plan_dft_r2c_1d(s->N, s->x[0], s->X, FFTW_MEASURE);
    s->bw = fftwf_plan_dft_c2r_1d(s->N, s->X, s->x[0], FFTW_MEASURE);
    if (getenv("WOUT"))
        fftwf_export_wisdom_to_filename(getenv("WOUT"));
}
/* Each channel's filter of L taps (check: a unit impulse) as a spectrum
 * scaled by 1/N, and its history zeroed. */
static void make_filters(ols *s, int L, int check)
{
    const int N = s->N, D = s->D;
    float *x = s->x[0];
    for (int c = 0; c < C; c++) {
        s->flt[c] = fftwf_alloc_complex(s->K);
        s->hist[c] = fftwf_alloc_real(D);
        memset(s->hist[c], 0, 4L * D);
        memset(x, 0, 4L * N);
        for (int k = 0; k < L; k++)
            x[k] = check ? (k == 0) / (float)N : (float)(rand() / (double)RAND_MAX - 0.5) / N;
        fftwf_execute_dft_r2c(s->fw, x, s->flt[c]);
    }
}
/* Channels g0 .. g0 + G - 1 of a block of interleaved frames through
 * their filters, the output written back over the input. */
static void convolve_group(ols *s, float *buf, int g0)
{
    const int H = s->H, K = s->K, D = s->D;
    float *const *x = s->x;
    for (int j = 0; j < G; j++)
        memcpy(x[j], s->hist[g0 + j], 4L * D);
    for (int t = 0; t < H; t++) {
        const float *f = buf + (size_t)t * C + g0;
        for (int j = 0; j < G; j++)
            x[j][D + t] = f[j];
    }
    for (int j = 0; j < G; j++) {
        float *sg = x[j];
        memcpy(s->hist[g0 + j], sg + H, 4L * D);
        fftwf_execute_dft_r2c(s->fw, sg, s->X);
        float *restrict a = (float *)s->X;
        const float *restrict h = (const float *)s->flt[g0 + j];
        for (int k = 0; k < 2 * K; k += 2) {
            const float ar = a[k], ai = a[k + 1], hr = h[k], hi = h[k + 1];
            a[k] = ar * hr - ai * hi;
            a[k + 1] = ar * hi + ai * hr;
        }
        fftwf_execute_dft_c2r(s->bw, s->X, sg);
    }
    for (int t = 0; t < H; t++) {
        float *f = buf + (size_t)t * C + g0;
        for (int j = 0; j < G; j++)
            f[j] = x[j][D + t];
    }
}
int main(int argc, char **argv)
{
    const int N = atoi(argv[3]), L = argc > 4 ? atoi(argv[4]) : 4096, H = N - L, K = N / 2 + 1,
              D = N - H; /* history kept: N - H >= L - 1 */
    ols s = {.N = N, .H = H, .K = K, .D = D};
    int in = open(argv[1], O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    uint32_t dsize;
    long off = find_data(in, &dsize);
    if (off < 0 || out < 0)
        return 1;
    long frames = dsize / (4L * C), outframes = frames + L - 1;
    if (copy_header(in, out, off, outframes) != 0)
        return 1;
    plan(&s);
    const int check = getenv("CHECK") != NULL; /* Dirac filters: out == in */
    double worst = 0;
    make_filters(&s, L, check);
    float *buf = fftwf_alloc_real((size_t)C * H), *copy = check ? malloc(4L * C * H) : NULL;
    long done = 0, written = 0;
    while (written < outframes) {
        size_t got = done < frames ? rd(in, buf, 4L * C * H) / (4 * C) : 0;
        done += (long)got;
        if (got < (size_t)H)
            memset(buf + got * C, 0, 4L * C * (H - got));
        if (check)
            memcpy(copy, buf, 4L * C * H);
        for (int g0 = 0; g0 < C; g0 += G)
            convolve_group(&s, buf, g0);
        for (size_t k = 0; check && k < (size_t)C * H; k++) {
            const double e = buf[k] - copy[k];
            worst = e * e > worst ? e * e : worst;
        }
        long n = outframes - written < H ? outframes - written : H;
        if (write(out, buf, 4L * C * n) != 4L * C * n)
            return 1;
        written += n;
    }
    close(out);
    if (check)
        printf("stress1-floor N=%d: largest error against a Dirac %.3g\n", N, __builtin_sqrt(worst));
    return 0;
}
