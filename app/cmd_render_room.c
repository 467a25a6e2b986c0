/* earshot render's room: an IR file (by its channel count, or as
 * --layout's matrix), a room of the library prepared as playing prepares
 * it, or the filters of a SOFA room for a head at --head; at the input's
 * rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/args.h"
#include "field_layout.h"
#include "irfile.h"
#include "library.h"
#include "render_room.h"
#include "room_loader.h"
#include "sofa.h"

int es_render_head_parse(const char *text, float angle[3], char *err, size_t n)
{
    static const double limit[3] = {360, 90, 180};
    const char *at = text;
    for (int k = 0; k < 3; k++) {
        char *end;
        const double v = strtod(at, &end);
        if (end == at || !isfinite(v) || (*end && *end != ',') || (k == 2 && *end)) {
            snprintf(err, n, "--head '%s': give YAW, YAW,PITCH or YAW,PITCH,ROLL in degrees",
                     text);
            return -1;
        }
        if (fabs(v) > limit[k]) {
            snprintf(err, n, "--head '%s': yaw -360 to 360, pitch -90 to 90, roll -180 to 180",
                     text);
            return -1;
        }
        angle[k] = (float)v;
        at = end + 1;
        if (!*end)
            break;
    }
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
    if (r->layout && sofa[0] && !es_speaker_layout_channels(r->layout)) {
        snprintf(err, n, "--layout '%s': a SOFA set of loudspeakers takes a loudspeaker layout "
                 "(%s)", r->layout, es_speaker_layout_names());
        return -1;
    }
    if (r->layout && !sofa[0] && es_speaker_layout_channels(r->layout)) {
        snprintf(err, n, "--layout %s is for a SOFA set of loudspeakers (MultiSpeakerBRIR); %s is "
                 "not one", r->layout, r->ir_path);
        return -1;
    }
    return 0;
}

/* What the render says of the filter it took. */
static void say_blend(const char *path, const es_sofa *set, const es_sofa_blend *b,
                      const float angle[3], float azimuth, float elevation)
{
    char parts[200] = "";
    size_t used = 0;
    for (int c = 0; c < b->count && used < sizeof parts; c++)
        used += (size_t)snprintf(parts + used, sizeof parts - used, "%sset %d (%.1f, %.1f) x %.3f",
                                 c ? ", " : "", b->index[c] + 1, set->pose[b->index[c]].azimuth,
                                 set->pose[b->index[c]].elevation, b->weight[c]);
    if (b->count == 1)
        es_error("note: %s: SOFA %s, set %d of %d (azimuth %.1f, elevation %.1f) for yaw %g, "
                 "pitch %g, roll %g", path, set->convention, b->index[0] + 1, set->count,
                 set->pose[b->index[0]].azimuth, set->pose[b->index[0]].elevation, angle[0],
                 angle[1], angle[2]);
    else
        es_error("note: %s: SOFA %s, azimuth %.2f, elevation %.2f for yaw %g, pitch %g, roll "
                 "%g: %s", path, set->convention, azimuth + 0.0, elevation + 0.0, angle[0], angle[1],
                 angle[2], parts);
}

/* The filter a head at --head hears (the nearest set, or --interp's
 * blend), read at the input's rate; NULL and why. */
