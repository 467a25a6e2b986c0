/* play's command table: a row per command, with its fields, the session
 * call it makes (run) and the relative change a key makes through it
 * (nudge), each command's two beside each other. The lines `play
 * --commands` reads are parsed against the table in command_line.c;
 * commands.h says why one table with the options (play_options.c). A
 * nudge computes its value from what the session was last asked for, then
 * asks through the same session call as the command, so a key and a
 * command line are refused in the same words. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine_params.h"
#include "processor.h"

#define END {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL}

#define QUARTER_TURN 1.5707963267948966

/* ---- commands and their nudges ---- */

#define ARG(f) offsetof(es_command_args, f)
#define DB_FIELD(name, arg, parse) \
    {name, ES_PARAM_CUSTOM, 0, 0, NULL, arg, NULL, ARG(db), NULL, parse}

static int run_room(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_room(s, a->text);
}

static int run_engine(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_engine(s, a->engine);
}

/* A room given by its file at the file's own level (on) or levelled as
 * the library's rooms are (off): a crossfade to the room made again. A
 * part of the spec, so no session call of its own (es_session_change). */
static int run_raw(es_session *s, const es_command_args *a, int given)
{
    es_play_spec next = *es_session_wanted(s);
    next.raw = given ? a->on : !next.raw;
    return es_session_change(s, &next, next.raw ? "raw on (a file's own level)"
                                                : "raw off (levelled)");
}

/* The slot's room level: a crossfade to its engine built again with the
 * filters at that level (a stimulus's, play_spec.h). */
static int run_level(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    es_play_spec next = *es_session_wanted(s);
    next.level_db = a->db;
    char what[48];
    snprintf(what, sizeof what, "level %+.1f dB", a->db);
    return es_session_change(s, &next, what);
}

static int parse_level(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_SPEC_LEVEL_DB_MIN, ES_SPEC_LEVEL_DB_MAX, 0, why, n);
}

static int run_block(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_block(s, a->number);
}

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

static int run_partition(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    es_options next = es_session_wanted(s)->options;
    next.partition = a->number;
    return es_session_set_options(s, &next);
}

/* From the engine's default partition when none was asked for. */
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

static int run_pipelined(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    es_options next = es_session_wanted(s)->options;
    next.gpu_pipelined = a->on;
    return es_session_set_options(s, &next);
}

/* On or off, whichever it is not. */
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

static int run_mix(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    const es_mix m = {.wet = (float)a->mix[0], .dry = (float)a->mix[1],
                      .gain = (float)a->mix[2]}; /* trim, bypass and limiter stay */
    return es_session_set_mix(s, ES_MIX_WET | ES_MIX_DRY | ES_MIX_GAIN, &m);
}

/* A gain at a tenth of a dB, as a command line would give it; below
 * -60 dB, off. */
static float tenth_db(double linear)
{
    return linear > 1e-3 ? (float)es_db_to_gain(round(200 * log10(linear)) / 10) : 0.0f;
}

/* The mix's step is its balance: the room (up) against the dry input, a
 * tenth of the way, at equal power (wet and dry set, the output kept). */
static int nudge_mix(es_session *s, int up, char *err, size_t n)
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

int es_parse_db(const char *text, double *dst, double lo, double hi, int off, char *why,
                size_t n)
{
    if (off && !strcmp(text, "off")) {
        *dst = -INFINITY;
        return 0;
    }
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v)) {
        snprintf(why, n, "not a number of dB%s", off ? " (or off)" : "");
        return -1;
    }
    if (v < lo || v > hi) {
        snprintf(why, n, "out of range (%g..%+g dB%s)", lo, hi, off ? ", or off" : "");
        return -1;
    }
    *dst = v;
    return 0;
}

static int parse_trim(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_TRIM_DB_MIN, ES_TRIM_DB_MAX, 0, why, n);
}

static int parse_wet(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_LEVEL_DB_MIN, ES_WET_DB_MAX, 1, why, n);
}

static int parse_dry(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_LEVEL_DB_MIN, ES_DRY_DB_MAX, 1, why, n);
}

static int parse_gain(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_LEVEL_DB_MIN, ES_GAIN_DB_MAX, 1, why, n);
}

static int parse_ceiling(const char *text, void *dst, char *why, size_t n)
{
    return es_parse_db(text, dst, ES_CEILING_DB_MIN, ES_CEILING_DB_MAX, 1, why, n);
}

