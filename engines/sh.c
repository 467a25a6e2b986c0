/* Real spherical harmonics and their rotation (ambisonic.h).
 *
 * The rotation follows Ivanic and Ruedenberg (J. Phys. Chem. 100, 6342,
 * 1996; erratum 102, 9099, 1998): degree l's matrix from degree l-1's and
 * degree 1's, which is the 3 x 3 rotation itself in ACN's (y, z, x)
 * order. It is exact (no sampling, no fit), costs O(L^4) for order L and
 * allocates nothing, so the audio thread computes it when the head
 * turns. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ambisonic.h"

#define DEG (M_PI / 180.0)

const char *es_ambi_norm_name(es_ambi_norm norm)
{
    static const char *const names[] = {[ES_AMBI_SN3D] = "sn3d", [ES_AMBI_N3D] = "n3d",
                                        [ES_AMBI_FUMA] = "fuma"};
    return names[norm];
}

/* (l-m)! / (l+m)! without overflow. */
static double factorial_ratio(int l, int m)
{
    double r = 1;
    for (int k = l - m + 1; k <= l + m; k++)
        r /= k;
    return r;
}

/* P_l^m(x) for every l <= order and m <= l, without the Condon-Shortley
 * phase: p[l * (order + 1) + m]. */
static void legendre(int order, double x, double *p)
{
    const int w = order + 1;
    const double s = sqrt(fmax(0.0, 1 - x * x));
    double pmm = 1;
    for (int m = 0; m <= order; m++) {
        if (m > 0)
            pmm *= (2 * m - 1) * s;
        p[m * w + m] = pmm;
        if (m + 1 <= order)
            p[(m + 1) * w + m] = x * (2 * m + 1) * pmm;
        for (int l = m + 2; l <= order; l++)
            p[l * w + m] = ((2 * l - 1) * x * p[(l - 1) * w + m] -
                            (l + m - 1) * p[(l - 2) * w + m]) / (l - m);
    }
}

void es_sh_encode(int order, es_ambi_norm norm, double azimuth, double elevation, double *y)
{
    double p[(ES_AMBI_ORDER_MAX + 1) * (ES_AMBI_ORDER_MAX + 1)];
    const int fuma = norm == ES_AMBI_FUMA;
    if (fuma)
        order = 1;
    legendre(order, sin(elevation * DEG), p);
    const double az = azimuth * DEG;
    for (int l = 0; l <= order; l++)
        for (int m = -l; m <= l; m++) {
            const int a = abs(m);
            double n = sqrt((m ? 2.0 : 1.0) * factorial_ratio(l, a));
            if (norm == ES_AMBI_N3D)
                n *= sqrt(2.0 * l + 1);
            const double trig = m >= 0 ? cos(m * az) : sin(a * az);
            y[l * l + l + m] = n * p[l * (order + 1) + a] * trig;
        }
    if (fuma) { /* ACN W Y Z X -> FuMa W X Y Z, W at -3 dB */
        const double w = y[0] / sqrt(2.0), yy = y[1], z = y[2], x = y[3];
        y[0] = w, y[1] = x, y[2] = yy, y[3] = z;
    }
}

/* Degree l's block, (2l+1)^2 row-major, indexed by m from -l. */
#define AT(b, l, i, j) (b)[((i) + (l)) * (2 * (l) + 1) + ((j) + (l))]

/* Ivanic and Ruedenberg's P: r1 is degree 1's block, prev degree l-1's. */
static double ir_p(const double *r1, const double *prev, int i, int l, int a, int b)
{
    const int lp = l - 1;
    if (b == l)
        return AT(r1, 1, i, 1) * AT(prev, lp, a, l - 1) -
               AT(r1, 1, i, -1) * AT(prev, lp, a, -l + 1);
    if (b == -l)
        return AT(r1, 1, i, 1) * AT(prev, lp, a, -l + 1) +
               AT(r1, 1, i, -1) * AT(prev, lp, a, l - 1);
    return AT(r1, 1, i, 0) * AT(prev, lp, a, b);
}

static double ir_u(const double *r1, const double *prev, int l, int m, int n)
{
    return ir_p(r1, prev, 0, l, m, n);
}

