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

typedef struct {
    double y[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)]; /* its harmonics */
    double t, amp[BANDS];
} image;

typedef struct {
    image *list;
    int count, capacity, order, failed;
    double ahead[2], left[2];
    const double *centre;
} images;

static void keep_image(void *ctx, const double at[3], double t, const double amp[BANDS])
{
    images *im = ctx;
    if (im->failed)
        return;
    if (im->count == im->capacity) {
        const int cap = im->capacity ? 2 * im->capacity : 1024;
        image *more = realloc(im->list, (size_t)cap * sizeof *more);
        if (!more) {
            im->failed = 1;
            return;
        }
        im->list = more, im->capacity = cap;
    }
    const double d[3] = {at[0] - im->centre[0], at[1] - im->centre[1], at[2] - im->centre[2]};
    const double x = d[0] * im->ahead[0] + d[1] * im->ahead[1];
    const double y = d[0] * im->left[0] + d[1] * im->left[1];
    image *i = &im->list[im->count++];
    es_sh_encode(im->order, ES_AMBI_SN3D, atan2(y, x) * 180 / M_PI,
                 atan2(d[2], hypot(x, y)) * 180 / M_PI, i->y);
    i->t = t;
    memcpy(i->amp, amp, sizeof i->amp);
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
        for (int i = 0; i < im->count; i++)
            es_room_add_impulse(w->buf, w->size - 2 * ES_ROOM_LANCZOS, im->list[i].t * rate,
                                im->list[i].amp[b] * im->list[i].y[k]);
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
    const double fx = s->source[0] - c[0], fy = s->source[1] - c[1], flat = hypot(fx, fy);
    const double direct = sqrt(fx * fx + fy * fy + pow(s->source[2] - c[2], 2)) / ES_SPEED_OF_SOUND;
    images im = {.order = order, .centre = c};
    im.ahead[0] = flat > 1e-9 ? fx / flat : 1;
    im.ahead[1] = flat > 1e-9 ? fy / flat : 0;
    im.left[0] = -im.ahead[1], im.left[1] = im.ahead[0];
    es_room_each_image(s, c, direct, mix, keep_image, &im);
    float **ch = calloc((size_t)k, sizeof *ch);
    early_work w;
    int rc = -1;
    const int early = (int)ceil((direct + mix) * s->rate) + 4 * ES_ROOM_LANCZOS;
    if (early_alloc(&w, early) != 0 || !ch || im.failed) {
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
    free(im.list);
    free_channels(ch, k);
    return rc;
}
