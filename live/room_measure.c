/* Measuring a room on the session's stream (room_measure.h). */
#define _GNU_SOURCE /* localtime_r, pthread_setname_np */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/files.h"
#include "deconvolve.h"
#include "room_measure.h"

/* The recordings a measurement may hold: past this it is refused at the
 * start, not found out of memory half-way. */
#define RECORDINGS_MAX_BYTES (1536.0 * 1024 * 1024)
/* A sweep that lost frames (an xrun) is played again this many times
 * before the measurement gives up: a lost cycle is a hole in the
 * recording, and one now and then is the machine's, not the room's. */
#define PASS_TRIES 3

struct es_room_measure {
    es_measure_plan plan;
    es_room_measure_stream stream;
    char device[256];
    int receivers;             /* inputs less the reference */
    float *play;               /* es_sweep_total: everything one pass plays */
    size_t total;
    float **rec;               /* [pass * inputs + input], total frames each */
    int pass;                  /* the pass playing (or last played) */
    int tries;                 /* the times this pass was played */
    char note[256];            /* a line for the session to say, or "" */
    uint64_t xruns;            /* the device's count at the start */
    struct timespec started;
    es_measure_stage stage;
    pthread_t worker;
    int worker_started;
    atomic_int worker_done;
    es_measure_result result;
};

static uint64_t output_bits(const es_room_measure *m, int pass)
{
    uint64_t bits = 1ull << m->plan.outputs[pass];
    if (m->plan.reference_output >= 0)
        bits |= 1ull << m->plan.reference_output;
    return bits;
}

/* One line on what is wrong with the plan for this stream, or "". */
static void check_plan(const es_measure_plan *p, const es_room_measure_stream *st, char *err,
                       size_t n)
{
    err[0] = 0;
    char why[512];
    if (es_sweep_check(&p->sweep, why, sizeof why) != 0) {
        snprintf(err, n, "%s", why);
        return;
    }
    if (st->inputs < 1) {
        snprintf(err, n, "the stream has no live input to record the room with (play the "
                 "microphone)");
        return;
    }
    for (int k = 0; k < p->output_count; k++) {
        if (p->outputs[k] < 0 || p->outputs[k] >= st->outputs ||
            p->outputs[k] >= ES_EXCHANGE_OUTPUTS_MAX) {
            snprintf(err, n, "output %d: the stream has outputs 1 to %d", p->outputs[k] + 1,
                     st->outputs);
            return;
        }
        for (int j = 0; j < k; j++)
            if (p->outputs[j] == p->outputs[k]) {
                snprintf(err, n, "output %d is named twice", p->outputs[k] + 1);
                return;
            }
        if (p->outputs[k] == p->reference_output) {
            snprintf(err, n, "output %d is the reference's and swept too", p->outputs[k] + 1);
            return;
        }
    }
    if (p->reference_input >= st->inputs || p->reference_input < -1)
        snprintf(err, n, "reference input %d: the stream has inputs 1 to %d",
                 p->reference_input + 1, st->inputs);
    else if (p->reference_output >= st->outputs || p->reference_output < -1)
        snprintf(err, n, "reference output %d: the stream has outputs 1 to %d",
                 p->reference_output + 1, st->outputs);
    else if (p->reference_output >= 0 && p->reference_input < 0)
        snprintf(err, n, "a reference output needs the input it is wired to");
    else if (st->inputs - (p->reference_input >= 0) < 1)
        snprintf(err, n, "every input is the reference: none is left to hear the room");
    else if (st->inputs - (p->reference_input >= 0) > ES_MEASURE_CHANNELS_MAX)
        snprintf(err, n, "%d inputs: a room is measured with %d at most",
                 st->inputs - (p->reference_input >= 0), ES_MEASURE_CHANNELS_MAX);
    else if (p->name[0] && !es_room_name_valid(p->name))
        snprintf(err, n, "'%s' is not a room name (letters, digits, '-', '_' and '.', not "
                 "starting with '.')", p->name);
    else if ((double)es_sweep_total(&p->sweep) * st->inputs * p->output_count * sizeof(float) >
             RECORDINGS_MAX_BYTES)
        snprintf(err, n, "%d sweeps of %.0f s on %d inputs need %.0f MB of recording, over "
                 "the %.0f MB a measurement may hold: fewer repeats or a shorter sweep",
                 p->output_count, (double)es_sweep_total(&p->sweep) / p->sweep.rate,
                 st->inputs,
                 (double)es_sweep_total(&p->sweep) * st->inputs * p->output_count * 4 / 1e6,
                 RECORDINGS_MAX_BYTES / 1e6);
}

