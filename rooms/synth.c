#define _DEFAULT_SOURCE /* M_PI, M_SQRT2 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "fftw_planner.h"
#include "synth.h"
#include "synth_tail.h"

#define MAX_T60 30.0         /* s: longer is not a room any more */
#define WALL_MARGIN 0.1      /* m: source and microphones keep this off walls */
#define LANCZOS ES_ROOM_LANCZOS /* fractional-delay kernel half-width, samples */
#define CROSSOVER_OCTAVES 0.1 /* half-width of each band crossover */

const char *const es_wall_names[ES_WALLS] = {"left", "right", "front", "back", "floor",
                                             "ceiling"};

/* Air absorption, energy, 1/m (20 degrees C, 50 % relative humidity;
 * ISO 9613-1 attenuation in dB/km divided by 4343). */
static const double air_m[ES_OCTAVE_BANDS] = {0.0001, 0.0003, 0.00063,
                                              0.00107, 0.00227, 0.00677};

void es_room_spec_defaults(es_room_spec *s)
{
    memset(s, 0, sizeof *s);
    s->mic_spacing = 0.17;
    s->rate = 48000;
    s->seed = 1;
}

double es_room_volume(const es_room_spec *s)
{
    return s->size[0] * s->size[1] * s->size[2];
}

static void wall_areas(const es_room_spec *s, double area[ES_WALLS])
{
    const double x = s->size[0], y = s->size[1], z = s->size[2];
    area[ES_WALL_LEFT] = area[ES_WALL_RIGHT] = y * z;
    area[ES_WALL_FRONT] = area[ES_WALL_BACK] = x * z;
    area[ES_WALL_FLOOR] = area[ES_WALL_CEILING] = x * y;
}

/* A per-band value at `hz`, linear in log frequency between the octave
 * centres and constant beyond the outer ones. */
static double between_bands(const double *per_band, double hz)
{
    const double x = hz > 0 ? log2(hz / es_octave_centres[0]) : -1;
    if (x <= 0)
        return per_band[0];
    if (x >= ES_OCTAVE_BANDS - 1)
        return per_band[ES_OCTAVE_BANDS - 1];
    const int b = (int)x;
    const double f = x - b;
    return per_band[b] * (1 - f) + per_band[b + 1] * f;
}

double es_room_eyring_at(const es_room_spec *s, double hz)
{
    double area[ES_WALLS], total = 0, absorbed = 0;
    wall_areas(s, area);
    for (int w = 0; w < ES_WALLS; w++) {
        total += area[w];
        absorbed += area[w] * between_bands(s->absorption[w], hz);
    }
    const double v = es_room_volume(s), mean = absorbed / total;
    /* 24 ln 10 / c = 0.161 s/m */
    return 24.0 * log(10.0) / ES_SPEED_OF_SOUND * v /
           (-total * log(1.0 - mean) + 4.0 * between_bands(air_m, hz) * v);
}

void es_room_eyring(const es_room_spec *s, double t60[ES_OCTAVE_BANDS])
{
    for (int b = 0; b < ES_OCTAVE_BANDS; b++)
        t60[b] = es_room_eyring_at(s, es_octave_centres[b]);
}

static int inside(const es_room_spec *s, const double p[3], double margin_x)
{
    for (int k = 0; k < 3; k++) {
        const double m = WALL_MARGIN + (k == 0 ? margin_x : 0);
        if (!(p[k] >= m && p[k] <= s->size[k] - m))
            return 0;
    }
    return 1;
}

