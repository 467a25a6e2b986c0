/* What a head tracker's OSC packets say (head.h says which messages):
 * a packet as osc_listener.c received it, stamped on arrival so that the
 * filter-exchange latency counts from there, is a message or a bundle,
 * read here with liblo's message parser. A message is taken, or refused
 * and counted: its values (not numbers, out of range), its form (the
 * wrong count or types of arguments) or its address (nobody reads it).
 * A bundle's messages are taken on arrival whatever its timetag: liblo's
 * own server would queue a bundle timed for later, without a limit, and
 * an orientation is worth most now. What is not OSC is counted as a bad
 * packet. None reaches the audio thread but as the one word a turn writes
 * (es_set_request), which a flood only overwrites. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "core/text.h"
#include "head_private.h"
#include "osc_control.h"

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

/* The head's own commands (head, pitch, roll) as their command line
 * would parse them: the same refusal, word for word. 0, or -1 with why
 * (and whether it was the form: an argument that is no number). */
static int as_command(const char *path, const char *types, lo_arg **argv, int argc,
                      char *line, size_t n, int *form, char *why, size_t wn)
{
    *form = 0;
    if (es_osc_args_line(path + strlen("/earshot/"), types, argv, argc, line, n, why, wn) != 0)
        return *form = 1, -1;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    const es_command *cmd;
    es_command_args args;
    int given;
    return es_command_parse(buf, &cmd, &args, &given, why, wn);
}

/* The address is one of the head's own commands (head, pitch, roll), which
 * a tracker sends too: answered, where a tracker's other words are not. */
static int head_command(const char *path)
{
    return !strcmp(path, "/earshot/head") || !strcmp(path, "/earshot/pitch") ||
           !strcmp(path, "/earshot/roll");
}

void es_head_osc_message(es_head *h, const es_osc_peer *from, const char *path,
                         const char *types, lo_arg **argv, int argc, long long arrival)
{
    char safe[96], why[400];
    int which = -1;
    for (size_t k = 0; k < sizeof addresses / sizeof *addresses && which < 0; k++)
        if (ends_with(path, addresses[k].tail))
            which = (int)k;
    const int command = which >= 0 && head_command(path);
    if (which < 0 && h->control && es_osc_control_owns(path)) {
        es_osc_control_message(h->control, from, path, types, argv, argc);
        return;
    }
    if (which < 0) {
        snprintf(why, sizeof why, "%s: an address earshot does not read",
                 es_text_escape(safe, sizeof safe, path));
        es_head_osc_count(h, 0, 0, 0, 1, why);
        return;
    }
    char line[512] = "";
    int form = 0;
    if (command && as_command(path, types, argv, argc, line, sizeof line, &form, why,
                              sizeof why) != 0) {
        es_head_osc_count(h, 0, !form, form, 0, why);
        if (from)
            es_osc_control_answered(h->control, from, path, line[0] ? line : path, -1, why);
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
        if (command && from)
            es_osc_control_answered(h->control, from, path, line, -1, why);
        return;
    }
    es_head_osc_count(h, 1, 0, 0, 0, NULL);
    if (command && from)
        es_osc_control_answered(h->control, from, path, line, 0, "");
}


/* ---- packets: a message, or a bundle of them ---- */

/* What one packet came to beyond its messages, counted once at its end. */
typedef struct {
    uint64_t bad, early;
    uint64_t now;    /* the NTP time of the packet's arrival; 0: not read yet */
    char why[160];   /* the last bad part in words */
} packet_tally;

static void bad_part(packet_tally *t, const char *why)
{
    t->bad++;
    snprintf(t->why, sizeof t->why, "%s", why);
}

static uint32_t big_endian32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The time now as an OSC timetag: seconds since 1900 and 2^-32ths. */
static uint64_t ntp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    const uint64_t since_1900 = (uint64_t)ts.tv_sec + 2208988800u;
    return since_1900 << 32 | (uint64_t)(((double)ts.tv_nsec / 1e9) * 4294967296.0);
}

static void element(es_head *h, const es_osc_peer *from, const unsigned char *p, size_t size,
                    int depth, int later, long long arrival, packet_tally *t);

