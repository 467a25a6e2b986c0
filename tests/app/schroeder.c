/* schroeder: a reference for earshot's acoustic figures, written apart
 * from rooms/acoustics.c and as plainly as ISO 3382-1 puts it, in double:
 * per channel, the squared response from its onset (the first sample
 * within 20 dB of the peak), the noise (the mean of the last tenth)
 * subtracted, Schroeder's backward integral over the whole response (the
 * subtraction method: the noise's share cancels out on average), T30 from
 * the least-squares line through the decay curve between its first
 * samples at -5 and -35 dB, C80 from the energy before and after 80 ms.
 *
 *   schroeder FILE.wav
 *
 * Prints a line per channel: "CHANNEL T30 C80" (n/a where the curve does
 * not reach -35 dB). Exit 1 when it cannot read. */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

static void channel(const double *h, long n, double rate, int c)
{
    double peak = 0;
    for (long t = 0; t < n; t++)
        peak = fmax(peak, h[t] * h[t]);
    long onset = 0;
    while (onset < n && h[onset] * h[onset] < peak / 100)
        onset++;
    const long len = n - onset;
    double *e = malloc(sizeof(double) * (size_t)len), *edc = malloc(sizeof(double) * (size_t)len);
    double noise = 0;
    for (long t = 0; t < len; t++)
        e[t] = h[onset + t] * h[onset + t];
    for (long t = len - len / 10; t < len; t++)
        noise += e[t] / (double)(len / 10);
    double sum = 0, early = 0, late = 0;
    const long n80 = (long)(0.080 * rate);
    for (long t = len - 1; t >= 0; t--) {
        sum += e[t] - noise;
        edc[t] = sum;
        *(t < n80 ? &early : &late) += e[t] - noise;
    }
    long from = -1, to = -1;
    for (long t = 0; t < len && to < 0; t++) {
        const double db = 10 * log10(fmax(edc[t], 1e-300) / edc[0]);
        if (from < 0 && db <= -5)
            from = t;
        if (db <= -35)
            to = t;
    }
    printf("%d ", c + 1);
    if (from < 0 || to <= from + 4) {
        printf("n/a ");
    } else {
        double sx = 0, sy = 0, sxx = 0, sxy = 0, k = (double)(to - from + 1);
        for (long t = from; t <= to; t++) {
            const double db = 10 * log10(edc[t] / edc[0]);
            sx += (double)t;
            sy += db;
            sxx += (double)t * t;
            sxy += t * db;
        }
        const double slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
        printf("%.5f ", -60 / (slope * rate));
    }
    printf("%.4f\n", 10 * log10(early / late));
    free(e);
    free(edc);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: schroeder FILE.wav\n");
        return 2;
    }
    SF_INFO info = {0};
    SNDFILE *sf = sf_open(argv[1], SFM_READ, &info);
    if (!sf) {
        fprintf(stderr, "schroeder: %s: %s\n", argv[1], sf_strerror(NULL));
        return 1;
    }
    const long n = (long)info.frames;
    double *all = malloc(sizeof(double) * (size_t)(n * info.channels));
    double *h = malloc(sizeof(double) * (size_t)n);
    if (!all || !h || sf_readf_double(sf, all, n) != n) {
        fprintf(stderr, "schroeder: %s: cannot read\n", argv[1]);
        return 1;
    }
    for (int c = 0; c < info.channels; c++) {
        for (long t = 0; t < n; t++)
            h[t] = all[t * info.channels + c];
        channel(h, n, info.samplerate, c);
    }
    sf_close(sf);
    free(all);
    free(h);
    return 0;
}
