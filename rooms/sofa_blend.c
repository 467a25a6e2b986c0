/* Directions between the measured ones (sofa.h): which measurements
 * surround a direction, and with what weights.
 *
 * The measured directions are points on the unit sphere. A direction
 * between them is taken from the three that enclose it (a spherical
 * triangle, as VBAP and the Spatial_Audio_Framework's binauraliser take
 * theirs), weighted by where the direction meets the triangle's plane:
 * barycentric weights, each from 0 to 1, summing to 1, and 1 on a
 * measured direction itself. Of the triangles of nearby measurements that
 * enclose it, the tightest is taken (the least summed angle from the
 * direction to its corners): on a regular grid, a cell of the grid.
 *
 * A set whose directions lie on one great circle (a room turned in yaw
 * only, all at elevation 0) has no triangle that encloses anything: there
 * a direction takes the two measurements either side of it along the
 * circle, weighted by where it falls between them. A direction outside
 * what the set covers (below KEMAR's lowest ring) takes the nearest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sofa.h"

#define DEG (3.14159265358979323846 / 180.0)
/* Nearby measurements searched for the enclosing triangle: enough for a
 * grid whose rings hold different counts (KEMAR's: 72 at the horizon, 8
 * at 70 degrees up). */
#define NEAR 12
/* A weight this far below 0 is rounding, not outside. */
#define EDGE 1e-9

typedef struct {
    double v[3];
} vec;

static vec unit(double azimuth, double elevation)
{
    const double a = azimuth * DEG, e = elevation * DEG;
    return (vec){{cos(e) * cos(a), cos(e) * sin(a), sin(e)}};
}

static double dot(vec a, vec b)
{
    return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2];
}

static double det3(vec a, vec b, vec c)
{
    return a.v[0] * (b.v[1] * c.v[2] - b.v[2] * c.v[1]) -
           a.v[1] * (b.v[0] * c.v[2] - b.v[2] * c.v[0]) +
           a.v[2] * (b.v[0] * c.v[1] - b.v[1] * c.v[0]);
}

/* The NEAR measurements nearest to d, nearest first, into near[]; how
 * many there are. */
static int nearest_few(const es_sofa *s, vec d, int *near, double *cosine)
{
    int k = 0;
    for (int m = 0; m < s->count; m++) {
        const double c = dot(d, unit(s->pose[m].azimuth, s->pose[m].elevation));
        int at = k < NEAR ? k++ : NEAR;
        if (at == NEAR && c <= cosine[NEAR - 1])
            continue;
        if (at == NEAR)
            at = NEAR - 1;
        while (at > 0 && cosine[at - 1] < c) {
            near[at] = near[at - 1], cosine[at] = cosine[at - 1];
            at--;
        }
        near[at] = m, cosine[at] = c;
    }
    return k;
}

/* d = w0 p0 + w1 p1 + w2 p2 (Cramer's rule); 0 when the three lie in a
 * plane through the centre (no triangle) or d is outside them. */
static int enclosing(vec d, vec p0, vec p1, vec p2, double w[3])
{
    const double all = det3(p0, p1, p2);
    if (fabs(all) < 1e-9)
        return 0;
    w[0] = det3(d, p1, p2) / all;
    w[1] = det3(p0, d, p2) / all;
    w[2] = det3(p0, p1, d) / all;
    return w[0] >= -EDGE && w[1] >= -EDGE && w[2] >= -EDGE;
}

/* The tightest enclosing triangle of near[0..k): 1 and b filled, or 0. */
static int by_triangle(const es_sofa *s, vec d, const int *near, const double *cosine, int k,
                       es_sofa_blend *b)
{
    double best = INFINITY;
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            for (int l = j + 1; l < k; l++) {
                const int m[3] = {near[i], near[j], near[l]};
                const double spread = acos(fmin(1, cosine[i])) + acos(fmin(1, cosine[j])) +
                                      acos(fmin(1, cosine[l]));
                double w[3];
                if (spread >= best ||
                    !enclosing(d, unit(s->pose[m[0]].azimuth, s->pose[m[0]].elevation),
                               unit(s->pose[m[1]].azimuth, s->pose[m[1]].elevation),
                               unit(s->pose[m[2]].azimuth, s->pose[m[2]].elevation), w))
                    continue;
                const double sum = w[0] + w[1] + w[2];
                best = spread;
                b->count = 3;
                for (int c = 0; c < 3; c++) {
                    b->index[c] = m[c];
                    b->weight[c] = fmax(0, w[c]) / sum;
                }
            }
    return best < INFINITY;
}

/* Two measurements either side of d along their great circle: d's
 * projection onto their plane lies between them. 1 and b filled, or 0. */
