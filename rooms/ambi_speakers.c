/* Field rooms on a loudspeaker array (ambi_decoder.h): the array read,
 * and AllRAD's decoder (Zotter and Frank, "All-round ambisonic panning
 * and decoding", JAES 2012).
 *
 * The field is first decoded to virtual loudspeakers that sample the
 * sphere evenly (2,400 on a Fibonacci spiral), each weighted by max-rE,
 * where a sampling decoder is exact; each virtual loudspeaker is then
 * panned to the real ones by VBAP over the array's convex hull. An array
 * all at ear height is decoded as a ring: the field sampled at 720
 * virtual loudspeakers round the horizon with a ring's max-rE weights
 * (what comes from above or below is heard at the horizon), panned by
 * pairs; its energy is kept for waves in the horizontal plane. An array
 * that leaves the listener outside its hull (a direction no triangle of
 * it holds) is refused. Where the array
 * leaves a hole (nothing below 45 degrees down; an arc of more than 160
 * degrees on a ring) imaginary loudspeakers close it, and their feeds are
 * left out, as Zotter and Frank do. The whole is scaled so that a diffuse
 * field keeps its energy. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ambi_decoder.h"
#include "core/lines.h"

#define DEG (M_PI / 180.0)
#define VIRTUAL_3D 2400
#define VIRTUAL_2D 720
#define MAX_PLACES (ES_ARRAY_MAX + 8) /* the array and its imaginary loudspeakers */

static int read_file(const char *path, es_sofa_pose *places, int *lfe, char *err, size_t n)
{
    struct stat st;
    FILE *f = NULL;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !(f = fopen(path, "r"))) {
        snprintf(err, n, "--speakers %.600s: not a layout (5.1, 7.1.4, ...) nor a file of "
                 "loudspeakers to read", path);
        return 0;
    }
    char line[512];
    size_t len;
    int count = 0, number = 0, rc;
    while ((rc = es_line_read(f, line, sizeof line, &len)) > 0) {
        number++;
        char *hash = strchr(line, '#'), name[64] = "";
        if (hash)
            *hash = 0;
        double az, el;
        int used = 0;
        if (sscanf(line, " %n", &used) == 0 && line[used] == 0)
            continue;
        const int got = sscanf(line, "%lf %lf %63s", &az, &el, name);
        if (got < 2 || !isfinite(az) || !isfinite(el) || fabs(az) > 360 || fabs(el) > 90 ||
            count == ES_ARRAY_MAX) {
            snprintf(err, n, "--speakers %.500s line %d: %s", path, number,
                     count == ES_ARRAY_MAX ? "more than 64 loudspeakers"
                                           : "give AZIMUTH ELEVATION [NAME] in degrees "
                                             "(azimuth -360..360, elevation -90..90)");
            fclose(f);
            return 0;
        }
        places[count] = (es_sofa_pose){(float)az, (float)el, 1};
        lfe[count++] = !strcasecmp(name, "LFE");
    }
    fclose(f);
    if (rc < 0 || count < 2)
        snprintf(err, n, "--speakers %.600s: %s", path,
                 rc < 0 ? "a line too long, or not text" : "fewer than two loudspeakers");
    return rc < 0 || count < 2 ? 0 : count;
}

int es_array_read(const char *what, es_sofa_pose *places, int *lfe, char *err, size_t n)
{
    const int named = es_speaker_layout_places(what, places, lfe);
    return named ? named : read_file(what, places, lfe, err, n);
}

static void unit(double az, double el, double u[3])
{
    u[0] = cos(el * DEG) * cos(az * DEG);
    u[1] = cos(el * DEG) * sin(az * DEG);
    u[2] = sin(el * DEG);
}

/* The array's loudspeakers that take part (no LFE) and the imaginary
 * ones that close its holes (channel -1), as unit vectors; a flat array's
 * in order of azimuth, a ring. */
typedef struct {
    double u[3];
    int channel;
} place;

typedef struct {
    place p[MAX_PLACES];
    int count, flat;
} array;

static int by_azimuth(const void *a, const void *b)
{
    const place *x = a, *y = b;
    const double ax = atan2(x->u[1], x->u[0]), ay = atan2(y->u[1], y->u[0]);
    return ax < ay ? -1 : ax > ay;
}

