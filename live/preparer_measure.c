/* The room panel's measurements, on the preparer's thread (preparer.c):
 * the queue the session asks into and takes from, and each room's ISO 3382
 * figures, its decay and the gain that levels it, as it would play: a
 * library room prepared, a file room and a SOFA set levelled by the same
 * rule (room_level.h), each of the first channel that sounds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acoustics.h"
#include "irfile.h"
#include "preparer_private.h"
#include "room_level.h"

/* The parameters and decay of the first channel that sounds from
 * info->asked on, going info->step way and round (a room whose first
 * channel is silent is measured on the next; a matrix's path without a
 * filter is passed over), into *info. */
static void measure_channel(const es_room *room, float *const *ch, int channels, int frames,
                            double rate, es_room_info *info)
{
    const int step = info->step < 0 ? -1 : 1;
    const int from = info->asked >= 0 && info->asked < channels ? info->asked : 0;
    for (int k = 0, c = from; k < channels; k++, c = (c + step + channels) % channels)
        if (ch[c] && es_acoustics_measure(ch[c], frames, rate, &info->a) == 0 &&
            es_acoustics_decay_curve(ch[c], frames, rate, info->decay, ES_DECAY_POINTS) == 0) {
            info->channel = c;
            info->measured = 1;
            return;
        }
    snprintf(info->error, sizeof info->error, "%s: every channel is silent", room->name);
    info->measured = -1;
}

/* Room `room`'s figures, from channel `from` on, going `step` way, into
 * *info (unlocked: the room is the queue's copy, the loader the thread's). */
static void measure(es_preparer *p, const es_room *room, int from, int step,
                    es_room_info *info)
{
    *info = (es_room_info){.index = -1, .asked = from, .step = step};
    snprintf(info->name, sizeof info->name, "%s", room->name);
    snprintf(info->path, sizeof info->path, "%s", room->path);
    char err[512];
    if (es_sofa_is_file(room->path)) { /* a SOFA set: its first measurement */
        es_sofa *set = es_sofa_load(room->path, p->rate, err, sizeof err);
        if (!set) {
            snprintf(info->error, sizeof info->error, "%s", err);
            info->measured = -1;
            return;
        }
        double gain_db;
        if (es_sofa_level_db(set, &gain_db, err, sizeof err) == 0)
            info->gain_db = gain_db; /* what it plays with, levelled */
        const es_ir *first = set->sets[0];
        info->seconds = first->length / p->rate;
        info->channels = first->inputs * first->outputs;
        measure_channel(room, first->taps, info->channels, first->length, p->rate, info);
        es_sofa_free(set);
        return;
    }
    if (room->origin == ES_ROOMS_FILE) { /* the file's samples, and the gain that levels them */
        float **ch = NULL;
        es_ir_load_info li;
        int ins, outs;
        if (es_ir_read_paths(room->path, p->rate, &ch, &li, &ins, &outs, err, sizeof err) != 0) {
            snprintf(info->error, sizeof info->error, "%s", err);
            info->measured = -1;
            return;
        }
        info->seconds = li.frames / p->rate;
        info->channels = li.file_channels;
        char layout[16] = "";
        if (ins > 0)
            snprintf(layout, sizeof layout, "%dx%d", ins, outs);
        double gain_db;
        if (es_channels_level_db((const float *const *)ch, li.file_channels, li.frames, p->rate,
                                 layout, &gain_db, err, sizeof err) == 0)
            info->gain_db = gain_db;
        measure_channel(room, ch, li.file_channels, li.frames, p->rate, info);
        for (int c = 0; c < li.file_channels; c++)
            free(ch[c]);
        free(ch);
        return;
    }
    const es_prepared_room *pr = es_room_cache_get(&p->rooms->cache, room, p->rate, err,
                                                   sizeof err);
    if (!pr) {
        snprintf(info->error, sizeof info->error, "%s", err);
        info->measured = -1;
        return;
    }
    info->seconds = pr->frames / pr->rate;
    info->channels = pr->channels;
    info->gain_db = pr->gain_db;
    measure_channel(room, pr->ch, pr->channels, pr->frames, pr->rate, info);
    es_room_cache_release(&p->rooms->cache, pr);
}

/* ---- the queue ---- */

int es_prep_step_measure(es_preparer *p)
{
    if (!p->measure_count || p->measured_count >= MEASURE_QUEUE)
        return 0;
    es_room *room = p->measure[0].room;
    const int from = p->measure[0].from, step = p->measure[0].step;
    --p->measure_count;
    memmove(p->measure, p->measure + 1, (size_t)p->measure_count * sizeof p->measure[0]);
    pthread_mutex_unlock(&p->lock);
    es_room_info info;
    measure(p, room, from, step, &info);
    free(room);
    pthread_mutex_lock(&p->lock);
    p->measured[p->measured_count++] = info;
    return 1;
}

void es_prep_drop_measures(es_preparer *p)
{
    for (int i = 0; i < p->measure_count; i++)
        free(p->measure[i].room);
    p->measure_count = 0;
}

void es_preparer_measure(es_preparer *p, const es_room *room, int from, int step)
{
    pthread_mutex_lock(&p->lock);
    int queued = -1;
    for (int i = 0; i < p->measure_count; i++)
        if (!strcmp(p->measure[i].room->name, room->name) &&
            !strcmp(p->measure[i].room->path, room->path))
            queued = i;
    /* The session's list may be read again before the thread gets to it:
     * the queue keeps copies of its own. One queued already measures the
     * channel asked last. */
    const int at = queued >= 0 ? queued : p->measure_count;
    es_room *copy = queued < 0 && p->measure_count < MEASURE_QUEUE ? es_room_dup(room) : NULL;
    if (copy)
        p->measure[p->measure_count++].room = copy;
    if (copy || queued >= 0) {
        p->measure[at].from = from;
        p->measure[at].step = step;
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
}

int es_preparer_take_measurement(es_preparer *p, es_room_info *out)
{
    pthread_mutex_lock(&p->lock);
    const int got = p->measured_count > 0;
    if (got) {
        *out = p->measured[0];
        memmove(p->measured, p->measured + 1,
                (size_t)--p->measured_count * sizeof *p->measured);
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}
