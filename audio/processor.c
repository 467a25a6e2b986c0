/* The real-time processor (processor.h): its making, and what runs in the
 * audio callback, a list of stages (processor_stages.h) called in order;
 * between blocks, the commands the control side queued
 * (processor_control.c) reach the stage each is for. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include "core/clock.h"
#include "processor_private.h"

#define DEFAULT_CROSSFADE_MS 50.0

int es_processor_fits(const es_processor *p, const es_engine *e, const es_format *f, char *err,
                      size_t n)
{
    const es_format *want = &p->fmt;
    if (f->inputs != want->inputs || f->outputs != want->outputs) {
        snprintf(err, n, "%s was built for %d in, %d out; this stream has %d in, %d out",
                 e->klass->name, f->inputs, f->outputs, want->inputs, want->outputs);
        return 0;
    }
    if (f->sample_rate != want->sample_rate) {
        snprintf(err, n, "%s was built for %g Hz; this stream runs at %g Hz", e->klass->name,
                 f->sample_rate, want->sample_rate);
        return 0;
    }
    if (f->max_block < want->max_block) {
        snprintf(err, n, "%s was built for blocks of up to %d frames; this stream's are up "
                 "to %d", e->klass->name, f->max_block, want->max_block);
        return 0;
    }
    const int latency = es_engine_latency(e);
    if (latency > p->latency) {
        snprintf(err, n, "%s has %d frames of latency, more than the %d this stream "
                 "was opened with", e->klass->name, latency, p->latency);
        return 0;
    }
    return 1;
}

/* Every stage's levels head for `m`, ramped or at once. */
static ES_RT void set_levels(es_processor *p, const es_mix *m, int ramped)
{
    es_input_guard_level(&p->input, m->trim_db, ramped);
    es_mixer_level(&p->mixer, m, ramped);
    es_output_guard_level(&p->output, m);
}

/* The history's frames beyond the longest past a priming reads: what the
 * stream may hear between a swap's adoption and the preparer's copy of
 * that past (it looks every millisecond; the copy of a 64-input room's
 * takes tens). As long as a held engine waits for its ringing where that
 * costs little memory; no more than HISTORY_MARGIN_MAX_BYTES over all
 * inputs where it does (64 inputs: 0.34 s of the 2 s). A copy later than
 * the margin is refused by the history, and the swap plays unprimed and
 * says so. */
#define HISTORY_MARGIN_MAX_BYTES ((size_t)4 << 20)

static int history_margin(const es_format *fmt, int hold_max)
{
    const size_t frame = (size_t)fmt->inputs * sizeof(float);
    const size_t most = HISTORY_MARGIN_MAX_BYTES / frame;
    return (size_t)hold_max < most ? hold_max : (int)most;
}

/* The rings and the stages, made from the stream's format. */
static int make_stages(es_processor *p, char *err, size_t n)
{
    const es_format *fmt = &p->fmt;
    const double ms = p->cfg.crossfade_ms > 0 ? p->cfg.crossfade_ms : DEFAULT_CROSSFADE_MS;
    int fade_len = (int)(ms * 1e-3 * fmt->sample_rate);
    fade_len = fade_len < 1 ? 1 : fade_len;
    const int hold_max = (int)(ES_PRIME_WAIT_MS * 1e-3 * fmt->sample_rate);
    if (es_spsc_init(&p->commands, sizeof(command), COMMANDS) != 0 ||
        es_spsc_init(&p->retired, sizeof(es_engine *), RETIRED) != 0) {
        snprintf(err, n, "out of memory for the processor");
        return -1;
    }
    int e = es_input_guard_init(&p->input, fmt, p->cfg.history_frames,
                                history_margin(fmt, hold_max), err, n);
    if (e == 0)
        e = es_crossfade_init(&p->xfade, fmt, p->latency, fade_len, hold_max, p->input.history,
                              &p->retired, err, n);
    if (e == 0)
        e = es_mixer_init(&p->mixer, fmt, p->latency, fade_len, err, n); /* bypass: a crossfade */
    if (e == 0)
        e = es_output_guard_init(&p->output, fmt, p->cfg.offline, err, n);
    return e;
}

