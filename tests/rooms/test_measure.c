/* Measuring a room by sweep (sweep.h, deconvolve.h, response.h), against
 * rooms whose answer is known, all made here in float64:
 *   - the sweep: its peak at the level asked for, its length the
 *     synchronised one, silence at both ends (the fades), and every bad
 *     value one line that names it;
 *   - a wire with a delay: the response within -60 dB of a Dirac at that
 *     delay over the sweep's flat band, its peak at the delay to the frame;
 *   - a room (a direct sound at 10 ms, then a noise tail decaying 60 dB in
 *     0.4 s) behind a device's 100 frames: within -60 dB of the room over
 *     the band, its T30 within 2 % of the room's, the direct sound to the
 *     frame once the device's frames are taken as time zero; and through a
 *     loopback reference (the device adds a filter of its own and 100
 *     frames to both): the same, with time zero found by the reference;
 *   - x + 0.1 x^2 in the loop: order 2 at 20 log10(0.05 A) within 1 dB,
 *     orders 3 to 5 under the noise, the linear response still within
 *     -40 dB of the wire;
 *   - noise in the recording at two levels: the PNR within 2 dB of the
 *     true one (the noise deconvolved alone, its energy per frame against
 *     the clean response's peak), and 4 repeats averaged gain 10 log10 4 dB
 *     on it within 1 dB;
 *   - a clipped recording, a silent one and a quiet one: each its verdict,
 *     and advice that names the level to use.
 * The error over the band is taken from 0.2 s before time zero: a band's
 * edges ring before a pulse, and that ringing is the band's, not an error. */
#include <fftw3.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"
#include "deconvolve.h"
#include "response.h"
#include "sweep.h"

#define RATE 16000.0
#define DEVICE 100     /* the device's round trip, frames */
#define DIRECT 160     /* the room's direct sound, frames (10 ms) */
#define ROOM_S 0.5     /* the room's length, seconds */
#define ROOM_RT 0.4    /* its decay: 60 dB in this */

static int failures;

__attribute__((format(printf, 2, 3))) static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures += !ok;
}

static double uniform(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)*s / 4294967296.0 * 2.0 - 1.0;
}

static es_sweep test_sweep(void)
{
    es_sweep s = ES_SWEEP_DEFAULTS(RATE);
    s.seconds = 2;
    s.f2 = 7000;
    s.gap = 1;
    return s;
}

/* The room: a direct sound, then noise under an exponential decay. */
static double *make_room(size_t *frames)
{
    *frames = (size_t)(ROOM_S * RATE);
    double *h = calloc(*frames, sizeof *h);
    unsigned seed = 7;
    h[DIRECT] = 1;
    for (size_t i = DIRECT + 40; i < *frames; i++)
        h[i] = 0.3 * uniform(&seed) * pow(10, -3.0 * (double)(i - DIRECT) / RATE / ROOM_RT);
    return h;
}

/* y = x * h, float64, direct: len(x) + len(h) - 1 values. */
static double *convolve(const float *x, size_t nx, const double *h, size_t nh)
{
    double *y = calloc(nx + nh - 1, sizeof *y);
    for (size_t j = 0; j < nh; j++)
        if (h[j] != 0)
            for (size_t i = 0; i < nx; i++)
                y[i + j] += h[j] * x[i];
    return y;
}

/* Error energy of the response h (n values, time zero at h[zero]) against
 * `want` (len frames from time zero) over the sweep's band, relative to
 * want's energy there, in dB; from PRE before time zero (short of the
 * harmonics). */
#define PRE (size_t)(0.2 * RATE)
static double band_error_db(const es_sweep *s, const float *h, size_t n, size_t zero,
                            const double *want, size_t len)
{
    const size_t m = es_fft_fast_length(2 * (len + PRE));
    float *a = fftwf_malloc(m * sizeof *a), *b = fftwf_malloc(m * sizeof *b);
    fftwf_complex *fa = fftwf_malloc((m / 2 + 1) * sizeof *fa);
    fftwf_complex *fb = fftwf_malloc((m / 2 + 1) * sizeof *fb);
    fftwf_plan pa = fftwf_plan_dft_r2c_1d((int)m, a, fa, FFTW_ESTIMATE);
    fftwf_plan pb = fftwf_plan_dft_r2c_1d((int)m, b, fb, FFTW_ESTIMATE);
    memset(a, 0, m * sizeof *a);
    memset(b, 0, m * sizeof *b);
    for (size_t i = 0; i < PRE + len; i++) {
        a[i] = h[(zero + n - PRE + i) % n];
        b[i] = i >= PRE ? (float)want[i - PRE] : 0;
    }
    fftwf_execute(pa);
    fftwf_execute(pb);
    double low, high, err = 0, all = 0;
    es_sweep_band(s, &low, &high);
    for (size_t k = 0; k <= m / 2; k++) {
        const double f = (double)k * s->rate / (double)m;
        if (f < low || f > high)
            continue;
        const double dr = (double)fa[k][0] - fb[k][0], di = (double)fa[k][1] - fb[k][1];
        err += dr * dr + di * di;
        all += (double)fb[k][0] * fb[k][0] + (double)fb[k][1] * fb[k][1];
    }
    fftwf_destroy_plan(pa);
    fftwf_destroy_plan(pb);
    fftwf_free(a), fftwf_free(b), fftwf_free(fa), fftwf_free(fb);
    return 10 * log10(err / all + 1e-300);
}

