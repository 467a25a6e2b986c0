/* Relative changes, for keys (commands.h's es_command_nudge): each one
 * computes its value from what the session was last asked for, then asks
 * through the same session call a command would, so a key and a command
 * line are refused in the same words. A table maps each nudge to its
 * function. */
#include <math.h>
#include <stdio.h>

#include "commands.h"
#include "processor.h"

#define QUARTER_TURN 1.5707963267948966

typedef int (*nudge_fn)(es_session *s, int up, char *err, size_t n);

/* Halves or doubles a setting; at its limit, says so rather than asking. */
static int halve_or_double(const char *name, int now, int up, int min, int max, int *next,
                           char *err, size_t n)
{
    *next = up ? now * 2 : now / 2;
    if (*next >= min && *next <= max)
        return 0;
    snprintf(err, n, "%s %d is the %s there is (%d..%d)", name, now,
             up ? "largest" : "smallest", min, max);
    return -1;
}

static int nudge_block(es_session *s, int up, char *err, size_t n)
{
    int next;
    if (halve_or_double("block", es_session_wanted(s)->block, up, ES_BLOCK_MIN, ES_BLOCK_MAX,
                        &next, err, n) != 0)
        return -1;
    return es_session_set_block(s, next);
}

static int nudge_partition(es_session *s, int up, char *err, size_t n)
{
    const es_play_spec *w = es_session_wanted(s);
    if (!(w->engine->caps & ES_CAP_PARTITION)) {
        snprintf(err, n, "%s takes no partition size (pick one that does)", w->engine->name);
        return -1;
    }
    const int now = w->options.partition ? w->options.partition
                                         : es_engine_default_partition(w->block);
    es_options next = w->options;
    if (halve_or_double("partition", now, up, ES_PARTITION_MIN, ES_PARTITION_MAX,
                        &next.partition, err, n) != 0)
        return -1;
    return es_session_set_options(s, &next);
}

/* One whole dB up or down from `now` (off steps up to lo), within lo..hi. */
static double step_db(double now, int up, double lo, double hi)
{
    const double next = now == -INFINITY ? lo : round(now) + (up ? 1 : -1);
    return next < lo ? lo : next > hi ? hi : next;
}

static int nudge_trim(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    const double db = step_db(es_session_mix(s)->trim_db, up, ES_TRIM_DB_MIN, ES_TRIM_DB_MAX);
    return es_session_set_mix(s, ES_MIX_TRIM, &(es_mix){.trim_db = (float)db});
}

static double level_db(float linear)
{
    return linear > 0 ? 20 * log10(linear) : -INFINITY;
}

static int nudge_gain(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    /* The keys keep to a playing range: -40 to +12 dB. */
    const double db = step_db(level_db(es_session_mix(s)->gain), up, -40, 12);
    return es_session_set_mix(s, ES_MIX_GAIN, &(es_mix){.gain = (float)es_db_to_gain(db)});
}

/* A gain at a tenth of a dB, as a command line would give it; below
 * -60 dB, off. */
static float tenth_db(double linear)
{
    return linear > 1e-3 ? (float)es_db_to_gain(round(200 * log10(linear)) / 10) : 0.0f;
}

static int nudge_balance(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    /* Where wet and dry stand now, as a balance from 0 (dry) to 1 (wet). */
    const es_mix *m = es_session_mix(s);
    double b = m->wet == 0 && m->dry == 0 ? 1 : atan2(m->wet, m->dry) / QUARTER_TURN;
    b += up ? 0.1 : -0.1;
    b = b < 0.001 ? 0 : b > 0.999 ? 1 : b;
    const es_mix next = {.wet = tenth_db(sin(b * QUARTER_TURN)),
                         .dry = tenth_db(cos(b * QUARTER_TURN))};
    return es_session_set_mix(s, ES_MIX_WET | ES_MIX_DRY, &next);
}

static int nudge_pipelined(es_session *s, int up, char *err, size_t n)
{
    (void)up;
    const es_play_spec *w = es_session_wanted(s);
    if (!(w->engine->caps & ES_CAP_PIPELINED)) {
        snprintf(err, n, "%s has no pipelined mode", w->engine->name);
        return -1;
    }
    es_options next = w->options;
    next.gpu_pipelined = !next.gpu_pipelined;
    return es_session_set_options(s, &next);
}

static int nudge_limiter(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    const es_mix next = {.limiter = !es_session_mix(s)->limiter, .ceiling_db = -1};
    return es_session_set_mix(s, ES_MIX_LIMITER, &next);
}

static int nudge_bypass(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    return es_session_set_mix(s, ES_MIX_BYPASS, &(es_mix){.bypass = !es_session_mix(s)->bypass});
}

/* The next source that can play here: signal, file (when one was given),
 * microphone (when the device has one). */
static int nudge_source(es_session *s, int up, char *err, size_t n)
{
    (void)up;
    const es_live_snapshot *snap = es_session_snapshot(s);
    const es_source_kind now = es_session_wanted(s)->source;
    for (int step = 1; step < 3; step++) {
        const es_source_kind k = (es_source_kind)((now + step) % 3);
        if ((k == ES_SOURCE_FILE && !snap->file) || (k == ES_SOURCE_MIC && !snap->can_capture))
            continue;
        return es_session_set_source(s, k);
    }
    snprintf(err, n, "no other source: start with --input FILE for a file, or play on a "
             "sound device for the microphone");
    return -1;
}

static int nudge_slot(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    return es_session_switch_slot(s, 1 - es_session_wanted_slot(s));
}

/* A step a key turns the head by: a quarter of a typical BRIR set's 5
 * degree grid would go unheard, and 15 is a sixth of a quarter turn. */
#define HEAD_STEP_DEG 15.0

static int nudge_head(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    return es_session_head_nudge(s, up ? HEAD_STEP_DEG : -HEAD_STEP_DEG, 0);
}

static int nudge_raw(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    return es_session_set_raw(s, !es_session_wanted(s)->raw);
}

static const nudge_fn nudges[] = {
    [ES_NUDGE_BLOCK] = nudge_block,         [ES_NUDGE_PARTITION] = nudge_partition,
    [ES_NUDGE_TRIM] = nudge_trim,           [ES_NUDGE_GAIN] = nudge_gain,
    [ES_NUDGE_BALANCE] = nudge_balance,     [ES_NUDGE_PIPELINED] = nudge_pipelined,
    [ES_NUDGE_LIMITER] = nudge_limiter,     [ES_NUDGE_BYPASS] = nudge_bypass,
    [ES_NUDGE_SOURCE] = nudge_source,       [ES_NUDGE_SLOT] = nudge_slot,
    [ES_NUDGE_HEAD] = nudge_head,           [ES_NUDGE_RAW] = nudge_raw,
};

int es_command_nudge(es_session *s, es_nudge what, int up, char *err, size_t n)
{
    err[0] = 0;
    if ((int)what < 0 || (size_t)what >= sizeof nudges / sizeof *nudges)
        return -1;
    return nudges[what](s, up, err, n) < 0 ? -1 : 0;
}