int es_room_spec_check(const es_room_spec *s, char *err, size_t n)
{
    for (int k = 0; k < 3; k++)
        if (!(s->size[k] >= 0.5 && s->size[k] <= 500)) {
            snprintf(err, n, "room size %gx%gx%g m: each side must be 0.5 to 500 m",
                     s->size[0], s->size[1], s->size[2]);
            return -1;
        }
    for (int w = 0; w < ES_WALLS; w++)
        for (int b = 0; b < ES_OCTAVE_BANDS; b++)
            if (!(s->absorption[w][b] >= 0.001 && s->absorption[w][b] <= 0.99)) {
                snprintf(err, n, "absorption %g (%s, %.0f Hz): must be 0.001 to 0.99",
                         s->absorption[w][b], es_wall_names[w], es_octave_centres[b]);
                return -1;
            }
    if (!(s->mic_spacing >= 0 && s->mic_spacing <= 2)) {
        snprintf(err, n, "microphone spacing %g m: must be 0 to 2 m", s->mic_spacing);
        return -1;
    }
    if (!inside(s, s->source, 0)) {
        snprintf(err, n, "source %g,%g,%g is not inside the %gx%gx%g m room (keep %g m "
                 "off the walls)", s->source[0], s->source[1], s->source[2], s->size[0],
                 s->size[1], s->size[2], WALL_MARGIN);
        return -1;
    }
    if (!inside(s, s->listener, s->mic_spacing / 2)) {
        snprintf(err, n, "listener %g,%g,%g (microphones %g m apart) is not inside the "
                 "%gx%gx%g m room", s->listener[0], s->listener[1], s->listener[2],
                 s->mic_spacing, s->size[0], s->size[1], s->size[2]);
        return -1;
    }
    const double dx = s->source[0] - s->listener[0], dy = s->source[1] - s->listener[1],
                 dz = s->source[2] - s->listener[2];
    if (sqrt(dx * dx + dy * dy + dz * dz) < 0.3) {
        snprintf(err, n, "source and listener are less than 0.3 m apart");
        return -1;
    }
    if (!(s->rate >= 8000 && s->rate <= 384000)) {
        snprintf(err, n, "sample rate %g Hz: must be 8000 to 384000", s->rate);
        return -1;
    }
    double t60[ES_OCTAVE_BANDS];
    es_room_eyring(s, t60);
    for (int b = 0; b < ES_OCTAVE_BANDS; b++)
        if (t60[b] > MAX_T60) {
            snprintf(err, n, "reverberation time %.1f s at %.0f Hz is longer than %.0f s: "
                     "raise the absorption", t60[b], es_octave_centres[b], MAX_T60);
            return -1;
        }
    if (!(s->seconds >= 0 && s->seconds <= 60)) {
        snprintf(err, n, "IR length %g s: must be up to 60 s", s->seconds);
        return -1;
    }
    return 0;
}

/* ---- the band split ---- */

/* Weight of the band below `edge` at f: 1 well below, 0 well above, cos^2
 * across +-CROSSOVER_OCTAVES, so the two sides sum to 1. */
static double below(double f, double edge)
{
    if (f <= 0)
        return 1.0;
    double x = log2(f / edge) / CROSSOVER_OCTAVES;
    x = x < -1 ? -1 : x > 1 ? 1 : x;
    const double c = cos(M_PI / 4 * (1 + x));
    return c * c;
}

/* Mask of band b at f; the six masks sum to 1 at every frequency. */
double es_room_band_mask(int b, double f)
{
    double m = 1.0;
    if (b > 0)
        m *= 1.0 - below(f, es_octave_centres[b - 1] * M_SQRT2);
    if (b < ES_OCTAVE_BANDS - 1)
        m *= below(f, es_octave_centres[b] * M_SQRT2);
    return m;
}

/* ---- the two parts ---- */

double es_room_lanczos(double x)
{
    if (fabs(x) < 1e-9)
        return 1.0;
    if (fabs(x) >= LANCZOS)
        return 0.0;
    const double px = M_PI * x;
    return LANCZOS * sin(px) * sin(px / LANCZOS) / (px * px);
}

void es_room_add_impulse(float *buf, int frames, double at, double amp)
{
    const int centre = (int)floor(at);
    for (int k = centre - LANCZOS + 1; k <= centre + LANCZOS; k++)
        if (k >= 0 && k < frames)
            buf[k] += (float)(amp * es_room_lanczos(k - at));
}

