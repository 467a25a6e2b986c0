/* Ambisonic sound fields: real spherical harmonics (SH) as AmbiX and the
 * SOFA SH conventions state them, their rotation, and the engine that
 * plays a room recorded in them (field_room.c).
 *
 * Conventions. Directions are degrees in SOFA's frame: azimuth
 * counter-clockwise from ahead (90 is left), elevation up. Channels are
 * in ACN order (channel l*l + l + m for degree l, order m = -l..l), real
 * harmonics without the Condon-Shortley phase, m < 0 the sine ones:
 *   Y_lm(az, el) = N_l|m| P_l|m|(sin el) * (m >= 0 ? cos(m az) : sin(|m| az))
 * with N SN3D (AmbiX: sqrt((2 - d_m0) (l-|m|)! / (l+|m|)!), W = 1) or
 * N3D (SN3D times sqrt(2l + 1)). FuMa (B-format, first order only: W X Y
 * Z, W at -3 dB) is read and converted to ACN/SN3D, the form earshot
 * plays in. */
#ifndef ES_AMBISONIC_H
#define ES_AMBISONIC_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define ES_AMBI_ORDER_MAX 7
#define ES_AMBI_CHANNELS(order) (((order) + 1) * ((order) + 1))
/* The entries of a rotation's blocks, one square per degree. */
#define ES_AMBI_BLOCKS(order) (((order) + 1) * (2 * (order) + 1) * (2 * (order) + 3) / 3)

typedef enum { ES_AMBI_SN3D, ES_AMBI_N3D, ES_AMBI_FUMA } es_ambi_norm;

/* A rotation of directions (x ahead, y left, z up): d' = m d, row-major. */
typedef struct {
    double m[3][3];
} es_rotation;

/* The harmonics of a plane wave from (az, el) degrees: y[ES_AMBI_CHANNELS(order)],
 * ACN order, normalised as `norm` says (FuMa: order 1 only, in FuMa's
 * W X Y Z order). */
void es_sh_encode(int order, es_ambi_norm norm, double azimuth, double elevation, double *y);

/* The rotation of a field by the rotation `m`: a plane wave from d
 * becomes one from m d, so that
 *   R Y(d) = Y(m d)
 * for every degree up to `order` (Ivanic and Ruedenberg's recursion, 1996
 * and its 1998 erratum). Rotations keep to their degree, so R is block
 * diagonal and the same for SN3D and N3D: `blocks` gets
 * ES_AMBI_BLOCKS(order) entries, degree l's (2l+1)^2 after the lower
 * degrees', row-major. No allocation: real-time safe. */
ES_RT void es_sh_rotation(int order, const es_rotation *m, double *blocks);
/* The same as a full square matrix, out[K * K] with K = ES_AMBI_CHANNELS. */
void es_sh_rotation_matrix(int order, const es_rotation *m, double *out);

/* The rotation a room's field takes to be heard by a head at yaw, pitch
 * and roll (degrees, head.h's frame: yaw counter-clockwise, pitch up,
 * roll right ear down, applied in that order): the head's rotation
 * transposed, which carries a direction in the room into the head's
 * frame. Real-time safe. */
ES_RT void es_head_field_matrix(double yaw, double pitch, double roll, es_rotation *m);

/* The normalisation's name ("sn3d", "n3d", "fuma"). */
const char *es_ambi_norm_name(es_ambi_norm norm);

/* A room whose outputs are SH channels of one order (ACN/SN3D),
 * rotated with the head and decoded to ears or loudspeakers:
 *   room     inputs x ES_AMBI_CHANNELS(order), on room_k with `opt`;
 *   decoder  ES_AMBI_CHANNELS(order) x fmt->outputs (a binaural decoder's
 *            two ears, a loudspeaker decoder's feeds), on cpu-partitioned.
 * Each block: the room's SH block, rotated by the matrix for the newest
 * orientation (es_engine_orient), interpolated sample by sample over the
 * block from the last block's, then decoded. The instance's class is
 * room_k's name and caps over the composition's calls; its latency the
 * room's and the decoder's. */
es_engine *es_engine_create_field(const es_engine_class *room_k, const es_format *fmt,
                                  const es_ir *room, const es_options *opt, const es_ir *decoder,
                                  int order, char *err, size_t n);

/* Yaw, pitch and roll in one 64-bit word, for a hand-over through one
 * atomic word: each angle (clamped to -360..360) in 1/2048 degree, 21
 * bits, and the top bit set, so that 0 means none yet. */
#define ES_ORIENT_UNITS 2048.0
#define ES_ORIENT_BITS 21
static inline uint64_t es_orientation_pack(float yaw, float pitch, float roll)
{
    const float a[3] = {yaw, pitch, roll};
    const uint64_t mask = (UINT64_C(1) << ES_ORIENT_BITS) - 1, bias = mask / 2 + 1;
    uint64_t word = UINT64_C(1) << 63;
    for (int k = 0; k < 3; k++) {
        const double v = a[k] == a[k] ? (a[k] < -360 ? -360 : a[k] > 360 ? 360 : a[k]) : 0;
        const double units = v * ES_ORIENT_UNITS;
        const int64_t whole = (int64_t)(units < 0 ? units - 0.5 : units + 0.5);
        word |= ((uint64_t)(whole + (int64_t)bias) & mask) << (k * ES_ORIENT_BITS);
    }
    return word;
}
static inline void es_orientation_unpack(uint64_t word, float a[3])
{
    const uint64_t mask = (UINT64_C(1) << ES_ORIENT_BITS) - 1, bias = mask / 2 + 1;
    for (int k = 0; k < 3; k++)
        a[k] = (float)((double)((int64_t)((word >> (k * ES_ORIENT_BITS)) & mask) -
                                (int64_t)bias) / ES_ORIENT_UNITS);
}

/* A field room's orientation, from the next block on (any thread; the
 * newest wins). Ignored by any other engine. */
static inline ES_RT void es_engine_orient(es_engine *e, float yaw, float pitch, float roll)
{
    if (e->klass->orient)
        e->klass->orient(e, yaw, pitch, roll);
}

#endif
