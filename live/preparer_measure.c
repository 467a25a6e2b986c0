/* The room panel's measurements, on the preparer's thread (preparer.c):
 * a room's ISO 3382 figures, its decay and the gain that levels it, as it
 * would play: a library room prepared, a file room and a SOFA set levelled
 * by the same rule (room_level.h), each of the first channel that sounds. */
#include <stdio.h>
#include <stdlib.h>

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

void es_prep_measure(es_preparer *p, const es_room *room, int from, int step,
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
}
