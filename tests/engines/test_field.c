/* Ambisonic fields (ambisonic.h).
 *
 *   test_field math      the harmonics against their closed forms to
 *                        degree 2, N3D's orthonormality over the sphere,
 *                        rotation exact (a plane wave from d rotated by
 *                        R is the plane wave from R d, orders 1 to 7,
 *                        random R, within -100 dB) and composed
 *                        rotations the rotation of the product;
 *   test_field ENGINE    a field room on ENGINE (a room 1 x 16 at order
 *                        3, a binaural decoder 16 x 2) against float64
 *                        while the head turns every block (the rotation
 *                        interpolated as the engine does it), held, and
 *                        counted for allocation, locks and waits on the
 *                        calling thread. A GPU engine with no GPU here
 *                        reports itself skipped (77). */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ambisonic.h"
#include "reference.h"
#ifdef ES_COUNT_RT
#include "rt_counters.h"
#else
typedef struct {
    long allocs, frees, locks, waits;
} es_rt_counts;
static void es_rt_count_begin(void) {}
static es_rt_counts es_rt_count_end(void) { return (es_rt_counts){0}; }
#endif

#define DEG (M_PI / 180.0)

static void direction(double az, double el, double d[3])
{
    d[0] = cos(el * DEG) * cos(az * DEG);
    d[1] = cos(el * DEG) * sin(az * DEG);
    d[2] = sin(el * DEG);
}

static void random_rotation(uint64_t *rng, es_rotation *m)
{
    es_head_field_matrix(180 * es_test_uniform(rng), 90 * es_test_uniform(rng),
                         180 * es_test_uniform(rng), m);
}

static void closed_forms(void)
{
    double worst = 0;
    for (int k = 0; k < 200; k++) {
        const double az = 1.7 * k, el = -89 + 0.89 * k, a = az * DEG, e = el * DEG;
        double y[9];
        es_sh_encode(2, ES_AMBI_SN3D, az, el, y);
        const double want[9] = {1, sin(a) * cos(e), sin(e), cos(a) * cos(e),
                                sqrt(3) / 2 * sin(2 * a) * cos(e) * cos(e),
                                sqrt(3) / 2 * sin(a) * sin(2 * e), 0.5 * (3 * sin(e) * sin(e) - 1),
                                sqrt(3) / 2 * cos(a) * sin(2 * e),
                                sqrt(3) / 2 * cos(2 * a) * cos(e) * cos(e)};
        for (int c = 0; c < 9; c++)
            worst = fmax(worst, fabs(y[c] - want[c]));
    }
    printf("     SN3D against AmbiX's closed forms to degree 2: %.2g\n", worst);
    es_test_check(worst < 1e-12, "the harmonics are AmbiX's (ACN, SN3D, no Condon-Shortley)");
    double fuma[4], sn3d[4];
    es_sh_encode(1, ES_AMBI_FUMA, 30, 10, fuma);
    es_sh_encode(1, ES_AMBI_SN3D, 30, 10, sn3d);
    es_test_check(fabs(fuma[0] - sn3d[0] / sqrt(2)) < 1e-12 && fuma[1] == sn3d[3] &&
                      fuma[2] == sn3d[1] && fuma[3] == sn3d[2],
                  "FuMa is W/sqrt(2), X, Y, Z");
}

/* N3D: the mean of Y_i Y_j over the sphere is the identity (a Gauss-
 * Legendre grid in elevation, even in azimuth, exact to degree 7). */
