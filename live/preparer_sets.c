/* The preparer's rooms of filter sets (SOFA) and the headphone filter
 * every room goes through: built off the interactive threads like the
 * rest (preparer.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "room_level.h"
#include "preparer_private.h"

/* The room followed by the headphone filter (takes ir); NULL and why in
 * r->err. */
es_ir *es_prep_with_headphone(const es_prep_request *q, es_ir *ir, es_prep_result *r)
{
    es_ir *both = es_headphone_apply(q->headphone, ir, r->err, sizeof r->err);
    es_ir_destroy(ir);
    return both;
}

/* The sets through the headphone filter and levelled as every room is
 * (room_level.h), one gain for all; what the gain is in `gain`. 0, or -1
 * and why in r->err. */
static int level_sets(const es_prep_request *q, es_prep_result *r, es_sofa *set,
                      es_file_level level, char *gain, size_t n)
{
    for (int k = 0; q->headphone && k < set->count; k++)
        if (!(set->sets[k] = es_prep_with_headphone(q, set->sets[k], r)))
            return -1;
    if (q->headphone)
        set->taps = set->sets[0]->length;
    char why[128];
    double gain_db;
    if (es_sofa_level_db(set, &gain_db, why, sizeof why) != 0) {
        snprintf(r->err, sizeof r->err, "%.600s: %s", q->spec.room, why);
        return -1;
    }
    if (level == ES_FILE_LEVELLED) {
        es_sofa_scale_db(set, gain_db);
        snprintf(gain, n, "gain %+.1f dB", gain_db);
    } else {
        r->loud_db = -gain_db;
        snprintf(gain, n, "as the file has it (raw: %+.1f dB against a levelled room)", -gain_db);
    }
    if (q->spec.level_db != 0) /* a stimulus's level (play_spec.h) */
        es_sofa_scale_db(set, q->spec.level_db);
    return 0;
}

/* Each set's pose into the result, for the head tracker: 0, or -1. */
static int keep_poses(es_prep_result *r, const es_sofa *set)
{
    r->poses = malloc((size_t)set->count * sizeof *r->poses);
    if (!r->poses) {
        snprintf(r->err, sizeof r->err, "out of memory");
        return -1;
    }
    memcpy(r->poses, set->pose, (size_t)set->count * sizeof *r->poses);
    r->pose_count = set->count;
    r->pose_varies = set->varies;
    return 0;
}

/* 1 when directions between the measured ones are blended as the room
 * plays: --interp linear and measurements to blend between. */
static int blends(const es_prep_request *q, const es_sofa *set)
{
    return q->interp == ES_INTERP_LINEAR && set->count > 1 &&
           (set->varies == ES_SOFA_SOURCE || set->varies == ES_SOFA_VIEW);
}

/* The engine that holds the heads: the engine asked for when it holds
 * sets, else the one of its kind that does; one that loads blends while
 * it plays when the room blends (cuda-partitioned does not yet: a GPU
 * engine's heads are then the CPU's, short as they are, and the tail the
 * GPU's). */
static const es_engine_class *heads_class(const es_prep_request *q, const es_sofa *set)
{
    const es_engine_class *k = es_engine_heads_class(q->spec.engine);
    return blends(q, set) && !k->load_set ? es_engine_find("cpu-partitioned") : k;
}

/* The engine over the sets: whole, on the engine asked for when it holds
 * sets; else (split at `at`, an engine that holds none, or blends) the
 * heads on the heads' engine and the tail on the one asked for, with two
 * sets more kept for blends (starting as the first set), which only a
 * split room lets a blender load (it watches the room's end). */
