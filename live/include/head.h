/* Head tracking: the listener's orientation, from a head tracker (OSC,
 * head_osc.c), keys or the `head` command, turned into the filter set of
 * the room playing (a SOFA room: a set per head orientation, or an HRIR
 * per source direction) and asked of the stream (es_set_requests).
 *
 * Angles are degrees in SOFA's frame: yaw counter-clockwise seen from
 * above (positive: the head turned left), pitch up, roll to the right ear
 * down. A room of head orientations (ListenerView varies) plays the set
 * nearest (great circle) to the head's yaw and pitch. A head-related set
 * (SourcePosition varies) plays a source that holds still ahead in the
 * room: the HRIR nearest to where that source is, seen from the head
 * turned by yaw, then pitch, then roll (es_sofa_head_direction: yaw 90
 * then roll 90 puts it overhead). In a room of head orientations roll
 * selects nothing (a view carries no up vector); it is kept and shown.
 *
 * Every call is thread-safe (a mutex, never taken on the audio thread):
 * the OSC thread, the session and the screen share one es_head. */
#ifndef ES_HEAD_H
#define ES_HEAD_H

#include <stddef.h>
#include <stdint.h>

#include "processor.h"
#include "sofa.h"

/* The angles a message may carry: beyond these (or not a number), it is
 * refused and counted. */
#define ES_HEAD_YAW_MAX 360.0
#define ES_HEAD_PITCH_MAX 90.0
#define ES_HEAD_ROLL_MAX 180.0

typedef struct es_head es_head;

typedef struct {
    int sets;                    /* sets of the room playing; 0: not a tracked room */
    /* A room in spherical harmonics playing (es_head_set_field): its
     * order (0: none), which turns with every orientation, and its
     * decoder in words. */
    int field_order;
    char field_decoder[200];
    es_sofa_varies varies;
    float yaw, pitch, roll;      /* the last orientation taken */
    int set;                     /* the set it picked (-1: none yet) */
    es_sofa_pose pose;           /* that set's pose */
    /* --interp linear: 1 while the room playing is blended for; the
     * blends made, and the last asked for (the measurements and their
     * weights; a measured direction's one). */
    int blending;
    uint64_t blends;
    es_sofa_blend blend;         /* for the orientation held (the blender's to make) */
    uint64_t turns;              /* orientations taken (every origin) */
    /* OSC (head_osc.c, osc_listener.c): the address and UDP port
     * listened on (port 0: none); messages received, taken, refused for
     * their values (not numbers, out of range), their form (types, count:
     * a blob, a string) or their address (nobody reads it); of those, the
     * ones a bundle timed for later carried, taken on arrival all the
     * same; packets (or a bundle's elements) that are not OSC, none of
     * their messages counted; packets the system dropped before earshot
     * read them (its receive buffer full); the last refusal in words. */
    int osc_port;
    char osc_address[64];
    uint64_t osc_messages, osc_taken, osc_bad_values, osc_bad_form, osc_unknown;
    uint64_t osc_early, osc_bad_packets, osc_dropped;
    char osc_last_bad[160];
} es_head_view;

/* requests: the stream's (es_processor_config.set_requests); it must
 * outlive the es_head. */
es_head *es_head_create(es_set_requests *requests);
/* Stops the OSC listener first. NULL-safe. */
void es_head_destroy(es_head *h);

/* The room now playing: its sets' poses (copied) and what varies; NULL or
 * count 0 for a room of one matrix. The orientation held is asked of it
 * at once (its engine starts at set 0). */
void es_head_set_room(es_head *h, const es_sofa_pose *poses, int count, es_sofa_varies varies);

/* The room now playing is a field of `order` (0: it is not), decoded as
 * `decoder` says. */
void es_head_set_field(es_head *h, int order, const char *decoder);

/* --interp linear, for the room about to be set (es_head_set_room
 * follows): its engine, a split room whose sets kept and kept + 1 are
 * kept for blends, its sets as they play (taken) and the set it starts
 * on. From then on each orientation is blended on a thread of its own
 * (head_blend.c) and asked for. NULL e: nearest sets only. 0, or -1 when
 * the blending could not start (nearest sets then). */
int es_head_set_blend(es_head *h, es_engine *e, es_sofa *heads, int kept, int first);
/* An orientation that arrived at arrival_ns (es_now_ns). 0, or -1 and why
 * (a value not a number or out of range; nothing changes). */
int es_head_turn(es_head *h, double yaw, double pitch, double roll, long long arrival_ns,
                 char *why, size_t n);
/* The orientation held, turned by the given degrees (keys): pitch kept
 * within -90..90, yaw and roll wrapped into (-180, 180]. */
int es_head_nudge(es_head *h, double yaw, double pitch, double roll, char *why, size_t n);

void es_head_view_get(es_head *h, es_head_view *v);
/* "blend of set 3 x 0.30 and set 4 x 0.70 of 36": 1 when the view holds a
 * blend of two or three measurements, else 0 (a measured set plays). */
int es_head_blend_words(const es_head_view *v, char *out, size_t n);

/* Where a head tracker is listened for unless the command line says
 * otherwise: this machine only. Debian's liblo resolves "localhost" to
 * it (it is built without IPv6), so `oscsend localhost PORT` reaches it. */
#define ES_HEAD_OSC_BIND_DEFAULT "127.0.0.1"

/* OSC (head_osc.c, osc_listener.c): listens on UDP `port` (1..65535) of
 * `address` (an IPv4 or IPv6 literal; NULL: ES_HEAD_OSC_BIND_DEFAULT;
 * 0.0.0.0 or :: every interface) for a head tracker's messages. 0, or -1
 * and why (not an address, the port taken, the address not this
 * machine's). Accepted, each number a float, double or integer:
 *   /earshot/head YAW [PITCH [ROLL]]
 *   .../ypr YAW PITCH ROLL        (IEM SceneRotator, SPARTA, Supperware)
 *   .../yaw Y, .../pitch P, .../roll R   (one angle; the others held)
 *   .../quaternions W X Y Z, .../quaternion W X Y Z
 * where ... is any prefix (/SceneRotator/ypr, /ypr); alone or in
 * bundles, which are taken on arrival whatever their timetag (nothing is
 * held for later: a head's orientation is worth most now, and a stream
 * of packets holds no memory). */
int es_head_listen(es_head *h, const char *address, int port, char *why, size_t n);

/* Every other /earshot/ address goes to `control` (osc_control.h: the
 * command table over OSC), answered from the same socket. Before
 * es_head_listen; the control outlives the head's listener. */
struct es_osc_control;
void es_head_set_control(es_head *h, struct es_osc_control *control);

/* 1 when `text` is an IPv4 or IPv6 literal es_head_listen takes; 0 and
 * why when not. */
int es_head_osc_address_valid(const char *text, char *why, size_t n);

/* For head_osc.c: counts a message, and a refusal of its form or address
 * with its words. */
void es_head_osc_count(es_head *h, int taken, int bad_values, int bad_form, int unknown,
                       const char *why);

#endif