static void orthonormal(void)
{
    enum { ORDER = 7, K = ES_AMBI_CHANNELS(ORDER), NE = 16, NA = 32 };
    static double gram[K][K];
    /* Gauss-Legendre nodes on [-1, 1] by Newton's method. */
    double x[NE], w[NE];
    for (int i = 0; i < NE; i++) {
        double z = cos(M_PI * (i + 0.75) / (NE + 0.5)), dp = 1;
        for (int it = 0; it < 100; it++) {
            double p0 = 1, p1 = z;
            for (int l = 2; l <= NE; l++) {
                const double p2 = ((2 * l - 1) * z * p1 - (l - 1) * p0) / l;
                p0 = p1, p1 = p2;
            }
            dp = NE * (z * p1 - p0) / (z * z - 1);
            z -= p1 / dp;
        }
        x[i] = z, w[i] = 2 / ((1 - z * z) * dp * dp);
    }
    for (int i = 0; i < NE; i++)
        for (int a = 0; a < NA; a++) {
            double y[K];
            es_sh_encode(ORDER, ES_AMBI_N3D, 360.0 * a / NA, asin(x[i]) / DEG, y);
            for (int p = 0; p < K; p++)
                for (int q = 0; q < K; q++)
                    gram[p][q] += w[i] / (2 * NA) * y[p] * y[q];
        }
    double worst = 0;
    for (int p = 0; p < K; p++)
        for (int q = 0; q < K; q++)
            worst = fmax(worst, fabs(gram[p][q] - (p == q)));
    printf("     N3D's Gram matrix to order 7 against the identity: %.2g\n", worst);
    es_test_check(worst < 1e-10, "N3D is orthonormal over the sphere (4 pi)");
}

static void rotations_exact(uint64_t *rng)
{
    for (int order = 1; order <= ES_AMBI_ORDER_MAX; order++) {
        const int k = ES_AMBI_CHANNELS(order);
        double worst = -INFINITY, worst_product = -INFINITY;
        for (int trial = 0; trial < 40; trial++) {
            es_rotation m, m2, both = {{{0}}};
            static double r[64 * 64], r2[64 * 64], rb[64 * 64];
            random_rotation(rng, &m);
            random_rotation(rng, &m2);
            es_sh_rotation_matrix(order, &m, r);
            const double az = 180 * es_test_uniform(rng), el = 90 * es_test_uniform(rng);
            double d[3], md[3] = {0};
            direction(az, el, d);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    md[i] += m.m[i][j] * d[j];
            double y[64], want[64], err = 0, energy = 0;
            es_sh_encode(order, ES_AMBI_SN3D, az, el, y);
            es_sh_encode(order, ES_AMBI_SN3D, atan2(md[1], md[0]) / DEG,
                         asin(fmax(-1, fmin(1, md[2]))) / DEG, want);
            for (int i = 0; i < k; i++) {
                double got = 0;
                for (int j = 0; j < k; j++)
                    got += r[i * k + j] * y[j];
                err += (got - want[i]) * (got - want[i]);
                energy += want[i] * want[i];
            }
            worst = fmax(worst, 10 * log10(err / energy + 1e-300));
            /* R(m2) R(m) = R(m2 m). */
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    for (int c = 0; c < 3; c++)
                        both.m[i][j] += m2.m[i][c] * m.m[c][j];
            es_sh_rotation_matrix(order, &m2, r2);
            es_sh_rotation_matrix(order, &both, rb);
            double perr = 0;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++) {
                    double p = 0;
                    for (int c = 0; c < k; c++)
                        p += r2[i * k + c] * r[c * k + j];
                    perr += (p - rb[i * k + j]) * (p - rb[i * k + j]);
                }
            worst_product = fmax(worst_product, 10 * log10(perr / k + 1e-300));
        }
        char what[160];
        snprintf(what, sizeof what, "order %d: R Y(d) = Y(R d) within %.1f dB, R2 R1 = R(R2 R1) "
                 "within %.1f dB (40 random rotations)", order, worst, worst_product);
        es_test_check(worst < -100 && worst_product < -100, what);
    }
}

/* ---- a field room against float64 ---- */

enum { ORDER = 3, K = ES_AMBI_CHANNELS(ORDER), ROOM = 3000, DEC = 200, FRAMES = 24000, BLOCK = 64 };

/* The head at block b of the turning run: a full turn in yaw every 4,000
 * frames, pitch and roll swinging, held after the first half. */
static void head_at(int b, float a[3])
{
    const int held = FRAMES / 2 / BLOCK;
    const int t = b < held ? b : held;
    a[0] = (float)fmod(360.0 * t * BLOCK / 4000.0, 360.0) - 180.0f;
    a[1] = (float)(40 * sin(t * 0.05));
    a[2] = (float)(30 * cos(t * 0.03));
}

