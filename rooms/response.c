/* What a deconvolved sweep says (response.h). */
#define _DEFAULT_SOURCE /* M_PI */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"
#include "deconvolve.h"
#include "fftw_planner.h"
#include "response.h"

#define SILENT_DBFS (-90.0)   /* a recording under this peak is nothing */
#define PRE_SECONDS 0.002     /* kept before each pulse: a band-limited pulse rings
                                 before its peak too */
#define TAPER_SHARE 8         /* a window's raised-cosine edges: 1/8 of it each */
#define FADE_SECONDS 0.005    /* the cut room's fade-out */

void es_response_recording(const float *recording, size_t frames, es_response *r)
{
    float peak = 0;
    long clipped = 0;
    for (size_t i = 0; i < frames; i++) {
        const float v = fabsf(recording[i]);
        peak = v > peak ? v : peak;
        clipped += v >= ES_CLIP_LEVEL;
    }
    r->recording_peak_db = peak > 0 ? 20 * log10(peak) : -INFINITY;
    r->clipped = clipped;
}

/* A window's power spectrum: `len` frames of h from `from` (taken modulo
 * n: the negative times are at the end), zero-padded to m, into power[m/2+1]. */
typedef struct {
    size_t m;
    float *time;
    fftwf_complex *spec;
    fftwf_plan plan;
} spectrum;

static int spectrum_make(spectrum *sp, size_t m)
{
    sp->m = m;
    sp->time = fftwf_malloc(m * sizeof *sp->time);
    sp->spec = fftwf_malloc((m / 2 + 1) * sizeof *sp->spec);
    es_fftw_planner_lock();
    sp->plan = sp->time && sp->spec
                   ? fftwf_plan_dft_r2c_1d((int)m, sp->time, sp->spec, FFTW_ESTIMATE)
                   : NULL;
    es_fftw_planner_unlock();
    return sp->plan ? 0 : -1;
}

static void spectrum_free(spectrum *sp)
{
    es_fftw_planner_lock();
    if (sp->plan)
        fftwf_destroy_plan(sp->plan);
    es_fftw_planner_unlock();
    fftwf_free(sp->time);
    fftwf_free(sp->spec);
}

static void spectrum_of(spectrum *sp, const float *h, size_t n, long from, size_t len,
                        size_t end, double *power)
{
    /* Raised-cosine edges: a window cut square leaks what sits at its edge
     * (the next order's pre-ringing, the slow chirp an even-order product's
     * DC makes) over the whole spectrum. */
    const size_t taper = len / TAPER_SHARE;
    memset(sp->time, 0, sp->m * sizeof *sp->time);
    for (size_t i = 0; i < len && i < sp->m; i++) {
        const long at = from + (long)i;
        /* Past `end` (the gap's end) the noise fades: left out. */
        if (at >= 0 && (size_t)at >= end)
            break;
        const size_t k = at >= 0 ? (size_t)at : n - (size_t)(-at);
        const size_t edge = i < len - 1 - i ? i : len - 1 - i;
        const double w = edge >= taper ? 1 : 0.5 - 0.5 * cos(M_PI * (double)edge / (double)taper);
        sp->time[i] = (float)(w * h[k]);
    }
    fftwf_execute(sp->plan);
    for (size_t k = 0; k <= sp->m / 2; k++)
        power[k] = (double)sp->spec[k][0] * sp->spec[k][0] +
                   (double)sp->spec[k][1] * sp->spec[k][1];
}

/* The harmonic orders: each one's window against the linear response's
 * (response.h), and what the noise alone reads in the same bins. */
