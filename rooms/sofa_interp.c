/* A filter between measured ones (sofa.h): the blend's measurements
 * summed by weight with their onsets handled apart, as the
 * Spatial_Audio_Framework and SPARTA interpolate HRIRs. Summing the
 * responses as they are would sum two onsets a few samples apart: a comb
 * filter, and an interaural time difference that does not move between
 * them but fades from one to the other. So, per ear:
 *   - each response's onset is found to a fraction of a sample (where it
 *     first reaches -20 dB of its peak);
 *   - the onset heard is the weighted mean of theirs;
 *   - each response is moved by a fractional delay so that its onset
 *     falls there, and the moved responses are summed by weight.
 * A turn of a degree so moves the ITD by a degree's worth, and on a
 * measured direction the result is the measured filter. Off the audio
 * thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sofa.h"

#define PI 3.14159265358979323846
/* The fractional delay: a Blackman-windowed sinc of 2 x HALF + 1 taps
 * (flat within 0.1 dB to 0.4 of the rate, below the top octave that
 * carries no ITD). */
#define HALF 24
/* The onset's threshold, of the peak: -20 dB. */
#define ONSET 0.1
/* Steps a sample is cut into when the onset is looked for between two. */
#define STEPS 16

static double sinc_tap(double x)
{
    if (fabs(x) >= HALF + 1)
        return 0;
    const double window = 0.42 + 0.5 * cos(PI * x / (HALF + 1)) + 0.08 * cos(2 * PI * x / (HALF + 1));
    return x == 0 ? 1 : window * sin(PI * x) / (PI * x);
}

/* h between samples: the windowed sinc through its neighbours. */
static double at(const float *h, int taps, double t)
{
    const int from = (int)floor(t) - HALF, to = (int)floor(t) + HALF + 1;
    double sum = 0;
    for (int k = from < 0 ? 0 : from; k <= to && k < taps; k++)
        sum += h[k] * sinc_tap(t - k);
    return sum;
}

double es_sofa_onset(const float *h, int taps)
{
    float peak = 0;
    for (int k = 0; k < taps; k++)
        peak = fmaxf(peak, fabsf(h[k]));
    if (peak == 0)
        return 0;
    const double threshold = ONSET * peak;
    int first = 0;
    while (fabsf(h[first]) < threshold)
        first++;
    if (first == 0)
        return 0;
    /* Between the sample before and the first: where the band-limited
     * response first reaches the threshold, to 1/STEPS of a sample, then
     * linearly within that step. */
    double before = fabs(at(h, taps, first - 1));
    for (int s = 1; s <= STEPS; s++) {
        const double t = first - 1 + (double)s / STEPS, now = fabs(at(h, taps, t));
        if (now >= threshold)
            return t - (now - threshold) / fmax(now - before, 1e-30) / STEPS;
        before = now;
    }
    return first;
}

/* out += weight x h delayed by `by` samples (fractional), within taps. */
static void add_moved(float *out, const float *h, int taps, double weight, double by)
{
    const double whole = floor(by), part = by - whole;
    if (part == 0) {
        for (int k = 0; k < taps; k++) {
            const long from = k - (long)whole;
            if (from >= 0 && from < taps)
                out[k] += (float)(weight * h[from]);
        }
        return;
    }
    double kernel[2 * HALF + 2];
    for (int j = -HALF; j <= HALF + 1; j++)
        kernel[j + HALF] = sinc_tap(j - part);
    for (int k = 0; k < taps; k++) {
        /* out[k] = sum_j h[k - whole - j] kernel(j - part) */
        double sum = 0;
        for (int j = -HALF; j <= HALF + 1; j++) {
            const long from = k - (long)whole - j;
            if (from >= 0 && from < taps)
                sum += h[from] * kernel[j + HALF];
        }
        out[k] += (float)(weight * sum);
    }
}

es_ir *es_sofa_blend_ir(const es_sofa *s, const es_sofa_blend *b, char *err, size_t n)
{
    if (!s || !b || b->count < 1 || b->count > 3) {
        snprintf(err, n, "no measurement to blend");
        return NULL;
    }
    const es_ir *first = s->sets[b->index[0]];
    es_ir *ir = es_ir_create(first->inputs, first->outputs, first->length, first->sample_rate);
    if (!ir) {
        snprintf(err, n, "out of memory for a filter of %d taps", first->length);
        return NULL;
    }
    for (int path = 0; path < first->inputs * first->outputs; path++) {
        float *out = es_ir_path(ir, path / first->outputs, path % first->outputs);
        if (!out) {
            es_ir_destroy(ir);
            snprintf(err, n, "out of memory for a filter of %d taps", first->length);
            return NULL;
        }
        double onset[3], heard = 0;
        for (int c = 0; c < b->count; c++) {
            const float *h = s->sets[b->index[c]]->taps[path];
            onset[c] = h ? es_sofa_onset(h, first->length) : 0;
            heard += b->weight[c] * onset[c];
        }
        for (int c = 0; c < b->count; c++) {
            const float *h = s->sets[b->index[c]]->taps[path];
            if (h && b->weight[c] > 0)
                add_moved(out, h, first->length, b->weight[c],
                          b->count == 1 ? 0 : heard - onset[c]);
        }
    }
    return ir;
}