/* One whole dB up or down from `now` (off steps up to lo), within lo..hi. */
static double step_db(double now, int up, double lo, double hi)
{
    const double next = now == -INFINITY ? lo : round(now) + (up ? 1 : -1);
    return next < lo ? lo : next > hi ? hi : next;
}

static double level_db(float linear)
{
    return linear > 0 ? 20 * log10(linear) : -INFINITY;
}

/* The levels commands: one level, in dB (the others as they are). */
static int run_trim(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_mix(s, ES_MIX_TRIM, &(es_mix){.trim_db = (float)a->db});
}

static int nudge_trim(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    const double db = step_db(es_session_mix(s)->trim_db, up, ES_TRIM_DB_MIN, ES_TRIM_DB_MAX);
    return es_session_set_mix(s, ES_MIX_TRIM, &(es_mix){.trim_db = (float)db});
}

static int run_wet(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_mix(s, ES_MIX_WET, &(es_mix){.wet = (float)es_db_to_gain(a->db)});
}

static int run_dry(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_mix(s, ES_MIX_DRY, &(es_mix){.dry = (float)es_db_to_gain(a->db)});
}

static int run_gain(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_mix(s, ES_MIX_GAIN, &(es_mix){.gain = (float)es_db_to_gain(a->db)});
}

/* 1 dB; from off, the lowest level. */
static int nudge_gain(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    /* The keys keep to a playing range: -40 to +12 dB. */
    const double db = step_db(level_db(es_session_mix(s)->gain), up, -40, 12);
    return es_session_set_mix(s, ES_MIX_GAIN, &(es_mix){.gain = (float)es_db_to_gain(db)});
}

static int run_bypass(es_session *s, const es_command_args *a, int given)
{
    const int on = given ? a->on : !es_session_mix(s)->bypass;
    return es_session_set_mix(s, ES_MIX_BYPASS, &(es_mix){.bypass = on});
}

static int run_limiter(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    const es_mix m = {.limiter = a->db != -INFINITY,
                      .ceiling_db = a->db != -INFINITY ? (float)a->db : 0};
    return es_session_set_mix(s, ES_MIX_LIMITER, &m);
}

/* On at -1 dBFS, or off. */
static int nudge_limiter(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    const es_mix next = {.limiter = !es_session_mix(s)->limiter, .ceiling_db = -1};
    return es_session_set_mix(s, ES_MIX_LIMITER, &next);
}

