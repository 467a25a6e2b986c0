/* A room of head orientations split in time where the orientation stops
 * mattering (sofa.h), as pyBinSim keeps the late tail static and swaps
 * only the direct sound and the early reflections: past the mixing time
 * the sound field is diffuse, and a turn of the head changes the tail
 * less than two measurements of one orientation differ.
 *
 * The mixing time is read from the room's own response, by its echo
 * density (Abel and Huang 2006; Lindau et al. 2012 found it among the
 * predictors listeners agree with): in a window of 20 ms sliding along
 * the response, the share of samples further from zero than the window's
 * standard deviation, over the share a Gaussian has there
 * (erfc(1/sqrt 2), 0.3173). Early on, sparse reflections leave that
 * share low; the field is mixed once it reaches 1. One realisation of a
 * mixed field wanders around 1 by about a tenth, and a cluster of early
 * reflections (a floor and a ceiling) can touch it for a few ms, so the
 * field is taken as mixed from where the density stays above 0.9 for a
 * whole window. The window looks at the reference orientation (the one a
 * head ahead hears), each ear, and takes the later.
 *
 * Each orientation keeps its first `at` samples and fades out over the
 * next `fade` (a raised cosine); the tail is the reference's response
 * faded in over the same samples. For the reference the two sum to the
 * measured response exactly; for another orientation the head part is
 * its own and the rest the reference's. Off the audio thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sofa.h"

/* The echo density's window and its step, in seconds. */
#define WINDOW_S 0.020
#define STEP_S 0.001
/* The fade between a head and the tail, in seconds. */
#define FADE_S 0.005
/* The head is at least this long after the direct sound (seconds): the
 * first reflections of a small room come within a few ms, and echo
 * density in a short window can touch 1 early by chance. */
#define HEAD_MIN_S 0.010
/* A Gaussian's share of samples beyond one standard deviation. */
#define GAUSS_SHARE 0.31731050786291415
/* The echo density a mixed field stays above. */
#define MIXED 0.9

int es_split_parse(const char *text, void *ms, char *why, size_t n)
{
    char *end;
    const double v = strtod(text, &end);
    if (!strcmp(text, "auto") || !strcmp(text, "none"))
        *(double *)ms = text[0] == 'a' ? ES_SPLIT_AUTO : ES_SPLIT_NONE;
    else if (end == text || *end || !isfinite(v) || v < 1 || v > 10000) {
        snprintf(why, n, "give auto, none or milliseconds from 1 to 10000");
        return -1;
    } else
        *(double *)ms = v;
    return 0;
}

/* The normalised echo density of h over [start, start + window). */
static double echo_density(const float *h, int start, int window)
{
    double energy = 0;
    for (int k = start; k < start + window; k++)
        energy += (double)h[k] * h[k];
    const double sigma = sqrt(energy / window);
    int beyond = 0;
    for (int k = start; k < start + window; k++)
        beyond += fabs(h[k]) > sigma;
    return sigma == 0 ? 0 : (double)beyond / window / GAUSS_SHARE;
}

/* Where h's echo density, after `from`, stays above MIXED for a whole
 * window (the first window's centre), in samples; -1 when it never
 * does. */
static int echo_dense_at(const float *h, int taps, int from, double rate)
{
    const int window = (int)lround(WINDOW_S * rate);
    const int step = (int)fmax(1, lround(STEP_S * rate));
    int mixed_from = -1;
    for (int start = from; start + window <= taps; start += step) {
        if (echo_density(h, start, window) < MIXED) {
            mixed_from = -1;
            continue;
        }
        if (mixed_from < 0)
            mixed_from = start;
        if (start - mixed_from >= window)
            return mixed_from + window / 2;
    }
    return -1;
}

int es_sofa_reference(const es_sofa *s)
{
    const int ahead = es_sofa_for_head(s, 0, 0, 0);
    return ahead > 0 ? ahead : 0;
}

double es_sofa_mixing_ms(const es_sofa *s, int *direct)
{
    const es_ir *ref = s->sets[es_sofa_reference(s)];
    int latest = -1, first = ref->length;
    for (int r = 0; r < ref->inputs * ref->outputs; r++) {
        const float *h = ref->taps[r];
        if (!h)
            continue;
        const int onset = (int)floor(es_sofa_onset(h, ref->length));
        first = onset < first ? onset : first;
        const int dense = echo_dense_at(h, ref->length, onset, s->rate);
        if (dense < 0)
            return -1;
        latest = dense > latest ? dense : latest;
    }
    if (latest < 0)
        return -1;
    *direct = first;
    return 1000.0 * (latest - first) / s->rate;
}

