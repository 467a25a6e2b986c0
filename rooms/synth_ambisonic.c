/* A synthesised room in spherical harmonics (synth.h,
 * es_room_synthesise_ambisonic): the shoebox's image sources encoded at
 * their directions of arrival, band by band as synth.c splits them, and
 * the Eyring tail as a diffuse field: each SH channel its own noise, at
 * the energy a diffuse field gives it (ACN/SN3D: degree l's channels
 * 1/(2l+1) of W's, W an omnidirectional microphone's). The frame is the
 * binaural synthesis's: yaw 0 looks at the source, level. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "ambisonic.h"
#include "fftw_planner.h"
#include "synth_tail.h"

#define BANDS ES_OCTAVE_BANDS

/* The image sources and each one's harmonics at its direction. */
typedef struct {
    es_room_heard_images heard;
    double *y; /* [count][ES_AMBI_CHANNELS(order)] */
    int k;
} images;

static int encode_images(images *im, int order)
{
    im->k = ES_AMBI_CHANNELS(order);
    im->y = malloc(sizeof(double) * (size_t)(im->heard.count ? im->heard.count : 1) * im->k);
    for (int i = 0; im->y && i < im->heard.count; i++)
        es_sh_encode(order, ES_AMBI_SN3D, im->heard.list[i].azimuth, im->heard.list[i].elevation,
                     im->y + (size_t)i * im->k);
    return im->y ? 0 : -1;
}

typedef struct {
    int size;
    float *buf;
    fftwf_complex *spec, *sum;
    fftwf_plan fwd, inv;
} early_work;

static void early_free(early_work *w)
{
    es_fftw_destroy_plans(w->fwd, w->inv);
    fftwf_free(w->buf);
    fftwf_free(w->spec);
    fftwf_free(w->sum);
}

static int early_alloc(early_work *w, int frames)
{
    memset(w, 0, sizeof *w);
    w->size = 2;
    while (w->size < frames + 2 * ES_ROOM_LANCZOS)
        w->size <<= 1;
    const size_t bins = (size_t)w->size / 2 + 1;
    w->buf = fftwf_malloc(sizeof(float) * (size_t)w->size);
    w->spec = fftwf_malloc(sizeof(fftwf_complex) * bins);
    w->sum = fftwf_malloc(sizeof(fftwf_complex) * bins);
    if (!w->buf || !w->spec || !w->sum)
        return -1;
    es_fftw_planner_lock();
    w->fwd = fftwf_plan_dft_r2c_1d(w->size, w->buf, w->spec, FFTW_ESTIMATE);
    w->inv = fftwf_plan_dft_c2r_1d(w->size, w->sum, w->buf, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    return w->fwd && w->inv ? 0 : -1;
}

/* Channel k's early part into out[0..frames): every image at its gain in
 * that channel, band by band, the bands summed through their masks. */
static void early_channel(early_work *w, const images *im, int k, double rate, float *out,
                          int frames)
{
    const int bins = w->size / 2 + 1;
    memset(w->sum, 0, sizeof(fftwf_complex) * (size_t)bins);
    for (int b = 0; b < BANDS; b++) {
        memset(w->buf, 0, sizeof(float) * (size_t)w->size);
        for (int i = 0; i < im->heard.count; i++)
            es_room_add_impulse(w->buf, w->size - 2 * ES_ROOM_LANCZOS,
                                im->heard.list[i].t * rate,
                                im->heard.list[i].amp[b] * im->y[(size_t)i * im->k + k]);
        fftwf_execute(w->fwd);
        for (int q = 0; q < bins; q++) {
            const double m = es_room_band_mask(b, (double)q * rate / w->size);
            w->sum[q][0] += (float)(m * w->spec[q][0]);
            w->sum[q][1] += (float)(m * w->spec[q][1]);
        }
    }
    fftwf_execute(w->inv);
    for (int t = 0; t < frames && t < w->size; t++)
        out[t] += w->buf[t] / (float)w->size;
}

static void free_channels(float **ch, int count)
{
    for (int c = 0; ch && c < count; c++)
        free(ch[c]);
    free(ch);
}

/* Each channel's diffuse tail, at its degree's share of W's energy. */
static int tails(const es_room_spec *s, int order, double direct, double mix, float **ch,
                 int frames, char *err, size_t n)
{
    for (int k = 0; k < ES_AMBI_CHANNELS(order); k++) {
        const int l = (int)floor(sqrt(k + 0.5));
        float *tail = calloc((size_t)frames, sizeof *tail);
        if (!tail) {
            snprintf(err, n, "out of memory for the room's tail");
            return -1;
        }
        if (es_room_tail(s, direct, mix, s->seed * 2654435761u + (unsigned)k * 40503u + 1, tail,
                         frames, err, n) != 0) {
            free(tail);
            return -1;
        }
        const float g = (float)(1 / sqrt(2.0 * l + 1));
        for (int t = 0; t < frames; t++)
            ch[k][t] += g * tail[t];
        free(tail);
    }
    return 0;
}

int es_room_synthesise_ambisonic(const es_room_spec *s, int order, float ***out, int *out_frames,
                                 char *err, size_t n)
{
    if (es_room_spec_check(s, err, n) != 0)
        return -1;
    if (order < 1 || order > ES_AMBI_ORDER_MAX) {
        snprintf(err, n, "--ambisonic %d: an order from 1 to %d", order, ES_AMBI_ORDER_MAX);
        return -1;
    }
    const int k = ES_AMBI_CHANNELS(order), frames = es_room_frames(s);
    const double *c = s->listener, mix = es_room_mixing_time(s);
    const double direct = sqrt(pow(s->source[0] - c[0], 2) + pow(s->source[1] - c[1], 2) +
                               pow(s->source[2] - c[2], 2)) / ES_SPEED_OF_SOUND;
    images im = {0};
    const int heard = es_room_images_heard(s, direct, mix, &im.heard);
    float **ch = calloc((size_t)k, sizeof *ch);
    early_work w;
    int rc = -1;
    const int early = (int)ceil((direct + mix) * s->rate) + 4 * ES_ROOM_LANCZOS;
    if (early_alloc(&w, early) != 0 || !ch || heard != 0 || encode_images(&im, order) != 0) {
        snprintf(err, n, "out of memory for an order-%d room", order);
        goto done;
    }
    for (int q = 0; q < k; q++)
        if (!(ch[q] = calloc((size_t)frames, sizeof(float)))) {
            snprintf(err, n, "out of memory for %d channels of %.1f s", k, frames / s->rate);
            goto done;
        }
    for (int q = 0; q < k; q++)
        early_channel(&w, &im, q, s->rate, ch[q], frames);
    if (tails(s, order, direct, mix, ch, frames, err, n) != 0)
        goto done;
    float peak = 0;
    for (int t = 0; t < frames; t++)
        peak = fabsf(ch[0][t]) > peak ? fabsf(ch[0][t]) : peak;
    for (int q = 0; q < k && peak > 0; q++)
        for (int t = 0; t < frames; t++)
            ch[q][t] *= 0.5f / peak;
    *out = ch, *out_frames = frames;
    ch = NULL;
    rc = 0;
done:
    early_free(&w);
    free(im.heard.list);
    free(im.y);
    free_channels(ch, k);
    return rc;
}
