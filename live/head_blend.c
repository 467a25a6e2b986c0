/* Directions between the measured ones, while the room plays (head.h,
 * --interp linear): a thread of its own blends the measurements around
 * where the head points (rooms/sofa_blend.c, sofa_interp.c: barycentric
 * weights, the onsets apart), loads the blend into one of two sets the
 * room's engine keeps for it (es_engine_load_set), and asks the stream
 * for that set as a tracker asks for a measured one: the switch is the
 * engine's crossfade within a block, never a click.
 *
 * The two kept sets take turns. A set may be written only while the
 * audio thread neither plays it nor fades from it, nor holds a request
 * for it; so before each load the thread waits until the engine has
 * settled on the set asked for last (es_engine_set_settled): every
 * earlier request is then taken and its fade over, and the other kept
 * set is free. The wait is at most a block or two, during which newer
 * orientations replace the one pending: only the newest is blended.
 *
 * A blend whose direction is measured (or that has one measurement) asks
 * for that set itself, unblended. The request carries the orientation's
 * arrival, so the motion-to-sound latency the meters show counts the
 * blending (the filter exchange runs from the request).
 *
 * The engine is the processor's: it may be retired and destroyed on
 * another thread at any time. The blender watches it (es_engine_watch):
 * its destruction first takes the blender's lock and clears the target,
 * so while the lock is held with a target, the target is alive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "head_blend.h"

struct es_head_blend {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int started, stop;
    es_set_requests *requests;
    es_engine *target;      /* NULL: no room to blend for */
    es_sofa *heads;         /* its sets as they play (levelled, split) */
    int kept;               /* the first of the two sets kept for blends */
    int asked;              /* the set asked for last */
    int pending;            /* an orientation waits */
    float yaw, pitch, roll;
    long long arrival_ns;
    es_head_blend_stats stats;
};

static void sleep_us(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

/* With the lock held: waits (letting the lock go) until the target has
 * settled on the set asked for last; 0, or -1 when the target went or
 * the blender stops. A block or two is the usual wait, looked at every
 * 250 us; a stream that does not run (stopped, paused) is looked at
 * every 10 ms after the first 100. */
static int wait_settled(es_head_blend *b)
{
    es_engine *e = b->target;
    for (int looks = 0;
         !b->stop && b->target == e && e && es_engine_set_settled(e) != b->asked; looks++) {
        pthread_mutex_unlock(&b->lock);
        sleep_us(looks < 400 ? 250 : 10000);
        pthread_mutex_lock(&b->lock);
    }
    return !b->stop && b->target == e && e ? 0 : -1;
}

/* With the lock held and the target settled: the pending orientation
 * blended, loaded and asked for. */
static void blend_pending(es_head_blend *b)
{
    b->pending = 0;
    const es_sofa *s = b->heads;
    float azimuth, elevation;
    es_sofa_head_direction(s, b->yaw, b->pitch, b->roll, &azimuth, &elevation);
    es_sofa_blend blend;
    if (es_sofa_blend_for(s, azimuth, elevation, ES_INTERP_LINEAR, &blend) != 0)
        return;
    int set = blend.index[0];
    if (blend.count > 1) {
        set = b->asked == b->kept ? b->kept + 1 : b->kept;
        char why[256];
        es_ir *ir = es_sofa_blend_ir(s, &blend, why, sizeof why);
        if (!ir || es_engine_load_set(b->target, set, ir, why, sizeof why) != 0) {
            b->stats.failed++;
            snprintf(b->stats.last_failure, sizeof b->stats.last_failure, "%s", why);
            es_ir_destroy(ir);
            return;
        }
        es_ir_destroy(ir);
        b->stats.blends++;
    } else if (set == b->asked) {
        return; /* it plays already */
    } else {
        b->stats.measured++;
    }
    b->stats.last = blend;
    es_set_request_moved(b->requests, set, es_now_ns(), b->arrival_ns);
    b->asked = set;
}

static void *blender(void *arg)
{
    es_head_blend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->stop) {
        if (!b->pending || !b->target) {
            pthread_cond_wait(&b->wake, &b->lock);
            continue;
        }
        if (wait_settled(b) == 0 && b->pending)
            blend_pending(b);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

es_head_blend *es_head_blend_create(es_set_requests *requests)
{
    es_head_blend *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->wake, NULL);
    b->requests = requests;
    return b;
}

/* The engine's destruction: let go of it (es_engine_watch). */
static void target_gone(void *ctx, es_engine *e)
{
    es_head_blend *b = ctx;
    pthread_mutex_lock(&b->lock);
    if (b->target == e)
        b->target = NULL;
    pthread_mutex_unlock(&b->lock);
}

/* With the lock held: no target any more, its watch cleared (the target
 * is alive while the lock is held with it). */
static void let_go(es_head_blend *b)
{
    if (b->target)
        es_engine_watch(b->target, NULL, NULL);
    b->target = NULL;
    b->pending = 0;
    es_sofa_free(b->heads);
    b->heads = NULL;
}

void es_head_blend_destroy(es_head_blend *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->lock);
    b->stop = 1;
    let_go(b);
    pthread_cond_signal(&b->wake);
    pthread_mutex_unlock(&b->lock);
    if (b->started)
        pthread_join(b->thread, NULL);
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

int es_head_blend_room(es_head_blend *b, es_engine *e, es_sofa *heads, int kept, int first)
{
    pthread_mutex_lock(&b->lock);
    let_go(b);
    if (e && heads) {
        b->target = e;
        b->heads = heads;
        b->kept = kept;
        b->asked = first;
        es_engine_watch(e, target_gone, b);
        b->stats.rooms++;
    } else {
        es_sofa_free(heads);
    }
    int rc = 0;
    if (b->target && !b->started) {
        if (pthread_create(&b->thread, NULL, blender, b) == 0)
            b->started = 1;
        else
            rc = -1, let_go(b);
    }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

int es_head_blend_aim(es_head_blend *b, float yaw, float pitch, float roll, long long arrival_ns)
{
    pthread_mutex_lock(&b->lock);
    const int taken = b->target != NULL;
    if (taken) {
        b->yaw = yaw, b->pitch = pitch, b->roll = roll;
        b->arrival_ns = arrival_ns;
        b->stats.replaced += b->pending;
        b->pending = 1;
        pthread_cond_signal(&b->wake);
    }
    pthread_mutex_unlock(&b->lock);
    return taken;
}

void es_head_blend_stats_get(es_head_blend *b, es_head_blend_stats *st)
{
    pthread_mutex_lock(&b->lock);
    *st = b->stats;
    pthread_mutex_unlock(&b->lock);
}