/* A recording: `repeats` copies of y (ny frames) `delay` frames into each
 * period, plus noise of rms `noise` everywhere (a new draw each frame). */
static float *record(const es_sweep *s, const double *y, size_t ny, size_t delay, double noise,
                     unsigned seed)
{
    const size_t period = es_sweep_period(s), total = es_sweep_total(s);
    float *rec = calloc(total, sizeof *rec);
    for (int r = 0; r < s->repeats; r++)
        for (size_t i = 0; i < ny && delay + i < period; i++)
            rec[(size_t)r * period + delay + i] = (float)y[i];
    for (size_t i = 0; noise > 0 && i < total; i++)
        rec[i] += (float)(noise * sqrt(3.0) * uniform(&seed));
    return rec;
}

/* The response of a recording: averaged, deconvolved (by `ref` when not
 * NULL), analysed with time zero at `zero`. h is es_deconvolver_length. */
static void measure(const es_sweep *s, const float *rec, const float *ref, size_t zero,
                    float *h, es_response *r)
{
    char err[256];
    es_deconvolver *d = es_deconvolver_create(s, err, sizeof err);
    if (!d) {
        printf("FAIL deconvolver: %s\n", err);
        exit(1);
    }
    const size_t period = es_sweep_period(s);
    float *avg = malloc(period * sizeof *avg), *avg_ref = ref ? malloc(period * sizeof *avg) : NULL;
    es_sweep_average(s, rec, avg);
    if (ref)
        es_sweep_average(s, ref, avg_ref);
    if (es_deconvolve(d, avg, avg_ref, h) != 0)
        printf("FAIL deconvolve: the reference is silent\n"), failures++;
    es_response_recording(rec, es_sweep_total(s), r);
    es_response_analyse(s, h, es_deconvolver_length(d), zero, r);
    free(avg);
    free(avg_ref);
    es_deconvolver_destroy(d);
}

/* A buffer for a response of sweep s: *n values (es_deconvolver_length). */
static float *response_buffer(const es_sweep *s, size_t *n)
{
    char err[256];
    es_deconvolver *d = es_deconvolver_create(s, err, sizeof err);
    if (!d) {
        printf("FAIL deconvolver: %s\n", err);
        exit(1);
    }
    *n = es_deconvolver_length(d);
    es_deconvolver_destroy(d);
    return malloc(*n * sizeof(float));
}