static int harmonics(const es_sweep *s, const float *h, size_t n, size_t t0, size_t end,
                     size_t noise_from, double noise, es_response *r)
{
    double low, high;
    es_sweep_band(s, &low, &high);
    const size_t sweep = es_sweep_frames(s);
    r->orders = 0;
    for (int m = 2; m < 2 + ES_RESPONSE_ORDERS; m++) {
        r->harmonic_db[m - 2] = r->harmonic_floor_db[m - 2] = NAN;
        const double lead = es_sweep_order_lead(s, m) * s->rate;
        const double before = es_sweep_order_lead(s, m - 1) * s->rate;
        /* An order that no frequency of the band excites within the band,
         * or whose window runs off the inverse's reach, is not measured. */
        const size_t len = (size_t)(lead - before);
        /* Each pulse sits past its window's rising edge. */
        const long pre = (long)(PRE_SECONDS * s->rate) + (long)(len / TAPER_SHARE);
        if (m * low >= high || lead + (double)pre >= (double)sweep)
            break;
        const size_t msize = es_fft_fast_length(len);
        spectrum sp = {0};
        double *lin = malloc((msize / 2 + 1) * sizeof *lin);
        double *har = malloc((msize / 2 + 1) * sizeof *har);
        double *flo = malloc((msize / 2 + 1) * sizeof *flo);
        if (!lin || !har || !flo || spectrum_make(&sp, msize) != 0) {
            free(lin), free(har), free(flo);
            spectrum_free(&sp);
            return -1;
        }
        const long start = (long)t0 - (long)lead - pre;
        spectrum_of(&sp, h, n, (long)t0 - pre, len, end, lin);
        spectrum_of(&sp, h, n, start, len, end, har);
        const int noise_fits = noise_from + len <= end;
        if (noise_fits)
            spectrum_of(&sp, h, n, (long)noise_from, len, end, flo);
        double p1 = 0, pm = 0, pf = 0;
        size_t bins = 0;
        for (size_t k = 1; (size_t)m * k <= msize / 2; k++) {
            const double f = (double)k * s->rate / (double)msize;
            if (f < low || f * m > high)
                continue;
            p1 += lin[k];
            pm += har[(size_t)m * k];
            pf += noise_fits ? flo[(size_t)m * k] : 0;
            bins++;
        }
        /* Without a stretch of noise as long as the window: white noise of
         * the measured energy per frame, len frames of it in each bin. */
        if (!noise_fits)
            pf = (double)bins * (double)len * noise;
        free(lin), free(har), free(flo);
        spectrum_free(&sp);
        if (!(p1 > 0) || bins == 0)
            break;
        r->orders = m - 1;
        r->harmonic_floor_db[m - 2] = pf > 0 ? 10 * log10(pf / p1) : -INFINITY;
        /* Within 3 dB of what the noise alone reads, it is not a harmonic. */
        if (pm > 2 * pf)
            r->harmonic_db[m - 2] = 10 * log10(pm / p1);
    }
    return 0;
}

int es_response_analyse(const es_sweep *s, const float *h, size_t n, size_t zero,
                        es_response *r)
{
    const size_t end = es_sweep_period(s) - es_sweep_frames(s); /* the gap */
    r->peak = 0;
    r->peak_at = r->onset = r->usable = 0;
    r->pnr_db = NAN;
    r->rings_on = 0;
    r->orders = 0;
    for (int k = 0; k < ES_RESPONSE_ORDERS; k++)
        r->harmonic_db[k] = r->harmonic_floor_db[k] = NAN;
    if (r->clipped > 0)
        r->verdict = ES_RESPONSE_CLIPPED;
    else if (!(r->recording_peak_db > SILENT_DBFS))
        r->verdict = ES_RESPONSE_SILENT;
    else
        r->verdict = ES_RESPONSE_GOOD;
    if (zero >= end || end > n) { /* time zero past the gap: nothing of the room in it */
        if (r->verdict == ES_RESPONSE_GOOD)
            r->verdict = ES_RESPONSE_SILENT;
        return 0;
    }
    const float *ir = h + zero;
    const size_t len = end - zero;
    for (size_t i = 0; i < len; i++)
        if (fabs(ir[i]) > r->peak) {
            r->peak = fabs(ir[i]);
            r->peak_at = i;
        }
    double noise_db;
    int cut;
    if (!(r->peak > 0) || es_acoustics_noise(ir, (int)len, s->rate, &noise_db, &cut) != 0) {
        if (r->verdict == ES_RESPONSE_GOOD)
            r->verdict = ES_RESPONSE_SILENT;
        return 0;
    }
    /* The onset: the first frame within 20 dB of the peak (ISO 3382-1). */
    while (r->onset < len && fabs(ir[r->onset]) < 0.1 * r->peak)
        r->onset++;
    r->usable = (size_t)cut < len ? (size_t)cut : len;
    r->pnr_db = -noise_db;
    /* Lundeby found no cross point: the decay ran to the gap's end. */
    r->rings_on = r->usable + (size_t)(0.010 * s->rate) >= len && isfinite(r->pnr_db);
    if (r->verdict == ES_RESPONSE_GOOD && r->pnr_db < ES_PNR_KEEP_DB)
        r->verdict = ES_RESPONSE_QUIET;
    const double noise = isfinite(r->pnr_db) ? r->peak * r->peak * pow(10, -r->pnr_db / 10)
                                             : 0;
    return harmonics(s, h, n, zero + r->onset, end, zero + r->usable, noise, r);
}

