/* earshot render's room: an IR file (by its channel count, or as
 * --layout's matrix), a room of the library prepared as playing prepares
 * it, or the filters of a SOFA room for a head at --head; at the input's
 * rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/args.h"
#include "irfile.h"
#include "library.h"
#include "render_room.h"
#include "room_loader.h"
#include "sofa.h"

/* --head YAW[,PITCH]: 0, or -1 with a message. */
static int parse_head(const char *text, float *yaw, float *pitch, char *err, size_t n)
{
    double v[2] = {0, 0};
    const char *at = text;
    for (int k = 0; k < 2; k++) {
        char *end;
        v[k] = strtod(at, &end);
        if (end == at || !isfinite(v[k]) || (*end && *end != ',') || (k == 1 && *end)) {
            snprintf(err, n, "--head '%s': give YAW or YAW,PITCH in degrees", text);
            return -1;
        }
        at = end + 1;
        if (!*end)
            break;
    }
    if (fabs(v[0]) > 360 || fabs(v[1]) > 90) {
        snprintf(err, n, "--head '%s': yaw -360 to 360, pitch -90 to 90", text);
        return -1;
    }
    *yaw = (float)v[0], *pitch = (float)v[1];
    return 0;
}

/* The SOFA file the room is, or "" (a WAV, a configuration, a room of
 * another kind). */
static void sofa_of(const es_render_room *r, char *path, size_t n)
{
    path[0] = 0;
    if (!r->name) {
        if (es_sofa_is_file(r->ir_path))
            snprintf(path, n, "%s", r->ir_path);
        return;
    }
    es_library lib;
    es_library_open(&lib, r->rooms_dir);
    const es_room *room = es_library_find(&lib, r->name);
    const char *file = room ? room->path : r->name;
    if (es_sofa_is_file(file))
        snprintf(path, n, "%s", file);
    es_library_close(&lib);
}

/* --head is for a SOFA room, --layout for any other: 0, or -1 and why. */
static int options_fit(const es_render_room *r, const char *sofa, char *err, size_t n)
{
    if (r->head && !sofa[0]) {
        snprintf(err, n, "--head is for a SOFA room; %s is not one", r->ir_path);
        return -1;
    }
    if (r->layout && sofa[0]) {
        snprintf(err, n, "--layout is for a WAV's channels; %s is a SOFA set, its layout its own",
                 r->ir_path);
        return -1;
    }
    return 0;
}

/* The set a head at --head hears, read at the input's rate; NULL and why. */
static es_ir *sofa_set(const es_render_room *r, const char *path, double rate, int channels,
                       char *err, size_t n)
{
    float yaw = 0, pitch = 0;
    if (r->head && parse_head(r->head, &yaw, &pitch, err, n) != 0)
        return NULL;
    es_sofa *set = es_sofa_load(path, rate, err, n);
    if (!set)
        return NULL;
    es_ir *ir = NULL;
    const int k = es_sofa_for_head(set, yaw, pitch);
    if (k < 0)
        snprintf(err, n, "%s: no measurement in the set", path);
    else if (set->inputs != channels)
        snprintf(err, n, "%s: its sets have %d source%s; the input has %d channel%s", path,
                 set->inputs, set->inputs == 1 ? "" : "s", channels, channels == 1 ? "" : "s");
    else {
        ir = set->sets[k];
        set->sets[k] = NULL;
        if (set->file_rate != set->rate)
            es_error("note: %s is %g Hz, resampled to %g Hz to match the input", path,
                     set->file_rate, set->rate);
        es_error("note: %s: SOFA %s, set %d of %d (azimuth %.1f, elevation %.1f) for yaw "
                 "%g, pitch %g", path, set->convention, k + 1, set->count, set->pose[k].azimuth,
                 set->pose[k].elevation, yaw, pitch);
    }
    es_sofa_free(set);
    return ir;
}

/* A room of the library, prepared as playing prepares it (what it says
 * of the preparation said too); NULL and why. */
static es_ir *library_room(const es_render_room *r, const es_audio_info *info, char *err,
                           size_t n)
{
    es_room_loader rooms;
    char note[300];
    double loud_db;
    es_room_loader_open(&rooms, r->rooms_dir);
    es_ir *ir = es_room_loader_get(&rooms, r->name, info->sample_rate, info->channels,
                                   ES_FILE_RAW, &loud_db, note, sizeof note, err, n);
    es_room_loader_close(&rooms);
    if (ir && note[0])
        es_error("%s", note);
    return ir;
}

/* --ir FILE's channels as --layout's inputs x outputs matrix; NULL and
 * why. */
static es_ir *layout_matrix(const es_render_room *r, const char *in_path,
                            const es_audio_info *info, es_ir_load_info *irinfo, char *err,
                            size_t n)
{
    int ins, outs;
    if (!es_layout_matrix(r->layout, &ins, &outs)) {
        snprintf(err, n, "--layout '%s': give inputs x outputs, as 1x4", r->layout);
        return NULL;
    }
    if (ins != info->channels) {
        snprintf(err, n, "--layout %s takes %d input channel%s; %s has %d", r->layout, ins,
                 ins == 1 ? "" : "s", in_path, info->channels);
        return NULL;
    }
    return es_ir_load_matrix(r->ir_path, info->sample_rate, ins, outs, irinfo, err, n);
}

/* What reading an IR file changed or guessed: its rate, and a layout
 * taken from its channel count alone. */
static void say_file_notes(const es_render_room *r, const char *in_path,
                           const es_audio_info *info, const es_ir_load_info *irinfo,
                           const es_ir *ir, int sofa)
{
    if (irinfo->resampled)
        es_error("note: %s is %g Hz, resampled to %g Hz to match %s (%d -> %d frames)",
                 r->ir_path, irinfo->file_rate, info->sample_rate, in_path,
                 irinfo->file_frames, ir->length);
    char layout[160];
    if (!r->name && !sofa && !r->layout && !es_ir_file_is_config(r->ir_path) &&
        es_ir_layout_note(irinfo->file_channels, info->channels, layout, sizeof layout))
        es_error("note: %s: %s", r->ir_path, layout);
}

es_ir *es_render_room_load(const es_render_room *r, const char *in_path,
                           const es_audio_info *info, char *err, size_t n)
{
    char sofa[1100];
    sofa_of(r, sofa, sizeof sofa);
    if (options_fit(r, sofa, err, n) != 0)
        return NULL;
    es_ir_load_info irinfo = {0};
    es_ir *ir = sofa[0]     ? sofa_set(r, sofa, info->sample_rate, info->channels, err, n)
              : r->name   ? library_room(r, info, err, n)
              : r->layout ? layout_matrix(r, in_path, info, &irinfo, err, n)
                          : es_ir_load(r->ir_path, info->sample_rate, info->channels, &irinfo,
                                       err, n);
    if (ir)
        say_file_notes(r, in_path, info, &irinfo, ir, sofa[0] != 0);
    return ir;
}