/* A ring's arcs wider than 160 degrees split by imaginary loudspeakers. */
static void close_ring(array *a)
{
    qsort(a->p, (size_t)a->count, sizeof *a->p, by_azimuth);
    place ring[MAX_PLACES];
    int count = 0;
    for (int i = 0; i < a->count; i++) {
        ring[count++] = a->p[i];
        const double from = atan2(a->p[i].u[1], a->p[i].u[0]);
        double to = atan2(a->p[(i + 1) % a->count].u[1], a->p[(i + 1) % a->count].u[0]);
        to += to <= from ? 2 * M_PI : 0;
        const int splits = (int)floor((to - from) / (160 * DEG));
        for (int k = 1; k <= splits && count < MAX_PLACES; k++) {
            const double az = from + (to - from) * k / (splits + 1);
            ring[count++] = (place){{cos(az), sin(az), 0}, -1};
        }
    }
    memcpy(a->p, ring, sizeof(place) * (size_t)count);
    a->count = count;
}

static void gather(const es_sofa_pose *places, const int *lfe, int count, array *a)
{
    a->count = 0, a->flat = 1;
    int below = 0;
    for (int c = 0; c < count; c++) {
        if (lfe[c])
            continue;
        unit(places[c].azimuth, places[c].elevation, a->p[a->count].u);
        a->p[a->count++].channel = c;
        a->flat &= fabs(places[c].elevation) < 1;
        below |= places[c].elevation < -45;
    }
    if (a->flat)
        close_ring(a);
    else if (!below) /* the nadir */
        a->p[a->count++] = (place){{0, 0, -1}, -1};
}

/* VBAP gains (unit power) of one direction over the pairs of a ring. */
static void pan_ring(const array *a, const double p[3], double *g)
{
    memset(g, 0, sizeof(double) * MAX_PLACES);
    for (int i = 0; i < a->count; i++) {
        const int j = (i + 1) % a->count;
        const double *x = a->p[i].u, *y = a->p[j].u;
        const double det = x[0] * y[1] - x[1] * y[0];
        if (fabs(det) < 1e-9)
            continue;
        const double gx = (p[0] * y[1] - p[1] * y[0]) / det;
        const double gy = (x[0] * p[1] - x[1] * p[0]) / det;
        if (gx < -1e-9 || gy < -1e-9)
            continue;
        const double norm = sqrt(gx * gx + gy * gy);
        g[i] += fmax(0, gx) / norm;
        g[j] += fmax(0, gy) / norm;
        return;
    }
}

typedef struct {
    int v[3];
    double inv[3][3];
} triangle;

/* The convex hull's faces, by brute force (an array has few loudspeakers):
 * each triple whose plane has every other loudspeaker behind it. */