/* Weight of the tail at time t after the direct sound (0 before mix/2,
 * raised cosine to 1 at mix); the image sources get 1 minus it. */
double es_room_tail_weight(double t, double mix)
{
    if (t <= mix / 2)
        return 0.0;
    if (t >= mix)
        return 1.0;
    return 0.5 - 0.5 * cos(M_PI * (t - mix / 2) / (mix / 2));
}

void es_room_each_image(const es_room_spec *s, const double at[3], double direct, double mix,
                        es_room_image_fn fn, void *ctx)
{
    double beta[ES_WALLS][ES_OCTAVE_BANDS];
    for (int w = 0; w < ES_WALLS; w++)
        for (int b = 0; b < ES_OCTAVE_BANDS; b++)
            beta[w][b] = sqrt(1.0 - s->absorption[w][b]);
    const double reach = ES_SPEED_OF_SOUND * (direct + mix);
    int lim[3];
    for (int k = 0; k < 3; k++)
        lim[k] = (int)ceil(reach / (2 * s->size[k])) + 1;
    for (int u = 0; u < 2; u++)
        for (int v = 0; v < 2; v++)
            for (int w = 0; w < 2; w++)
                for (int nx = -lim[0]; nx <= lim[0]; nx++)
                    for (int ny = -lim[1]; ny <= lim[1]; ny++)
                        for (int nz = -lim[2]; nz <= lim[2]; nz++) {
                            const int q[3] = {u, v, w}, m[3] = {nx, ny, nz};
                            double img[3], d2 = 0;
                            for (int k = 0; k < 3; k++) {
                                img[k] = (1 - 2 * q[k]) * s->source[k] + 2 * m[k] * s->size[k];
                                d2 += (img[k] - at[k]) * (img[k] - at[k]);
                            }
                            const double d = sqrt(d2), t = d / ES_SPEED_OF_SOUND;
                            if (t > direct + mix)
                                continue;
                            const double fade = 1 - es_room_tail_weight(t - direct, mix);
                            double amp[ES_OCTAVE_BANDS];
                            for (int b = 0; b < ES_OCTAVE_BANDS; b++) {
                                double a = exp(-0.5 * air_m[b] * d) / d * fade;
                                /* Allen and Berkley: |m - q| hits on the near
                                 * wall of the pair, |m| on the far one. */
                                for (int k = 0; k < 3; k++)
                                    a *= pow(beta[2 * k][b], abs(m[k] - q[k])) *
                                         pow(beta[2 * k + 1][b], abs(m[k]));
                                amp[b] = a;
                            }
                            fn(ctx, img, t, amp);
                        }
}

double es_room_mixing_time(const es_room_spec *s)
{
    const double mix = 0.002 * sqrt(es_room_volume(s));
    return mix < 0.008 ? 0.008 : mix > 0.1 ? 0.1 : mix;
}

/* One microphone's image sources, kept once (their walls' pow()s are the
 * work) and then placed band by band. */
typedef struct {
    double t, amp[ES_OCTAVE_BANDS];
} heard;

typedef struct {
    heard *list;
    long count, capacity;
    int failed;
} heard_list;

static void keep_heard(void *ctx, const double image[3], double t,
                       const double amp[ES_OCTAVE_BANDS])
{
    (void)image;
    heard_list *h = ctx;
    if (h->failed)
        return;
    if (h->count == h->capacity) {
        const long cap = h->capacity ? 2 * h->capacity : 1024;
        heard *more = realloc(h->list, (size_t)cap * sizeof *more);
        if (!more) {
            h->failed = 1;
            return;
        }
        h->list = more, h->capacity = cap;
    }
    h->list[h->count].t = t;
    memcpy(h->list[h->count++].amp, amp, sizeof h->list[0].amp);
}

