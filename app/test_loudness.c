/* A listening test's loudness matching (test_loudness.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "core/args.h"
#include "audiofile.h"
#include "engine.h"
#include "loudness.h"
#include "render_room.h"
#include "room_level.h"
#include "test_loudness.h"

/* What is measured of the source: enough for speech or music to settle. */
#define MATCH_SECONDS 20.0
#define MATCH_BLOCK 1024

/* A room named by a file's path, or a library room's name. */
static es_render_room room_of(const char *room, const es_session_config *sc)
{
    struct stat st;
    if (stat(room, &st) == 0 && S_ISREG(st.st_mode))
        return (es_render_room){.ir_path = room, .rooms_dir = sc->rooms_dir};
    return (es_render_room){.ir_path = room, .name = room, .rooms_dir = sc->rooms_dir};
}

/* The source through `ir` on cpu-partitioned, for `frames`: its loudness. */
static int convolved_loudness(es_ir *ir, float **in, int channels, long frames, double rate,
                              double *lufs, char *err, size_t n)
{
    const es_format fmt = {.sample_rate = rate, .max_block = MATCH_BLOCK,
                           .inputs = channels, .outputs = ir->outputs};
    char why[512];
    es_engine *e = es_engine_create(es_engine_find("cpu-partitioned"), &fmt, ir,
                                    &(es_options){0}, why, sizeof why);
    if (!e) {
        snprintf(err, n, "%s", why);
        return -1;
    }
    /* Past the source's end, the room's tail: silence in, latency out. */
    const long total = frames + es_engine_latency(e);
    float **out = calloc((size_t)ir->outputs, sizeof *out);
    int ok = out != NULL;
    for (int o = 0; ok && o < ir->outputs; o++)
        ok = (out[o] = calloc((size_t)total + MATCH_BLOCK, sizeof(float))) != NULL;
    float *silence = calloc(MATCH_BLOCK, sizeof(float));
    const float *ins[64];
    float *outs[64];
    ok = ok && silence && channels <= 64 && ir->outputs <= 64;
    for (long at = 0; ok && at < total; at += MATCH_BLOCK) {
        for (int c = 0; c < channels; c++)
            ins[c] = at + MATCH_BLOCK <= frames ? in[c] + at : silence;
        for (int o = 0; o < ir->outputs; o++)
            outs[o] = out[o] + at;
        es_engine_process(e, ins, outs, MATCH_BLOCK);
    }
    if (ok) {
        const long lat = es_engine_latency(e);
        const float *heard[64];
        for (int o = 0; o < ir->outputs; o++)
            heard[o] = out[o] + lat;
        *lufs = es_loudness_lufs(heard, ir->outputs, frames, rate);
    } else {
        snprintf(err, n, "out of memory (or more than 64 channels)");
    }
    for (int o = 0; out && o < ir->outputs; o++)
        free(out[o]);
    free(out);
    free(silence);
    es_engine_destroy(e);
    return ok ? 0 : -1;
}

int es_test_match_loudness(const es_plan *plan, const es_session_config *sc, double *level_db,
                           char *err, size_t n)
{
    float **source = NULL;
    es_audio_info info;
    if (es_audiofile_load(plan->source, &source, &info, err, n) != 0)
        return -1;
    const long frames = info.frames < (long)(MATCH_SECONDS * info.sample_rate)
                            ? info.frames : (long)(MATCH_SECONDS * info.sample_rate);
    double lufs[ES_PLAN_STIMULI_MAX], quietest = INFINITY;
    int rc = 0;
    for (int k = 0; k < plan->stimuli && rc == 0; k++) {
        const es_plan_stimulus *st = &plan->stimulus[k];
        const es_render_room room = room_of(st->room, sc);
        es_field_layout field;
        char why[1024];
        es_ir *ir = es_render_room_load(&room, plan->source, &info, &field, why, sizeof why);
        double gain_db = 0;
        if (!ir) {
            snprintf(err, n, "stimulus %s: %s", st->name, why);
            rc = -1;
        } else if (field.order > 0) {
            snprintf(err, n, "stimulus %s: an Ambisonic room; loudness matching measures "
                     "rooms of one matrix (set the levels with level=DB instead)", st->name);
            rc = -1;
        } else if (es_ir_level_db(ir, &gain_db, why, sizeof why) != 0) {
            snprintf(err, n, "stimulus %s: %s", st->name, why);
            rc = -1;
        } else {
            es_ir_scale_db(ir, gain_db); /* as the session levels it */
            rc = convolved_loudness(ir, source, info.channels, frames, info.sample_rate,
                                    &lufs[k], err, n);
            if (rc == 0 && !isfinite(lufs[k])) {
                snprintf(err, n, "stimulus %s: the source through it is silent", st->name);
                rc = -1;
            }
        }
        es_ir_destroy(ir);
        if (rc == 0 && lufs[k] < quietest)
            quietest = lufs[k];
    }
    for (int k = 0; k < plan->stimuli && rc == 0; k++) {
        const double offset = quietest - lufs[k];
        level_db[k] = plan->stimulus[k].level_db + offset;
        es_error("test: loudness: %s %.1f LUFS, played %+.1f dB", plan->stimulus[k].name,
                 lufs[k], level_db[k]);
    }
    es_audiofile_free_channels(source, info.channels);
    return rc;
}