__attribute__((format(printf, 2, 3))) static void fail(es_room_measure *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    m->result.saved = 0;
    vsnprintf(m->result.line, sizeof m->result.line, fmt, ap);
    va_end(ap);
}

/* The input receiver r records: the inputs in order, the reference left out. */
static int receiver_input(const es_room_measure *m, int r)
{
    return r + (m->plan.reference_input >= 0 && m->plan.reference_input <= r);
}

/* ---- the analysis thread ---- */

/* The path's response: averaged, deconvolved, analysed; h for es_deconvolver_length. */
static int analyse_path(es_room_measure *m, es_deconvolver *d, int pass, int input, float *avg,
                        float *avg_ref, float *h, es_response *r)
{
    const es_sweep *s = &m->plan.sweep;
    const int inputs = m->stream.inputs, ref = m->plan.reference_input;
    const float *rec = m->rec[pass * inputs + input];
    es_sweep_average(s, rec, avg);
    if (ref >= 0)
        es_sweep_average(s, m->rec[pass * inputs + ref], avg_ref);
    if (es_deconvolve(d, avg, ref >= 0 ? avg_ref : NULL, h) != 0)
        return -1;
    es_response_recording(rec, m->total, r);
    return es_response_analyse(s, h, es_deconvolver_length(d), ref >= 0 ? 0 : m->stream.zero,
                               r) == 0
               ? 0
               : -2;
}

/* What the room was measured with, for its manifest's `source`. */
static void describe(es_room_measure *m, char *source, size_t n)
{
    const es_sweep *s = &m->plan.sweep;
    const es_measure_result *res = &m->result;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    double worst = INFINITY;
    for (int k = 0; k < res->sources * res->receivers; k++)
        worst = res->paths[k].pnr_db < worst ? res->paths[k].pnr_db : worst;
    char ref[64] = "time zero from the round trip";
    if (m->plan.reference_input >= 0)
        snprintf(ref, sizeof ref, "reference input %d", m->plan.reference_input + 1);
    snprintf(source, n, "measured by earshot %s (%s, %.0f Hz): sweep %.2f s %g-%g Hz at "
             "%.0f dBFS, %d repeat%s, %.1f s gap; %s; PNR %.1f dB; %d x %d", when, m->device,
             s->rate, (double)es_sweep_frames(s) / s->rate, s->f1, s->f2, s->level_db,
             s->repeats, s->repeats == 1 ? "" : "s", s->gap, ref, worst, res->sources,
             res->receivers);
}

/* Weighs the paths' verdicts: 0 when every one is worth keeping, else -1
 * with the result's line saying which path and what to do. */
static int weigh(es_room_measure *m)
{
    es_measure_result *res = &m->result;
    for (int v = ES_RESPONSE_CLIPPED; v <= ES_RESPONSE_QUIET; v++)
        for (int k = 0; k < res->sources * res->receivers; k++) {
            const es_response *r = &res->paths[k];
            if ((int)r->verdict != v)
                continue;
            char advice[512];
            es_response_advice(r, &m->plan.sweep, advice, sizeof advice);
            res->retry_level_db = es_response_retry_level(r, &m->plan.sweep);
            snprintf(res->line, sizeof res->line, "measure: output %d to input %d: %s; "
                     "nothing saved", m->plan.outputs[k / res->receivers] + 1,
                     1 + receiver_input(m, k % res->receivers), advice);
            return -1;
        }
    return 0;
}

