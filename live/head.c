/* Head tracking: an orientation to the filter set of the room playing
 * (head.h). The nearest set is found over every pose, a few hundred dot
 * products, under the lock; the request is one atomic word the audio
 * thread takes at its next callback. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "head_private.h"

es_head *es_head_create(es_set_requests *requests)
{
    es_head *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    pthread_mutex_init(&h->lock, NULL);
    h->requests = requests;
    if (!(h->blend = es_head_blend_create(requests))) {
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    h->view.set = -1;
    return h;
}

void es_head_destroy(es_head *h)
{
    if (!h)
        return;
    es_osc_listener_stop(h->osc); /* first: its thread counts into h */
    es_head_blend_destroy(h->blend);
    pthread_mutex_destroy(&h->lock);
    free(h->poses);
    free(h);
}

/* With the lock held: the set for the orientation held, asked of the
 * stream. */
static void aim(es_head *h, long long arrival_ns)
{
    es_head_view *v = &h->view;
    /* A field room turns with every orientation, whatever else plays. */
    es_set_request_orientation(h->requests, v->yaw, v->pitch, v->roll);
    if (!h->poses || v->sets < 1)
        return;
    const es_sofa s = {.count = v->sets, .pose = h->poses, .varies = v->varies};
    const int set = es_sofa_for_head(&s, v->yaw, v->pitch, v->roll);
    if (set < 0)
        return;
    v->set = set;
    v->pose = h->poses[set];
    if (h->blending) { /* what the blender will make of it, for the view */
        float azimuth, elevation;
        es_sofa_head_direction(&s, v->yaw, v->pitch, v->roll, &azimuth, &elevation);
        es_sofa_blend_for(&s, azimuth, elevation, ES_INTERP_LINEAR, &v->blend);
    }
    if (!h->blending || !es_head_blend_aim(h->blend, v->yaw, v->pitch, v->roll, arrival_ns))
        es_set_request_moved(h->requests, set, es_now_ns(), arrival_ns);
}

int es_head_set_blend(es_head *h, es_engine *e, es_sofa *heads, int kept, int first)
{
    pthread_mutex_lock(&h->lock);
    const int rc = es_head_blend_room(h->blend, e, heads, kept, first);
    h->blending = e && heads && rc == 0;
    pthread_mutex_unlock(&h->lock);
    return rc;
}

void es_head_set_room(es_head *h, const es_sofa_pose *poses, int count, es_sofa_varies varies)
{
    es_sofa_pose *copy = NULL;
    if (poses && count > 0 && (copy = malloc((size_t)count * sizeof *copy)))
        memcpy(copy, poses, (size_t)count * sizeof *copy);
    pthread_mutex_lock(&h->lock);
    free(h->poses);
    h->poses = copy;
    h->view.sets = copy ? count : 0;
    h->view.varies = varies;
    h->view.set = -1;
    aim(h, es_now_ns());
    pthread_mutex_unlock(&h->lock);
}

void es_head_set_field(es_head *h, int order, const char *decoder)
{
    pthread_mutex_lock(&h->lock);
    h->view.field_order = order;
    snprintf(h->view.field_decoder, sizeof h->view.field_decoder, "%s",
             order && decoder ? decoder : "");
    pthread_mutex_unlock(&h->lock);
}

static int check(double value, double max, const char *what, char *why, size_t n)
{
    if (isfinite(value) && fabs(value) <= max)
        return 0;
    snprintf(why, n, "%s %g: not a number within -%g..%g degrees", what, value, max, max);
    return -1;
}

/* Yaw into (-180, 180]. */
static double wrap(double yaw)
{
    double w = fmod(yaw, 360.0);
    w = w > 180.0 ? w - 360.0 : w <= -180.0 ? w + 360.0 : w;
    return w;
}

int es_head_turn(es_head *h, double yaw, double pitch, double roll, long long arrival_ns,
                 char *why, size_t n)
{
    if (check(yaw, ES_HEAD_YAW_MAX, "yaw", why, n) ||
        check(pitch, ES_HEAD_PITCH_MAX, "pitch", why, n) ||
        check(roll, ES_HEAD_ROLL_MAX, "roll", why, n))
        return -1;
    pthread_mutex_lock(&h->lock);
    h->view.yaw = (float)wrap(yaw);
    h->view.pitch = (float)pitch;
    h->view.roll = (float)roll;
    h->view.turns++;
    aim(h, arrival_ns);
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int es_head_nudge(es_head *h, double yaw, double pitch, double roll, char *why, size_t n)
{
    pthread_mutex_lock(&h->lock);
    const double y = h->view.yaw + yaw, p = fmax(-90.0, fmin(90.0, h->view.pitch + pitch));
    const double r = h->view.roll + roll;
    pthread_mutex_unlock(&h->lock);
    return es_head_turn(h, wrap(y), p, wrap(r), es_now_ns(), why, n);
}

void es_head_view_get(es_head *h, es_head_view *v)
{
    pthread_mutex_lock(&h->lock);
    *v = h->view;
    v->blending = h->blending;
    pthread_mutex_unlock(&h->lock);
    es_head_blend_stats st;
    es_head_blend_stats_get(h->blend, &st);
    v->blends = st.blends;
}

int es_head_blend_words(const es_head_view *v, char *out, size_t n)
{
    const es_sofa_blend *b = &v->blend;
    if (!v->blending || b->count < 2 || !n)
        return 0;
    size_t used = 0;
    out[0] = 0;
    for (int c = 0; c < b->count && used < n; c++)
        used += (size_t)snprintf(out + used, n - used, "%sset %d x %.2f",
                                 c == 0 ? "blend of " : c == b->count - 1 ? " and " : ", ",
                                 b->index[c] + 1, b->weight[c]);
    if (used < n)
        snprintf(out + used, n - used, " of %d", v->sets);
    return 1;
}

void es_head_set_control(es_head *h, struct es_osc_control *control)
{
    h->control = control;
}

void es_head_osc_count(es_head *h, int taken, int bad_values, int bad_form, int unknown,
                       const char *why)
{
    pthread_mutex_lock(&h->lock);
    es_head_view *v = &h->view;
    v->osc_messages++;
    v->osc_taken += (uint64_t)taken;
    v->osc_bad_values += (uint64_t)bad_values;
    v->osc_bad_form += (uint64_t)bad_form;
    v->osc_unknown += (uint64_t)unknown;
    if (why)
        snprintf(v->osc_last_bad, sizeof v->osc_last_bad, "%s", why);
    pthread_mutex_unlock(&h->lock);
}

void es_head_osc_packet_count(es_head *h, uint64_t bad, uint64_t early, const char *why)
{
    pthread_mutex_lock(&h->lock);
    h->view.osc_bad_packets += bad;
    h->view.osc_early += early;
    if (why)
        snprintf(h->view.osc_last_bad, sizeof h->view.osc_last_bad, "%s", why);
    pthread_mutex_unlock(&h->lock);
}

void es_head_osc_dropped(es_head *h, uint64_t total)
{
    pthread_mutex_lock(&h->lock);
    h->view.osc_dropped = total;
    pthread_mutex_unlock(&h->lock);
}
