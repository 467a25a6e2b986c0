/* The measuring sweep (sweep.h). */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sweep.h"

#define TOTAL_SECONDS_MAX 600.0 /* everything played: ten minutes */

/* f1 L rounded to a whole number of cycles (at least one): the
 * synchronised sweep's L. */
static double rate_constant(const es_sweep *s)
{
    const double cycles = round(s->f1 * s->seconds / log(s->f2 / s->f1));
    return (cycles < 1 ? 1 : cycles) / s->f1;
}

double es_sweep_rate_constant(const es_sweep *s)
{
    return rate_constant(s);
}

static double real_seconds(const es_sweep *s)
{
    return rate_constant(s) * log(s->f2 / s->f1);
}

int es_sweep_check(const es_sweep *s, char *err, size_t n)
{
    const double nyquist = s->rate / 2;
    if (!(s->rate >= 8000 && s->rate <= 384000))
        snprintf(err, n, "the rate %g Hz is outside 8000 to 384000", s->rate);
    else if (!(s->f1 > 0) || !(s->f2 > s->f1))
        snprintf(err, n, "the sweep's range %g to %g Hz must rise from above 0 Hz", s->f1,
                 s->f2);
    else if (s->f2 > nyquist)
        snprintf(err, n, "the sweep's top %g Hz is past the Nyquist frequency (%g Hz at %g Hz)",
                 s->f2, nyquist, s->rate);
    else if (!(s->seconds > 0) || s->seconds > ES_SWEEP_SECONDS_MAX)
        snprintf(err, n, "a sweep of %g s: it must be over 0 and at most %g s", s->seconds,
                 ES_SWEEP_SECONDS_MAX);
    else if (s->f1 * s->seconds / log(s->f2 / s->f1) < 0.5)
        snprintf(err, n, "a sweep of %g s from %g Hz is under one cycle of its lowest "
                 "frequency per e-fold: make it longer or start it higher", s->seconds, s->f1);
    else if (!(s->level_db <= 0) || s->level_db < -80)
        snprintf(err, n, "the level %g dBFS is outside -80 to 0", s->level_db);
    else if (!(s->fade_in >= 0) || !(s->fade_out >= 0) ||
             s->fade_in + s->fade_out >= real_seconds(s))
        snprintf(err, n, "fades of %g s in and %g s out do not fit a sweep of %.3f s",
                 s->fade_in, s->fade_out, real_seconds(s));
    else if (s->repeats < 1 || s->repeats > ES_SWEEP_REPEATS_MAX)
        snprintf(err, n, "%d repeats: 1 to %d", s->repeats, ES_SWEEP_REPEATS_MAX);
    else if (!(s->gap >= 0) || s->gap > ES_SWEEP_GAP_MAX)
        snprintf(err, n, "a gap of %g s after each sweep: 0 to %g s", s->gap, ES_SWEEP_GAP_MAX);
    else if (s->repeats * (real_seconds(s) + s->gap) > TOTAL_SECONDS_MAX)
        snprintf(err, n, "%d sweeps of %.1f s and %g s gaps take %.0f s, over the %.0f s "
                 "a measurement may take", s->repeats, real_seconds(s), s->gap,
                 s->repeats * (real_seconds(s) + s->gap), TOTAL_SECONDS_MAX);
    else
        return 0;
    return -1;
}

size_t es_sweep_frames(const es_sweep *s)
{
    return (size_t)ceil(real_seconds(s) * s->rate);
}

size_t es_sweep_period(const es_sweep *s)
{
    return es_sweep_frames(s) + (size_t)ceil(s->gap * s->rate);
}

size_t es_sweep_total(const es_sweep *s)
{
    return (size_t)s->repeats * es_sweep_period(s);
}

double es_sweep_order_lead(const es_sweep *s, int n)
{
    return n > 1 ? rate_constant(s) * log((double)n) : 0;
}

void es_sweep_full_level(const es_sweep *s, double *low, double *high)
{
    const double l = rate_constant(s);
    *low = s->f1 * exp(s->fade_in / l);
    *high = s->f1 * exp((real_seconds(s) - s->fade_out) / l);
}

void es_sweep_band(const es_sweep *s, double *low, double *high)
{
    es_sweep_full_level(s, low, high);
    *low *= pow(2, ES_SWEEP_RISE_OCTAVES);
    *high *= pow(2, -ES_SWEEP_FALL_OCTAVES);
}

/* A raised-cosine ramp from 0 (x = 0) to 1 (x = 1). */
static double ramp(double x)
{
    return x <= 0 ? 0 : x >= 1 ? 1 : 0.5 - 0.5 * cos(M_PI * x);
}

void es_sweep_fill(const es_sweep *s, float *out)
{
    const double l = rate_constant(s), amp = pow(10, s->level_db / 20);
    const double len = real_seconds(s);
    const size_t frames = es_sweep_frames(s);
    for (size_t i = 0; i < frames; i++) {
        const double t = (double)i / s->rate;
        /* The phase in whole cycles and a fraction, so that sin() gets a
         * small argument and loses nothing in a long sweep. */
        const double cycles = s->f1 * l * expm1(t / l);
        const double phase = 2 * M_PI * (cycles - floor(cycles));
        double gain = amp;
        if (s->fade_in > 0)
            gain *= ramp(t / s->fade_in);
        if (s->fade_out > 0)
            gain *= ramp((len - t) / s->fade_out);
        out[i] = (float)(gain * sin(phase));
    }
}

void es_sweep_fill_all(const es_sweep *s, float *out)
{
    const size_t frames = es_sweep_frames(s), period = es_sweep_period(s);
    memset(out, 0, es_sweep_total(s) * sizeof *out);
    es_sweep_fill(s, out);
    for (int r = 1; r < s->repeats; r++)
        memcpy(out + (size_t)r * period, out, frames * sizeof *out);
}