/* Where a measured room goes when its library refuses it (a full disk, a
 * read-only folder): a library of its own in the cache folder, so that
 * the sweeps are never lost and the room plays with --rooms DIR. */
static void kept_dir(char *out, size_t n)
{
    if (es_xdg_path(out, n, "XDG_CACHE_HOME", ".cache", "earshot/measured") != 0)
        snprintf(out, n, "/tmp/earshot-measured-%ld", (long)getuid());
}

/* Puts the room into `dir`, or, when that fails, into kept_dir's library
 * with why in res->elsewhere. 0, or -1 with err when neither took it. */
static int put_room(es_measure_result *res, const char *dir, const es_room *room, float **ch,
                    int paths, int frames, double rate, char *err, size_t n)
{
    if (es_library_make_dir(dir, err, n) == 0 &&
        es_library_put_room(dir, room, ch, paths, frames, rate, res->path, sizeof res->path,
                            err, n) == 0)
        return 0;
    char kept[1024], why[512];
    snprintf(res->elsewhere, sizeof res->elsewhere, "%s", err);
    kept_dir(kept, sizeof kept);
    if (strcmp(kept, dir) != 0 && es_library_make_dir(kept, why, sizeof why) == 0 &&
        es_library_put_room(kept, room, ch, paths, frames, rate, res->path, sizeof res->path,
                            why, sizeof why) == 0)
        return 0;
    res->elsewhere[0] = 0;
    return -1;
}

/* The room from each path's response, into the library. */
static int save(es_room_measure *m, float **h, size_t hn)
{
    es_measure_result *res = &m->result;
    const size_t paths = (size_t)res->sources * (size_t)res->receivers;
    const size_t gap = es_sweep_period(&m->plan.sweep) - es_sweep_frames(&m->plan.sweep);
    /* As long as the longest path's decay above its noise (Lundeby). */
    size_t frames = (size_t)(0.010 * m->stream.rate);
    for (size_t k = 0; k < paths; k++)
        frames = res->paths[k].usable > frames ? res->paths[k].usable : frames;
    const size_t zero = res->referenced ? 0 : (size_t)res->zero;
    frames = frames < gap - zero ? frames : gap - zero; /* the full-noise part after time zero */
    float **ch = calloc(paths, sizeof *ch);
    int ok = ch != NULL;
    for (size_t k = 0; ok && k < paths; k++)
        if ((ch[k] = malloc(frames * sizeof **ch)))
            es_response_cut(h[k], hn, zero, frames, m->stream.rate, ch[k]);
        else
            ok = 0;
    char dir[1024], source[768], err[512];
    if (m->plan.dir[0])
        snprintf(dir, sizeof dir, "%s", m->plan.dir);
    else
        es_library_user_dir(dir, sizeof dir);
    es_room room = {.description = m->plan.description[0] ? m->plan.description
                                                           : "a room measured by sweep",
                    .licence = ""};
    if (m->plan.name[0]) {
        snprintf(room.name, sizeof room.name, "%s", m->plan.name);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(room.name, sizeof room.name, "measured-%Y%m%d-%H%M%S", &tm);
    }
    describe(m, source, sizeof source);
    room.source = source;
    const char *named = es_layout_for_channels(paths);
    if ((paths == 1 || (paths == 2 && res->sources == 1) || (paths == 4 && res->sources == 2)) &&
        named[0])
        snprintf(room.layout, sizeof room.layout, "%s", named);
    else
        snprintf(room.layout, sizeof room.layout, "%dx%d", res->sources, res->receivers);
    int rc = -1;
    if (!ok)
        snprintf(res->line, sizeof res->line, "measure: out of memory for the room; nothing "
                 "saved");
    else if (put_room(res, dir, &room, ch, (int)paths, (int)frames, m->stream.rate, err,
                      sizeof err) != 0)
        snprintf(res->line, sizeof res->line, "measure: %s; nothing saved", err);
    else {
        snprintf(res->name, sizeof res->name, "%s", room.name);
        res->frames = (int)frames;
        es_acoustics_measure(ch[0], (int)frames, m->stream.rate, &res->acoustics);
        rc = 0;
    }
    for (size_t k = 0; ch && k < paths; k++)
        free(ch[k]);
    free(ch);
    return rc;
}

