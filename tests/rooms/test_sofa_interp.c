/* Directions between the measured ones (rooms/sofa_blend.c,
 * rooms/sofa_interp.c), on Debian's MIT KEMAR set (710 directions; 5
 * degrees apart at the horizon), judged by measures of the test's own:
 *
 *   - the blend, in float64: for 2,000 random directions the set covers
 *     (elevation -40 to 90), three measurements at most, weights from 0 to
 *     1 summing to 1, and the weighted sum of their directions pointing
 *     where asked (within 1e-6 rad); on each measured direction, that
 *     measurement alone;
 *   - --interp nearest: the nearest measurement's filter, bit for bit;
 *   - the ITD (the lag of the ears' cross-correlation below 1.5 kHz, to a
 *     fraction of a sample) of a source at azimuth 2.5 lies 25-75 % of the
 *     way between those at 0 and 5; nearest, it is one or the other;
 *   - a slow turn from -90 to 90 degrees in steps of 0.5 degrees: no step
 *     in ITD over 10 us and none in ILD over 0.5 dB (nearest steps by
 *     about 50 us at the grid's edges: the test would see it);
 *   - three axes: yaw 90 puts the source ahead on the right (ILD over
 *     10 dB); yaw 90 then roll 90 puts it in the median plane (|ILD| under
 *     3 dB).
 *
 *   test_sofa_interp KEMAR.sofa      (exit 77: no KEMAR) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sofa.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* h low-passed at 1.5 kHz (a Hann-windowed sinc of 2 x 64 + 1 taps), into
 * out[taps]. */
static void low_pass(const float *h, int taps, double rate, double *out)
{
    const double fc = 1500 / rate;
    for (int k = 0; k < taps; k++) {
        double sum = 0;
        for (int j = -64; j <= 64; j++) {
            if (k - j < 0 || k - j >= taps)
                continue;
            const double x = 2 * fc * j, w = 0.5 + 0.5 * cos(PI * j / 65.0);
            sum += h[k - j] * 2 * fc * (j == 0 ? 1 : sin(PI * x) / (PI * x)) * w;
        }
        out[k] = sum;
    }
}

/* The ITD of a two-ear filter, in microseconds (positive: the left ear
 * first), from the lag of the ears' cross-correlation below 1.5 kHz within
 * 1 ms, the peak placed between lags by a parabola. */
static double itd_us(const es_ir *ir)
{
    const int taps = ir->length;
    const double rate = ir->sample_rate;
    double *l = malloc(sizeof *l * (size_t)taps), *r = malloc(sizeof *r * (size_t)taps);
    low_pass(ir->taps[0], taps, rate, l);
    low_pass(ir->taps[1], taps, rate, r);
    const int most = (int)fmin(200, rate / 1000);
    double c[2 * 200 + 1], best = -INFINITY;
    int at = 0;
    for (int lag = -most; lag <= most; lag++) {
        double sum = 0;
        for (int k = 0; k < taps; k++)
            if (k + lag >= 0 && k + lag < taps)
                sum += l[k] * r[k + lag];
        c[lag + most] = sum;
        if (sum > best)
            best = sum, at = lag;
    }
    double frac = 0;
    if (at > -most && at < most) {
        const double a = c[at + most - 1], b = c[at + most], d = c[at + most + 1];
        frac = 0.5 * (a - d) / (a - 2 * b + d);
    }
    free(l);
    free(r);
    return (at + frac) / rate * 1e6;
}

/* The ILD in dB (left over right), by energy. */
static double ild_db(const es_ir *ir)
{
    double e[2] = {0, 0};
    for (int ear = 0; ear < 2; ear++)
        for (int k = 0; k < ir->length; k++)
            e[ear] += (double)ir->taps[ear][k] * ir->taps[ear][k];
    return 10 * log10(e[0] / e[1]);
}