static double ir_v(const double *r1, const double *prev, int l, int m, int n)
{
    if (m == 0)
        return ir_p(r1, prev, 1, l, 1, n) + ir_p(r1, prev, -1, l, -1, n);
    if (m > 0) {
        const int d = m == 1;
        return ir_p(r1, prev, 1, l, m - 1, n) * sqrt(1.0 + d) -
               ir_p(r1, prev, -1, l, -m + 1, n) * (1 - d);
    }
    const int d = m == -1;
    return ir_p(r1, prev, 1, l, m + 1, n) * (1 - d) +
           ir_p(r1, prev, -1, l, -m - 1, n) * sqrt(1.0 + d);
}

static double ir_w(const double *r1, const double *prev, int l, int m, int n)
{
    if (m > 0)
        return ir_p(r1, prev, 1, l, m + 1, n) + ir_p(r1, prev, -1, l, -m - 1, n);
    return ir_p(r1, prev, 1, l, m - 1, n) - ir_p(r1, prev, -1, l, -m + 1, n);
}

/* Degree l's block from degree 1's and l-1's. */
static void degree_block(const double *r1, const double *prev, int l, double *out)
{
    for (int m = -l; m <= l; m++)
        for (int n = -l; n <= l; n++) {
            const int d = m == 0;
            const double denom = abs(n) == l ? (2.0 * l) * (2.0 * l - 1) : (double)(l + n) * (l - n);
            const int a = abs(m);
            const double u = sqrt((double)(l + m) * (l - m) / denom);
            const double v = 0.5 * sqrt((1.0 + d) * (l + a - 1) * (l + a) / denom) * (1 - 2 * d);
            const double w = -0.5 * sqrt((double)(l - a - 1) * (l - a) / denom) * (1 - d);
            double r = 0;
            if (u != 0)
                r += u * ir_u(r1, prev, l, m, n);
            if (v != 0)
                r += v * ir_v(r1, prev, l, m, n);
            if (w != 0)
                r += w * ir_w(r1, prev, l, m, n);
            AT(out, l, m, n) = r;
        }
}

ES_RT void es_sh_rotation(int order, const es_rotation *m, double *blocks)
{
    blocks[0] = 1;
    if (order < 1)
        return;
    /* Degree 1 is the rotation in ACN's (y, z, x) order. */
    static const int acn_axis[3] = {1, 2, 0};
    double *r1 = blocks + 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r1[i * 3 + j] = m->m[acn_axis[i]][acn_axis[j]];
    double *prev = r1;
    for (int l = 2; l <= order; l++) {
        double *out = prev + (2 * l - 1) * (2 * l - 1);
        degree_block(r1, prev, l, out);
        prev = out;
    }
}

void es_sh_rotation_matrix(int order, const es_rotation *m, double *out)
{
    double blocks[ES_AMBI_BLOCKS(ES_AMBI_ORDER_MAX)];
    const int k = ES_AMBI_CHANNELS(order);
    es_sh_rotation(order, m, blocks);
    memset(out, 0, sizeof(double) * (size_t)k * (size_t)k);
    const double *b = blocks;
    for (int l = 0; l <= order; l++) {
        const int first = l * l, side = 2 * l + 1;
        for (int i = 0; i < side; i++)
            for (int j = 0; j < side; j++)
                out[(first + i) * k + first + j] = b[i * side + j];
        b += side * side;
    }
}

ES_RT void es_head_field_matrix(double yaw, double pitch, double roll, es_rotation *m)
{
    /* The head: Rz(yaw) Ry(-pitch) Rx(roll) (pitch up lifts x towards
     * z; roll right ear down lifts y towards z). Its transpose carries
     * the room into the head's frame. */
    const double cy = cos(yaw * DEG), sy = sin(yaw * DEG);
    const double cp = cos(pitch * DEG), sp = sin(pitch * DEG);
    const double cr = cos(roll * DEG), sr = sin(roll * DEG);
    const double h[3][3] = {
        {cy * cp, -sy * cr - cy * sp * sr, sy * sr - cy * sp * cr},
        {sy * cp, cy * cr - sy * sp * sr, -cy * sr - sy * sp * cr},
        {sp, cp * sr, cp * cr},
    };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m->m[i][j] = h[j][i];
}
