/* Binaural decoders for Ambisonic fields (ambi_decoder.h).
 *
 * The fit is done in N3D, where the harmonics are orthonormal over the
 * sphere, and handed out for SN3D signals (degree l's filters times
 * sqrt(2l + 1)). Per frequency bin, with Y the set's directions'
 * harmonics and W their shares of the sphere:
 *   LS      D = (Y'WY + lambda I)^-1 Y'W H
 *   MagLS   below the cut-off the same; above it H's magnitudes with the
 *           phase the previous bin's decoder gives at each direction,
 *           so the phase runs on smoothly and only magnitudes are fitted;
 *           then each bin's 2 x 2 covariance between the ears over the
 *           sphere set back to the set's own (the optimal mixing of
 *           Vilkamo et al. 2013: the least change that restores it).
 * The weights are each direction's share of 20,000 points spread evenly
 * on the sphere (the nearest measured direction takes each point), so a
 * set dense at the horizon does not outvote its poles, and the floor a
 * set leaves out is heard as its lowest ring. */
#define _DEFAULT_SOURCE /* M_PI */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "ambi_decoder.h"
#include "fftw_planner.h"

#define DEG (M_PI / 180.0)
#define SPREAD_POINTS 20000
#define LAMBDA 1e-3 /* Tikhonov's, against N3D's identity */

static const char *const kind_names[] = {[ES_DECODER_AUTO] = "auto", [ES_DECODER_LS] = "ls",
                                         [ES_DECODER_MAGLS] = "magls",
                                         [ES_DECODER_NONE] = "none"};

int es_decoder_parse(const char *text, void *kind, char *why, size_t n)
{
    for (int k = 0; k < 4; k++)
        if (!strcmp(text, kind_names[k])) {
            *(es_decoder_kind *)kind = (es_decoder_kind)k;
            return 0;
        }
    snprintf(why, n, "'%s' is not auto, ls, magls or none", text);
    return -1;
}

const char *es_decoder_name(es_decoder_kind kind)
{
    return kind_names[kind];
}

es_decoder_kind es_decoder_for_order(es_decoder_kind kind, int order)
{
    return kind != ES_DECODER_AUTO ? kind : order <= 1 ? ES_DECODER_LS : ES_DECODER_MAGLS;
}

/* What one decoder's fit holds. */
typedef struct {
    int q, k, order, taps, nfft, bins;
    double delay;        /* the set's mean onset, samples: MagLS's phase runs on with it */
    double *w;           /* [q]: shares of the sphere, summing to 1 */
    double *y;           /* [q * k]: N3D harmonics of each direction */
    double *a;           /* [k * q]: the LS operator */
    double complex *h;   /* [2][q][bins]: the HRTFs */
    double complex *d;   /* [2][k][bins]: the decoder */
} fit;

static void fit_free(fit *f)
{
    free(f->w);
    free(f->y);
    free(f->a);
    free(f->h);
    free(f->d);
}

/* Each direction's share of the sphere. */
static void spread_weights(const es_sofa *s, double *w)
{
    double (*dir)[3] = malloc((size_t)s->count * sizeof *dir);
    if (!dir) {
        for (int q = 0; q < s->count; q++)
            w[q] = 1.0 / s->count;
        return;
    }
    for (int q = 0; q < s->count; q++) {
        const double az = s->pose[q].azimuth * DEG, el = s->pose[q].elevation * DEG;
        dir[q][0] = cos(el) * cos(az), dir[q][1] = cos(el) * sin(az), dir[q][2] = sin(el);
        w[q] = 0;
    }
    const double golden = M_PI * (3 - sqrt(5.0));
    for (int i = 0; i < SPREAD_POINTS; i++) {
        const double z = 1 - (2.0 * i + 1) / SPREAD_POINTS, r = sqrt(1 - z * z);
        const double p[3] = {r * cos(golden * i), r * sin(golden * i), z};
        int best = 0;
        double most = -2;
        for (int q = 0; q < s->count; q++) {
            const double dot = p[0] * dir[q][0] + p[1] * dir[q][1] + p[2] * dir[q][2];
            if (dot > most)
                most = dot, best = q;
        }
        w[best] += 1.0 / SPREAD_POINTS;
    }
    free(dir);
}