static int hull(const array *a, triangle *t, int max)
{
    int count = 0;
    for (int i = 0; i < a->count; i++)
        for (int j = i + 1; j < a->count; j++)
            for (int k = j + 1; k < a->count && count < max; k++) {
                const double *p = a->p[i].u, *q = a->p[j].u, *r = a->p[k].u;
                const double e1[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
                const double e2[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
                double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                 e1[0] * e2[1] - e1[1] * e2[0]};
                const double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
                if (len < 1e-9)
                    continue;
                const double side = nrm[0] * p[0] + nrm[1] * p[1] + nrm[2] * p[2];
                int outside = 0;
                for (int m = 0; m < a->count && !outside; m++) {
                    const double *u = a->p[m].u;
                    const double s = nrm[0] * (u[0] - p[0]) + nrm[1] * (u[1] - p[1]) +
                                     nrm[2] * (u[2] - p[2]);
                    outside = side >= 0 ? s > 1e-9 : s < -1e-9;
                }
                if (outside)
                    continue;
                /* The inverse of the matrix whose rows are the three. */
                const double m[3][3] = {{p[0], p[1], p[2]}, {q[0], q[1], q[2]},
                                        {r[0], r[1], r[2]}};
                const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                                   m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                                   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
                if (fabs(det) < 1e-12)
                    continue;
                triangle *tr = &t[count++];
                tr->v[0] = i, tr->v[1] = j, tr->v[2] = k;
                for (int r0 = 0; r0 < 3; r0++)
                    for (int c0 = 0; c0 < 3; c0++) {
                        const int r1 = (c0 + 1) % 3, r2 = (c0 + 2) % 3;
                        const int c1 = (r0 + 1) % 3, c2 = (r0 + 2) % 3;
                        tr->inv[r0][c0] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
                    }
            }
    return count;
}

/* VBAP gains (unit power) of one direction over the hull. */
static void pan_hull(const triangle *t, int count, const double p[3], double *g)
{
    memset(g, 0, sizeof(double) * MAX_PLACES);
    for (int f = 0; f < count; f++) {
        double w[3];
        for (int c = 0; c < 3; c++)
            w[c] = p[0] * t[f].inv[0][c] + p[1] * t[f].inv[1][c] + p[2] * t[f].inv[2][c];
        if (w[0] < -1e-9 || w[1] < -1e-9 || w[2] < -1e-9)
            continue;
        const double norm = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        for (int c = 0; c < 3; c++)
            g[t[f].v[c]] = fmax(0, w[c]) / norm;
        return;
    }
}

/* max-rE's weight for degree l of order n (Zotter and Frank 2012's
 * approximations): 3D the Legendre polynomial at cos(137.9 deg /
 * (n + 1.51)), a ring cos(l pi / (2n + 2)). */
static double max_re(int l, int n, int flat)
{
    if (flat)
        return cos(l * M_PI / (2.0 * n + 2));
    const double x = cos(137.9 * DEG / (n + 1.51));
    double p0 = 1, p1 = x;
    if (l == 0)
        return 1;
    for (int k = 2; k <= l; k++) {
        const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
    }
    return p1;
}

/* The i-th of `count` virtual loudspeakers: a Fibonacci spiral, or the
 * horizon's ring. */
static void virtual_place(int i, int count, int flat, double *az, double *el)
{
    if (flat) {
        *az = 360.0 * i / count, *el = 0;
        return;
    }
    const double z = 1 - (2.0 * i + 1) / count;
    *az = fmod(i * 180.0 * (3 - sqrt(5.0)), 360.0);
    *el = asin(z) / DEG;
}

es_ir *es_ambi_allrad_decoder(const es_sofa_pose *places, const int *lfe, int count, int order,
                              double rate, char *err, size_t n)
{
    const int k = ES_AMBI_CHANNELS(order);
    array a;
    gather(places, lfe, count, &a);
    triangle *faces = malloc(sizeof *faces * 4 * MAX_PLACES * MAX_PLACES);
    double *d = calloc((size_t)k * MAX_PLACES, sizeof *d);
    es_ir *ir = NULL;
    if (!faces || !d) {
        snprintf(err, n, "out of memory");
        goto done;
    }
    const int nfaces = a.flat ? 0 : hull(&a, faces, 4 * MAX_PLACES * MAX_PLACES);
    if (a.count < 2 || (!a.flat && nfaces == 0)) {
        snprintf(err, n, "--speakers: the loudspeakers enclose no listener (too few, or all "
                 "on one side)");
        goto done;
    }
    const int points = a.flat ? VIRTUAL_2D : VIRTUAL_3D;
    double y[ES_AMBI_CHANNELS(ES_AMBI_ORDER_MAX)], g[MAX_PLACES];
    for (int i = 0; i < points; i++) {
        double az, el, u[3];
        virtual_place(i, points, a.flat, &az, &el);
        unit(az, el, u);
        es_sh_encode(order, ES_AMBI_N3D, az, el, y);
        if (a.flat)
            pan_ring(&a, u, g);
        else
            pan_hull(faces, nfaces, u, g);
        double any = 0;
        for (int s = 0; s < a.count; s++)
            any += g[s] * g[s];
        if (!(any > 0)) { /* the hull leaves the listener outside: a direction no face holds */
            snprintf(err, n, "--speakers: no loudspeakers around azimuth %.0f, elevation %.0f: "
                     "an array must surround the listener (or be a ring at ear height)", az,
                     el);
            goto done;
        }
        for (int c = 0; c < k; c++) {
            const int l = (int)floor(sqrt(c + 0.5));
            const double w = y[c] * sqrt(2.0 * l + 1) * max_re(l, order, a.flat) / points;
            for (int s = 0; s < a.count; s++)
                d[c * MAX_PLACES + s] += g[s] * w;
        }
    }
    /* A diffuse field's energy kept: the mean over directions of the
     * feeds' power, 1 (imaginary loudspeakers left out, as they are). */
    double energy = 0;
    for (int i = 0; i < points; i++) {
        double az, el;
        virtual_place(i, points, a.flat, &az, &el);
        es_sh_encode(order, ES_AMBI_SN3D, az, el, y);
        for (int s = 0; s < a.count; s++) {
            double feed = 0;
            for (int c = 0; a.p[s].channel >= 0 && c < k; c++)
                feed += d[c * MAX_PLACES + s] * y[c];
            energy += feed * feed / points;
        }
    }
    const double scale = energy > 0 ? 1 / sqrt(energy) : 1;
    if (!(ir = es_ir_create(k, count, 1, rate))) {
        snprintf(err, n, "out of memory");
        goto done;
    }
    for (int s = 0; s < a.count; s++)
        for (int c = 0; a.p[s].channel >= 0 && c < k; c++) {
            float *h = es_ir_path(ir, c, a.p[s].channel);
            if (h)
                h[0] = (float)(d[c * MAX_PLACES + s] * scale);
        }
done:
    free(faces);
    free(d);
    return ir;
}