es_processor *es_processor_create(const es_format *fmt, es_engine *take_engine,
                                  const es_processor_config *cfg, char *err, size_t n)
{
    if (!es_mix_check(&cfg->mix, err, n)) {
        es_engine_destroy(take_engine);
        return NULL;
    }
    es_processor *p = calloc(1, sizeof *p);
    if (!p) {
        es_engine_destroy(take_engine);
        snprintf(err, n, "out of memory for the processor");
        return NULL;
    }
    p->fmt = *fmt;
    p->cfg = *cfg;
    p->latency = cfg->max_latency > es_engine_latency(take_engine) ? cfg->max_latency
                                                               : es_engine_latency(take_engine);
    es_sets_init(&p->sets, cfg->set_requests);
    if (make_stages(p, err, n) != 0) {
        es_engine_destroy(take_engine);
        es_processor_destroy(p);
        return NULL;
    }
    es_crossfade_load_first(&p->xfade, take_engine, cfg->ab);
    set_levels(p, &cfg->mix, 0);
    es_accounting_init(&p->acct, fmt, p->latency, cfg->offline, take_engine->klass->name,
                       es_crossfade_playing_ab(&p->xfade));
    return p;
}

void es_processor_destroy(es_processor *p)
{
    if (!p)
        return;
    command c;
    while (p->commands.items && es_spsc_pop(&p->commands, &c))
        if (c.kind == CMD_SWAP)
            es_engine_destroy(c.engine);
    if (p->retired.items)
        es_processor_collect(p);
    es_crossfade_free(&p->xfade);
    es_spsc_free(&p->commands);
    es_spsc_free(&p->retired);
    es_mixer_free(&p->mixer);
    es_output_guard_free(&p->output);
    es_input_guard_free(&p->input); /* last: the history outlives the slots */
    free(p);
}

void es_processor_watch(es_processor *p, const es_stall_probe *probe)
{
    atomic_store_explicit(&p->acct.watch, probe, memory_order_release);
}

int es_processor_latency(const es_processor *p)
{
    return p->latency;
}

const es_format *es_processor_format(const es_processor *p)
{
    return &p->fmt;
}

/* ---- audio side ---- */

/* Each command to the stage it is for. */
static ES_RT void take_swap(es_processor *p, const command *c)
{
    es_crossfade_start(&p->xfade, c->engine, &c->how, c->ticket);
}

static ES_RT void take_mix(es_processor *p, const command *c)
{
    set_levels(p, &c->mix, 1);
}

static ES_RT void take_mute(es_processor *p, const command *c)
{
    es_output_guard_mute(&p->output, c->panic ? ES_MUTE_PANIC : ES_MUTE_MUTED,
                         c->panic ? "panic" : "muted");
    if (!c->panic)
        return;
    /* The dry path and the history forget; the engines are built again. */
    es_mixer_forget(&p->mixer);
    es_input_guard_forget(&p->input);
}

static ES_RT void take_unmute(es_processor *p, const command *c)
{
    (void)c;
    es_output_guard_unmute(&p->output);
}

static ES_RT void take_hold(es_processor *p, const command *c)
{
    es_input_guard_hold(&p->input, c->hold, p->mixer.asked.trim_db);
}

static ES_RT void take_reset_stats(es_processor *p, const command *c)
{
    (void)c;
    es_accounting_reset(&p->acct);
}

static void (*const takes[CMD_KINDS])(es_processor *p, const command *c) = {
    [CMD_SWAP] = take_swap,
    [CMD_MIX] = take_mix,
    [CMD_RESET_STATS] = take_reset_stats,
    [CMD_MUTE] = take_mute,
    [CMD_UNMUTE] = take_unmute,
    [CMD_HOLD] = take_hold,
};