static double distance(const double a[3], const double b[3])
{
    const double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

int es_room_frames(const es_room_spec *s)
{
    double t60[ES_OCTAVE_BANDS], longest = 0;
    es_room_eyring(s, t60);
    for (int b = 0; b < ES_OCTAVE_BANDS; b++)
        longest = t60[b] > longest ? t60[b] : longest;
    const double direct = distance(s->source, s->listener) / ES_SPEED_OF_SOUND;
    return (int)ceil((s->seconds > 0 ? s->seconds : 1.25 * longest + direct + 0.05) * s->rate);
}

static void free_channels(float **ch)
{
    if (ch)
        free(ch[0]), free(ch[1]);
    free(ch);
}

int es_room_synthesise(const es_room_spec *s, float ***out, int *out_frames, char *err,
                       size_t n)
{
    if (es_room_spec_check(s, err, n) != 0)
        return -1;
    const int frames = es_room_frames(s);
    const double seconds = frames / s->rate;
    const double mix = es_room_mixing_time(s);

    size_t size = 2;
    while (size < (size_t)frames + 2 * LANCZOS)
        size <<= 1;
    const size_t bins = size / 2 + 1;
    float **ch = calloc(2, sizeof *ch);
    float *buf = fftwf_malloc(size * sizeof(float));
    fftwf_complex *spec = fftwf_malloc(bins * sizeof *spec), *sum = fftwf_malloc(bins * sizeof *sum);
    fftwf_plan fwd = NULL, inv = NULL;
    int rc = -1;
    if (!ch || !buf || !spec || !sum || !(ch[0] = malloc(frames * sizeof(float))) ||
        !(ch[1] = malloc(frames * sizeof(float)))) {
        snprintf(err, n, "out of memory for a %.1f s room", seconds);
        goto done;
    }
    es_fftw_planner_lock();
    fwd = fftwf_plan_dft_r2c_1d((int)size, buf, spec, FFTW_ESTIMATE);
    inv = fftwf_plan_dft_c2r_1d((int)size, sum, buf, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    if (!fwd || !inv) {
        snprintf(err, n, "cannot plan a %zu-point FFT", size);
        goto done;
    }
    for (int c = 0; c < 2; c++) {
        const double side = c == 0 ? -0.5 : 0.5;
        const double mic[3] = {s->listener[0] + side * s->mic_spacing, s->listener[1],
                               s->listener[2]};
        const double mic_direct = distance(s->source, mic) / ES_SPEED_OF_SOUND;
        memset(sum, 0, bins * sizeof *sum);
        heard_list images = {0};
        es_room_each_image(s, mic, mic_direct, mix, keep_heard, &images);
        if (images.failed) {
            free(images.list);
            snprintf(err, n, "out of memory for the room's image sources");
            goto done;
        }
        for (int b = 0; b < ES_OCTAVE_BANDS; b++) {
            memset(buf, 0, size * sizeof(float));
            for (long i = 0; i < images.count; i++)
                es_room_add_impulse(buf, frames, images.list[i].t * s->rate,
                                    images.list[i].amp[b]);
            fftwf_execute(fwd);
            for (size_t k = 0; k < bins; k++) {
                const double m = es_room_band_mask(b, (double)k * s->rate / (double)size);
                sum[k][0] += (float)(m * spec[k][0]);
                sum[k][1] += (float)(m * spec[k][1]);
            }
        }
        free(images.list);
        fftwf_execute(inv);
        for (int i = 0; i < frames; i++)
            ch[c][i] = buf[i] / (float)size;
        if (es_room_tail(s, mic_direct, mix, s->seed * 2654435761u + (unsigned)c * 40503u + 1,
                         ch[c], frames, err, n) != 0)
            goto done;
    }
    float peak = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < frames; i++)
            peak = fabsf(ch[c][i]) > peak ? fabsf(ch[c][i]) : peak;
    for (int c = 0; c < 2 && peak > 0; c++)
        for (int i = 0; i < frames; i++)
            ch[c][i] *= 0.5f / peak;
    *out = ch;
    *out_frames = frames;
    ch = NULL;
    rc = 0;
done:
    es_fftw_destroy_plans(fwd, inv);
    fftwf_free(buf);
    fftwf_free(spec);
    fftwf_free(sum);
    free_channels(ch);
    return rc;
}