/* "#bundle\0", a timetag, then elements, each a big-endian length and
 * that many bytes (a multiple of 4). Elements are taken in order up to
 * the first that does not fit. */
static void bundle(es_head *h, const es_osc_peer *from, const unsigned char *p, size_t size,
                   int depth, int later, long long arrival, packet_tally *t)
{
    char why[160];
    if (depth >= ES_HEAD_OSC_DEPTH) {
        snprintf(why, sizeof why, "bundles nested deeper than %d: not read", ES_HEAD_OSC_DEPTH);
        bad_part(t, why);
        return;
    }
    if (size < 16) {
        bad_part(t, "a bundle shorter than its header (16 bytes)");
        return;
    }
    const uint64_t tag = (uint64_t)big_endian32(p + 8) << 32 | big_endian32(p + 12);
    if (tag != 1) { /* 1: "immediately" */
        t->now = t->now ? t->now : ntp_now();
        later |= tag > t->now;
    }
    for (size_t at = 16; at < size;) {
        if (size - at < 4) {
            bad_part(t, "a bundle cut short inside an element's length");
            return;
        }
        const uint32_t length = big_endian32(p + at);
        at += 4;
        if (length > size - at || length % 4 != 0 || length == 0) {
            snprintf(why, sizeof why,
                     "a bundle element of %u bytes where %zu remain (a multiple of 4 fits)",
                     (unsigned)length, size - at);
            bad_part(t, why);
            return;
        }
        element(h, from, p + at, length, depth + 1, later, arrival, t);
        at += length;
    }
}

/* What liblo's message parser found wrong, in words. */
static const struct {
    int code;
    const char *words;
} liblo_refusals[] = {
    {LO_EINVALIDPATH, "its address is not a string ended within it"},
    {LO_ENOTYPE, "no type tags"},
    {LO_EINVALIDTYPE, "its type tags are not a string ended within it"},
    {LO_EBADTYPE, "its type tags do not start with a comma"},
    {LO_EINVALIDARG, "an argument of an unknown type, or cut short"},
    {LO_ESIZE, "its arguments and its size disagree"},
    {LO_ETERM, "a string not ended within it"},
    {LO_EPAD, "padding that is not zeros"},
    {LO_EALLOC, "no memory to read it"},
};

static const char *liblo_refusal(int code)
{
    for (size_t k = 0; k < sizeof liblo_refusals / sizeof *liblo_refusals; k++)
        if (liblo_refusals[k].code == code)
            return liblo_refusals[k].words;
    return "not an OSC message";
}

/* A message or, inside a bundle, a bundle again. */
static void element(es_head *h, const es_osc_peer *from, const unsigned char *p, size_t size,
                    int depth, int later, long long arrival, packet_tally *t)
{
    if (size >= 8 && !memcmp(p, "#bundle", 8)) {
        bundle(h, from, p, size, depth, later, arrival, t);
        return;
    }
    /* liblo reads the message into memory of its own, freed below: the
     * packet's buffer is the listener's, for the next one. */
    int err = 0;
    lo_message m = lo_message_deserialise((void *)p, size, &err);
    const char *path = m ? lo_get_path((void *)p, (ssize_t)size) : NULL;
    if (!m || !path) {
        char why[160];
        snprintf(why, sizeof why, "%zu bytes that are not an OSC message: %s (liblo error %d)",
                 size, liblo_refusal(err), err);
        bad_part(t, why);
        if (m)
            lo_message_free(m);
        return;
    }
    es_head_osc_message(h, from, path, lo_message_get_types(m), lo_message_get_argv(m),
                        lo_message_get_argc(m), arrival);
    t->early += (uint64_t)later;
    lo_message_free(m);
}

void es_head_osc_packet(es_head *h, const es_osc_peer *from, const void *data, size_t size,
                        long long arrival)
{
    packet_tally t = {0};
    element(h, from, data, size, 0, 0, arrival, &t);
    if (t.bad || t.early)
        es_head_osc_packet_count(h, t.bad, t.early, t.bad ? t.why : NULL);
    /* What is not OSC is answered too, where someone can be answered. */
    if (t.bad && from && h->control)
        es_osc_control_answered(h->control, from, "", "(not OSC)", -1, t.why);
}