/* The reference: the room in double, each block's SH frames rotated from
 * the last block's matrix to this one's (the engine's ramp), then the
 * decoder in double. */
static double **reference(const es_ir *room, const es_ir *dec, float *const *in)
{
    double **sh = malloc(K * sizeof *sh);
    for (int k = 0; k < K; k++) {
        sh[k] = calloc(FRAMES, sizeof(double));
        for (int t = 0; t < FRAMES; t++)
            for (int j = 0; j < ROOM && j <= t; j++)
                sh[k][t] += (double)room->taps[k][j] * in[0][t - j];
    }
    double now[ES_AMBI_BLOCKS(ORDER)], next[ES_AMBI_BLOCKS(ORDER)];
    const es_rotation id = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    es_sh_rotation(ORDER, &id, now);
    double **turned = malloc(K * sizeof *turned);
    for (int k = 0; k < K; k++)
        turned[k] = calloc(FRAMES, sizeof(double));
    float last[3] = {NAN, NAN, NAN};
    for (int b = 0; b < FRAMES / BLOCK; b++) {
        float a[3];
        head_at(b, a);
        const int moved = b > 0 && memcmp(a, last, sizeof a) != 0;
        es_rotation m;
        /* The engine keeps angles in 1/2048 degree. */
        es_head_field_matrix(lround(a[0] * 2048.0) / 2048.0, lround(a[1] * 2048.0) / 2048.0,
                             lround(a[2] * 2048.0) / 2048.0, &m);
        es_sh_rotation(ORDER, &m, next);
        if (b == 0) /* an engine that played nothing starts turned */
            memcpy(now, next, sizeof now);
        const double *pb = now, *nb = next;
        for (int l = 0; l <= ORDER; l++) {
            const int first = l * l, side = 2 * l + 1;
            for (int i = 0; i < side; i++)
                for (int j = 0; j < side; j++)
                    for (int t = 0; t < BLOCK; t++) {
                        const double ramp = (double)(float)((float)(t + 1) / (float)BLOCK);
                        const double c = moved ? pb[i * side + j] +
                                                     (nb[i * side + j] - pb[i * side + j]) * ramp
                                               : pb[i * side + j];
                        turned[first + i][b * BLOCK + t] += c * sh[first + j][b * BLOCK + t];
                    }
            pb += side * side, nb += side * side;
        }
        if (moved)
            memcpy(now, next, sizeof now);
        memcpy(last, a, sizeof a);
    }
    double **out = malloc(2 * sizeof *out);
    for (int e = 0; e < 2; e++) {
        out[e] = calloc(FRAMES, sizeof(double));
        for (int t = 0; t < FRAMES; t++)
            for (int k = 0; k < K; k++)
                for (int j = 0; j < DEC && j <= t; j++)
                    out[e][t] += (double)dec->taps[k * 2 + e][j] * turned[k][t - j];
    }
    for (int k = 0; k < K; k++)
        free(sh[k]), free(turned[k]);
    free(sh);
    free(turned);
    return out;
}

static es_ir *random_ir(int inputs, int outputs, int length, uint64_t *rng)
{
    es_ir *ir = es_ir_create(inputs, outputs, length, 48000);
    for (int i = 0; i < inputs; i++)
        for (int o = 0; o < outputs; o++) {
            float *h = es_ir_path(ir, i, o);
            for (int t = 0; t < length; t++)
                h[t] = (float)(es_test_uniform(rng) * exp(-4.0 * t / length));
        }
    return ir;
}

/* Runs e over in (the head turning as head_at says), out[] aligned by
 * the latency; what the calls counted into *counted. */
