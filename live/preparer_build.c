/* The preparer's builds, on its thread (preparer.c): a request's stream
 * made from its play spec. The source opened when it is new, the room
 * loaded (a SOFA set through preparer_sets.c), the headphone filter
 * after it, the engine built; then the engine alone when it fits the
 * stream as it plays (a crossfade, primed on what the stream heard), else
 * a new processor around it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "preparer_private.h"
#include "room_level.h"

/* Opens the request's source when it differs from what plays (always for
 * the first stream): its channels in r->inputs, its reader in r->file. */
static int open_source(es_preparer *p, const es_prep_request *q, es_prep_result *r)
{
    r->inputs = q->now.inputs;
    /* The microphone opens as many channels as asked, or as the room has
     * inputs: a room of other inputs takes a new stream. */
    const int mic = q->spec.source == ES_SOURCE_MIC;
    const int mic_inputs = q->mic_inputs > 0 ? q->mic_inputs
                                             : es_room_loader_inputs(p->rooms, q->spec.room);
    if (q->now.exists && q->spec.source == q->now.spec.source) {
        if (mic)
            r->inputs = mic_inputs;
        return 0;
    }
    r->inputs = mic ? mic_inputs : 1;
    if (q->spec.source == ES_SOURCE_MIC && !q->can_capture) {
        snprintf(r->err, sizeof r->err, "microphone: the null device has no microphone; play "
                 "a file or the test signal, or use a sound device");
        return -1;
    }
    if (q->spec.source != ES_SOURCE_FILE)
        return 0;
    if (!q->file) {
        snprintf(r->err, sizeof r->err, "file: no file to play (start with --input FILE)");
        return -1;
    }
    r->file = es_file_source_open(q->file, q->rate, &r->inputs, r->err, sizeof r->err);
    return r->file ? 0 : -1;
}

/* A test hook: a build held up this many seconds, as by a file on a
 * network share that stopped answering (app/files: quit does not wait for
 * it). */
static void test_stall(void)
{
    const char *stall = getenv("EARSHOT_TEST_PREPARE_STALL");
    if (stall && atof(stall) > 0) {
        const double t = atof(stall);
        const struct timespec held = {(time_t)t, (long)((t - floor(t)) * 1e9)};
        nanosleep(&held, NULL);
    }
}

double es_prep_ms_since(long long from_ns)
{
    return 1e-6 * (double)(es_now_ns() - from_ns);
}

int es_prep_fits_stream(const es_prep_request *q, const es_prep_result *r, const es_engine *e)
{
    return q->now.exists && es_play_spec_cost(&q->now.spec, &q->spec) != ES_COST_REOPEN &&
           r->inputs == q->now.inputs && r->fmt.outputs == q->now.outputs &&
           es_engine_latency(e) <= q->now.latency;
}

void es_prep_place(const es_prep_request *q, es_prep_result *r, es_engine *e, int length)
{
    if (es_prep_fits_stream(q, r, e)) {
        r->engine = e;
        return;
    }
    /* A new stream: max_latency 0 lets the processor take the engine's. */
    es_processor_config pc = q->pc;
    pc.max_latency = 0;
    pc.history_frames = es_prep_history_frames(q->rate, r->inputs,
                                               length + es_engine_latency(e) - 1);
    r->proc = es_processor_create(&r->fmt, e, &pc, r->err, sizeof r->err);
}

es_prep_result *es_prep_build(es_preparer *p, const es_prep_request *q)
{
    es_prep_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    const long long started = es_now_ns();
    if (q->now.exists) /* the first stream is never held up */
        test_stall();
    r->req = *q;
    if (open_source(p, q, r) != 0)
        return r;
    const es_room *listed = es_library_find(&p->rooms->lib, q->spec.room);
    const char *sofa = listed ? listed->path : q->spec.room;
    if (es_sofa_is_file(sofa))
        return es_prep_build_sets(q, r, sofa, listed || !q->spec.raw ? ES_FILE_LEVELLED
                                                                      : ES_FILE_RAW,
                                  started);
    if (q->speakers) {
        snprintf(r->err, sizeof r->err, "--layout %s is for a SOFA set of loudspeakers "
                 "(MultiSpeakerBRIR); %.600s is not one", q->speakers, q->spec.room);
        return r;
    }
    const long long room_from = es_now_ns();
    es_ir *ir = es_room_loader_get(p->rooms, q->spec.room, q->rate, r->inputs,
                                   q->spec.raw ? ES_FILE_RAW : ES_FILE_LEVELLED, &r->loud_db,
                                   r->note, sizeof r->note, r->err, sizeof r->err);
    r->room_ms = es_prep_ms_since(room_from);
    if (!ir)
        return r;
    r->room_loaded = 1;
    if (q->spec.level_db != 0) /* a stimulus's level (play_spec.h) */
        es_ir_scale_db(ir, q->spec.level_db);
    es_field_layout field;
    if (es_prep_field_of(p, q, listed, ir, &field))
        return es_prep_build_field(q, r, ir, &field, started);
    if (q->headphone && !(ir = es_prep_with_headphone(q, ir, r)))
        return r;
    if (!q->now.exists)
        es_room_loader_port_names(p->rooms, q->spec.room, &r->ports);
    /* A room of one output on a stream of more plays on each (dual mono);
     * any other count of outputs takes a new stream (below). */
    if (q->now.exists && ir->outputs == 1 && q->now.outputs > 1 &&
        !(ir = es_ir_repeat_output(ir, q->now.outputs))) {
        snprintf(r->err, sizeof r->err, "%.600s: out of memory", q->spec.room);
        return r;
    }
    r->fmt = (es_format){.sample_rate = q->rate, .max_block = q->spec.block,
                         .inputs = r->inputs, .outputs = ir->outputs};
    char why[512];
    const long long engine_from = es_now_ns();
    es_engine *e = es_engine_create(q->spec.engine, &r->fmt, ir, &q->spec.options, why,
                                    sizeof why);
    r->engine_ms = es_prep_ms_since(engine_from);
    const int same_stream = e && es_prep_fits_stream(q, r, e);
    if (same_stream && q->prime)
        es_prep_plan_priming(q, ir, r);
    const int length = ir->length;
    /* The engine holds the filters its own way now: the matrix goes before
     * anything else is made (a 64 x 64 room's is as large as its filters). */
    es_ir_destroy(ir);
    if (!e) {
        snprintf(r->err, sizeof r->err, "%s", why);
        return r;
    }
    es_prep_place(q, r, e, length);
    r->took_ms = es_prep_ms_since(started);
    return r;
}
