/* BS.1770-4's integrated loudness (loudness.h). */
#include <math.h>
#include <stdlib.h>

#include "loudness.h"

typedef struct {
    double b[3], a[3];
} biquad;

/* The K-weighting's two stages at `rate`, from their analog prototypes
 * (the standard's 48 kHz coefficients come out of these at 48 kHz). */
static void k_weighting(double rate, biquad *shelf, biquad *highpass)
{
    const double pi = 3.14159265358979323846;
    double f0 = 1681.974450955533, q = 0.7071752369554196;
    const double gain_db = 3.999843853973347;
    double k = tan(pi * f0 / rate);
    const double vh = pow(10.0, gain_db / 20.0), vb = pow(vh, 0.4996667741545416);
    double a0 = 1.0 + k / q + k * k;
    *shelf = (biquad){{(vh + vb * k / q + k * k) / a0, 2.0 * (k * k - vh) / a0,
                       (vh - vb * k / q + k * k) / a0},
                      {1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0}};
    f0 = 38.13547087602444, q = 0.5003270373238773;
    k = tan(pi * f0 / rate);
    a0 = 1.0 + k / q + k * k;
    *highpass = (biquad){{1.0, -2.0, 1.0},
                         {1.0, 2.0 * (k * k - 1.0) / a0, (1.0 - k / q + k * k) / a0}};
}

/* Runs x through the filter (direct form II transposed), in place. */
static void run(const biquad *f, double *x, long frames)
{
    double z1 = 0, z2 = 0;
    for (long t = 0; t < frames; t++) {
        const double in = x[t];
        const double out = f->b[0] * in + z1;
        z1 = f->b[1] * in - f->a[1] * out + z2;
        z2 = f->b[2] * in - f->a[2] * out;
        x[t] = out;
    }
}

static double lufs_of(double power)
{
    return power > 0 ? -0.691 + 10.0 * log10(power) : -INFINITY;
}

double es_loudness_lufs(const float *const *ch, int channels, long frames, double rate)
{
    const long block = (long)llround(0.4 * rate), hop = (long)llround(0.1 * rate);
    if (frames < block || channels < 1 || block < 1)
        return -INFINITY;
    const long blocks = (frames - block) / hop + 1;
    double *x = malloc((size_t)frames * sizeof *x);
    double *power = calloc((size_t)blocks, sizeof *power);
    if (!x || !power) {
        free(x);
        free(power);
        return NAN;
    }
    biquad shelf, highpass;
    k_weighting(rate, &shelf, &highpass);
    for (int c = 0; c < channels; c++) {
        for (long t = 0; t < frames; t++)
            x[t] = ch[c][t];
        run(&shelf, x, frames);
        run(&highpass, x, frames);
        for (long b = 0; b < blocks; b++) {
            double sum = 0;
            for (long t = b * hop; t < b * hop + block; t++)
                sum += x[t] * x[t];
            power[b] += sum / (double)block;
        }
    }
    /* The absolute gate, then the relative one under the mean of those. */
    double sum = 0;
    long kept = 0;
    for (long b = 0; b < blocks; b++)
        if (lufs_of(power[b]) > -70.0)
            sum += power[b], kept++;
    double result = -INFINITY;
    if (kept) {
        const double gate = lufs_of(sum / (double)kept) - 10.0;
        sum = 0, kept = 0;
        for (long b = 0; b < blocks; b++)
            if (lufs_of(power[b]) > -70.0 && lufs_of(power[b]) > gate)
                sum += power[b], kept++;
        result = kept ? lufs_of(sum / (double)kept) : -INFINITY;
    }
    free(x);
    free(power);
    return result;
}
