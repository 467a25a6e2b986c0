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

/* A SOFA room: every set resident in one engine of filter sets, starting
 * on the set the head held when the change was asked points at (the
 * tracker's next orientation picks from there), and each set's pose in
 * the result for it. A swap is primed through that set: what the past
 * rings is what the head heard had the room always played. (A head that
 * turns between the asking and the swap plays the new set at once; the
 * ringing stays the first set's for the room's length.) */
es_prep_result *es_prep_build_sets(const es_prep_request *q, es_prep_result *r, const char *path,
                                  es_file_level level, long long started)
{
    const long long room_from = es_now_ns();
    es_sofa *set = es_sofa_load(path, q->rate, r->err, sizeof r->err);
    r->room_ms = es_prep_ms_since(room_from);
    if (!set)
        return r;
    r->room_loaded = 1;
    if (set->inputs != r->inputs) {
        snprintf(r->err, sizeof r->err, "its sets have %d sources; the stream plays from %d "
                 "input%s", set->inputs, r->inputs, r->inputs == 1 ? "" : "s");
        es_sofa_free(set);
        return r;
    }
    for (int k = 0; q->headphone && k < set->count; k++)
        if (!(set->sets[k] = es_prep_with_headphone(q, set->sets[k], r))) {
            es_sofa_free(set);
            return r;
        }
    if (q->headphone)
        set->taps = set->sets[0]->length;
    /* Levelled as every room is (room_level.h), one gain for all its sets. */
    char gain[96], why[128];
    double gain_db;
    if (es_sofa_level_db(set, &gain_db, why, sizeof why) != 0) {
        snprintf(r->err, sizeof r->err, "%.600s: %s", q->spec.room, why);
        es_sofa_free(set);
        return r;
    }
    if (level == ES_FILE_LEVELLED) {
        es_sofa_scale_db(set, gain_db);
        snprintf(gain, sizeof gain, "gain %+.1f dB", gain_db);
    } else {
        r->loud_db = -gain_db;
        snprintf(gain, sizeof gain, "as the file has it (raw: %+.1f dB against a levelled room)",
                 -gain_db);
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->spec.block,
                         .inputs = r->inputs, .outputs = set->outputs};
    r->poses = malloc((size_t)set->count * sizeof *r->poses);
    if (!r->poses) {
        snprintf(r->err, sizeof r->err, "out of memory");
        es_sofa_free(set);
        return r;
    }
    memcpy(r->poses, set->pose, (size_t)set->count * sizeof *r->poses);
    r->pose_count = set->count;
    r->pose_varies = set->varies;
    snprintf(r->note, sizeof r->note, "%.120s: SOFA %.40s, %d %s, %d taps, %s", q->spec.room,
             set->convention, set->count, es_sofa_varies_words(set->varies), set->taps, gain);
    const long long engine_from = es_now_ns();
    es_engine *e = es_engine_create_sets(q->spec.engine, &r->fmt, (const es_ir *const *)set->sets,
                                         set->count, &q->spec.options, r->err, sizeof r->err);
    r->engine_ms = es_prep_ms_since(engine_from);
    const int found = es_sofa_for_head(set, q->head_yaw, q->head_pitch, q->head_roll);
    const int first = found > 0 ? found : 0;
    if (e)
        es_engine_select_set(e, first); /* unheard yet: it starts there, no crossfade */
    if (e && q->prime && es_prep_fits_stream(q, r, e))
        es_prep_plan_priming(q, set->sets[first], r);
    const int length = set->taps;
    es_sofa_free(set);
    if (e)
        es_prep_place(q, r, e, length);
    r->took_ms = es_prep_ms_since(started);
    return r;
}