/* The filter for a direction (the set's frame), blended as `how` says. */
static es_ir *filter_at(const es_sofa *s, double azimuth, double elevation, es_interp how)
{
    es_sofa_blend b;
    char err[200];
    if (es_sofa_blend_for(s, (float)azimuth, (float)elevation, how, &b) != 0)
        return NULL;
    es_ir *ir = es_sofa_blend_ir(s, &b, err, sizeof err);
    if (!ir)
        printf("FAIL blend: %s\n", err);
    return ir;
}

/* The filter a head at yaw, pitch and roll hears of a source ahead. */
static es_ir *filter_for_head(const es_sofa *s, float yaw, float pitch, float roll,
                              es_interp how)
{
    float azimuth, elevation;
    es_sofa_head_direction(s, yaw, pitch, roll, &azimuth, &elevation);
    return filter_at(s, azimuth, elevation, how);
}

static void unit(double azimuth, double elevation, double v[3])
{
    v[0] = cos(elevation * DEG) * cos(azimuth * DEG);
    v[1] = cos(elevation * DEG) * sin(azimuth * DEG);
    v[2] = sin(elevation * DEG);
}

static void check_weights(const es_sofa *s)
{
    srand(53);
    int bad = 0, blended = 0;
    double worst = 0;
    for (int t = 0; t < 2000; t++) {
        const double az = rand() / (double)RAND_MAX * 360 - 180;
        const double el = asin(rand() / (double)RAND_MAX * (1 + sin(40 * DEG)) - sin(40 * DEG)) / DEG;
        es_sofa_blend b;
        es_sofa_blend_for(s, (float)az, (float)el, ES_INTERP_LINEAR, &b);
        double sum = 0, v[3] = {0, 0, 0}, d[3], p[3];
        unit((float)az, (float)el, d);
        for (int c = 0; c < b.count; c++) {
            bad += b.weight[c] < 0 || b.weight[c] > 1;
            sum += b.weight[c];
            unit(s->pose[b.index[c]].azimuth, s->pose[b.index[c]].elevation, p);
            for (int x = 0; x < 3; x++)
                v[x] += b.weight[c] * p[x];
        }
        blended += b.count == 3;
        const double norm = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        const double angle = acos(fmin(1, (v[0] * d[0] + v[1] * d[1] + v[2] * d[2]) / norm));
        worst = fmax(worst, angle);
        bad += fabs(sum - 1) > 1e-12 || b.count < 1;
    }
    char line[200];
    snprintf(line, sizeof line,
             "2000 random directions: %d of them among three measurements, weights 0..1 summing "
             "to 1, pointing where asked within %.1e rad", blended, worst);
    check(!bad && worst < 1e-6 && blended > 1900, line);
    int alone = 0;
    for (int m = 0; m < s->count; m++) {
        es_sofa_blend b;
        es_sofa_blend_for(s, s->pose[m].azimuth, s->pose[m].elevation, ES_INTERP_LINEAR, &b);
        alone += b.count == 1 && b.index[0] == m;
    }
    snprintf(line, sizeof line, "on each of the %d measured directions, that measurement alone "
             "(%d)", s->count, alone);
    check(alone == s->count, line);
}

static void check_nearest(const es_sofa *s)
{
    int same = 0;
    for (int t = 0; t < 50; t++) {
        const double az = t * 7.3 - 180, el = t * 2.1 - 40;
        es_ir *ir = filter_at(s, az, el, ES_INTERP_NEAREST);
        const int m = es_sofa_nearest(s, (float)az, (float)el);
        int equal = ir && m >= 0;
        for (int p = 0; equal && p < 2; p++)
            equal = !memcmp(ir->taps[p], s->sets[m]->taps[p], sizeof(float) * (size_t)ir->length);
        same += equal;
        es_ir_destroy(ir);
    }
    char line[120];
    snprintf(line, sizeof line, "--interp nearest: %d of 50 directions the nearest set, bit for "
             "bit", same);
    check(same == 50, line);
}