static int run_source(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    static const es_source_kind kinds[] = {ES_SOURCE_SIGNAL, ES_SOURCE_FILE, ES_SOURCE_MIC};
    return es_session_set_source(s, kinds[a->choice]);
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

static int run_record(es_session *s, const es_command_args *a, int given)
{
    return es_session_record(s, given ? a->text : NULL, NULL, 0);
}

static int run_slot(es_session *s, const es_command_args *a, int given)
{
    /* With no letter: the slot that is not playing. */
    return es_session_switch_slot(s, given ? a->choice : 1 - es_session_wanted_slot(s));
}

static int run_reset(es_session *s, const es_command_args *a, int given)
{
    (void)a;
    (void)given;
    return es_session_reset_meters(s);
}

static int run_latency(es_session *s, const es_command_args *a, int given)
{
    (void)a;
    (void)given;
    return es_session_measure_latency(s);
}

/* A room measured by sweep out of the first output into every input, with
 * the sweep's defaults but for what is given; into the user's library and
 * slot B (A keeps what it held). */
static int run_measure(es_session *s, const es_command_args *a, int given)
{
    es_measure_plan plan = {.sweep = ES_SWEEP_DEFAULTS(es_session_snapshot(s)->rate),
                            .reference_input = -1, .reference_output = -1, .to_slot_b = 1};
    if (given > 0)
        plan.sweep.seconds = a->mix[0];
    if (given > 1)
        plan.sweep.level_db = a->mix[1];
    if (given > 2)
        plan.sweep.repeats = a->number;
    return es_session_measure_room(s, &plan);
}

static int run_rescan(es_session *s, const es_command_args *a, int given)
{
    (void)a;
    (void)given;
    return es_session_rescan(s);
}

static int run_panic(es_session *s, const es_command_args *a, int given)
{
    (void)a, (void)given;
    return es_session_panic(s);
}

/* A panic, or while muted (a panic or a runaway) playing again: one key
 * for both. */
static int nudge_panic(es_session *s, int up, char *err, size_t n)
{
    (void)up, (void)err, (void)n;
    return es_session_snapshot(s)->stats.muted ? es_session_unmute(s) : es_session_panic(s);
}

static int run_unmute(es_session *s, const es_command_args *a, int given)
{
    (void)a, (void)given;
    return es_session_unmute(s);
}

/* Pitch and roll not given are held as they are (NAN). */
static int run_head(es_session *s, const es_command_args *a, int given)
{
    return es_session_head(s, a->mix[0], given > 1 ? a->mix[1] : NAN, given > 2 ? a->mix[2] : NAN);
}

/* One angle, the other two held. */
static int run_pitch(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_head(s, NAN, a->mix[0], NAN);
}

static int run_roll(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_head(s, NAN, NAN, a->mix[0]);
}

/* A step a key turns the head by: a quarter of a typical BRIR set's 5
 * degree grid would go unheard, and 15 is a sixth of a quarter turn. */
#define HEAD_STEP_DEG 15.0

/* 15 degrees left (up) or right. */
static int nudge_head(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    return es_session_head_nudge(s, up ? HEAD_STEP_DEG : -HEAD_STEP_DEG, 0, 0);
}

/* 15 degrees up (up) or down. */
static int nudge_pitch(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    return es_session_head_nudge(s, 0, up ? HEAD_STEP_DEG : -HEAD_STEP_DEG, 0);
}

/* 15 degrees to the right ear down (up) or the left. */
static int nudge_roll(es_session *s, int up, char *err, size_t n)
{
    (void)err, (void)n;
    return es_session_head_nudge(s, 0, 0, up ? HEAD_STEP_DEG : -HEAD_STEP_DEG);
}

/* A listening test's subject (listening_test.h). */
static int run_hear(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_test_hear(s, a->text);
}

static int run_answer(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_test_answer(s, a->text);
}

static int run_quit(es_session *s, const es_command_args *a, int given)
{
    (void)s;
    (void)a;
    (void)given;
    return 1;
}

#define NONE END

/* A new kind of change: a row here, with its run (and its nudge when a
 * key is to step it); a key for it is then a row of ui/keys.c's table. */
const es_command es_commands[] = {
    {"room", "crossfade to another room (name or IR file)", 1,
     {{"room", ES_PARAM_STRING, 0, 1023, NULL, "ROOM", NULL, ARG(text), NULL, NULL}, NONE, NONE},
     run_room, NULL},
    {"engine", "crossfade to another engine", 1,
     {ES_PARAM_ENGINE(es_command_args, engine), NONE, NONE}, run_engine, NULL},
    {"slot", "A/B: play slot A or B (no letter: the other), crossfaded; each "
     "slot holds a room, an engine and a block, and counts its own statistics", 0,
     {{"slot", ES_PARAM_CHOICE, 0, 0, NULL, "a|b", NULL, ARG(choice), "a|b", NULL}, NONE, NONE},
     run_slot, NULL},
    {"block", "reopen the stream at N frames (halve, double)", 1,
     {ES_PARAM_BLOCK(es_command_args, number), NONE, NONE}, run_block, nudge_block},
    {"partition", "new partition size (halve, double)", 1,
     {ES_PARAM_PARTITION(es_command_args, number), NONE, NONE}, run_partition,
     nudge_partition},
    {"pipelined", "GPU pipelined mode (+1 block of latency)", 1,
     {{"pipelined", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_pipelined, nudge_pipelined},
    {"raw", "a file room at its own level, or levelled (off)", 0,
     {{"raw", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_raw, NULL},
    {"level", "the slot's room level in dB (a stimulus's: it switches with the slot)", 1,
     {DB_FIELD("level", "DB", parse_level), NONE, NONE}, run_level, NULL},
    {"mix", "wet, dry, output as linear gains, ramped", 3,
     {{"wet", ES_PARAM_DOUBLE, 0, ES_MIX_WET_MAX, NULL, "WET", NULL, ARG(mix[0]), NULL, NULL},
      {"dry", ES_PARAM_DOUBLE, 0, ES_MIX_DRY_MAX, NULL, "DRY", NULL, ARG(mix[1]), NULL, NULL},
      {"gain", ES_PARAM_DOUBLE, 0, ES_MIX_GAIN_MAX, NULL, "GAIN", NULL, ARG(mix[2]), NULL, NULL}},
     run_mix, nudge_mix},
    {"trim", "input trim in dB, -24..+24 (1 dB)", 1,
     {DB_FIELD("trim", "DB", parse_trim), NONE, NONE}, run_trim, nudge_trim},
    {"wet", "room level in dB or off (, . balance)", 1,
     {DB_FIELD("wet", "DB|off", parse_wet), NONE, NONE}, run_wet, NULL},
    {"dry", "dry level in dB or off (, . balance)", 1,
     {DB_FIELD("dry", "DB|off", parse_dry), NONE, NONE}, run_dry, NULL},
    {"gain", "output level in dB or off (1 dB)", 1,
     {DB_FIELD("gain", "DB|off", parse_gain), NONE, NONE}, run_gain, nudge_gain},
    {"bypass", "the dry input alone, crossfaded; again: back", 0,
     {{"bypass", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_bypass, NULL},
    {"limiter", "output safety limiter: off or ceiling dBFS", 1,
     {DB_FIELD("limiter", "off|DB", parse_ceiling), NONE, NONE}, run_limiter,
     nudge_limiter},
    {"source", "another input (the stream reopens)", 1,
     {{"source", ES_PARAM_CHOICE, 0, 0, NULL, "signal|file|mic", NULL, ARG(choice),
       "signal|file|mic", NULL}, NONE, NONE}, run_source, nudge_source},
    {"record", "record the output to OUT; again: stop", 0,
     {{"file", ES_PARAM_STRING, 0, 1023, NULL, "OUT", NULL, ARG(text), NULL, NULL}, NONE, NONE},
     run_record, NULL},
    {"reset", "reset the meters (misses, load, counts)", 0, {NONE, NONE, NONE}, run_reset, NULL},
    {"latency", "measure the round trip (output looped to the mic)", 0,
     {NONE, NONE, NONE}, run_latency, NULL},
    {"measure", "measure the room by sweep; B then plays it", 0,
     {{"seconds", ES_PARAM_DOUBLE, 0.1, ES_SWEEP_SECONDS_MAX, NULL, "T", NULL, ARG(mix[0]),
       NULL, NULL},
      {"level", ES_PARAM_DOUBLE, -80, 0, NULL, "DB", NULL, ARG(mix[1]), NULL, NULL},
      {"repeats", ES_PARAM_INT, 1, ES_SWEEP_REPEATS_MAX, NULL, "N", NULL, ARG(number), NULL, NULL}},
     run_measure, NULL},
    {"rescan", "read the room library again now", 0,
     {NONE, NONE, NONE}, run_rescan, NULL},
    {"head", "head orientation, degrees: yaw (left +), pitch (up +), roll (right ear down "
     "+); a SOFA room follows it (z x)", 1,
     {{"yaw", ES_PARAM_DOUBLE, -360, 360, NULL, "YAW", NULL, ARG(mix[0]), NULL, NULL},
      {"pitch", ES_PARAM_DOUBLE, -90, 90, NULL, "PITCH", NULL, ARG(mix[1]), NULL, NULL},
      {"roll", ES_PARAM_DOUBLE, -180, 180, NULL, "ROLL", NULL, ARG(mix[2]), NULL, NULL}},
     run_head, nudge_head},
    {"pitch", "head pitch, degrees (up +), yaw and roll held (Z X)", 1,
     {{"pitch", ES_PARAM_DOUBLE, -90, 90, NULL, "PITCH", NULL, ARG(mix[0]), NULL, NULL}, NONE,
      NONE},
     run_pitch, nudge_pitch},
    {"roll", "head roll, degrees (right ear down +), yaw and pitch held (C V)", 1,
     {{"roll", ES_PARAM_DOUBLE, -180, 180, NULL, "ROLL", NULL, ARG(mix[0]), NULL, NULL}, NONE,
      NONE},
     run_roll, nudge_roll},
    {"panic", "mute at once and clear every history (the engine is built again, "
     "empty)", 0, {NONE, NONE, NONE}, run_panic, nudge_panic},
    {"unmute", "play again after a panic or a runaway", 0, {NONE, NONE, NONE}, run_unmute, NULL},
    {"hear", "a listening test: hear a label of the trial (a, b, x; 1, 2)", 1,
     {{"label", ES_PARAM_STRING, 0, 8, NULL, "LABEL", NULL, ARG(text), NULL, NULL}, NONE,
      NONE}, run_hear, NULL},
    {"answer", "a listening test: the answer (a, b; same, different)", 1,
     {{"answer", ES_PARAM_STRING, 0, 16, NULL, "ANSWER", NULL, ARG(text), NULL, NULL}, NONE,
      NONE}, run_answer, NULL},
    {"quit", "stop (as Ctrl-C does)", 0, {NONE, NONE, NONE}, run_quit, NULL},
    {NULL, NULL, 0, {NONE, NONE, NONE}, NULL, NULL},
};