static es_engine *sets_engine(const es_prep_request *q, es_prep_result *r, const es_sofa *set,
                              const es_ir *tail, int at, int first)
{
    const es_engine_class *heads_k = heads_class(q, set);
    const int blending = blends(q, set);
    if (!tail && heads_k == q->spec.engine && !blending)
        return es_engine_create_sets(q->spec.engine, &r->fmt, (const es_ir *const *)set->sets,
                                     set->count, &q->spec.options, r->err, sizeof r->err);
    const int count = set->count + (blending ? 2 : 0);
    const es_ir **heads = malloc((size_t)count * sizeof *heads);
    if (!heads) {
        snprintf(r->err, sizeof r->err, "out of memory");
        return NULL;
    }
    for (int k = 0; k < count; k++)
        heads[k] = set->sets[k < set->count ? k : first];
    /* A heads' engine of another class takes its own partition (the
     * block's) and the GPUs asked for. */
    es_options heads_opt = q->spec.options;
    if (heads_k != q->spec.engine)
        heads_opt.partition = 0;
    if (!(heads_k->caps & ES_CAP_GPU)) /* the CPU's heads under a GPU's tail */
        heads_opt.gpu = (es_gpu_options){0}, heads_opt.gpu_pipelined = 0;
    es_engine *e = es_engine_create_split(heads_k, q->spec.engine, &r->fmt, heads, count,
                                          &heads_opt, tail, at, &q->spec.options, r->err,
                                          sizeof r->err);
    free(heads);
    if (e && blending) {
        r->blend_engine = e;
        r->blend_kept = set->count;
        r->blend_first = first;
    }
    return e;
}

/* The room of sets from a loaded, levelled set (which it frees): split
 * at --split, its engine made, started and primed on the set the head
 * points at. */
static void build_from(const es_prep_request *q, es_prep_result *r, es_sofa *set,
                       const char *gain)
{
    const int whole_taps = set->taps;
    char split[160] = "", heads_on[96] = "", interp[96] = "";
    int at = 0;
    es_sofa_split_at(set, q->split_ms, &at, split, sizeof split);
    es_ir *tail = NULL;
    if (at > 0 && !(tail = es_sofa_split(set, at, r->err, sizeof r->err))) {
        es_sofa_free(set);
        return;
    }
    const es_engine_class *heads_k = heads_class(q, set);
    if (heads_k != q->spec.engine)
        snprintf(heads_on, sizeof heads_on, ", the %s on %s", tail ? "heads" : "sets",
                 heads_k->name);
    if (blends(q, set))
        snprintf(interp, sizeof interp, ", blended between measurements");
    char speakers[64] = "";
    if (q->speakers)
        snprintf(speakers, sizeof speakers, ", the input as %s loudspeakers", q->speakers);
    snprintf(r->note, sizeof r->note, "%.100s: SOFA %.40s, %d %s, %d taps, %s%s%s%s%s%s",
             q->spec.room, set->convention, set->count, es_sofa_varies_words(set->varies),
             whole_taps, split, split[0] ? ", " : "", gain, heads_on, interp, speakers);
    const int found = es_sofa_for_head(set, q->head_yaw, q->head_pitch, q->head_roll);
    const int first = found > 0 ? found : 0;
    const long long engine_from = es_now_ns();
    es_engine *e = sets_engine(q, r, set, tail, at, first);
    r->engine_ms = es_prep_ms_since(engine_from);
    if (e)
        es_engine_select_set(e, first); /* unheard yet: it starts there, no crossfade */
    if (e && q->prime && es_prep_fits_stream(q, r, e)) {
        /* What the first set rings: its head with the tail. */
        es_ir *whole = es_sofa_join(set->sets[first], tail, at, r->prime_note,
                                    sizeof r->prime_note);
        if (whole)
            es_prep_plan_priming(q, whole, r);
        es_ir_destroy(whole);
    }
    es_ir_destroy(tail);
    if (r->blend_engine)
        r->blend_heads = set; /* the blender's, through the head tracker */
    else
        es_sofa_free(set);
    if (e)
        es_prep_place(q, r, e, whole_taps);
}

/* An AmbisonicsDRIR: its first measurement (the others are other places
 * in the room) played as a field room, levelled by its W as a library
 * field room is. Takes set. */