static es_ir *sofa_set(const es_render_room *r, const char *path, double rate, int channels,
                       es_field_layout *field, char *err, size_t n)
{
    float angle[3] = {0, 0, 0}, azimuth, elevation;
    if (r->head && es_render_head_parse(r->head, angle, err, n) != 0)
        return NULL;
    es_sofa *set = es_sofa_load(path, rate, err, n);
    if (!set)
        return NULL;
    if (set->field_order > 0 && set->inputs != channels) {
        snprintf(err, n, "%s: an Ambisonic room of %d source%s; the input has %d channel%s",
                 path, set->inputs, set->inputs == 1 ? "" : "s", channels,
                 channels == 1 ? "" : "s");
        es_sofa_free(set);
        return NULL;
    }
    if (set->field_order > 0) { /* an AmbisonicsDRIR: its first measurement, turned later */
        *field = (es_field_layout){set->inputs, set->field_order, set->field_norm};
        es_ir *ir = set->sets[0];
        set->sets[0] = NULL;
        es_sofa_free(set);
        return ir;
    }
    char speakers[600];
    const int wanted = r->layout ? es_speaker_layout_channels(r->layout) : channels;
    if (wanted != channels)
        snprintf(err, n, "--layout %s takes %d channels; the input has %d", r->layout, wanted,
                 channels);
    if (wanted != channels ||
        (r->layout && es_sofa_speakers(set, r->layout, speakers, sizeof speakers, err, n) != 0)) {
        es_sofa_free(set);
        return NULL;
    }
    if (r->layout)
        es_error("note: %s: %s", path, speakers);
    es_ir *ir = NULL, *tail = NULL;
    es_sofa_blend b;
    char split[160] = "";
    int at = 0;
    es_sofa_split_at(set, r->split_ms, &at, split, sizeof split);
    if (at > 0 && !(tail = es_sofa_split(set, at, err, n))) {
        es_sofa_free(set);
        return NULL;
    }
    es_sofa_head_direction(set, angle[0], angle[1], angle[2], &azimuth, &elevation);
    if (es_sofa_blend_for(set, azimuth, elevation, (es_interp)r->interp, &b) != 0)
        snprintf(err, n, "%s: no measurement in the set", path);
    else if (set->inputs != channels)
        snprintf(err, n, "%s: its sets have %d source%s; the input has %d channel%s%s", path,
                 set->inputs, set->inputs == 1 ? "" : "s", channels, channels == 1 ? "" : "s",
                 set->emitter && !r->layout ? " (a file laid out for loudspeakers: give "
                                              "--layout 5.1, 7.1.4, ...)" : "");
    else if ((ir = b.count > 1 ? es_sofa_blend_ir(set, &b, err, n) : set->sets[b.index[0]])) {
        if (b.count == 1)
            set->sets[b.index[0]] = NULL; /* taken as it is */
        if (set->file_rate != set->rate)
            es_error("note: %s is %g Hz, resampled to %g Hz to match the input", path,
                     set->file_rate, set->rate);
        say_blend(path, set, &b, angle, azimuth, elevation);
    }
    if (ir && tail) { /* the head heard with the tail of the set ahead, as playing joins them */
        es_ir *whole = es_sofa_join(ir, tail, at, err, n);
        es_ir_destroy(ir);
        ir = whole;
    }
    if (ir && split[0])
        es_error("note: %s: %s", path, split);
    es_ir_destroy(tail);
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

int es_render_room_is_sofa(const es_render_room *r)
{
    char sofa[1100];
    sofa_of(r, sofa, sizeof sofa);
    return sofa[0] != 0;
}

es_ir *es_render_room_load(const es_render_room *r, const char *in_path,
                           const es_audio_info *info, es_field_layout *sofa_field, char *err,
                           size_t n)
{
    sofa_field->order = 0;
    char sofa[1100];
    sofa_of(r, sofa, sizeof sofa);
    if (options_fit(r, sofa, err, n) != 0)
        return NULL;
    es_ir_load_info irinfo = {0};
    es_ir *ir = sofa[0]     ? sofa_set(r, sofa, info->sample_rate, info->channels, sofa_field,
                                       err, n)
              : r->name   ? library_room(r, info, err, n)
              : r->layout ? layout_matrix(r, in_path, info, &irinfo, err, n)
                          : es_ir_load(r->ir_path, info->sample_rate, info->channels, &irinfo,
                                       err, n);
    if (ir)
        say_file_notes(r, in_path, info, &irinfo, ir, sofa[0] != 0);
    return ir;
}