static ES_RT void apply_commands(es_processor *p)
{
    command c;
    while (es_spsc_peek(&p->commands, &c)) {
        /* One crossfade at a time: a swap, and what was queued after it,
         * wait their turn. */
        if (c.kind == CMD_SWAP && !es_crossfade_steady(&p->xfade))
            return;
        takes[c.kind](p, &c);
        es_spsc_pop(&p->commands, &c);
    }
}

/* Every callback: some hosts reset MXCSR between callbacks. */
static ES_RT void flush_denormals(void)
{
#if defined(__x86_64__) || defined(__i386__)
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
}

/* How this block is mixed. No swap, no level moving, no bypass: with the
 * gains as constants. A render's block of the room alone, at unity, from
 * an engine with no delay to add and nothing ringing: the engine writes
 * the output, and the mix has nothing left to do (no buffer between, no
 * pass over it: 64 outputs at block 8192 held 2 MB for it). */
static ES_RT es_mixer_pass mixer_pass(const es_processor *p)
{
    if (!es_crossfade_steady(&p->xfade) || !es_mixer_settled(&p->mixer))
        return ES_MIXER_RAMPED;
    if (p->cfg.offline && es_crossfade_can_write_output(&p->xfade) &&
        es_mixer_unity(&p->mixer))
        return ES_MIXER_NONE;
    return ES_MIXER_CONSTANT;
}

ES_RT void es_processor_freewheel(es_processor *p, int on)
{
    p->freewheel = on;
}

ES_RT void es_processor_process(es_processor *p, const float *const *in,
                                float *const *out, int frames)
{
    es_accounting_begin(&p->acct);
    es_stats *st = &p->acct.now;
    flush_denormals();
    apply_commands(p);
    es_sets_take(&p->sets, &p->xfade, st);
    es_crossfade_await(&p->xfade, frames, st);

    const float *const *x = es_input_guard_run(&p->input, in, frames, st);

    const es_mixer_pass pass = mixer_pass(p);
    /* A block the engine wrote is left as it is below (no limiter, no mute
     * ramp, and offline no runaway watch): the engine's check rides on the
     * output's last scan, one pass over it instead of two. */
    const int check_in_scan = pass == ES_MIXER_NONE && es_crossfade_playing_sound(&p->xfade) &&
                              es_output_guard_transparent(&p->output);
    es_engines_ran ran = {0};
    es_crossfade_run(&p->xfade, x, pass == ES_MIXER_NONE ? out : NULL, frames, !check_in_scan,
                     p->freewheel, &ran, st);
    const float *const *wet = es_crossfade_wet(&p->xfade, out, frames);

    es_mixer_run(&p->mixer, x, wet, out, frames, pass);

    const uint64_t limited = es_output_guard_run(&p->output, x, out, frames, st);
    uint64_t clipped;
    if (!es_output_guard_scan(&p->output, out, frames, check_in_scan, &clipped, st))
        es_crossfade_check_playing(&p->xfade, frames, st); /* silences every output */

    /* Only an engine playing alone counts in its A/B slot. */
    const int ab = es_crossfade_steady(&p->xfade) ? es_crossfade_playing_ab(&p->xfade) : -1;
    if (es_crossfade_advance(&p->xfade, frames, st))
        atomic_fetch_sub(&p->pending_swaps, 1);
    es_crossfade_report(&p->xfade, st);
    es_output_guard_report(&p->output, st);
    const es_block_done done = {.in = x, .out = (const float *const *)out, .frames = frames,
                                .engines = ran, .clipped = clipped, .limited = limited,
                                .ab = ab, .freewheel = p->freewheel};
    es_accounting_count(&p->acct, &done);
    const long long end_ns = es_now_ns();
    if (!st->first_block_ns)
        st->first_block_ns = end_ns;
    es_sets_heard(&p->sets, &p->xfade, st, end_ns);
    es_accounting_publish(&p->acct);
}