double es_response_retry_level(const es_response *r, const es_sweep *s)
{
    if (r->verdict == ES_RESPONSE_CLIPPED)
        return s->level_db - 10;
    /* Aim the recording's peak at -6 dBFS: room for a louder moment, and
     * far over the noise. */
    double level = s->level_db + (-6 - r->recording_peak_db);
    level = level > 0 ? 0 : level;
    return r->verdict == ES_RESPONSE_QUIET && level > s->level_db + 0.5 ? level : NAN;
}

void es_response_advice(const es_response *r, const es_sweep *s, char *out, size_t n)
{
    const double level = es_response_retry_level(r, s);
    switch (r->verdict) {
    case ES_RESPONSE_CLIPPED:
        snprintf(out, n, "clipped: %ld frames of the recording at full scale, with the sweep "
                 "at %.0f dBFS; measure at %.0f dBFS or lower, or turn the input's gain down",
                 r->clipped, s->level_db, level);
        return;
    case ES_RESPONSE_SILENT:
        if (isinf(r->recording_peak_db))
            snprintf(out, n, "nothing came back: the recording is digital silence; wire the "
                     "sweep's output through the room to the input");
        else
            snprintf(out, n, "nothing came back: the recording peaks at %.1f dBFS; wire the "
                     "sweep's output through the room to the input", r->recording_peak_db);
        return;
    case ES_RESPONSE_QUIET:
        if (!isnan(level))
            snprintf(out, n, "too quiet: the response stands %.1f dB over the noise (%.0f "
                     "needed, %.0f for T30), the recording peaks at %.1f dBFS; measure at "
                     "%.0f dBFS", r->pnr_db, ES_PNR_KEEP_DB, ES_PNR_T30_DB,
                     r->recording_peak_db, level);
        else
            snprintf(out, n, "too quiet: the response stands %.1f dB over the noise (%.0f "
                     "needed), the recording peaks at %.1f dBFS with the sweep at %.0f dBFS; "
                     "raise the input's gain, bring the microphone closer, or use more "
                     "repeats (each doubling gains 3 dB)", r->pnr_db, ES_PNR_KEEP_DB,
                     r->recording_peak_db, s->level_db);
        return;
    case ES_RESPONSE_GOOD:
        if (r->pnr_db < ES_PNR_T30_DB)
            snprintf(out, n, "note: %.1f dB of peak to noise, under the %.0f T30 needs; %s",
                     r->pnr_db, ES_PNR_T30_DB,
                     level > s->level_db + 0.5 ? "a louder sweep or more repeats would help"
                                               : "more repeats would help (each doubling "
                                                 "gains 3 dB)");
        else if (r->rings_on)
            snprintf(out, n, "note: the room still rings at the end of the %.1f s gap; a "
                     "longer gap keeps more of its tail", s->gap);
        else
            snprintf(out, n, "%s", "");
        return;
    }
    snprintf(out, n, "%s", "");
}

void es_response_cut(const float *h, size_t n, size_t zero, size_t frames, double rate,
                     float *out)
{
    for (size_t i = 0; i < frames; i++)
        out[i] = zero + i < n ? h[zero + i] : 0;
    size_t fade = (size_t)(FADE_SECONDS * rate);
    fade = fade < frames ? fade : frames;
    for (size_t i = 0; i < fade; i++)
        out[frames - 1 - i] *= (float)(0.5 - 0.5 * cos(3.14159265358979323846 * (double)i /
                                                      (double)fade));
}