int es_sofa_split_at(const es_sofa *s, double ms, int *at, char *why, size_t n)
{
    *at = 0;
    if (ms == ES_SPLIT_NONE || s->count < 2 || s->varies == ES_SOFA_REFITTED)
        return 0;
    const int fade = (int)lround(FADE_S * s->rate);
    int from;
    if (ms == ES_SPLIT_AUTO) {
        int direct = 0;
        const double mixing = es_sofa_mixing_ms(s, &direct);
        if (mixing < 0) {
            snprintf(why, n, "whole: no mixing time in %d taps", s->taps);
            return 0;
        }
        from = direct + (int)lround(fmax(mixing / 1000, HEAD_MIN_S) * s->rate);
        snprintf(why, n, "split at %.1f ms (mixing time %.1f ms after the direct sound)",
                 1000.0 * from / s->rate, mixing);
    } else {
        from = (int)lround(ms / 1000 * s->rate);
        snprintf(why, n, "split at %.1f ms (as asked)", ms);
    }
    if (from + fade >= s->taps) {
        snprintf(why, n, "whole: %d taps end before the split at %.1f ms", s->taps,
                 1000.0 * from / s->rate);
        return 0;
    }
    *at = from;
    return 0;
}

/* The head's share of sample k of a response split at `at`: 1 before it,
 * a raised cosine to 0 over the fade, 0 after. */
static double head_share(int k, int at, int fade)
{
    if (k < at)
        return 1;
    if (k >= at + fade)
        return 0;
    const double c = cos(1.5707963267948966 * (k - at + 0.5) / fade);
    return c * c;
}

es_ir *es_sofa_split(es_sofa *s, int at, char *err, size_t n)
{
    const int fade = (int)lround(FADE_S * s->rate);
    const int head_taps = at + fade;
    const es_ir *ref = s->sets[es_sofa_reference(s)];
    es_ir *tail = es_ir_create(ref->inputs, ref->outputs, s->taps - at, s->rate);
    if (!tail)
        goto nomem;
    for (int r = 0; r < ref->inputs * ref->outputs; r++) {
        if (!ref->taps[r] || ref->length <= at)
            continue;
        float *t = es_ir_path(tail, r / ref->outputs, r % ref->outputs);
        if (!t)
            goto nomem;
        for (int k = at; k < ref->length; k++)
            t[k - at] = (float)(ref->taps[r][k] * (1 - head_share(k, at, fade)));
    }
    for (int m = 0; m < s->count; m++) {
        es_ir *whole = s->sets[m];
        es_ir *head = es_ir_create(whole->inputs, whole->outputs, head_taps, s->rate);
        if (!head)
            goto nomem;
        for (int r = 0; r < whole->inputs * whole->outputs; r++) {
            if (!whole->taps[r])
                continue;
            float *h = es_ir_path(head, r / whole->outputs, r % whole->outputs);
            if (!h) {
                es_ir_destroy(head);
                goto nomem;
            }
            const int end = whole->length < head_taps ? whole->length : head_taps;
            for (int k = 0; k < end; k++)
                h[k] = (float)(whole->taps[r][k] * head_share(k, at, fade));
        }
        es_ir_destroy(whole);
        s->sets[m] = head;
    }
    s->taps = head_taps;
    return tail;
nomem:
    es_ir_destroy(tail);
    snprintf(err, n, "out of memory splitting %d sets of %d taps", s->count, s->taps);
    return NULL;
}

es_ir *es_sofa_join(const es_ir *head, const es_ir *tail, int at, char *err, size_t n)
{
    const int length = tail && at + tail->length > head->length ? at + tail->length : head->length;
    es_ir *joined = es_ir_create(head->inputs, head->outputs, length, head->sample_rate);
    if (!joined)
        goto nomem;
    for (int r = 0; r < head->inputs * head->outputs; r++) {
        const float *h = head->taps[r], *t = tail ? tail->taps[r] : NULL;
        if (!h && !t)
            continue;
        float *j = es_ir_path(joined, r / head->outputs, r % head->outputs);
        if (!j)
            goto nomem;
        for (int k = 0; h && k < head->length; k++)
            j[k] = h[k];
        for (int k = 0; t && k < tail->length; k++)
            j[at + k] += t[k];
    }
    return joined;
nomem:
    es_ir_destroy(joined);
    snprintf(err, n, "out of memory joining a head and its tail");
    return NULL;
}