/* The line a saved room is said with. */
static void say_saved(es_room_measure *m)
{
    es_measure_result *res = &m->result;
    const es_acoustics *a = &res->acoustics;
    double worst = INFINITY, order2 = NAN;
    for (int k = 0; k < res->sources * res->receivers; k++) {
        worst = res->paths[k].pnr_db < worst ? res->paths[k].pnr_db : worst;
        const double h2 = res->paths[k].harmonic_db[0];
        order2 = isnan(order2) || h2 > order2 ? h2 : order2;
    }
    char t30[160], c80[32], h2[48], zero[96];
    es_figure_text(t30, sizeof t30, "%.2f s", a->t30);
    if (a->why_t30)
        snprintf(t30, sizeof t30, "n/a (%s)", a->why_t30);
    es_figure_text(c80, sizeof c80, "%.1f dB", a->c80);
    if (isnan(order2))
        snprintf(h2, sizeof h2, "harmonics under the noise");
    else
        snprintf(h2, sizeof h2, "order 2 at %.1f dB", order2);
    if (res->referenced)
        snprintf(zero, sizeof zero, "time zero from the reference");
    else
        snprintf(zero, sizeof zero, "time zero the round trip's %d fr%s", res->zero,
                 m->stream.zero_known ? "" : " (not known: 0)");
    char again[48] = "";
    if (res->retries > 0)
        snprintf(again, sizeof again, " (%d sweep%s played again)", res->retries,
                 res->retries == 1 ? "" : "s");
    char kept[1100] = "";
    if (res->elsewhere[0]) { /* the library refused it: where it is instead */
        char dir[1024];
        es_path_dir(res->path, dir, sizeof dir);
        snprintf(kept, sizeof kept, "; not in the library (%.300s): kept in %.300s (play it "
                 "with --rooms %.300s, or earshot rooms add it)", res->elsewhere, res->path, dir);
    }
    snprintf(res->line, sizeof res->line, "measured room %s: %d x %d, %.2f s, PNR %.1f dB, "
             "T30 %s, C80 %s, %s; %s; in %.1f s%s%s", res->name, res->sources, res->receivers,
             res->frames / res->rate, worst, t30, c80, h2, zero, res->seconds, again, kept);
}

