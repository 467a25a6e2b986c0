/* A head tracker's OSC messages (head.h says which), through liblo's own
 * server thread. Each message is stamped as it is handled, before
 * anything else, so the filter-exchange latency counts from its arrival.
 * A message is taken, or refused and counted: its values (not numbers,
 * out of range), its form (the wrong count or types of arguments) or its
 * address (nobody reads it). None reaches the audio thread but as the one
 * word a turn writes (es_set_request), which a flood only overwrites. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/text.h"
#include "head_private.h"

/* What an address asks for, by its last part. */
typedef enum { ASK_HEAD, ASK_YPR, ASK_YAW, ASK_PITCH, ASK_ROLL, ASK_QUATERNION } ask;

static const struct {
    const char *tail; /* the address's last part, or the whole address */
    ask what;
    int min_args, max_args;
} addresses[] = {
    {"/earshot/head", ASK_HEAD, 1, 3},
    {"/ypr", ASK_YPR, 3, 3},
    {"/yaw", ASK_YAW, 1, 1},
    {"/pitch", ASK_PITCH, 1, 1},
    {"/roll", ASK_ROLL, 1, 1},
    {"/quaternions", ASK_QUATERNION, 4, 4},
    {"/quaternion", ASK_QUATERNION, 4, 4},
};

static int ends_with(const char *s, const char *tail)
{
    const size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* Argument k as a number; 0 when it is not one of OSC's numeric types.
 * liblo's arguments sit where the packet put them, 4-byte aligned: each
 * is copied out rather than read through lo_arg, whose union wants 8
 * (the osc fuzz target's first finding, under UBSan). */
static int number(const char *types, lo_arg **argv, int k, double *out)
{
    float f;
    double d;
    int32_t i;
    int64_t h;
    switch (types[k]) {
    case LO_FLOAT: memcpy(&f, argv[k], sizeof f); *out = f; return 1;
    case LO_DOUBLE: memcpy(&d, argv[k], sizeof d); *out = d; return 1;
    case LO_INT32: memcpy(&i, argv[k], sizeof i); *out = i; return 1;
    case LO_INT64: memcpy(&h, argv[k], sizeof h); *out = (double)h; return 1;
    default: return 0;
    }
}

/* Yaw, pitch and roll (degrees, head.h's frame: x ahead, y left, z up)
 * of the rotation w + xi + yj + zk, which need not be of unit length. */
static int from_quaternion(const double q[4], double *yaw, double *pitch, double *roll)
{
    const double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 1e-9) || !isfinite(norm))
        return -1;
    const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
    const double deg = 180.0 / 3.14159265358979323846;
    *yaw = deg * atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
    /* A rotation about y (to the left) by a positive angle tips the nose down. */
    const double s = 2 * (w * y - z * x);
    *pitch = -deg * asin(s > 1 ? 1 : s < -1 ? -1 : s);
    *roll = deg * atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y));
    return 0;
}

static int handle(const char *path, const char *types, lo_arg **argv, int argc, lo_message msg,
                  void *data)
{
    const long long arrival = es_now_ns();
    (void)msg;
    es_head_osc_message(data, path, types, argv, argc, arrival);
    return 0;
}

void es_head_osc_message(es_head *h, const char *path, const char *types, lo_arg **argv,
                         int argc, long long arrival)
{
    char safe[96], why[160];
    int which = -1;
    for (size_t k = 0; k < sizeof addresses / sizeof *addresses && which < 0; k++)
        if (ends_with(path, addresses[k].tail))
            which = (int)k;
    if (which < 0) {
        snprintf(why, sizeof why, "%s: an address earshot does not read",
                 es_text_escape(safe, sizeof safe, path));
        es_head_osc_count(h, 0, 0, 0, 1, why);
        return;
    }
    double v[4] = {0};
    int ok = argc >= addresses[which].min_args && argc <= addresses[which].max_args;
    for (int k = 0; ok && k < argc; k++)
        ok = number(types, argv, k, &v[k]);
    if (!ok) {
        char tags[40];
        snprintf(why, sizeof why, "%s ,%s: wants %d to %d numbers",
                 es_text_escape(safe, sizeof safe, path), es_text_escape(tags, sizeof tags, types),
                 addresses[which].min_args, addresses[which].max_args);
        es_head_osc_count(h, 0, 0, 1, 0, why);
        return;
    }
    es_head_view now;
    es_head_view_get(h, &now);
    double yaw = now.yaw, pitch = now.pitch, roll = now.roll;
    switch (addresses[which].what) {
    case ASK_HEAD:
        yaw = v[0];
        pitch = argc > 1 ? v[1] : pitch;
        roll = argc > 2 ? v[2] : roll;
        break;
    case ASK_YPR: yaw = v[0], pitch = v[1], roll = v[2]; break;
    case ASK_YAW: yaw = v[0]; break;
    case ASK_PITCH: pitch = v[0]; break;
    case ASK_ROLL: roll = v[0]; break;
    case ASK_QUATERNION:
        if (from_quaternion(v, &yaw, &pitch, &roll) != 0) {
            snprintf(why, sizeof why, "%s: a quaternion of no length or not numbers",
                     es_text_escape(safe, sizeof safe, path));
            es_head_osc_count(h, 0, 1, 0, 0, why);
            return;
        }
        break;
    }
    char said[128];
    if (es_head_turn(h, yaw, pitch, roll, arrival, said, sizeof said) != 0) {
        snprintf(why, sizeof why, "%s: %s", es_text_escape(safe, sizeof safe, path), said);
        es_head_osc_count(h, 0, 1, 0, 0, why);
        return;
    }
    es_head_osc_count(h, 1, 0, 0, 0, NULL);
}

/* liblo says what went wrong (a port taken) through this; the listener's
 * start reads it back. */
static _Thread_local char liblo_said[200];

static void liblo_error(int num, const char *msg, const char *where)
{
    snprintf(liblo_said, sizeof liblo_said, "%s%s%s (liblo error %d)", msg ? msg : "",
             where ? " " : "", where ? where : "", num);
}

int es_head_listen(es_head *h, int port, char *why, size_t n)
{
    if (port < 1 || port > 65535) {
        snprintf(why, n, "OSC port %d: not within 1..65535", port);
        return -1;
    }
    char text[16];
    snprintf(text, sizeof text, "%d", port);
    liblo_said[0] = 0;
    lo_server_thread st = lo_server_thread_new_with_proto(text, LO_UDP, liblo_error);
    if (!st) {
        snprintf(why, n, "OSC port %d: cannot listen: %s", port,
                 liblo_said[0] ? liblo_said : "liblo could not open it");
        return -1;
    }
    lo_server_thread_add_method(st, NULL, NULL, handle, h);
    if (lo_server_thread_start(st) != 0) {
        lo_server_thread_free(st);
        snprintf(why, n, "OSC port %d: liblo's thread did not start", port);
        return -1;
    }
    pthread_mutex_lock(&h->lock);
    h->osc = st;
    h->view.osc_port = port;
    pthread_mutex_unlock(&h->lock);
    return 0;
}