static int by_arc(const es_sofa *s, vec d, const int *near, const double *cosine, int k,
                  es_sofa_blend *b)
{
    double best = INFINITY;
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++) {
            const vec p = unit(s->pose[near[i]].azimuth, s->pose[near[i]].elevation);
            const vec q = unit(s->pose[near[j]].azimuth, s->pose[near[j]].elevation);
            /* Least squares d ~ a p + c q: the normal equations. */
            const double pq = dot(p, q), dp = dot(d, p), dq = dot(d, q);
            const double g = 1 - pq * pq;
            if (g < 1e-12)
                continue; /* the same direction, or opposite */
            const double a = (dp - pq * dq) / g, c = (dq - pq * dp) / g;
            const double spread = acos(fmin(1, cosine[i])) + acos(fmin(1, cosine[j]));
            if (a < -EDGE || c < -EDGE || a + c <= 0 || spread >= best)
                continue;
            best = spread;
            b->count = 2;
            b->index[0] = near[i], b->index[1] = near[j];
            b->weight[0] = fmax(0, a) / (fmax(0, a) + fmax(0, c));
            b->weight[1] = 1 - b->weight[0];
        }
    return best < INFINITY;
}

int es_sofa_nearest(const es_sofa *s, float azimuth, float elevation)
{
    int near[NEAR];
    double cosine[NEAR];
    return s && s->count > 0 ? (nearest_few(s, unit(azimuth, elevation), near, cosine), near[0])
                             : -1;
}

int es_sofa_blend_for(const es_sofa *s, float azimuth, float elevation, es_interp how,
                      es_sofa_blend *b)
{
    memset(b, 0, sizeof *b);
    if (!s || s->count < 1)
        return -1;
    if (s->varies == ES_SOFA_FIXED || s->varies == ES_SOFA_REFITTED) {
        b->count = 1, b->weight[0] = 1; /* one measurement, or fittings */
        return 0;
    }
    const vec d = unit(azimuth, elevation);
    int near[NEAR];
    double cosine[NEAR];
    const int k = nearest_few(s, d, near, cosine);
    b->count = 1, b->index[0] = near[0], b->weight[0] = 1;
    /* On a measured direction (to float's precision), or asked for the
     * measured filters only: the nearest, as it was measured. */
    if (how == ES_INTERP_NEAREST || k < 2 || cosine[0] > 1 - 1e-12)
        return 0;
    if (!by_triangle(s, d, near, cosine, k, b) && !by_arc(s, d, near, cosine, k, b)) {
        b->count = 1, b->index[0] = near[0], b->weight[0] = 1;
        return 0;
    }
    /* On an edge of the triangle: the corner that weighs nothing left out
     * (what is left still sums to 1, within rounding). */
    int kept = 0;
    double sum = 0;
    for (int c = 0; c < b->count; c++)
        if (b->weight[c] > 1e-12) {
            b->index[kept] = b->index[c], b->weight[kept] = b->weight[c];
            sum += b->weight[kept++];
        }
    b->count = kept;
    for (int c = 0; c < kept; c++)
        b->weight[c] /= sum;
    return 0;
}

void es_sofa_head_direction(const es_sofa *s, float yaw, float pitch, float roll, float *azimuth,
                            float *elevation)
{
    if (!s || s->varies != ES_SOFA_SOURCE) {
        /* Head orientations: the view itself; a view carries no up
         * vector, so roll has nothing to choose. */
        *azimuth = yaw, *elevation = pitch;
        return;
    }
    /* A source that holds still ahead in the room (x), seen from a head
     * turned by yaw (about z), then pitch (up, about the turned y), then
     * roll (right ear down, about the turned x): the rotation's transpose
     * applied to x. */
    if (roll == 0 && (pitch == 0 || yaw == 0)) {
        /* About one axis: the angle itself, exactly. */
        *azimuth = -yaw, *elevation = -pitch;
        return;
    }
    const double y = yaw * DEG, p = pitch * DEG, r = roll * DEG;
    const double x0 = cos(p) * cos(y), y0 = -sin(y), z0 = -sin(p) * cos(y);
    const double yh = y0 * cos(r) + z0 * sin(r), zh = -y0 * sin(r) + z0 * cos(r);
    *azimuth = (float)(atan2(yh, x0) / DEG);
    *elevation = (float)(asin(fmax(-1, fmin(1, zh))) / DEG);
}

static const char *const interp_names[] = {
    [ES_INTERP_NEAREST] = "nearest",
    [ES_INTERP_LINEAR] = "linear",
};

int es_interp_parse(const char *text, es_interp *how)
{
    for (unsigned k = 0; text && k < sizeof interp_names / sizeof *interp_names; k++)
        if (!strcmp(text, interp_names[k])) {
            *how = (es_interp)k;
            return 0;
        }
    return -1;
}

const char *es_interp_name(es_interp how)
{
    return (unsigned)how < sizeof interp_names / sizeof *interp_names ? interp_names[how] : "?";
}