static void run_turning(es_engine *e, float *const *in, float *const *out, es_rt_counts *counted)
{
    const int latency = es_engine_latency(e);
    float **block = es_test_planar(2, BLOCK), *zero = calloc(BLOCK, sizeof(float));
    for (int b = 0; b < (FRAMES + latency + BLOCK - 1) / BLOCK; b++) {
        float a[3];
        head_at(b, a);
        const float *src[1] = {b * BLOCK < FRAMES ? in[0] + b * BLOCK : zero};
        es_rt_count_begin();
        es_engine_orient(e, a[0], a[1], a[2]);
        es_engine_process(e, src, block, BLOCK);
        const es_rt_counts c = es_rt_count_end();
        counted->allocs += c.allocs, counted->frees += c.frees;
        counted->locks += c.locks, counted->waits += c.waits;
        for (int t = 0; t < BLOCK; t++) {
            const int at = b * BLOCK + t - latency;
            if (at >= 0 && at < FRAMES)
                for (int o = 0; o < 2; o++)
                    out[o][at] = block[o][t];
        }
    }
    free(zero);
    es_test_free_planar(block, 2);
}

static int field_engine(const char *name, uint64_t *rng)
{
    const es_engine_class *k = es_engine_find(name);
    if (!k) {
        printf("FAIL no engine %s\n", name);
        return 1;
    }
    char why[256];
    if (!k->probe(why, sizeof why)) {
        printf("skip %s: %s\n", name, why);
        return 77;
    }
    es_ir *room = random_ir(1, K, ROOM, rng), *dec = random_ir(K, 2, DEC, rng);
    const es_format fmt = {.sample_rate = 48000, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    const es_options opt = {.offline = 1};
    char err[512];
    es_engine *e = es_engine_create_field(k, &fmt, room, &opt, dec, ORDER, err, sizeof err);
    if (!e) {
        printf("FAIL %s: %s\n", name, err);
        return 1;
    }
    float **in = es_test_planar(1, FRAMES), **out = es_test_planar(2, FRAMES);
    for (int t = 0; t < FRAMES; t++)
        in[0][t] = (float)es_test_uniform(rng);
    const int latency = es_engine_latency(e);
    es_rt_counts counted = {0};
    run_turning(e, in, out, &counted);
    if (latency != 0) {
        /* The rotation runs on the output's blocks: with latency the
         * float64 model would have to follow the engine's; the CPU
         * engines have none, and a pipelined GPU's is checked held. */
        printf("     %s: latency %d; the turning run is judged where the head is held\n", name,
               latency);
    }
    double **ref = reference(room, dec, in);
    double err_max = 0, peak = 0;
    const int from = latency ? FRAMES / 2 + ROOM + DEC + latency : 0;
    for (int o = 0; o < 2; o++)
        for (int t = from; t < FRAMES; t++) {
            err_max = fmax(err_max, fabs(out[o][t] - ref[o][t]));
            peak = fmax(peak, fabs(ref[o][t]));
        }
    const double db = 20 * log10(err_max / peak + 1e-300);
    char what[200];
    snprintf(what, sizeof what, "%s: order 3, the head turning every block then held, against "
             "float64: %.1f dB", name, db);
    es_test_check(db < -110, what);
    snprintf(what, sizeof what, "%s: turning allocates, frees, locks and waits for nothing "
             "(%ld, %ld, %ld, %ld)", name, counted.allocs, counted.frees, counted.locks,
             counted.waits);
    es_test_check(!counted.allocs && !counted.frees && !counted.locks &&
                      (!counted.waits || (k->caps & ES_CAP_GPU)), what);
    es_engine_status st;
    es_engine_get_status(e, &st);
    snprintf(what, sizeof what, "%s: the status says order %d, %llu turns, %.1f us a block",
             name, st.field_order, (unsigned long long)st.field_turns, st.field_us_max);
    es_test_check(st.field_order == ORDER && st.field_turns > 100, what);
    for (int o = 0; o < 2; o++)
        free(ref[o]);
    free(ref);
    es_test_free_planar(in, 1);
    es_test_free_planar(out, 2);
    es_engine_destroy(e);
    es_ir_destroy(room);
    es_ir_destroy(dec);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t rng = es_test_seed();
    if (argc < 2) {
        fprintf(stderr, "usage: test_field math|ENGINE\n");
        return 2;
    }
    if (!strcmp(argv[1], "math")) {
        closed_forms();
        orthonormal();
        rotations_exact(&rng);
    } else {
        const int rc = field_engine(argv[1], &rng);
        if (rc == 77)
            return 77;
    }
    return es_test_failures ? 1 : 0;
}