/* Solves g x = b in place for SPD g (k x k), b with `cols` columns. */
static int cholesky_solve(double *g, int k, double *b, int cols)
{
    for (int j = 0; j < k; j++) {
        double s = g[j * k + j];
        for (int c = 0; c < j; c++)
            s -= g[j * k + c] * g[j * k + c];
        if (s <= 0)
            return -1;
        g[j * k + j] = sqrt(s);
        for (int i = j + 1; i < k; i++) {
            double t = g[i * k + j];
            for (int c = 0; c < j; c++)
                t -= g[i * k + c] * g[j * k + c];
            g[i * k + j] = t / g[j * k + j];
        }
    }
    for (int col = 0; col < cols; col++) {
        for (int i = 0; i < k; i++) { /* L z = b */
            double t = b[i * cols + col];
            for (int c = 0; c < i; c++)
                t -= g[i * k + c] * b[c * cols + col];
            b[i * cols + col] = t / g[i * k + i];
        }
        for (int i = k - 1; i >= 0; i--) { /* L' x = z */
            double t = b[i * cols + col];
            for (int c = i + 1; c < k; c++)
                t -= g[c * k + i] * b[c * cols + col];
            b[i * cols + col] = t / g[i * k + i];
        }
    }
    return 0;
}

/* A = (Y'WY + lambda I)^-1 Y'W. */
static int ls_operator(fit *f)
{
    const int k = f->k, q = f->q;
    double *g = calloc((size_t)k * k, sizeof *g);
    if (!g)
        return -1;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double s = 0;
            for (int p = 0; p < q; p++)
                s += f->y[p * k + i] * f->w[p] * f->y[p * k + j];
            g[i * k + j] = s + (i == j ? LAMBDA : 0);
        }
    for (int i = 0; i < k; i++)
        for (int p = 0; p < q; p++)
            f->a[i * q + p] = f->y[p * k + i] * f->w[p];
    const int rc = cholesky_solve(g, k, f->a, q);
    free(g);
    return rc;
}

/* The HRTFs of every direction and ear, nfft points. */
static int transform_set(fit *f, const es_sofa *s)
{
    float *in = fftwf_malloc(sizeof(float) * (size_t)f->nfft);
    fftwf_complex *out = fftwf_malloc(sizeof(fftwf_complex) * (size_t)f->bins);
    fftwf_plan plan = NULL;
    if (in && out) {
        es_fftw_planner_lock();
        plan = fftwf_plan_dft_r2c_1d(f->nfft, in, out, FFTW_ESTIMATE);
        es_fftw_planner_unlock();
    }
    for (int e = 0; plan && e < 2; e++)
        for (int p = 0; p < f->q; p++) {
            memset(in, 0, sizeof(float) * (size_t)f->nfft);
            memcpy(in, s->sets[p]->taps[e], sizeof(float) * (size_t)f->taps);
            fftwf_execute(plan);
            double complex *h = f->h + ((size_t)e * f->q + p) * f->bins;
            for (int b = 0; b < f->bins; b++)
                h[b] = out[b]; /* fftwf_complex is C99's after <complex.h> */
        }
    const int rc = plan ? 0 : -1;
    es_fftw_destroy_plans(plan, NULL);
    fftwf_free(in);
    fftwf_free(out);
    return rc;
}

static double complex *dec_at(const fit *f, int e, int k)
{
    return f->d + ((size_t)e * f->k + k) * f->bins;
}

/* The decoder's response at direction p, ear e, bin b. */
static double complex decoded(const fit *f, int p, int e, int b)
{
    double complex x = 0;
    for (int k = 0; k < f->k; k++)
        x += f->y[p * f->k + k] * dec_at(f, e, k)[b];
    return x;
}

/* Bin b fitted: LS, or magnitudes with the previous bin's phase. */
static void fit_bin(fit *f, int b, int magnitudes, double complex *target)
{
    /* The phase one bin on at the set's mean onset: the magnitudes' part
     * arrives with the rest (held still, it would arrive at sample 0,
     * ahead of every HRIR, and wrap round to the filter's end). */
    const double step = 2 * M_PI * f->delay / f->nfft;
    for (int e = 0; e < 2; e++) {
        for (int p = 0; p < f->q; p++) {
            const double complex h = f->h[((size_t)e * f->q + p) * f->bins + b];
            target[p] = magnitudes ? cabs(h) * cexp(I * (carg(decoded(f, p, e, b - 1)) - step))
                                   : h;
        }
        for (int k = 0; k < f->k; k++) {
            double complex s = 0;
            for (int p = 0; p < f->q; p++)
                s += f->a[k * f->q + p] * target[p];
            dec_at(f, e, k)[b] = s;
        }
    }
}

/* The 2 x 2 covariance over the sphere at bin b: of the set (decoder 0)
 * or of the decoder's output. c = [c11 c12; conj(c12) c22]. */
