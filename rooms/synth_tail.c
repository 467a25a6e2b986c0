/* The late tail is built frame by frame in the frequency domain: every
 * frequency bin gets exactly the energy the decay asks for at that time,
 * with a random phase, and the frames are overlap-added. Gaussian noise
 * would give the same mean decay, but its energy in a narrow band
 * fluctuates so much that one room's measured T30 at 250 Hz can land 20 %
 * off; exact per-bin energy leaves only the overlap between frames to vary.
 * The decay rate follows Eyring per bin, so it changes smoothly across
 * frequency as absorption does, rather than in octave steps. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "fftw_planner.h"
#include "synth_tail.h"

#define FRAME 2048 /* 43 ms at 48 kHz: several bins in every octave above 125 Hz */
#define HOP (FRAME / 4)

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x;
}

int es_room_tail(const es_room_spec *s, double direct, double mix, unsigned seed, float *out,
                 int frames, char *err, size_t n)
{
    const int bins = FRAME / 2 + 1;
    fftwf_complex *spec = fftwf_malloc(sizeof *spec * bins);
    float *grain = fftwf_malloc(sizeof(float) * FRAME);
    double *decay = malloc(sizeof(double) * bins), *window = malloc(sizeof(double) * FRAME);
    fftwf_plan plan = NULL;
    int rc = -1;
    if (!spec || !grain || !decay || !window) {
        snprintf(err, n, "out of memory for the room's tail");
        goto done;
    }
    es_fftw_planner_lock();
    plan = fftwf_plan_dft_c2r_1d(FRAME, spec, grain, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    if (!plan) {
        snprintf(err, n, "cannot plan a %d-point FFT", FRAME);
        goto done;
    }
    /* Energy decays as exp(-6 ln10 t / T60): the amplitude's rate per bin. */
    for (int k = 0; k < bins; k++)
        decay[k] = -3.0 * log(10.0) / es_room_eyring_at(s, (double)k * s->rate / FRAME);
    for (int i = 0; i < FRAME; i++)
        window[i] = 0.5 - 0.5 * cos(2 * M_PI * (i + 0.5) / FRAME);
    /* The image sources' energy density, 4 pi c / V per second, as a
     * per-sample variance; one frame of unit bins has variance FRAME per
     * sample (FFTW's c2r is unscaled) and Hann windows at a quarter-frame
     * hop add 1.5 in power. */
    const double variance = 4 * M_PI * ES_SPEED_OF_SOUND / (es_room_volume(s) * s->rate);
    const double bin_amp = sqrt(variance / (1.5 * FRAME));
    uint32_t state = seed;
    for (int start = -FRAME / 2; start < frames; start += HOP) {
        const double centre = (start + FRAME / 2) / s->rate;
        for (int k = 0; k < bins; k++) {
            const double a = bin_amp * exp(decay[k] * centre);
            const double phase = 2 * M_PI * (lcg(&state) >> 8) / 16777216.0;
            spec[k][0] = (float)(a * cos(phase));
            spec[k][1] = (float)(a * sin(phase));
        }
        spec[0][1] = spec[bins - 1][1] = 0;
        fftwf_execute(plan);
        for (int i = 0; i < FRAME; i++) {
            const int t = start + i;
            if (t >= 0 && t < frames)
                out[t] += (float)(grain[i] * window[i] *
                                  es_room_tail_weight(t / s->rate - direct, mix));
        }
    }
    rc = 0;
done:
    es_fftw_planner_lock();
    if (plan)
        fftwf_destroy_plan(plan);
    es_fftw_planner_unlock();
    fftwf_free(spec);
    fftwf_free(grain);
    free(decay);
    free(window);
    return rc;
}
