#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/suggest.h"
#include "irfile.h"
#include "jconvolver.h"
#include "room_level.h"
#include "room_loader.h"

#define DEFAULT_ROOM "concert-hall"

void es_room_loader_open(es_room_loader *l, const char *extra)
{
    /* Every room whole and laid out by its channels until the caller asks
     * for a share or a layout: never what the memory held before. */
    memset(l, 0, sizeof *l);
    es_library_open(&l->lib, extra);
}

void es_room_loader_close(es_room_loader *l)
{
    es_room_cache_free(&l->cache);
    es_library_close(&l->lib);
}

void es_room_loader_replace(es_room_loader *l, es_library *fresh)
{
    es_room_cache *c = &l->cache;
    int kept = 0;
    for (int i = 0; i < c->count; i++) {
        const es_room *was = es_library_find(&l->lib, c->items[i]->name);
        const es_room *now = es_library_find(fresh, c->items[i]->name);
        if (was && now && es_room_same(was, now)) {
            c->items[kept++] = c->items[i];
        } else {
            es_prepared_room_free(c->items[i]);
            free(c->items[i]);
        }
    }
    c->count = kept;
    es_library_close(&l->lib);
    l->lib = *fresh;
    memset(fresh, 0, sizeof *fresh);
}

const char *es_room_loader_default(const es_room_loader *l)
{
    return es_library_find(&l->lib, DEFAULT_ROOM) ? DEFAULT_ROOM : NULL;
}

static es_ir *load(es_room_loader *l, const char *what, double rate, int inputs,
                   es_file_level level, double *loud_db, char *note, size_t note_n, char *err,
                   size_t n);

int es_room_loader_inputs(es_room_loader *l, const char *what)
{
    const es_room *room = es_library_find(&l->lib, what);
    int ins = 1, outs;
    if (room && es_layout_matrix(room->layout, &ins, &outs))
        return ins;
    if (room)
        return !strcmp(room->layout, "true-stereo") ? 2 : 1;
    if (es_ir_file_is_config(what) && es_jconvolver_sides(what, &ins, &outs) == 0)
        return ins;
    return l->layout_inputs > 0 ? l->layout_inputs : 1;
}

/* A library room's names from its manifest (an import keeps a
 * configuration's), shifted to the share of outputs: 1 when it names one. */
static int manifest_port_names(const es_room_loader *l, const es_room *room,
                               es_port_names *names)
{
    const int from = l->outputs ? l->first_output : 0;
    char outs[ES_JCONVOLVER_SIDE][ES_JCONVOLVER_NAME];
    es_jconvolver_names_split(room->input_names ? room->input_names : "", names->input,
                              ES_JCONVOLVER_SIDE);
    es_jconvolver_names_split(room->output_names ? room->output_names : "", outs,
                              ES_JCONVOLVER_SIDE);
    for (int o = from; o < ES_JCONVOLVER_SIDE; o++)
        memcpy(names->output[o - from], outs[o], ES_JCONVOLVER_NAME);
    return names->input[0][0] || names->output[0][0];
}

int es_room_loader_port_names(es_room_loader *l, const char *what, es_port_names *names)
{
    memset(names, 0, sizeof *names);
    const es_room *room = es_library_find(&l->lib, what);
    if (room && ((room->input_names && room->input_names[0]) ||
                 (room->output_names && room->output_names[0])))
        return manifest_port_names(l, room, names);
    const char *path = room ? room->path : what;
    es_jconvolver_room *conf = malloc(sizeof *conf);
    if (!conf || !es_ir_file_is_config(path) || es_jconvolver_names(path, conf) != 0) {
        free(conf);
        return 0;
    }
    int named = 0;
    for (int i = 0; i < conf->inputs; i++) {
        snprintf(names->input[i], sizeof names->input[i], "%s", conf->input_name[i]);
        named |= conf->input_name[i][0] != 0;
    }
    /* A share of the outputs (play --outputs) plays them from its first. */
    const int from = l->outputs ? l->first_output : 0;
    for (int o = from; o < conf->outputs && o - from < ES_JCONVOLVER_SIDE; o++) {
        snprintf(names->output[o - from], sizeof names->output[o - from], "%s",
                 conf->output_name[o]);
        named |= conf->output_name[o][0] != 0;
    }
    free(conf);
    return named;
}