static void covariance(const fit *f, int b, int of_decoder, double complex c[2][2])
{
    memset(c, 0, sizeof(double complex) * 4);
    for (int p = 0; p < f->q; p++) {
        double complex x[2];
        for (int e = 0; e < 2; e++)
            x[e] = of_decoder ? decoded(f, p, e, b) : f->h[((size_t)e * f->q + p) * f->bins + b];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                c[i][j] += f->w[p] * x[i] * conj(x[j]);
    }
}

/* Lower Cholesky factor of a 2 x 2 Hermitian matrix: 0, or -1 if it is
 * not positive definite. */
static int chol2(double complex c[2][2], double complex l[2][2])
{
    const double a = creal(c[0][0]);
    if (a <= 0)
        return -1;
    l[0][0] = sqrt(a), l[0][1] = 0;
    l[1][0] = c[1][0] / l[0][0];
    const double d = creal(c[1][1]) - creal(l[1][0] * conj(l[1][0]));
    if (d <= 1e-30 * a)
        return -1;
    l[1][1] = sqrt(d);
    return 0;
}

static void mul2(double complex a[2][2], double complex b[2][2], double complex out[2][2])
{
    double complex t[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            t[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
    memcpy(out, t, sizeof t);
}

static int inv2(double complex a[2][2], double complex out[2][2])
{
    const double complex det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    if (cabs(det) < 1e-300)
        return -1;
    const double complex t[2][2] = {{a[1][1] / det, -a[0][1] / det},
                                    {-a[1][0] / det, a[0][0] / det}};
    memcpy(out, t, sizeof t);
    return 0;
}

static void herm2(double complex a[2][2], double complex out[2][2])
{
    const double complex t[2][2] = {{conj(a[0][0]), conj(a[1][0])},
                                    {conj(a[0][1]), conj(a[1][1])}};
    memcpy(out, t, sizeof t);
}

/* Bin b's ears mixed so that their covariance over the sphere is the
 * set's: M = Ky P Kx^-1, P the unitary closest to the identity in the
 * mixing's sense (the polar factor of Kx' Ky, conjugated). */
static void match_covariance(fit *f, int b)
{
    double complex ch[2][2], cx[2][2], ky[2][2], kx[2][2], a[2][2], ah[2][2], bb[2][2];
    covariance(f, b, 0, ch);
    covariance(f, b, 1, cx);
    if (chol2(ch, ky) || chol2(cx, kx))
        return;
    herm2(kx, a);
    mul2(a, ky, a); /* A = Kx' Ky */
    herm2(a, ah);
    mul2(ah, a, bb); /* A'A */
    const double s = sqrt(fmax(0, creal(bb[0][0] * bb[1][1] - bb[0][1] * bb[1][0])));
    const double t = sqrt(creal(bb[0][0] + bb[1][1]) + 2 * s);
    if (t <= 0)
        return;
    double complex root[2][2] = {{(bb[0][0] + s) / t, bb[0][1] / t},
                                 {bb[1][0] / t, (bb[1][1] + s) / t}};
    double complex up[2][2], p[2][2], kxi[2][2], m[2][2];
    if (inv2(root, root) || inv2(kx, kxi))
        return;
    mul2(a, root, up); /* polar factor U V' */
    herm2(up, p);      /* P = V U' */
    mul2(ky, p, m);
    mul2(m, kxi, m);
    /* ears' = M ears: each channel's pair of filters mixed by M. */
    for (int k = 0; k < f->k; k++) {
        const double complex l = dec_at(f, 0, k)[b], r = dec_at(f, 1, k)[b];
        dec_at(f, 0, k)[b] = m[0][0] * l + m[0][1] * r;
        dec_at(f, 1, k)[b] = m[1][0] * l + m[1][1] * r;
    }
}

/* The decoder's filters in time, for SN3D signals. */
/* The decoder's length: the shortest power of two (64 at least, half the
 * fit's FFT at most) that holds the set's responses to within -40 dB of
 * their energy (summed over every direction and ear), with an eighth more
 * for the fade. KEMAR's 558 taps at 48 kHz: 1,024 (-40 dB at tap 502). */
static int decoder_length(const fit *f, const es_sofa *s)
{
    double total = 0, *at = calloc((size_t)s->taps, sizeof *at);
    if (!at)
        return f->nfft / 2;
    for (int p = 0; p < s->count; p++)
        for (int e = 0; e < 2; e++)
            for (int t = 0; t < s->taps; t++)
                at[t] += (double)s->sets[p]->taps[e][t] * s->sets[p]->taps[e][t];
    for (int t = 0; t < s->taps; t++)
        total += at[t];
    int held = s->taps;
    for (double sum = 0; held > 0 && sum < 1e-4 * total; held--)
        sum += at[held - 1];
    free(at);
    int keep = 64;
    while (keep < held + held / 8 + 1 && keep < f->nfft / 2)
        keep *= 2;
    return keep;
}

static es_ir *to_filters(const fit *f, double rate, int keep)
{
    const int fade = keep / 8;
    es_ir *ir = es_ir_create(f->k, 2, keep, rate);
    float *x = fftwf_malloc(sizeof(float) * (size_t)f->nfft);
    fftwf_complex *spec = fftwf_malloc(sizeof(fftwf_complex) * (size_t)f->bins);
    fftwf_plan plan = NULL;
    if (ir && x && spec) {
        es_fftw_planner_lock();
        plan = fftwf_plan_dft_c2r_1d(f->nfft, spec, x, FFTW_ESTIMATE);
        es_fftw_planner_unlock();
    }
    for (int k = 0; plan && k < f->k; k++) {
        const int l = (int)floor(sqrt((double)k) + 1e-9);
        const double sn3d = sqrt(2.0 * l + 1) / f->nfft;
        for (int e = 0; e < 2; e++) {
            const double complex *d = dec_at(f, e, k);
            for (int b = 0; b < f->bins; b++)
                spec[b] = (fftwf_complex)(d[b] * sn3d);
            spec[0] = crealf(spec[0]);
            spec[f->bins - 1] = crealf(spec[f->bins - 1]);
            fftwf_execute(plan);
            float *h = es_ir_path(ir, k, e);
            /* The first `keep` samples, faded out over their last eighth:
             * what the fit rings past the set's own length, and what
             * wrapped round from before sample 0, left out. */
            for (int t = 0; h && t < keep; t++)
                h[t] = t < keep - fade ? x[t]
                                       : x[t] * (float)(0.5 + 0.5 * cos(M_PI * (t - keep + fade) / fade));
        }
    }
    const int ok = plan != NULL;
    es_fftw_destroy_plans(plan, NULL);
    fftwf_free(x);
    fftwf_free(spec);
    if (!ok) {
        es_ir_destroy(ir);
        return NULL;
    }
    return ir;
}

static int usable(const es_sofa *s, int order, char *err, size_t n)
{
    const int k = ES_AMBI_CHANNELS(order);
    if (order < 1 || order > ES_AMBI_ORDER_MAX)
        snprintf(err, n, "order %d: 1 to %d", order, ES_AMBI_ORDER_MAX);
    else if (s->varies != ES_SOFA_SOURCE || s->inputs != 1 || s->outputs != 2)
        snprintf(err, n, "the HRIR set is %s with %d %s, %d emitter%s and %d receivers: a "
                 "decoder needs source directions around one head with two ears "
                 "(SimpleFreeFieldHRIR)", s->convention, s->count,
                 es_sofa_varies_words(s->varies), s->inputs, s->inputs == 1 ? "" : "s",
                 s->outputs);
    else if (s->count < k)
        snprintf(err, n, "the HRIR set has %d directions; order %d needs at least %d", s->count,
                 order, k);
    else
        return 1;
    return 0;
}

static int fit_alloc(fit *f, const es_sofa *s, int order)
{
    memset(f, 0, sizeof *f);
    f->q = s->count, f->k = ES_AMBI_CHANNELS(order), f->order = order, f->taps = s->taps;
    f->nfft = 64;
    while (f->nfft < 2 * s->taps)
        f->nfft *= 2;
    f->bins = f->nfft / 2 + 1;
    f->w = malloc(sizeof(double) * (size_t)f->q);
    f->y = malloc(sizeof(double) * (size_t)f->q * f->k);
    f->a = malloc(sizeof(double) * (size_t)f->q * f->k);
    f->h = malloc(sizeof(double complex) * 2 * (size_t)f->q * f->bins);
    f->d = calloc(2 * (size_t)f->k * f->bins, sizeof(double complex));
    if (!f->w || !f->y || !f->a || !f->h || !f->d)
        return -1;
    spread_weights(s, f->w);
    for (int p = 0; p < f->q; p++)
        for (int e = 0; e < 2; e++)
            f->delay += f->w[p] * 0.5 * es_sofa_onset(s->sets[p]->taps[e], s->taps);
    for (int p = 0; p < f->q; p++)
        es_sh_encode(order, ES_AMBI_N3D, s->pose[p].azimuth, s->pose[p].elevation,
                     f->y + (size_t)p * f->k);
    return 0;
}

es_ir *es_ambi_binaural_decoder(const es_sofa *s, int order, es_decoder_kind kind, char *note,
                                size_t nn, char *err, size_t n)
{
    if (!usable(s, order, err, n))
        return NULL;
    kind = es_decoder_for_order(kind, order);
    fit f;
    double complex *target = NULL;
    es_ir *ir = NULL;
    if (fit_alloc(&f, s, order) != 0 || !(target = malloc(sizeof *target * (size_t)f.q)) ||
        ls_operator(&f) != 0 || transform_set(&f, s) != 0) {
        snprintf(err, n, "out of memory for an order-%d decoder of %d directions", order, s->count);
        goto done;
    }
    const int cut = kind == ES_DECODER_MAGLS
                        ? (int)ceil(ES_MAGLS_CUTOFF_HZ * f.nfft / s->rate)
                        : f.bins;
    for (int b = 0; b < f.bins; b++)
        fit_bin(&f, b, b >= cut && b > 0, target);
    for (int b = 0; kind == ES_DECODER_MAGLS && b < f.bins; b++)
        match_covariance(&f, b);
    if (!(ir = to_filters(&f, s->rate, decoder_length(&f, s)))) {
        snprintf(err, n, "out of memory for the decoder's filters");
        goto done;
    }
    if (kind == ES_DECODER_MAGLS)
        snprintf(note, nn, "MagLS order %d from %d directions, magnitudes above %.0f Hz, the "
                 "diffuse field's covariance kept", order, s->count, ES_MAGLS_CUTOFF_HZ);
    else
        snprintf(note, nn, "LS order %d from %d directions", order, s->count);
done:
    free(target);
    fit_free(&f);
    return ir;
}

void es_ambi_decode_direction(const es_ir *decoder, int order, double azimuth, double elevation,
                              float *const *out)
{
    double y[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)];
    es_sh_encode(order, ES_AMBI_SN3D, azimuth, elevation, y);
    for (int e = 0; e < 2; e++) {
        memset(out[e], 0, sizeof(float) * (size_t)decoder->length);
        for (int k = 0; k < ES_AMBI_CHANNELS(order); k++) {
            const float *h = decoder->taps[k * 2 + e];
            for (int t = 0; h && t < decoder->length; t++)
                out[e][t] += (float)(y[k] * h[t]);
        }
    }
}

/* One filter's response at `hz`. */
static double complex at_frequency(const float *h, int taps, double hz, double rate)
{
    double complex x = 0;
    const double complex step = cexp(-I * 2 * M_PI * hz / rate);
    double complex turn = 1;
    for (int t = 0; h && t < taps; t++, turn *= step)
        x += h[t] * turn;
    return x;
}

double es_ambi_diffuse_coherence(const es_sofa *s, const es_ir *decoder, int order, double hz)
{
    char err[256];
    if (!usable(s, order, err, sizeof err))
        return NAN;
    const int k = ES_AMBI_CHANNELS(order);
    double *w = malloc(sizeof(double) * (size_t)s->count);
    double complex *d = decoder ? malloc(sizeof(double complex) * 2 * (size_t)k) : NULL;
    if (!w || (decoder && !d)) {
        free(w);
        free(d);
        return NAN;
    }
    spread_weights(s, w);
    for (int c = 0; decoder && c < 2 * k; c++)
        d[c] = at_frequency(decoder->taps[c], decoder->length, hz, decoder->sample_rate);
    double pl = 0, pr = 0;
    double complex cross = 0;
    for (int p = 0; p < s->count; p++) {
        double complex x[2] = {0, 0};
        if (decoder) {
            double y[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)];
            es_sh_encode(order, ES_AMBI_SN3D, s->pose[p].azimuth, s->pose[p].elevation, y);
            for (int c = 0; c < k; c++)
                x[0] += y[c] * d[c * 2], x[1] += y[c] * d[c * 2 + 1];
        } else {
            for (int e = 0; e < 2; e++)
                x[e] = at_frequency(s->sets[p]->taps[e], s->taps, hz, s->rate);
        }
        pl += w[p] * creal(x[0] * conj(x[0]));
        pr += w[p] * creal(x[1] * conj(x[1]));
        cross += w[p] * x[0] * conj(x[1]);
    }
    free(w);
    free(d);
    return pl > 0 && pr > 0 ? creal(cross) / sqrt(pl * pr) : NAN;
}