static es_prep_result *field_set(const es_prep_request *q, es_prep_result *r, es_sofa *set,
                                 es_file_level level, long long started)
{
    es_ir *room = set->sets[0];
    set->sets[0] = NULL;
    es_field_layout f = {.inputs = set->inputs, .order = set->field_order,
                         .norm = set->field_norm};
    const int measurements = set->count;
    es_sofa_free(set);
    char word[32], why[128];
    es_field_layout_word(&f, word, sizeof word);
    double gain_db;
    if (es_channels_level_db((const float *const *)room->taps, room->inputs * room->outputs,
                             room->length, room->sample_rate, word, &gain_db, why,
                             sizeof why) != 0) {
        snprintf(r->err, sizeof r->err, "%.600s: %s", q->spec.room, why);
        es_ir_destroy(room);
        return r;
    }
    if (level == ES_FILE_LEVELLED)
        es_ir_scale_db(room, gain_db);
    else
        r->loud_db = -gain_db;
    if (q->spec.level_db != 0) /* a stimulus's level (play_spec.h) */
        es_ir_scale_db(room, q->spec.level_db);
    snprintf(r->note, sizeof r->note, "%.200s: SOFA AmbisonicsDRIR, measurement 1 of %d, %s "
             "%+.1f dB", q->spec.room, measurements,
             level == ES_FILE_LEVELLED ? "gain" : "raw, against a levelled room", -gain_db *
             (level == ES_FILE_LEVELLED ? -1 : 1));
    return es_prep_build_field(q, r, room, &f, started);
}

/* A SOFA room: every set resident in one engine of filter sets (or, split
 * in time at --split, every set's head there and one tail on the engine
 * asked for: es_engine_create_split), starting on the set the head held
 * when the change was asked points at (the tracker's next orientation
 * picks from there), and each set's pose in the result for it. A swap is
 * primed through that set: what the past rings is what the head heard
 * had the room always played. (A head that turns between the asking and
 * the swap plays the new set at once; the ringing stays the first set's
 * for the room's length.) */
es_prep_result *es_prep_build_sets(const es_prep_request *q, es_prep_result *r, const char *path,
                                  es_file_level level, long long started)
{
    const long long room_from = es_now_ns();
    es_sofa *set = es_sofa_load(path, q->rate, r->err, sizeof r->err);
    r->room_ms = es_prep_ms_since(room_from);
    if (!set)
        return r;
    r->room_loaded = 1;
    if (set->field_order > 0 && q->field.kind != ES_DECODER_NONE)
        return field_set(q, r, set, level, started);
    char gain[96], speakers[600] = "";
    const int wanted = q->speakers ? es_speaker_layout_channels(q->speakers) : r->inputs;
    if (wanted != r->inputs)
        snprintf(r->err, sizeof r->err, "--layout %s takes %d channels; the input has %d",
                 q->speakers, wanted, r->inputs);
    if (wanted != r->inputs || (q->speakers && es_sofa_speakers(set, q->speakers, speakers,
                                                                sizeof speakers, r->err,
                                                                sizeof r->err))) {
        es_sofa_free(set);
        return r;
    }
    if (set->inputs != r->inputs)
        snprintf(r->err, sizeof r->err, "its sets have %d sources; the stream plays from %d "
                 "input%s%s", set->inputs, r->inputs, r->inputs == 1 ? "" : "s",
                 set->emitter && !q->speakers ? " (a file laid out for loudspeakers: give "
                                                "--layout 5.1, 7.1.4, ...)" : "");
    if (set->inputs != r->inputs || level_sets(q, r, set, level, gain, sizeof gain) != 0 ||
        keep_poses(r, set) != 0) {
        es_sofa_free(set);
        return r;
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->spec.block,
                         .inputs = r->inputs, .outputs = set->outputs};
    build_from(q, r, set, gain);
    r->took_ms = es_prep_ms_since(started);
    return r;
}
