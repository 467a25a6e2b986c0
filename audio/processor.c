#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <pmmintrin.h>
#include <xmmintrin.h>
#endif

#include "core/clock.h"
#include "limiter.h"
#include "safety.h"
#include "processor.h"
#include "core/spsc_ring.h"

#include "processor_private.h"

#define DEFAULT_CROSSFADE_MS 50.0
#define ES_HALF_PI 1.57079632679489661923

static ES_RT void mute(es_processor *p, int why, const char *words);

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

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

/* Sets a ramp's target, reached over `len` samples (at once when len is 0). */
static ES_RT void ramp_to(ramp *r, float to, int len)
{
    if (to == r->to)
        return;
    r->to = to;
    r->left = len;
    r->step = len ? (to - r->now) / (float)len : 0;
    if (!len)
        r->now = to;
}

/* The ramp's next `frames` values into g; ends exactly on its target. */
static ES_RT void ramp_run(ramp *r, float *g, int frames)
{
    for (int t = 0; t < frames; t++) {
        if (r->left > 0) {
            r->now = --r->left ? r->now + r->step : r->to;
        }
        g[t] = r->now;
    }
}

/* Every level's ramp heads for `m`. */
static ES_RT void set_levels(es_processor *p, const es_mix *m, int len)
{
    p->mix = *m;
    ramp_to(&p->r_trim, p->input_held ? 0.0f : (float)es_db_to_gain(m->trim_db),
            len ? p->ramp_len : 0);
    ramp_to(&p->r_wet, m->wet, len ? p->ramp_len : 0);
    ramp_to(&p->r_dry, m->dry, len ? p->ramp_len : 0);
    ramp_to(&p->r_gain, m->gain, len ? p->ramp_len : 0);
    ramp_to(&p->r_bypass, (float)m->bypass, len ? p->fade_len : 0);
    p->limiter.ceiling = m->limiter ? (float)es_db_to_gain(m->ceiling_db) : INFINITY;
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
    p->requests = cfg->set_requests ? cfg->set_requests : &p->own_requests;
    p->sent_before = atomic_load(&p->requests->sent);
    p->latency = cfg->max_latency > es_engine_latency(take_engine) ? cfg->max_latency
                                                               : es_engine_latency(take_engine);
    double ms = cfg->crossfade_ms > 0 ? cfg->crossfade_ms : DEFAULT_CROSSFADE_MS;
    p->fade_len = (int)(ms * 1e-3 * fmt->sample_rate);
    if (p->fade_len < 1)
        p->fade_len = 1;
    p->ramp_len = (int)(ES_MIX_RAMP_MS * 1e-3 * fmt->sample_rate);
    p->ramp_len = p->ramp_len < 1 ? 1 : p->ramp_len;
    p->r_trim.now = p->r_trim.to = 1;
    p->r_mute.now = p->r_mute.to = 1;
    es_runaway_init(&p->runaway, fmt->sample_rate);
    es_limiter_init(&p->limiter, fmt->sample_rate);
    set_levels(p, &cfg->mix, 0);
    p->hold_max = (int)(ES_PRIME_WAIT_MS * 1e-3 * fmt->sample_rate);
    if (cfg->history_frames > 0 &&
        !(p->history = es_history_create(fmt->inputs, cfg->history_frames + p->hold_max,
                                         fmt->max_block))) {
        p->slots[0].engine = take_engine;
        es_processor_destroy(p);
        snprintf(err, n, "out of memory for %.1f s of input history",
                 cfg->history_frames / fmt->sample_rate);
        return NULL;
    }
    /* With no latency neither line is read (the dry path is the input,
     * and no engine has less latency to make up): one sample each. */
    p->delay_size = p->latency ? pow2_at_least((size_t)p->latency + (size_t)fmt->max_block) : 1;
    p->dry_size = p->delay_size;
    p->fade = malloc(((size_t)p->fade_len + 1) * sizeof(float));
    p->dry = es_alloc_channels(fmt->inputs, p->dry_size);
    p->scratch = es_alloc_channels(fmt->outputs, (size_t)fmt->max_block);
    p->trimmed = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    p->clean = es_alloc_channels(fmt->inputs, (size_t)fmt->max_block);
    p->g = es_alloc_channels(G_COUNT + 1, (size_t)fmt->max_block);
    int ok = p->fade && p->dry && p->scratch && p->trimmed && p->clean && p->g &&
             es_spsc_init(&p->commands, sizeof(command), COMMANDS) == 0 &&
             es_spsc_init(&p->retired, sizeof(es_engine *), RETIRED) == 0;
    for (int s = 0; ok && s < 2; s++)
        ok = (p->slots[s].delay = es_alloc_channels(fmt->outputs, p->delay_size)) &&
             (p->slots[s].wet_own = es_alloc_channels(fmt->outputs, (size_t)fmt->max_block)) &&
             (p->slots[s].wet = calloc((size_t)fmt->outputs, sizeof(float *)));
    if (!ok) {
        p->slots[0].engine = take_engine;
        es_processor_destroy(p);
        snprintf(err, n, "out of memory for the processor");
        return NULL;
    }
    for (int s = 0; s < 2; s++)
        for (int o = 0; o < fmt->outputs; o++)
            p->slots[s].wet[o] = p->slots[s].wet_own[o];
    for (int k = 0; k <= p->fade_len; k++)
        p->fade[k] = (float)sin(ES_HALF_PI * k / p->fade_len);
    es_slot_load(p, &p->slots[0], take_engine);
    p->slots[0].ab = cfg->ab >= 0 && cfg->ab < ES_AB_SLOTS ? cfg->ab : 0;
    p->acc.ab_playing = p->slots[0].ab;
    p->acc.latency = p->latency;
    p->acc.inputs = fmt->inputs;
    p->acc.outputs = fmt->outputs;
    p->acc.engine = take_engine->klass->name;
    p->shared = p->acc;
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
    for (int s = 0; s < 2; s++) {
        es_engine_destroy(p->slots[s].engine);
        es_free_channels(p->slots[s].delay, p->fmt.outputs);
        es_free_channels(p->slots[s].wet_own, p->fmt.outputs);
        free(p->slots[s].wet);
    }
    es_spsc_free(&p->commands);
    es_spsc_free(&p->retired);
    es_free_channels(p->dry, p->fmt.inputs);
    es_free_channels(p->scratch, p->fmt.outputs);
    es_free_channels(p->trimmed, p->fmt.inputs);
    es_free_channels(p->clean, p->fmt.inputs);
    es_free_channels(p->g, G_COUNT + 1);
    free(p->fade);
    if (p->history) { /* a priming under way finds the processor gone */
        es_history_writer_gone(p->history);
        es_history_unref(p->history);
    }
    free(p);
}

