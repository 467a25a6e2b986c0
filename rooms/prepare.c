#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "irfile.h"
#include "prepare.h"
#include "room_level.h"

/* Frames the room keeps: per channel, all but the longest tail that
 * changes no output by more than ES_TRIM_DB, the longest over the
 * channels. Two bounds, both kept: the worst case (the tail's sum of
 * |samples| within ES_TRIM_DB of the channel's: full-scale input of the
 * right signs meets every tap at once) and the typical one (the tail's
 * energy within ES_TRIM_DB of the channel's: what noise or programme
 * hears). A synthetic decay meets both at once; a recording's noise floor
 * spreads its sum of |samples| over so many frames that the first bound
 * alone cut ~100 frames whose energy was only -103 dB below the room's.
 * Summed in double from the end. */
static int audible_frames(float **ch, int channels, int frames)
{
    /* Half the bound: the gain's float rounding takes a little of it. */
    const double bound = 0.5 * pow(10.0, -ES_TRIM_DB / 20);
    int keep = 1;
    for (int c = 0; c < channels; c++) {
        if (!ch[c])
            continue; /* a matrix's path with no filter */
        double whole = 0, energy = 0;
        for (int t = 0; t < frames; t++) {
            whole += fabs(ch[c][t]);
            energy += (double)ch[c][t] * ch[c][t];
        }
        double tail = 0, tail_energy = 0;
        int t = frames;
        while (t > keep) {
            const double v = ch[c][t - 1];
            if (tail + fabs(v) > bound * whole ||
                tail_energy + v * v > bound * bound * energy)
                break;
            tail += fabs(v);
            tail_energy += v * v;
            t--;
        }
        keep = t > keep ? t : keep;
    }
    return keep;
}

int es_room_prepare(const es_room *room, double rate, es_prepared_room *out, char *err,
                    size_t n)
{
    memset(out, 0, sizeof *out);
    es_ir_load_info info;
    float **ch = NULL;
    char why[512], matrix[16] = "";
    int ins, outs;
    if (es_ir_read_paths(room->path, rate, &ch, &info, &ins, &outs, why, sizeof why) != 0) {
        snprintf(err, n, "room '%s': %s", room->name, why);
        return -1;
    }
    const int channels = info.file_channels;
    if (rate <= 0) /* the room at its own rate */
        rate = info.file_rate;
    if (ins > 0) /* a matrix room (a configuration): its layout is its sides */
        snprintf(matrix, sizeof matrix, "%dx%d", ins, outs);
    if (room->rate > 0 && info.file_rate != room->rate) {
        snprintf(err, n, "room '%s': %s is %g Hz but the manifest says %g Hz", room->name,
                 room->path, info.file_rate, room->rate);
        goto fail;
    }
    const char *layout = matrix[0]          ? matrix
                         : room->layout[0] ? room->layout
                                           : es_layout_for_channels(channels);
    if (matrix[0] && room->layout[0] && strcmp(room->layout, matrix) != 0) {
        snprintf(err, n, "room '%s': %s is a %d x %d matrix but the manifest says layout %s",
                 room->name, room->path, ins, outs, room->layout);
        goto fail;
    }
    if (layout[0] && es_layout_check(layout, channels, why, sizeof why) != 0) {
        snprintf(err, n, "room '%s': %s", room->name, why);
        goto fail;
    }
    const int audible = audible_frames(ch, channels, info.frames);
    const int delay = (int)lround(room->predelay_ms * 1e-3 * rate);
    const int frames = delay + audible;
    /* Each output's power for programme material (room_level.h), the
     * paths feeding it summed: the mean over the outputs becomes 1. */
    double level_db;
    if (es_channels_level_db((const float *const *)ch, channels, audible, rate, layout,
                             &level_db, why, sizeof why) != 0) {
        snprintf(err, n, "room '%s': %s: %s", room->name, room->path, why);
        goto fail;
    }
    const double gain = pow(10.0, (room->gain_db + level_db) / 20);
    for (int c = 0; c < channels; c++) {
        if (!ch[c])
            continue;
        float *p = calloc((size_t)frames, sizeof(float));
        if (!p) {
            snprintf(err, n, "room '%s': out of memory", room->name);
            goto fail;
        }
        for (int t = 0; t < audible; t++)
            p[delay + t] = (float)(gain * ch[c][t]);
        free(ch[c]);
        ch[c] = p;
    }
    snprintf(out->name, sizeof out->name, "%s", room->name);
    out->rate = rate;
    out->ch = ch;
    out->channels = channels;
    out->frames = frames;
    out->gain_db = 20 * log10(gain);
    out->trimmed_s = (info.frames - audible) / rate;
    out->file_rate = info.file_rate;
    snprintf(out->layout, sizeof out->layout, "%s", matrix[0] ? matrix : room->layout);
    return 0;
fail:
    es_audiofile_free_channels(ch, channels);
    return -1;
}

void es_prepared_room_free(es_prepared_room *p)
{
    if (p)
        es_audiofile_free_channels(p->ch, p->channels);
}

es_ir *es_prepared_room_ir(const es_prepared_room *p, int inputs, char *err, size_t n)
{
    char why[256];
    int ins, outs;
    /* A manifest's NxM is the room's matrix, whatever the count would
     * suggest (a 1x4 B-format room is not true stereo), when the stream
     * has its inputs. */
    const int matrix = es_layout_matrix(p->layout, &ins, &outs) && ins == inputs;
    es_ir *ir = matrix ? es_ir_from_matrix((const float *const *)p->ch, p->channels, p->frames,
                                           p->rate, ins, outs, why, sizeof why)
                       : es_ir_from_channels((const float *const *)p->ch, p->channels, p->frames,
                                             p->rate, inputs, why, sizeof why);
    if (!ir)
        snprintf(err, n, "room '%s': %s", p->name, why);
    return ir;
}

/* The bytes a prepared room holds. */
static size_t prepared_bytes(const es_prepared_room *p)
{
    return (size_t)p->channels * (size_t)p->frames * sizeof(float);
}

void es_room_cache_release(es_room_cache *c, const es_prepared_room *p)
{
    if (!p || p != c->passing)
        return;
    es_prepared_room_free(c->passing);
    free(c->passing);
    c->passing = NULL;
}

const es_prepared_room *es_room_cache_get(es_room_cache *c, const es_room *room, double rate,
                                          char *err, size_t n)
{
    es_room_cache_release(c, c->passing);
    for (int i = 0; i < c->count; i++)
        if (!strcmp(c->items[i]->name, room->name) && c->items[i]->rate == rate)
            return c->items[i];
    if (c->count == c->capacity) {
        const int cap = c->capacity ? 2 * c->capacity : 8;
        es_prepared_room **grown = realloc(c->items, sizeof *grown * (size_t)cap);
        if (!grown) {
            snprintf(err, n, "out of memory for the room cache");
            return NULL;
        }
        c->items = grown;
        c->capacity = cap;
    }
    es_prepared_room *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory for the room cache");
        return NULL;
    }
    if (es_room_prepare(room, rate, p, err, n) != 0) {
        free(p);
        return NULL;
    }
    if (prepared_bytes(p) > (c->keep_max ? c->keep_max : ES_ROOM_CACHE_ROOM_MAX_BYTES))
        c->passing = p;
    else
        c->items[c->count++] = p;
    return p;
}

void es_room_cache_free(es_room_cache *c)
{
    es_room_cache_release(c, c->passing);
    for (int i = 0; i < c->count; i++) {
        es_prepared_room_free(c->items[i]);
        free(c->items[i]);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}