static void *work(void *arg)
{
    pthread_setname_np(pthread_self(), "es-measure"); /* a name it cannot take is no failure */
    es_room_measure *m = arg;
    es_measure_result *res = &m->result;
    char err[256];
    es_deconvolver *d = es_deconvolver_create(&m->plan.sweep, err, sizeof err);
    const int paths = res->sources * res->receivers;
    const size_t period = es_sweep_period(&m->plan.sweep);
    float *avg = malloc(period * sizeof *avg), *avg_ref = malloc(period * sizeof *avg_ref);
    float **h = calloc((size_t)paths, sizeof *h);
    int ok = d && avg && avg_ref && h;
    for (int k = 0; ok && k < paths; k++)
        ok = (h[k] = malloc(es_deconvolver_length(d) * sizeof **h)) != NULL;
    if (!ok)
        snprintf(res->line, sizeof res->line, "measure: %s; nothing saved",
                 d ? "out of memory" : err);
    /* A reference that clipped divides the room by a wrong sweep. */
    for (int pass = 0; ok && m->plan.reference_input >= 0 && pass < res->sources; pass++) {
        es_response ref;
        es_response_recording(m->rec[pass * m->stream.inputs + m->plan.reference_input],
                              m->total, &ref);
        if (ref.clipped > 0) {
            snprintf(res->line, sizeof res->line, "measure: the reference input %d clipped "
                     "(%ld frames at full scale) on output %d's sweep: turn it down or "
                     "measure at %.0f dBFS; nothing saved", m->plan.reference_input + 1,
                     ref.clipped, m->plan.outputs[pass] + 1, m->plan.sweep.level_db - 10);
            res->retry_level_db = m->plan.sweep.level_db - 10;
            ok = 0;
        }
    }
    for (int k = 0; ok && k < paths; k++) {
        const int pass = k / res->receivers, input = receiver_input(m, k % res->receivers);
        const int rc = analyse_path(m, d, pass, input, avg, avg_ref, h[k], &res->paths[k]);
        if (rc == -1) {
            snprintf(res->line, sizeof res->line, "measure: the reference input %d heard "
                     "nothing of output %d's sweep: wire that output straight to it; nothing "
                     "saved", m->plan.reference_input + 1, m->plan.outputs[pass] + 1);
            ok = 0;
        } else if (rc != 0) {
            snprintf(res->line, sizeof res->line, "measure: out of memory; nothing saved");
            ok = 0;
        }
    }
    if (ok && weigh(m) == 0 && save(m, h, es_deconvolver_length(d)) == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        res->seconds = (double)(now.tv_sec - m->started.tv_sec) +
                       1e-9 * (double)(now.tv_nsec - m->started.tv_nsec);
        res->saved = 1;
        say_saved(m);
    }
    for (int k = 0; h && k < paths; k++)
        free(h[k]);
    free(h);
    free(avg);
    free(avg_ref);
    es_deconvolver_destroy(d);
    atomic_store_explicit(&m->worker_done, 1, memory_order_release);
    return NULL;
}

/* ---- the sweeps, from the session's poll ---- */

static int start_pass(es_room_measure *m, char *err, size_t n)
{
    m->xruns = es_player_xruns(m->stream.player);
    return es_player_exchange_start(m->stream.player, m->play, m->total, output_bits(m, m->pass),
                                    m->stream.inputs, err, n);
}

es_room_measure *es_room_measure_start(const es_measure_plan *plan,
                                       const es_room_measure_stream *stream, char *err,
                                       size_t n)
{
    es_measure_plan p = *plan;
    p.sweep.rate = stream->rate;
    if (p.output_count == 0) {
        p.outputs[0] = 0;
        p.output_count = 1;
    }
    check_plan(&p, stream, err, n);
    if (err[0])
        return NULL;
    es_room_measure *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    m->plan = p;
    m->stream = *stream;
    snprintf(m->device, sizeof m->device, "%s", stream->device ? stream->device : "a device");
    m->stream.device = m->device;
    m->receivers = stream->inputs - (p.reference_input >= 0);
    m->total = es_sweep_total(&p.sweep);
    m->result = (es_measure_result){.sources = p.output_count, .receivers = m->receivers,
                                    .rate = stream->rate,
                                    .referenced = p.reference_input >= 0,
                                    .zero = (int)stream->zero, .retry_level_db = NAN};
    es_sweep_band(&p.sweep, &m->result.band_low, &m->result.band_high);
    m->play = malloc(m->total * sizeof *m->play);
    m->rec = calloc((size_t)(p.output_count * stream->inputs), sizeof *m->rec);
    int ok = m->play && m->rec;
    for (int k = 0; ok && k < p.output_count * stream->inputs; k++)
        ok = (m->rec[k] = malloc(m->total * sizeof **m->rec)) != NULL;
    if (!ok) {
        snprintf(err, n, "out of memory for %d sweeps' recordings", p.output_count);
        es_room_measure_free(m);
        return NULL;
    }
    es_sweep_fill_all(&p.sweep, m->play);
    clock_gettime(CLOCK_MONOTONIC, &m->started);
    m->tries = 1;
    if (start_pass(m, err, n) != 0) {
        es_room_measure_free(m);
        return NULL;
    }
    m->stage = ES_MEASURE_SWEEPING;
    return m;
}