void es_processor_watch(es_processor *p, const es_stall_probe *probe)
{
    atomic_store_explicit(&p->watch, probe, memory_order_release);
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

static ES_RT void apply_commands(es_processor *p)
{
    command c;
    while (es_spsc_peek(&p->commands, &c)) {
        if (c.kind == CMD_SWAP) {
            if (p->fading)
                return; /* one crossfade at a time: the rest wait their turn */
            slot *in = &p->slots[1 - p->active];
            es_slot_load(p, in, c.engine);
            in->ab = c.ab >= 0 ? c.ab : p->slots[p->active].ab;
            in->restart = c.restart;
            p->fading = 1;
            p->fade_pos = 0;
            p->fade_linear = c.same_filter;
            es_slot_adopt(p, in, &c);
        } else if (c.kind == CMD_MIX) {
            set_levels(p, &c.mix, 1);
        } else if (c.kind == CMD_MUTE) {
            mute(p, c.panic ? 2 : 1, c.panic ? "panic" : "muted");
            if (c.panic) { /* the dry path forgets; the engines are built again */
                for (int i = 0; i < p->fmt.inputs; i++)
                    memset(p->dry[i], 0, p->dry_size * sizeof(float));
                if (p->history)
                    es_history_forget(p->history);
            }
        } else if (c.kind == CMD_HOLD) {
            p->input_held = c.hold;
            set_levels(p, &p->mix, 1);
        } else if (c.kind == CMD_UNMUTE) {
            p->muted = 0;
            p->mute_why = NULL;
            ramp_to(&p->r_mute, 1.0f, p->ramp_len);
            es_runaway_reset(&p->runaway);
        } else {
            const char *engine = p->acc.engine;
            memset(&p->acc.blocks, 0, sizeof(es_stats) - offsetof(es_stats, blocks));
            p->acc.ab_playing = p->fading ? -1 : p->slots[p->active].ab;
            p->acc.engine = engine;
            p->acc.latency = p->latency;
            p->acc.inputs = p->fmt.inputs;
            p->acc.outputs = p->fmt.outputs;
        }
        es_spsc_pop(&p->commands, &c);
    }
}

/* Ramps the output down, for a runaway (1) or a panic (2). */
static ES_RT void mute(es_processor *p, int why, const char *words)
{
    p->muted = why;
    p->mute_why = words;
    ramp_to(&p->r_mute, 0.0f, (int)(ES_MUTE_RAMP_MS * 1e-3 * p->fmt.sample_rate));
}

/* The input as the engines and the dry path may take it: any channel
 * holding a sample that is not finite or beyond ES_INPUT_MAX is copied
 * with those samples silenced (counted). Most blocks are passed as they
 * are, checked in one vectorised pass. */
static ES_RT const float *const *safe_input(es_processor *p, const float *const *in, int frames)
{
    int all_good = 1;
    for (int i = 0; i < p->fmt.inputs; i++)
        all_good &= es_all_within(in[i], frames, ES_INPUT_MAX);
    if (all_good)
        return in;
    for (int i = 0; i < p->fmt.inputs; i++) {
        memcpy(p->clean[i], in[i], (size_t)frames * sizeof(float));
        p->acc.bad_input += es_sanitize(p->clean[i], frames, ES_INPUT_MAX);
    }
    return (const float *const *)p->clean;
}

/* The output before the limiter: watched for a runaway (which mutes it),
 * and ramped down while muted. */
static ES_RT void guard_output(es_processor *p, const float *const *in, float *const *out,
                               int frames)
{
    /* Live only: a file has no loop to run away in, and is rendered whole. */
    if (!p->muted && !p->cfg.offline &&
        es_runaway_watch(&p->runaway, (const float *const *)out, p->fmt.outputs, frames)) {
        mute(p, 1, p->runaway.why);
        p->acc.runaways++;
        p->acc.runaway_peak = p->runaway.peak;
        p->acc.runaway_swelled = p->runaway.swelled;
        float in_peak = 0;
        for (int i = 0; i < p->fmt.inputs; i++)
            for (int t = 0; t < frames; t++)
                in_peak = fmaxf(in_peak, fabsf(in[i][t]));
        p->acc.runaway_in_peak = in_peak;
        if (p->runaway.hard) { /* silent from this block on, no ramp */
            p->r_mute = (ramp){.now = 0.0f, .to = 0.0f};
            for (int o = 0; o < p->fmt.outputs; o++)
                memset(out[o], 0, (size_t)frames * sizeof(float));
            return;
        }
    }
    if (p->r_mute.left == 0 && p->r_mute.now == 1.0f)
        return;
    float *gm = p->g[G_COUNT];
    ramp_run(&p->r_mute, gm, frames);
    for (int o = 0; o < p->fmt.outputs; o++)
        for (int t = 0; t < frames; t++)
            out[o][t] *= gm[t];
}

static ES_RT void finish_fade(es_processor *p)
{
    slot *old = &p->slots[p->active];
    if (!es_spsc_push(&p->retired, &old->engine)) {
        /* Unreachable: es_processor_swap keeps the uncollected swaps, and
         * so the retired engines, within the ring. Were it full, the fade
         * would stay at its end (the old engine running, silent in the
         * mix) and the push be tried again next block: nothing is dropped
         * or freed here. */
        p->fade_pos = p->fade_len;
        return;
    }
    old->engine = NULL;
    es_slot_release_ringing(p, old);
    p->active = 1 - p->active;
    p->fading = 0;
    slot *now = &p->slots[p->active];
    if (now->restart) {
        es_ab_stats *a = &p->acc.ab[now->ab];
        const uint64_t restarts = a->restarts + 1;
        memset(a, 0, sizeof *a);
        a->restarts = restarts;
        now->restart = 0;
    }
    p->acc.swaps++;
    p->acc.engine = p->slots[p->active].engine->klass->name;
    p->acc.engine_failed = 0;
    atomic_fetch_sub(&p->pending_swaps, 1);
}

static ES_RT void publish(es_processor *p)
{
    unsigned s = atomic_load_explicit(&p->seq, memory_order_relaxed);
    atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    memcpy(&p->shared, &p->acc, sizeof p->acc);
    atomic_store_explicit(&p->seq, s + 2, memory_order_release);
}

ES_RT void es_processor_freewheel(es_processor *p, int on)
{
    p->freewheel = on;
}

ES_RT void es_processor_process(es_processor *p, const float *const *in,
                                float *const *out, int frames)
{
    const long long started = es_now_ns(), cpu_started = es_thread_cpu_ns();
#if defined(__x86_64__) || defined(__i386__)
    /* Every callback: some hosts reset MXCSR between callbacks. */
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_ON);
#endif
    apply_commands(p);
    es_sets_take(p);
    es_slot_await_ringing(p, frames);

    /* The trim: what the engine and the dry path see. At unity (no ramp
     * in this block) the input goes on as it is. */
    float *const *g = p->g;
    const int unity_trim = p->r_trim.left == 0 && p->r_trim.now == 1.0f;
    if (!unity_trim)
        ramp_run(&p->r_trim, g[G_TRIM], frames);
    const float *const *x = safe_input(p, in, frames);
    if (!unity_trim && (g[G_TRIM][0] != 1.0f || g[G_TRIM][frames - 1] != 1.0f)) {
        for (int i = 0; i < p->fmt.inputs; i++)
            for (int t = 0; t < frames; t++)
                p->trimmed[i][t] = x[i][t] * g[G_TRIM][t];
        x = (const float *const *)p->trimmed;
    }

    if (p->history)
        es_history_write(p->history, x, frames);
    /* With no latency the dry sample that leaves with wet output t is
     * input t itself: the mix reads x, and the delay line is not kept. */
    const int dry_direct = p->latency == 0;
    const size_t mask = p->dry_size - 1;
    for (int i = 0; !dry_direct && i < p->fmt.inputs; i++)
        for (int t = 0; t < frames; t++)
            p->dry[i][(p->dry_write + (size_t)t) & mask] = x[i][t];

    slot *a = &p->slots[p->active], *b = &p->slots[1 - p->active];
    /* No swap, no level moving, no bypass: the same sums with the gains
     * as constants, in loops the compiler vectorises (most blocks, and a
     * render's every block). */
    const int settled = !p->fading && p->r_wet.left == 0 && p->r_dry.left == 0 &&
                        p->r_gain.left == 0 && p->r_bypass.left == 0 && p->r_bypass.now == 0.0f;
    /* A render's block of the room alone, at unity, from an engine with no
     * delay to add and nothing ringing: the engine writes the output, and
     * the mix has nothing left to do (no buffer between, no pass over it:
     * 64 outputs at block 8192 held 2 MB for it). */
    const int direct = settled && p->cfg.offline && !a->comp && !a->ringing &&
                       p->r_dry.now == 0.0f && p->r_wet.now == 1.0f && p->r_gain.now == 1.0f;
    uint64_t late = 0;
    double helpers_us = 0, gpu_us = 0; /* the playing engine's GPU time, this block */
    if (direct)
        es_slot_run_into(p, a, x, out, frames);
    else
        es_slot_run(p, a, x, frames);
    es_slot_ring(p, a, frames);
    /* A direct block's outputs are the engine's own, and nothing below
     * changes them (no limiter, no mute ramp, and offline no runaway
     * watch): the engine's check rides on the outputs' last scan, one
     * pass over them instead of two. */
    const int check_in_scan = direct && !a->broken && !p->mix.limiter &&
                              p->limiter.cut == 0.0f && p->r_mute.left == 0 &&
                              p->r_mute.now == 1.0f;
    if (!check_in_scan)
        es_slot_check(p, a, frames);
    late += es_slot_new_late(p, a, &gpu_us, &helpers_us);
    if (gpu_us > 0)
        p->acc.device_us = gpu_us;
    if (p->fading) {
        es_slot_run(p, b, x, frames);
        es_slot_ring(p, b, frames);
        es_slot_check(p, b, frames);
        late += es_slot_new_late(p, b, &p->acc.device_us, &helpers_us);
    }

    /* The dry sample that leaves with wet output t entered latency frames ago. */
    const size_t dry_read = (p->dry_write + p->dry_size - (size_t)p->latency) & mask;
    for (int o = 0; settled && !direct && o < p->fmt.outputs; o++) {
        const float *wa = a->wet[o];
        const int di = p->fmt.inputs == 1 ? 0 : o % p->fmt.inputs;
        const float *dry = p->dry[di], *xd = x[di];
        const float gw = p->r_wet.now, gd = p->r_dry.now, gg = p->r_gain.now;
        float *y = out[o];
        if (gd == 0.0f)
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t]);
        else if (dry_direct)
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t] + gd * xd[t]);
        else
            for (int t = 0; t < frames; t++)
                y[t] = gg * (gw * wa[t] + gd * dry[(dry_read + (size_t)t) & mask]);
    }
    if (!settled) {
        ramp_run(&p->r_wet, g[G_WET], frames);
        ramp_run(&p->r_dry, g[G_DRY], frames);
        ramp_run(&p->r_gain, g[G_GAIN], frames);
        ramp_run(&p->r_bypass, g[G_BYPASS], frames);
    }
    for (int o = 0; !settled && o < p->fmt.outputs; o++) {
        const int di = p->fmt.inputs == 1 ? 0 : o % p->fmt.inputs;
        const float *dry = p->dry[di], *xd = x[di];
        const float *wa = a->wet[o], *wb = b->wet[o];
        float *y = out[o];
        for (int t = 0; t < frames; t++) {
            float w = wa[t];
            if (p->fading) {
                /* A held engine runs beside the mix, at 0. */
                int k = p->held ? 0 : p->fade_pos + t;
                k = k < p->fade_len ? k : p->fade_len;
                const float in_gain = p->fade_linear ? (float)k / (float)p->fade_len : p->fade[k];
                const float out_gain = p->fade_linear ? 1.0f - in_gain
                                                      : p->fade[p->fade_len - k];
                w = wa[t] * out_gain + wb[t] * in_gain;
            }
            const float d = dry_direct ? xd[t] : dry[(dry_read + (size_t)t) & mask];
            const float v = g[G_GAIN][t] * (g[G_WET][t] * w + g[G_DRY][t] * d);
            /* Bypass crossfades linearly (both sides carry the same dry
             * signal, so equal power would swell); at its ends the output
             * is exactly one side. */
            const float by = g[G_BYPASS][t];
            y[t] = by == 0.0f ? v : by == 1.0f ? d : v + by * (d - v);
        }
    }
    guard_output(p, x, out, frames);
    const uint64_t limited =
        es_limiter_run(&p->limiter, p->mix.limiter, out, p->fmt.outputs, frames);
    /* Last: nothing that is not a number leaves, whatever came before;
     * the samples past full scale are counted in the same pass. */
    uint64_t clipped = 0;
    for (int o = 0; o < p->fmt.outputs; o++) {
        uint32_t over;
        if (check_in_scan) {
            if (es_scan_within(out[o], frames, ENGINE_OUT_MAX, &over)) {
                clipped += over;
                continue;
            }
            es_slot_check(p, a, frames); /* it finds the fault, silences every output */
            clipped = 0;
            break;
        }
        if (!es_scan_output(out[o], frames, &over)) {
            p->acc.bad_output += es_sanitize(out[o], frames, FLT_MAX);
            over = es_count_clipped(out[o], frames);
        }
        clipped += over;
    }
    p->dry_write = (p->dry_write + (size_t)frames) & mask;
    const int both_ran = p->fading; /* this block belongs to no A/B slot */
    if (p->fading && !p->held && (p->fade_pos += frames) >= p->fade_len)
        finish_fade(p);

    const double took = 1e-3 * (double)(es_now_ns() - started);
    const double budget = 1e6 * frames / p->fmt.sample_rate;
    /* Only a late block needs sorting: the engine's (a miss) when the
     * thread was busy in it, the machine's (a stall) when it was off the
     * CPU, or when a real-time thread beside it was held up at the same
     * time (a virtual machine's stolen time counts as the thread's CPU). */
    double cpu = 0;
    if (took > budget) {
        const es_stall_probe *w = atomic_load_explicit(&p->watch, memory_order_acquire);
        cpu = w && es_stall_probe_held_during(w, started, es_now_ns())
                  ? 0
                  : 1e-3 * (double)(es_thread_cpu_ns() - cpu_started);
    }
    /* Only an engine playing alone counts in its A/B slot. A render's
     * levels (its gain through the room among them) are nobody's. */
    const int ab = both_ran ? -1 : p->slots[p->active].ab;
    const int ab_levels = ab >= 0 && !p->cfg.offline;
    /* The thread's CPU over the last period belongs to the last block's
     * slot; the time it was gone (a stall) costs no CPU. */
    const double period_cpu = p->cpu_at ? 1e-3 * (double)(cpu_started - p->cpu_at) : 0;
    const int period_ab = p->last_ab;
    p->cpu_at = cpu_started;
    p->last_ab = ab;
    const es_block_count count = {
        .period_cpu_us = period_cpu, .period_ab = period_ab,
        .took_us = took, .cpu_us = cpu, .budget_us = budget, .helpers_us = helpers_us,
        .gpu_us = gpu_us, .frames = frames, .late = late, .freewheel = p->freewheel,
        .clipped = clipped, .limited = limited, .ab = ab,
        .in_energy = ab_levels ? es_energy(x, p->fmt.inputs, frames) : 0,
        .out_energy = ab_levels ? es_energy((const float *const *)out, p->fmt.outputs, frames)
                                : 0};
    es_stats_count_block(&p->acc, &count);
    p->acc.ab_playing = p->fading ? -1 : p->slots[p->active].ab;
    p->acc.crossfading = p->fading;
    p->acc.engine_broken = p->slots[p->active].broken;
    p->acc.muted = p->muted;
    p->acc.mute_why = p->mute_why;
    if (!p->cfg.offline)
        es_stats_measure_levels(&p->acc, x, p->fmt.inputs, (const float *const *)out,
                                p->fmt.outputs, frames, p->fmt.sample_rate);
    es_sets_heard(p, es_now_ns());
    publish(p);
}