static void check_between(const es_sofa *s)
{
    es_ir *at0 = filter_at(s, 0, 0, ES_INTERP_NEAREST), *at5 = filter_at(s, -5, 0, ES_INTERP_NEAREST);
    es_ir *mid = filter_at(s, -2.5, 0, ES_INTERP_LINEAR), *near = filter_at(s, -2.5, 0, ES_INTERP_NEAREST);
    const double i0 = itd_us(at0), i5 = itd_us(at5), im = itd_us(mid), in = itd_us(near);
    const double way = (im - i0) / (i5 - i0);
    char line[240];
    snprintf(line, sizeof line, "azimuth 2.5 (right): ITD %.1f us, %.0f %% of the way from %.1f us "
             "at 0 to %.1f us at 5 (25-75 %%); nearest gives %.1f us", im, 100 * way, i0, i5, in);
    check(way >= 0.25 && way <= 0.75 && fabs(i5 - i0) > 20, line);
    es_ir_destroy(at0), es_ir_destroy(at5), es_ir_destroy(mid), es_ir_destroy(near);
}

/* A turn from -90 to 90 degrees of yaw; the largest steps of ITD and ILD. */
static void turn(const es_sofa *s, es_interp how, double *itd_step, double *ild_step)
{
    double last_itd = 0, last_ild = 0;
    *itd_step = *ild_step = 0;
    for (int k = 0; k <= 360; k++) {
        es_ir *ir = filter_for_head(s, (float)(-90 + 0.5 * k), 0, 0, how);
        const double i = itd_us(ir), d = ild_db(ir);
        if (k) {
            *itd_step = fmax(*itd_step, fabs(i - last_itd));
            *ild_step = fmax(*ild_step, fabs(d - last_ild));
        }
        last_itd = i, last_ild = d;
        es_ir_destroy(ir);
    }
}

static void check_turn(const es_sofa *s)
{
    double itd, ild, itd_n, ild_n;
    turn(s, ES_INTERP_LINEAR, &itd, &ild);
    turn(s, ES_INTERP_NEAREST, &itd_n, &ild_n);
    char line[240];
    snprintf(line, sizeof line, "a turn from -90 to 90 in 0.5 degree steps: the largest step %.1f us "
             "of ITD (10), %.2f dB of ILD (0.5); nearest: %.1f us, %.2f dB", itd, ild, itd_n, ild_n);
    check(itd <= 10 && ild <= 0.5 && itd_n > 10, line);
}

static void check_roll(const es_sofa *s)
{
    es_ir *turned = filter_for_head(s, 90, 0, 0, ES_INTERP_LINEAR);
    es_ir *rolled = filter_for_head(s, 90, 0, 90, ES_INTERP_LINEAR);
    float az, el;
    es_sofa_head_direction(s, 90, 0, 90, &az, &el);
    const double a = ild_db(turned), b = ild_db(rolled);
    char line[240];
    snprintf(line, sizeof line, "yaw 90: ILD %.1f dB (the source on the right); then roll 90: the "
             "source at elevation %.1f, ILD %.1f dB (under 3)", a, el, b);
    check(a < -10 && fabs(b) < 3 && el > 89.9f, line);
    es_ir_destroy(turned), es_ir_destroy(rolled);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_sofa_interp KEMAR.sofa\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        printf("SKIP %s is missing (package libmysofa1)\n", argv[1]);
        return 77;
    }
    fclose(f);
    char err[300];
    es_sofa *s = es_sofa_load(argv[1], 0, err, sizeof err);
    if (!s) {
        printf("FAIL %s\n", err);
        return 1;
    }
    printf("%s: %d directions, %d taps at %g Hz\n", argv[1], s->count, s->taps, s->rate);
    check_weights(s);
    check_nearest(s);
    check_between(s);
    check_turn(s);
    check_roll(s);
    es_sofa_free(s);
    printf(failures ? "%d FAILED\n" : "all passed\n", failures);
    return failures ? 1 : 0;
}