es_measure_stage es_room_measure_poll(es_room_measure *m)
{
    if (m->stage == ES_MEASURE_ANALYSING &&
        atomic_load_explicit(&m->worker_done, memory_order_acquire)) {
        pthread_join(m->worker, NULL);
        m->worker_started = 0;
        m->stage = m->result.saved ? ES_MEASURE_SAVED : ES_MEASURE_FAILED;
    }
    if (m->stage != ES_MEASURE_SWEEPING)
        return m->stage;
    es_exchange *x = es_player_exchange(m->stream.player);
    const es_exchange_state st = es_exchange_state_now(x);
    if (st == ES_EXCHANGE_ABORTED) {
        es_exchange_finish(x);
        fail(m, "measure: the stream changed during sweep %d of %d (a new block, device or "
             "rate); nothing saved", m->pass + 1, m->plan.output_count);
        return m->stage = ES_MEASURE_FAILED;
    }
    if (st != ES_EXCHANGE_DONE)
        return m->stage;
    for (int c = 0; c < m->stream.inputs; c++)
        memcpy(m->rec[m->pass * m->stream.inputs + c], es_exchange_recording(x, c),
               m->total * sizeof **m->rec);
    es_exchange_finish(x);
    const uint64_t lost = es_player_xruns(m->stream.player) - m->xruns;
    char err[256];
    if (lost > 0 && m->tries < PASS_TRIES) {
        snprintf(m->note, sizeof m->note, "measure: sweep %d lost frames (%d over- or "
                 "underruns): played again", m->pass + 1, (int)lost);
        m->tries++;
        m->result.retries++;
        if (start_pass(m, err, sizeof err) != 0) {
            fail(m, "measure: %s; nothing saved", err);
            return m->stage = ES_MEASURE_FAILED;
        }
        return m->stage;
    }
    if (lost > 0) {
        fail(m, "measure: the device lost frames during sweep %d %d times in a row (%d over- "
             "or underruns the last time): nothing saved; is the machine or the device "
             "overloaded?", m->pass + 1, m->tries, (int)lost);
        return m->stage = ES_MEASURE_FAILED;
    }
    m->tries = 1;
    if (++m->pass < m->plan.output_count) {
        if (start_pass(m, err, sizeof err) != 0) {
            fail(m, "measure: %s; nothing saved", err);
            return m->stage = ES_MEASURE_FAILED;
        }
        return m->stage;
    }
    m->pass = m->plan.output_count - 1;
    if (pthread_create(&m->worker, NULL, work, m) != 0) {
        fail(m, "measure: no thread for the analysis; nothing saved");
        return m->stage = ES_MEASURE_FAILED;
    }
    m->worker_started = 1;
    return m->stage = ES_MEASURE_ANALYSING;
}

void es_room_measure_progress(const es_room_measure *m, int *pass, int *passes, double *share)
{
    *pass = m->pass + 1;
    *passes = m->plan.output_count;
    *share = m->stage == ES_MEASURE_SWEEPING
                 ? (double)es_exchange_position(es_player_exchange(m->stream.player)) /
                       (double)m->total
                 : 1;
}

const es_measure_result *es_room_measure_result(const es_room_measure *m)
{
    return &m->result;
}

const char *es_room_measure_take_note(es_room_measure *m, char *out, size_t n)
{
    if (!m->note[0])
        return NULL;
    snprintf(out, n, "%s", m->note);
    m->note[0] = 0;
    return out;
}

int es_room_measure_to_slot_b(const es_room_measure *m)
{
    return m->plan.to_slot_b;
}

void es_room_measure_free(es_room_measure *m)
{
    if (!m)
        return;
    if (m->stage == ES_MEASURE_SWEEPING && m->stream.player) {
        es_exchange *x = es_player_exchange(m->stream.player);
        es_exchange_abort(x);
        es_exchange_finish(x);
    }
    if (m->worker_started)
        pthread_join(m->worker, NULL);
    for (int k = 0; m->rec && k < m->plan.output_count * m->stream.inputs; k++)
        free(m->rec[k]);
    free(m->rec);
    free(m->play);
    free(m);
}
