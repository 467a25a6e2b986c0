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

#define FRAME ES_ROOM_TAIL_FRAME /* 43 ms at 48 kHz: several bins in every octave above 125 Hz */
#define HOP (FRAME / 4)

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x;
}

static double random_phase(uint32_t *state)
{
    return 2 * M_PI * (lcg(state) >> 8) / 16777216.0;
}

/* The tail into out[0] (ears NULL), or into out[0] and out[1] as two ears
 * hear it: per bin, two independent random phases p and q mixed as
 * a e^ip + b e^iq and a e^ip - b e^iq, with a^2 + b^2 = 1 and a^2 - b^2 the
 * coherence asked for, then each ear's gain. */
static int tail(const es_room_spec *s, double direct, double mix, unsigned seed,
                const es_room_ears *ears, float *const *out, int frames, char *err, size_t n)
{
    const int bins = FRAME / 2 + 1, channels = ears ? 2 : 1;
    fftwf_complex *spec[2] = {fftwf_malloc(sizeof(fftwf_complex) * bins),
                              fftwf_malloc(sizeof(fftwf_complex) * bins)};
    float *grain[2] = {fftwf_malloc(sizeof(float) * FRAME), fftwf_malloc(sizeof(float) * FRAME)};
    double *decay = malloc(sizeof(double) * bins), *window = malloc(sizeof(double) * FRAME);
    fftwf_plan plan[2] = {NULL, NULL};
    int rc = -1;
    if (!spec[0] || !spec[1] || !grain[0] || !grain[1] || !decay || !window) {
        snprintf(err, n, "out of memory for the room's tail");
        goto done;
    }
    es_fftw_planner_lock();
    for (int c = 0; c < channels; c++)
        plan[c] = fftwf_plan_dft_c2r_1d(FRAME, spec[c], grain[c], FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    for (int c = 0; c < channels; c++)
        if (!plan[c]) {
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
            const double p = random_phase(&state);
            if (!ears) {
                spec[0][k][0] = (float)(a * cos(p));
                spec[0][k][1] = (float)(a * sin(p));
                continue;
            }
            const double q = random_phase(&state), ic = ears->coherence[k];
            const double same = sqrt(0.5 * (1 + ic)), apart = sqrt(0.5 * (1 - ic));
            for (int c = 0; c < 2; c++) {
                const double sign = c == 0 ? 1 : -1, g = a * ears->gain[c][k];
                spec[c][k][0] = (float)(g * (same * cos(p) + sign * apart * cos(q)));
                spec[c][k][1] = (float)(g * (same * sin(p) + sign * apart * sin(q)));
            }
        }
        for (int c = 0; c < channels; c++) {
            spec[c][0][1] = spec[c][bins - 1][1] = 0;
            fftwf_execute(plan[c]);
            for (int i = 0; i < FRAME; i++) {
                const int t = start + i;
                if (t >= 0 && t < frames)
                    out[c][t] += (float)(grain[c][i] * window[i] *
                                         es_room_tail_weight(t / s->rate - direct, mix));
            }
        }
    }
    rc = 0;
done:
    es_fftw_destroy_plans(plan[0], plan[1]);
    for (int c = 0; c < 2; c++) {
        fftwf_free(spec[c]);
        fftwf_free(grain[c]);
    }
    free(decay);
    free(window);
    return rc;
}

int es_room_tail(const es_room_spec *s, double direct, double mix, unsigned seed, float *out,
                 int frames, char *err, size_t n)
{
    float *const one[1] = {out};
    return tail(s, direct, mix, seed, NULL, one, frames, err, n);
}

int es_room_tail_ears(const es_room_spec *s, double direct, double mix, unsigned seed,
                      const es_room_ears *ears, float *left, float *right, int frames,
                      char *err, size_t n)
{
    float *const two[2] = {left, right};
    return tail(s, direct, mix, seed, ears, two, frames, err, n);
}

typedef struct {
    es_room_heard_images *out;
    int capacity, failed;
    double ahead[2], left[2];
    const double *centre;
} image_collector;

static void keep_heard_image(void *ctx, const double at[3], double t,
                             const double amp[ES_OCTAVE_BANDS])
{
    image_collector *c = ctx;
    es_room_heard_images *im = c->out;
    if (c->failed)
        return;
    if (im->count == c->capacity) {
        const int cap = c->capacity ? 2 * c->capacity : 1024;
        es_room_heard_image *more = realloc(im->list, (size_t)cap * sizeof *more);
        if (!more) {
            c->failed = 1;
            return;
        }
        im->list = more, c->capacity = cap;
    }
    const double d[3] = {at[0] - c->centre[0], at[1] - c->centre[1], at[2] - c->centre[2]};
    const double x = d[0] * c->ahead[0] + d[1] * c->ahead[1];
    const double y = d[0] * c->left[0] + d[1] * c->left[1];
    es_room_heard_image *i = &im->list[im->count++];
    i->azimuth = (float)(atan2(y, x) * 180 / M_PI);
    i->elevation = (float)(atan2(d[2], hypot(x, y)) * 180 / M_PI);
    i->t = t;
    memcpy(i->amp, amp, sizeof i->amp);
}

int es_room_images_heard(const es_room_spec *s, double direct, double mix,
                         es_room_heard_images *out)
{
    /* Yaw 0 looks at the source, level; straight up, along x. */
    const double *c = s->listener;
    image_collector k = {.out = out, .centre = c};
    const double fx = s->source[0] - c[0], fy = s->source[1] - c[1], flat = hypot(fx, fy);
    k.ahead[0] = flat > 1e-9 ? fx / flat : 1;
    k.ahead[1] = flat > 1e-9 ? fy / flat : 0;
    k.left[0] = -k.ahead[1];
    k.left[1] = k.ahead[0];
    *out = (es_room_heard_images){0};
    es_room_each_image(s, c, direct, mix, keep_heard_image, &k);
    return k.failed ? -1 : 0;
}