static void bad_sweeps(void)
{
    const struct {
        const char *what, *names;
    } cases[] = {
        {"f2 past Nyquist", "Nyquist"},
        {"f1 above f2", "range"},
        {"a positive level", "level"},
        {"fades longer than the sweep", "fades"},
        {"no repeats", "repeats"},
        {"a sweep of 100 s", "sweep of 100"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        es_sweep s = test_sweep();
        switch (c) {
        case 0: s.f2 = 9000; break;
        case 1: s.f1 = 8000; s.f2 = 7000; break;
        case 2: s.level_db = 3; break;
        case 3: s.fade_in = 1.5; s.fade_out = 1; break;
        case 4: s.repeats = 0; break;
        default: s.seconds = 100; break;
        }
        char err[256] = "";
        const int rc = es_sweep_check(&s, err, sizeof err);
        const int ok = rc != 0 && strstr(err, cases[c].names) && !strchr(err, '\n');
        printf("%s %-30s %s\n", ok ? "ok  " : "FAIL", cases[c].what, err);
        failures += !ok;
    }
}

static void the_sweep(void)
{
    es_sweep s = test_sweep();
    char err[256];
    check(es_sweep_check(&s, err, sizeof err) == 0, "the test's sweep is good");
    const size_t n = es_sweep_frames(&s);
    float *x = malloc(n * sizeof *x);
    es_sweep_fill(&s, x);
    double peak = 0;
    for (size_t i = 0; i < n; i++)
        peak = fabs(x[i]) > peak ? fabs(x[i]) : peak;
    check(fabs(20 * log10(peak) - s.level_db) < 0.1, "peak %.2f dBFS (asked %.0f)",
          20 * log10(peak), s.level_db);
    const double l = es_sweep_rate_constant(&s);
    check(fabs(s.f1 * l - round(s.f1 * l)) < 1e-9, "f1 L = %.6f, a whole number of cycles", s.f1 * l);
    check(fabs((double)n / RATE - l * log(s.f2 / s.f1)) < 1.0 / RATE + 1e-9,
          "%.4f s long, L ln(f2/f1) = %.4f s", (double)n / RATE, l * log(s.f2 / s.f1));
    check(fabs(x[0]) < 1e-6 && fabs(x[n - 1]) < 1e-3, "faded at both ends: %.2g, %.2g",
          x[0], x[n - 1]);
    free(x);
}

/* What the room checks share: the sweep, the room, the sweep through it,
 * and a response buffer each measure fills. */
typedef struct {
    es_sweep s;
    float *x;     /* the sweep, nx frames */
    size_t nx;
    float *h;     /* a response, n values */
    size_t n;
    double *room; /* nh frames */
    size_t nh;
    double *y;    /* the sweep through the room, nx + nh - 1 frames */
    double t30;   /* the room's own, seconds */
} bench;

#define LOUD_NOISE 2e-2 /* rms: the louder noise, the repeats' and the quiet one's */

static bench bench_create(void)
{
    bench b = {.s = test_sweep()};
    b.nx = es_sweep_frames(&b.s);
    b.x = malloc(b.nx * sizeof *b.x);
    es_sweep_fill(&b.s, b.x);
    b.h = response_buffer(&b.s, &b.n);
    b.room = make_room(&b.nh);
    b.y = convolve(b.x, b.nx, b.room, b.nh);
    float *known = malloc(b.nh * sizeof *known);
    for (size_t i = 0; i < b.nh; i++)
        known[i] = (float)b.room[i];
    es_acoustics want;
    es_acoustics_measure(known, (int)b.nh, RATE, &want);
    b.t30 = want.t30;
    free(known);
    return b;
}

static void bench_free(bench *b)
{
    free(b->y), free(b->room), free(b->h), free(b->x);
}

/* The T30 of the response in b->h, time zero at h[zero], over the room's
 * length; seconds. */
static double measured_t30(const bench *b, size_t zero)
{
    float *cut = malloc(b->nh * sizeof *cut);
    es_response_cut(b->h, b->n, zero, b->nh, RATE, cut);
    es_acoustics got;
    es_acoustics_measure(cut, (int)b->nh, RATE, &got);
    free(cut);
    return got.t30;
}

/* A wire of 37 frames. */
static void a_wire(const bench *b)
{
    const size_t wire_len = (size_t)(ROOM_S * RATE);
    double *dirac = calloc(wire_len, sizeof *dirac);
    dirac[37] = 1;
    double *y = convolve(b->x, b->nx, dirac, 38);
    float *rec = record(&b->s, y, b->nx + 37, 0, 0, 1);
    es_response r;
    measure(&b->s, rec, NULL, 0, b->h, &r);
    const double wire_db = band_error_db(&b->s, b->h, b->n, 0, dirac, wire_len);
    check(wire_db < -60, "a wire: %.1f dB from a Dirac over the band (under %.0f)", wire_db, -60.0);
    check(r.peak_at == 37, "a wire: its peak at %zu frames (37)", r.peak_at);
    free(y), free(rec), free(dirac);
}

/* The room behind the device. */
static void room_behind_device(const bench *b)
{
    float *rec = record(&b->s, b->y, b->nx + b->nh - 1, DEVICE, 0, 1);
    es_response r;
    measure(&b->s, rec, NULL, DEVICE, b->h, &r);
    const double room_db = band_error_db(&b->s, b->h, b->n, DEVICE, b->room, b->nh);
    check(room_db < -60, "a room: %.1f dB from it over the band (under %.0f)", room_db, -60.0);
    check(r.peak_at == DIRECT, "a room, time zero the device's: the direct sound at %zu (%d)",
          r.peak_at, DIRECT);
    const double t30 = measured_t30(b, DEVICE);
    check(fabs(t30 / b->t30 - 1) < 0.02, "a room: T30 %.4f s against its %.4f s (2 %%)", t30,
          b->t30);
    free(rec);
}

/* Through a reference: the device's own filter (a two-tap smoothing) and
 * delay on both the room's channel and the wire's. */
static void room_through_reference(const bench *b)
{
    const size_t nx = b->nx;
    double device[DEVICE + 2] = {0};
    device[DEVICE] = 0.7, device[DEVICE + 1] = 0.3;
    double *through = convolve(b->x, nx, device, DEVICE + 2);
    float *xf = malloc((nx + DEVICE + 1) * sizeof *xf);
    for (size_t i = 0; i < nx + DEVICE + 1; i++)
        xf[i] = (float)through[i];
    double *y2 = convolve(xf, nx + DEVICE + 1, b->room, b->nh);
    float *ref = record(&b->s, through, nx + DEVICE + 1, 0, 0, 1);
    float *rec2 = record(&b->s, y2, nx + DEVICE + b->nh, 0, 0, 1);
    es_response r;
    measure(&b->s, rec2, ref, 0, b->h, &r);
    const double room_db = band_error_db(&b->s, b->h, b->n, 0, b->room, b->nh);
    check(room_db < -60, "through a reference: %.1f dB from the room (under %.0f)", room_db, -60.0);
    check(r.peak_at == DIRECT, "through a reference: the direct sound at %zu (%d), exact",
          r.peak_at, DIRECT);
    const double t30 = measured_t30(b, 0);
    check(fabs(t30 / b->t30 - 1) < 0.02, "through a reference: T30 %.4f s (%.4f s)", t30, b->t30);
    free(through), free(xf), free(y2), free(ref), free(rec2);
}

/* The PNR of the room recorded with noise of rms sigma, against the true
 * one: the noise deconvolved alone, its energy per frame over the
 * response's gap, under the clean response's peak. The PNR measured. */
static double pnr_against_truth(const bench *b, double sigma, double clean_peak)
{
    const size_t gap = es_sweep_period(&b->s) - b->nx;
    float *hn = malloc(b->n * sizeof *hn);
    float *alone = record(&b->s, NULL, 0, 0, sigma, 99);
    es_response rn, r;
    measure(&b->s, alone, NULL, DEVICE, hn, &rn);
    double noise = 0;
    for (size_t i = DEVICE; i < gap; i++)
        noise += (double)hn[i] * hn[i];
    noise /= (double)(gap - DEVICE);
    float *rec = record(&b->s, b->y, b->nx + b->nh - 1, DEVICE, sigma, 99);
    measure(&b->s, rec, NULL, DEVICE, b->h, &r);
    const double truth = 10 * log10(clean_peak * clean_peak / noise);
    check(fabs(r.pnr_db - truth) < 2,
          "noise of rms %g: PNR %.1f dB against the true %.1f (2 dB)", sigma, r.pnr_db, truth);
    free(alone), free(rec), free(hn);
    return r.pnr_db;
}

/* Noise: the PNR against the true one at two levels. The PNR of one take
 * at LOUD_NOISE, for the checks after. */
static double noise_pnr(const bench *b)
{
    float *clean = record(&b->s, b->y, b->nx + b->nh - 1, DEVICE, 0, 1);
    es_response r;
    measure(&b->s, clean, NULL, DEVICE, b->h, &r);
    free(clean);
    pnr_against_truth(b, 2e-4, r.peak);
    return pnr_against_truth(b, LOUD_NOISE, r.peak);
}

/* 4 repeats averaged: 10 log10 4 dB more PNR than one take (`one`). */
static void repeats_gain(const bench *b, double one)
{
    es_sweep s = b->s;
    s.repeats = 4;
    float *rec = record(&s, b->y, b->nx + b->nh - 1, DEVICE, LOUD_NOISE, 5);
    es_response r;
    measure(&s, rec, NULL, DEVICE, b->h, &r);
    check(fabs(r.pnr_db - one - 10 * log10(4)) < 1,
          "4 repeats: %.1f dB more PNR (10 log10 4 = %.1f, 1 dB)", r.pnr_db - one,
          10 * log10(4));
    free(rec);
}

/* What a recording is found to be, and the advice printed. */
static es_response verdict(const bench *b, const float *rec, char *advice, size_t size)
{
    es_response r;
    measure(&b->s, rec, NULL, DEVICE, b->h, &r);
    es_response_advice(&r, &b->s, advice, size);
    return r;
}

static void silence_verdict(const bench *b)
{
    char advice[512];
    float *rec = calloc(es_sweep_total(&b->s), sizeof *rec);
    const es_response r = verdict(b, rec, advice, sizeof advice);
    check(r.verdict == ES_RESPONSE_SILENT && strstr(advice, "nothing came back"),
          "silence: verdict %d (SILENT %d)", (int)r.verdict, (int)ES_RESPONSE_SILENT);
    printf("     %s\n", advice);
    free(rec);
}

static void clipped_verdict(const bench *b)
{
    char advice[512];
    float *rec = record(&b->s, b->y, b->nx + b->nh - 1, DEVICE, 0, 1);
    for (size_t i = 0; i < es_sweep_total(&b->s); i++)
        rec[i] *= 8; /* about +6 dBFS: clipped where the device would clip */
    for (size_t i = 0; i < es_sweep_total(&b->s); i++)
        rec[i] = rec[i] > 1 ? 1 : rec[i] < -1 ? -1 : rec[i];
    const es_response r = verdict(b, rec, advice, sizeof advice);
    check(r.verdict == ES_RESPONSE_CLIPPED && strstr(advice, "measure at -22 dBFS"),
          "clipped: verdict %d (CLIPPED %d), a level 10 dB down named", (int)r.verdict,
          (int)ES_RESPONSE_CLIPPED);
    printf("     %s\n", advice);
    free(rec);
}

/* Noise raised to leave about 10 dB of PNR (one take's at LOUD_NOISE is
 * `one`), the whole recording quiet. */
static void quiet_verdict(const bench *b, double one)
{
    char advice[512];
    float *rec = record(&b->s, b->y, b->nx + b->nh - 1, DEVICE,
                        LOUD_NOISE * pow(10, (one - 10) / 20), 3);
    for (size_t i = 0; i < es_sweep_total(&b->s); i++)
        rec[i] *= 0.01f;
    const es_response r = verdict(b, rec, advice, sizeof advice);
    check(r.verdict == ES_RESPONSE_QUIET && strstr(advice, "too quiet"),
          "quiet: verdict %d (QUIET %d), PNR %.1f dB", (int)r.verdict, (int)ES_RESPONSE_QUIET,
          r.pnr_db);
    printf("     %s\n", advice);
    free(rec);
}

/* The wire, and the room with and without a reference, with noise, and
 * each verdict. */
static void rooms(void)
{
    bench b = bench_create();
    a_wire(&b);
    room_behind_device(&b);
    room_through_reference(&b);
    const double one = noise_pnr(&b);
    repeats_gain(&b, one);
    silence_verdict(&b);
    clipped_verdict(&b);
    quiet_verdict(&b, one);
    bench_free(&b);
}

/* x + 0.1 x^2 in the loop: the second order at its level. */
static void distortion(void)
{
    es_sweep s = test_sweep();
    /* The square's products reach twice the sweep's top: under Nyquist,
     * or they would fold back over the band. */
    s.f2 = 3900;
    const size_t nx = es_sweep_frames(&s), total = es_sweep_total(&s);
    float *x = malloc(nx * sizeof *x);
    es_sweep_fill(&s, x);
    float *rec = calloc(total, sizeof *rec);
    for (size_t i = 0; i < nx; i++)
        rec[i] = (float)(x[i] + 0.1 * (double)x[i] * x[i]);
    size_t n;
    float *h = response_buffer(&s, &n);
    es_response r;
    measure(&s, rec, NULL, 0, h, &r);
    const double amp = pow(10, s.level_db / 20), want = 20 * log10(0.05 * amp);
    check(r.orders >= 2 && fabs(r.harmonic_db[0] - want) < 1,
          "x + 0.1 x^2: order 2 at %.2f dB (0.05 A: %.2f dB, 1 dB)", r.harmonic_db[0], want);
    for (int k = 1; k < r.orders; k++) {
        printf("%s order %d: %.1f dB (floor %.1f dB): under the noise\n",
               isnan(r.harmonic_db[k]) ? "ok  " : "FAIL", k + 2, r.harmonic_db[k],
               r.harmonic_floor_db[k]);
        failures += !isnan(r.harmonic_db[k]);
    }
    const size_t len = (size_t)(ROOM_S * RATE);
    double *dirac = calloc(len, sizeof *dirac);
    dirac[0] = 1;
    const double lin_db = band_error_db(&s, h, n, 0, dirac, len);
    free(dirac);
    check(lin_db < -40, "x + 0.1 x^2: the linear response %.1f dB from the wire (under %.0f)",
          lin_db, -40.0);
    free(h), free(rec), free(x);
}

int main(void)
{
    bad_sweeps();
    the_sweep();
    rooms();
    distortion();
    printf(failures ? "%d FAILED\n" : "all passed\n", failures);
    return failures != 0;
}