es_ir *es_room_loader_get(es_room_loader *l, const char *what, double rate, int inputs,
                          es_file_level level, double *loud_db, char *note, size_t note_n,
                          char *err, size_t n)
{
    es_ir *ir = load(l, what, rate, inputs, level, loud_db, note, note_n, err, n);
    if (!ir || l->outputs == 0)
        return ir;
    char why[200];
    if (!(ir = es_ir_outputs(ir, l->first_output, l->outputs, why, sizeof why)))
        snprintf(err, n, "%.600s: %s", what, why);
    return ir;
}

/* The file's name without its folders, for the lines that name a room. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static es_ir *load(es_room_loader *l, const char *what, double rate, int inputs,
                   es_file_level level, double *loud_db, char *note, size_t note_n, char *err,
                   size_t n)
{
    note[0] = 0;
    *loud_db = 0;
    const es_room *room = es_library_find(&l->lib, what);
    if (room) {
        const es_prepared_room *p = es_room_cache_get(&l->cache, room, rate, err, n);
        if (!p)
            return NULL;
        char layout[160] = "";
        int ins, outs;
        if (es_layout_matrix(p->layout, &ins, &outs) && ins == inputs)
            snprintf(layout, sizeof layout, "a %d x %d matrix (its layout)", ins, outs);
        else
            es_ir_layout_note(p->channels, inputs, layout, sizeof layout);
        *loud_db = room->gain_db;
        snprintf(note, note_n, "room %s: %.2f s, gain %+.1f dB%s%s%s", room->name,
                 p->frames / rate, p->gain_db, p->file_rate != rate ? " (resampled)" : "",
                 layout[0] ? "; " : "", layout);
        es_ir *ir = es_prepared_room_ir(p, inputs, err, n);
        es_room_cache_release(&l->cache, p); /* a large one goes before the engine comes */
        return ir;
    }
    struct stat st;
    if (stat(what, &st) != 0) {
        es_suggestion near = {0};
        for (int i = 0; i < l->lib.count; i++)
            es_suggest_consider(&near, what, l->lib.rooms[i].name);
        char mean[160];
        snprintf(err, n, "no room or file named '%s'%s (earshot rooms lists the rooms)", what,
                 es_suggest_text(&near, "", mean, sizeof mean));
        return NULL;
    }
    es_ir_load_info info;
    const int matrix = l->layout_inputs > 0 && !es_ir_file_is_config(what);
    if (matrix && inputs != l->layout_inputs) {
        snprintf(err, n, "--layout %dx%d takes %d input channel%s; the stream has %d",
                 l->layout_inputs, l->layout_outputs, l->layout_inputs,
                 l->layout_inputs == 1 ? "" : "s", inputs);
        return NULL;
    }
    es_ir *ir = matrix ? es_ir_load_matrix(what, rate, l->layout_inputs, l->layout_outputs, &info,
                                           err, n)
                       : es_ir_load(what, rate, inputs, &info, err, n);
    if (!ir)
        return NULL;
    char layout[160] = "", gain[96], why[128];
    double gain_db;
    if (es_ir_level_db(ir, &gain_db, why, sizeof why) != 0) {
        snprintf(err, n, "%.600s: %s", what, why);
        es_ir_destroy(ir);
        return NULL;
    }
    if (level == ES_FILE_LEVELLED) {
        es_ir_scale_db(ir, gain_db);
        snprintf(gain, sizeof gain, "gain %+.1f dB (levelled as the library's rooms are)",
                 gain_db);
    } else {
        *loud_db = -gain_db;
        snprintf(gain, sizeof gain, "as the file has it (raw: %+.1f dB against a levelled room)",
                 -gain_db);
    }
    if (es_ir_file_is_config(what))
        snprintf(layout, sizeof layout, "a %d x %d jconvolver matrix", ir->inputs, ir->outputs);
    else if (matrix)
        snprintf(layout, sizeof layout, "a %d x %d matrix (--layout)", ir->inputs, ir->outputs);
    else
        es_ir_layout_note(info.file_channels, inputs, layout, sizeof layout);
    snprintf(note, note_n, "room %.200s: %.2f s, %s%s%s%s", base_name(what), ir->length / rate,
             gain, info.resampled ? " (resampled)" : "", layout[0] ? "; " : "", layout);
    return ir;
}
