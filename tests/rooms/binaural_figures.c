/* What two ears' responses say (binaural_figures.h). */
#include <complex.h>
#include <math.h>
#include <string.h>

#include <fftw3.h>

#include "binaural_figures.h"

#define NFFT 4096
#define LOWPASS_HZ 1500.0
#define MAX_LAG 48 /* 1 ms */

/* The ears' lag (s, positive: the left ear late) below 1.5 kHz, and the
 * broadband level difference (dB, left over right). */
void es_itd_ild(const float *l, const float *r, int taps, double *itd, double *ild)
{
    static float x[2][NFFT];
    static fftwf_complex spec[NFFT / 2 + 1];
    fftwf_plan fwd = fftwf_plan_dft_r2c_1d(NFFT, x[0], spec, FFTW_ESTIMATE);
    fftwf_plan inv = fftwf_plan_dft_c2r_1d(NFFT, spec, x[0], FFTW_ESTIMATE);
    double el = 0, er = 0;
    for (int e = 0; e < 2; e++) {
        const float *h = e ? r : l;
        memset(x[e], 0, sizeof x[e]);
        for (int t = 0; t < taps && t < NFFT; t++) {
            x[e][t] = h[t];
            *(e ? &er : &el) += (double)h[t] * h[t];
        }
        fftwf_execute_dft_r2c(fwd, x[e], spec);
        for (int b = 0; b <= NFFT / 2; b++)
            if (b * RATE / NFFT > LOWPASS_HZ)
                spec[b] = 0;
        fftwf_execute_dft_c2r(inv, spec, x[e]);
    }
    double best = -INFINITY, c[2 * MAX_LAG + 1];
    int at = 0;
    for (int lag = -MAX_LAG; lag <= MAX_LAG; lag++) {
        double s = 0;
        for (int t = 0; t < NFFT; t++) {
            const int u = t - lag;
            if (u >= 0 && u < NFFT)
                s += (double)x[0][t] * x[1][u];
        }
        c[lag + MAX_LAG] = s;
        if (s > best)
            best = s, at = lag;
    }
    double frac = 0;
    if (at > -MAX_LAG && at < MAX_LAG) {
        const double a = c[at + MAX_LAG - 1], b = c[at + MAX_LAG], d = c[at + MAX_LAG + 1];
        const double den = a - 2 * b + d;
        frac = den != 0 ? 0.5 * (a - d) / den : 0;
    }
    *itd = (at + frac) / RATE;
    *ild = 10 * log10(el / er);
    fftwf_destroy_plan(fwd);
    fftwf_destroy_plan(inv);
}

