/* A synthesised room over head orientations (synth_binaural.h). */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "fftw_planner.h"
#include "synth_binaural.h"
#include "synth_tail.h"

#define EARS 2
#define BANDS ES_OCTAVE_BANDS
#define LANCZOS ES_ROOM_LANCZOS

/* What the HRIR set says about a diffuse field, at the tail's bins. */
static int ears_of(const es_sofa *h, es_room_ears *ears, char *err, size_t n)
{
    const int frame = ES_ROOM_TAIL_FRAME, bins = ES_ROOM_TAIL_BINS;
    float *in = fftwf_malloc(sizeof(float) * frame);
    fftwf_complex *out[EARS] = {fftwf_malloc(sizeof(fftwf_complex) * bins),
                                fftwf_malloc(sizeof(fftwf_complex) * bins)};
    double *power[EARS] = {calloc((size_t)bins, sizeof(double)),
                           calloc((size_t)bins, sizeof(double))};
    double *cross = calloc((size_t)bins, sizeof(double));
    fftwf_plan plan[EARS] = {NULL, NULL};
    int rc = -1;
    if (!in || !out[0] || !out[1] || !power[0] || !power[1] || !cross) {
        snprintf(err, n, "out of memory for the HRIR set's diffuse field");
        goto done;
    }
    es_fftw_planner_lock();
    for (int e = 0; e < EARS; e++)
        plan[e] = fftwf_plan_dft_r2c_1d(frame, in, out[e], FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    if (!plan[0] || !plan[1]) {
        snprintf(err, n, "cannot plan a %d-point FFT", frame);
        goto done;
    }
    for (int m = 0; m < h->count; m++) {
        for (int e = 0; e < EARS; e++) {
            memset(in, 0, sizeof(float) * frame);
            memcpy(in, h->sets[m]->taps[e], sizeof(float) * (size_t)h->taps);
            fftwf_execute(plan[e]);
        }
        for (int k = 0; k < bins; k++) {
            const double lr = out[0][k][0], li = out[0][k][1];
            const double rr = out[1][k][0], ri = out[1][k][1];
            power[0][k] += lr * lr + li * li;
            power[1][k] += rr * rr + ri * ri;
            cross[k] += lr * rr + li * ri; /* Re(L conj(R)) */
        }
    }
    for (int k = 0; k < bins; k++) {
        for (int e = 0; e < EARS; e++)
            ears->gain[e][k] = sqrt(power[e][k] / h->count);
        const double both = sqrt(power[0][k] * power[1][k]);
        const double ic = both > 0 ? cross[k] / both : 1.0;
        /* At most 1 but for rounding (ears alike at DC): past it the
         * tail's mixing weights would be the root of a negative. */
        ears->coherence[k] = ic > 1 ? 1 : ic < -1 ? -1 : ic;
    }
    rc = 0;
done:
    es_fftw_destroy_plans(plan[0], plan[1]);
    fftwf_free(in);
    fftwf_free(out[0]);
    fftwf_free(out[1]);
    free(power[0]);
    free(power[1]);
    free(cross);
    return rc;
}

/* The set is one this can use: source directions, one input to two ears,
 * at the room's rate, filters no longer than the tail's frames. */
static int usable(const es_sofa *h, double rate, char *err, size_t n)
{
    if (h->varies != ES_SOFA_SOURCE || h->count < 2)
        snprintf(err, n, "the HRIR set is %s with %d %s, not a set of source directions "
                 "around a head (SimpleFreeFieldHRIR)", h->convention, h->count,
                 es_sofa_varies_words(h->varies));
    else if (h->inputs != 1 || h->outputs != EARS)
        snprintf(err, n, "the HRIR set has %d emitter%s and %d receivers; a head has one "
                 "source and two ears", h->inputs, h->inputs == 1 ? "" : "s", h->outputs);
    else if (fabs(h->rate - rate) > 1e-6 * rate)
        snprintf(err, n, "the HRIR set is at %g Hz, the room at %g Hz", h->rate, rate);
    else if (h->taps > ES_ROOM_TAIL_FRAME)
        snprintf(err, n, "the HRIRs are %d taps long; at most %d (%.0f ms at %g Hz)", h->taps,
                 ES_ROOM_TAIL_FRAME, 1000.0 * ES_ROOM_TAIL_FRAME / rate, rate);
    else
        return 1;
    return 0;
}

double es_binaural_coherence(const es_sofa *hrir, double hz)
{
    char err[200];
    es_room_ears *ears = malloc(sizeof *ears);
    double ic = NAN;
    if (ears && usable(hrir, hrir->rate, err, sizeof err) && ears_of(hrir, ears, err, sizeof err) == 0) {
        const double at = hz * ES_ROOM_TAIL_FRAME / hrir->rate;
        const int k = (int)lround(at);
        if (k >= 0 && k < ES_ROOM_TAIL_BINS)
            ic = ears->coherence[k];
    }
    free(ears);
    return ic;
}

/* The early part of one orientation: each image through its HRIR, band
 * by band, the bands split in the frequency domain as synth.c splits
 * them. early[e] gets `frames` frames. */
typedef struct {
    int size, frames;
    double rate;
    float *band[BANDS][EARS], *shifted, *sum;
    fftwf_complex *spec, *total;
    fftwf_plan forward, inverse;
} early_work;

static void early_part(early_work *w, const es_sofa *h, const es_room_heard_images *im,
                       double yaw,
                       float *const early[EARS])
{
    const int span = h->taps + 2 * LANCZOS;
    for (int b = 0; b < BANDS; b++)
        for (int e = 0; e < EARS; e++)
            memset(w->band[b][e], 0, sizeof(float) * (size_t)w->size);
    for (int i = 0; i < im->count; i++) {
        const es_room_heard_image *g = &im->list[i];
        const int m = es_sofa_nearest(h, (float)(g->azimuth - yaw), g->elevation);
        const double at = g->t * w->rate;
        const int first = (int)floor(at) - LANCZOS + 1;
        if (m < 0 || first < 0 || first + span > w->size)
            continue;
        double kernel[2 * LANCZOS];
        for (int k = 0; k < 2 * LANCZOS; k++)
            kernel[k] = es_room_lanczos(first + k - at);
        for (int e = 0; e < EARS; e++) {
            /* The HRIR delayed by the image's fractional time, once; then
             * into each band at that band's level. */
            const float *hrir = h->sets[m]->taps[e];
            memset(w->shifted, 0, sizeof(float) * (size_t)span);
            for (int k = 0; k < 2 * LANCZOS; k++)
                for (int j = 0; j < h->taps; j++)
                    w->shifted[k + j] += (float)(kernel[k] * hrir[j]);
            for (int b = 0; b < BANDS; b++) {
                float *dst = w->band[b][e] + first;
                const float a = (float)g->amp[b];
                for (int j = 0; j < span; j++)
                    dst[j] += a * w->shifted[j];
            }
        }
    }
    const int bins = w->size / 2 + 1;
    for (int e = 0; e < EARS; e++) {
        memset(w->total, 0, sizeof(fftwf_complex) * (size_t)bins);
        for (int b = 0; b < BANDS; b++) {
            memcpy(w->sum, w->band[b][e], sizeof(float) * (size_t)w->size);
            fftwf_execute_dft_r2c(w->forward, w->sum, w->spec);
            for (int k = 0; k < bins; k++) {
                const double mask = es_room_band_mask(b, (double)k * w->rate / w->size);
                w->total[k][0] += (float)(mask * w->spec[k][0]);
                w->total[k][1] += (float)(mask * w->spec[k][1]);
            }
        }
        fftwf_execute_dft_c2r(w->inverse, w->total, w->sum);
        for (int t = 0; t < w->frames; t++)
            early[e][t] = w->sum[t] / (float)w->size;
    }
}

static void early_free(early_work *w)
{
    es_fftw_destroy_plans(w->forward, w->inverse);
    for (int b = 0; b < BANDS; b++)
        for (int e = 0; e < EARS; e++)
            fftwf_free(w->band[b][e]);
    fftwf_free(w->shifted);
    fftwf_free(w->sum);
    fftwf_free(w->spec);
    fftwf_free(w->total);
}

static int early_alloc(early_work *w, int frames, int taps, double rate, char *err, size_t n)
{
    memset(w, 0, sizeof *w);
    w->frames = frames;
    w->rate = rate;
    w->size = 2;
    while (w->size < frames + taps + 2 * LANCZOS)
        w->size <<= 1;
    const size_t bins = (size_t)w->size / 2 + 1;
    int ok = 1;
    for (int b = 0; b < BANDS; b++)
        for (int e = 0; e < EARS; e++)
            ok &= (w->band[b][e] = fftwf_malloc(sizeof(float) * (size_t)w->size)) != NULL;
    w->shifted = fftwf_malloc(sizeof(float) * (size_t)(taps + 2 * LANCZOS));
    w->sum = fftwf_malloc(sizeof(float) * (size_t)w->size);
    w->spec = fftwf_malloc(sizeof(fftwf_complex) * bins);
    w->total = fftwf_malloc(sizeof(fftwf_complex) * bins);
    if (!ok || !w->shifted || !w->sum || !w->spec || !w->total) {
        snprintf(err, n, "out of memory for the room's early part");
        return -1;
    }
    es_fftw_planner_lock();
    w->forward = fftwf_plan_dft_r2c_1d(w->size, w->sum, w->spec, FFTW_ESTIMATE);
    w->inverse = fftwf_plan_dft_c2r_1d(w->size, w->total, w->sum, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    if (!w->forward || !w->inverse) {
        snprintf(err, n, "cannot plan a %d-point FFT", w->size);
        return -1;
    }
    return 0;
}

static es_sofa *new_set(int count, int frames, double rate)
{
    es_sofa *set = calloc(1, sizeof *set);
    if (!set || !(set->pose = calloc((size_t)count, sizeof *set->pose)) ||
        !(set->sets = calloc((size_t)count, sizeof *set->sets))) {
        es_sofa_free(set);
        return NULL;
    }
    set->count = count;
    snprintf(set->convention, sizeof set->convention, "SingleRoomSRIR");
    set->varies = ES_SOFA_VIEW;
    set->inputs = 1;
    set->outputs = EARS;
    set->taps = frames;
    set->file_rate = set->rate = rate;
    for (int k = 0; k < count; k++) {
        set->pose[k] = (es_sofa_pose){(float)(360.0 * k / count), 0, 1};
        if (!(set->sets[k] = es_ir_create(1, EARS, frames, rate)) ||
            !es_ir_path(set->sets[k], 0, 0) || !es_ir_path(set->sets[k], 0, 1)) {
            es_sofa_free(set);
            return NULL;
        }
    }
    return set;
}

es_sofa *es_room_synthesise_binaural(const es_room_spec *s, const es_sofa *h, int count,
                                     char *err, size_t n)
{
    if (es_room_spec_check(s, err, n) != 0 || !usable(h, s->rate, err, n))
        return NULL;
    if (count < 1 || count > ES_BINAURAL_ORIENTATIONS_MAX) {
        snprintf(err, n, "%d orientations: 1 to %d", count, ES_BINAURAL_ORIENTATIONS_MAX);
        return NULL;
    }
    const double *c = s->listener;
    const double direct = sqrt(pow(s->source[0] - c[0], 2) + pow(s->source[1] - c[1], 2) +
                               pow(s->source[2] - c[2], 2)) / ES_SPEED_OF_SOUND;
    const int frames = es_room_frames(s);
    const double seconds = frames / s->rate;
    if (es_sofa_write_fits(count, EARS, frames, err, n) != 0)
        return NULL;
    const double mix = es_room_mixing_time(s);
    const int early_frames = (int)ceil((direct + mix) * s->rate) + h->taps + 2 * LANCZOS + 1;

    es_room_heard_images im;
    const int heard = es_room_images_heard(s, direct, mix, &im);

    es_room_ears *ears = malloc(sizeof *ears);
    float *tail[EARS] = {calloc((size_t)frames, sizeof(float)),
                         calloc((size_t)frames, sizeof(float))};
    float *early[EARS] = {malloc(sizeof(float) * (size_t)early_frames),
                          malloc(sizeof(float) * (size_t)early_frames)};
    early_work w;
    es_sofa *set = NULL;
    int failed = 1;
    if (early_alloc(&w, early_frames, h->taps, s->rate, err, n) != 0)
        goto done;
    if (heard != 0 || !ears || !tail[0] || !tail[1] || !early[0] || !early[1] ||
        !(set = new_set(count, frames, s->rate))) {
        snprintf(err, n, "out of memory for %d orientations of %.1f s", count, seconds);
        goto done;
    }
    if (ears_of(h, ears, err, n) != 0 ||
        es_room_tail_ears(s, direct, mix, s->seed * 2654435761u + 1, ears, tail[0], tail[1],
                          frames, err, n) != 0)
        goto done;
    double energy = 0;
    for (int k = 0; k < count; k++) {
        early_part(&w, h, &im, set->pose[k].azimuth, early);
        for (int e = 0; e < EARS; e++) {
            float *y = set->sets[k]->taps[e];
            memcpy(y, tail[e], sizeof(float) * (size_t)frames);
            for (int t = 0; t < early_frames && t < frames; t++)
                y[t] += early[e][t];
            for (int t = 0; t < frames; t++)
                energy += (double)y[t] * y[t];
        }
    }
    /* A SOFA room plays as it is (no programme-level gain, as a measured
     * set's levels are its own): a BRIR's mean energy 1, so white noise
     * keeps its level through the room. At peak 0.5 a reverberant room
     * came out 5 dB louder than what went in, and earshot's runaway guard
     * muted it. */
    const float scale = energy > 0 ? (float)(1.0 / sqrt(energy / (EARS * count))) : 1.0f;
    for (int k = 0; k < count; k++)
        for (int e = 0; e < EARS; e++)
            for (int t = 0; t < frames; t++)
                set->sets[k]->taps[e][t] *= scale;
    failed = 0;
done:
    early_free(&w);
    free(im.list);
    free(ears);
    for (int e = 0; e < EARS; e++) {
        free(tail[e]);
        free(early[e]);
    }
    if (failed) {
        es_sofa_free(set);
        return NULL;
    }
    return set;
}
