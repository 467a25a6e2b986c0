/* play's command table: the lines `play --commands` reads, parsed and run
 * (commands.h says why one table with the options, play_options.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "core/suggest.h"
#include "engine_params.h"
#include "processor.h"

#define END {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL}

/* ---- commands ---- */

#define ARG(f) offsetof(es_command_args, f)

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

static int run_raw(es_session *s, const es_command_args *a, int given)
{
    return es_session_set_raw(s, given ? a->on : !es_session_wanted(s)->raw);
}

static int run_block(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_block(s, a->number);
}

static int run_partition(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    es_options next = es_session_wanted(s)->options;
    next.partition = a->number;
    return es_session_set_options(s, &next);
}

static int run_pipelined(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    es_options next = es_session_wanted(s)->options;
    next.gpu_pipelined = a->on;
    return es_session_set_options(s, &next);
}

static int run_mix(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    const es_mix m = {.wet = (float)a->mix[0], .dry = (float)a->mix[1],
                      .gain = (float)a->mix[2]}; /* trim, bypass and limiter stay */
    return es_session_set_mix(s, ES_MIX_WET | ES_MIX_DRY | ES_MIX_GAIN, &m);
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

/* The levels commands: one level, in dB (the others as they are). */
static int run_trim(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    return es_session_set_mix(s, ES_MIX_TRIM, &(es_mix){.trim_db = (float)a->db});
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

#define DB_FIELD(name, arg, parse) \
    {name, ES_PARAM_CUSTOM, 0, 0, NULL, arg, NULL, ARG(db), NULL, parse}

static int run_source(es_session *s, const es_command_args *a, int given)
{
    (void)given;
    static const es_source_kind kinds[] = {ES_SOURCE_SIGNAL, ES_SOURCE_FILE, ES_SOURCE_MIC};
    return es_session_set_source(s, kinds[a->choice]);
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

static int run_quit(es_session *s, const es_command_args *a, int given)
{
    (void)s;
    (void)a;
    (void)given;
    return 1;
}

#define NONE END

const es_command es_commands[] = {
    {"room", "crossfade to another room (name or IR file)", 1,
     {{"room", ES_PARAM_STRING, 0, 1023, NULL, "ROOM", NULL, ARG(text), NULL, NULL}, NONE, NONE},
     run_room},
    {"engine", "crossfade to another engine", 1,
     {ES_PARAM_ENGINE(es_command_args, engine), NONE, NONE}, run_engine},
    {"slot", "A/B: play slot A or B (no letter: the other), crossfaded; each "
     "slot holds a room, an engine and a block, and counts its own statistics", 0,
     {{"slot", ES_PARAM_CHOICE, 0, 0, NULL, "a|b", NULL, ARG(choice), "a|b", NULL}, NONE, NONE},
     run_slot},
    {"block", "reopen the stream at N frames (halve, double)", 1,
     {ES_PARAM_BLOCK(es_command_args, number), NONE, NONE}, run_block},
    {"partition", "new partition size (halve, double)", 1,
     {ES_PARAM_PARTITION(es_command_args, number), NONE, NONE}, run_partition},
    {"pipelined", "GPU pipelined mode (+1 block of latency)", 1,
     {{"pipelined", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_pipelined},
    {"raw", "a file room at its own level, or levelled (off)", 0,
     {{"raw", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_raw},
    {"mix", "wet, dry, output as linear gains, ramped", 3,
     {{"wet", ES_PARAM_DOUBLE, 0, ES_MIX_WET_MAX, NULL, "WET", NULL, ARG(mix[0]), NULL, NULL},
      {"dry", ES_PARAM_DOUBLE, 0, ES_MIX_DRY_MAX, NULL, "DRY", NULL, ARG(mix[1]), NULL, NULL},
      {"gain", ES_PARAM_DOUBLE, 0, ES_MIX_GAIN_MAX, NULL, "GAIN", NULL, ARG(mix[2]), NULL, NULL}},
     run_mix},
    {"trim", "input trim in dB, -24..+24 (1 dB)", 1,
     {DB_FIELD("trim", "DB", parse_trim), NONE, NONE}, run_trim},
    {"wet", "room level in dB or off (, . balance)", 1,
     {DB_FIELD("wet", "DB|off", parse_wet), NONE, NONE}, run_wet},
    {"dry", "dry level in dB or off (, . balance)", 1,
     {DB_FIELD("dry", "DB|off", parse_dry), NONE, NONE}, run_dry},
    {"gain", "output level in dB or off (1 dB)", 1,
     {DB_FIELD("gain", "DB|off", parse_gain), NONE, NONE}, run_gain},
    {"bypass", "the dry input alone, crossfaded; again: back", 0,
     {{"bypass", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, ARG(on), NULL, NULL}, NONE, NONE},
     run_bypass},
    {"limiter", "output safety limiter: off or ceiling dBFS", 1,
     {DB_FIELD("limiter", "off|DB", parse_ceiling), NONE, NONE}, run_limiter},
    {"source", "another input (the stream reopens)", 1,
     {{"source", ES_PARAM_CHOICE, 0, 0, NULL, "signal|file|mic", NULL, ARG(choice),
       "signal|file|mic", NULL}, NONE, NONE}, run_source},
    {"record", "record the output to OUT; again: stop", 0,
     {{"file", ES_PARAM_STRING, 0, 1023, NULL, "OUT", NULL, ARG(text), NULL, NULL}, NONE, NONE},
     run_record},
    {"reset", "reset the meters (misses, load, counts)", 0, {NONE, NONE, NONE}, run_reset},
    {"latency", "measure the round trip (output looped to the mic)", 0,
     {NONE, NONE, NONE}, run_latency},
    {"measure", "measure the room by sweep; B then plays it", 0,
     {{"seconds", ES_PARAM_DOUBLE, 0.1, ES_SWEEP_SECONDS_MAX, NULL, "T", NULL, ARG(mix[0]),
       NULL, NULL},
      {"level", ES_PARAM_DOUBLE, -80, 0, NULL, "DB", NULL, ARG(mix[1]), NULL, NULL},
      {"repeats", ES_PARAM_INT, 1, ES_SWEEP_REPEATS_MAX, NULL, "N", NULL, ARG(number), NULL, NULL}},
     run_measure},
    {"rescan", "read the room library again now", 0,
     {NONE, NONE, NONE}, run_rescan},
    {"head", "head orientation, degrees: yaw (left +), pitch (up +), roll; a SOFA room "
     "follows it (z x)", 1,
     {{"yaw", ES_PARAM_DOUBLE, -360, 360, NULL, "YAW", NULL, ARG(mix[0]), NULL, NULL},
      {"pitch", ES_PARAM_DOUBLE, -90, 90, NULL, "PITCH", NULL, ARG(mix[1]), NULL, NULL},
      {"roll", ES_PARAM_DOUBLE, -180, 180, NULL, "ROLL", NULL, ARG(mix[2]), NULL, NULL}},
     run_head},
    {"panic", "mute at once and clear every history (the engine is built again, "
     "empty)", 0, {NONE, NONE, NONE}, run_panic},
    {"unmute", "play again after a panic or a runaway", 0, {NONE, NONE, NONE}, run_unmute},
    {"quit", "stop (as Ctrl-C does)", 0, {NONE, NONE, NONE}, run_quit},
    {NULL, NULL, 0, {NONE, NONE, NONE}, NULL},
};

const es_command *es_command_find(const char *name)
{
    for (const es_command *c = es_commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int field_count(const es_command *c)
{
    int k = 0;
    while (k < ES_COMMAND_FIELDS && c->fields[k].name)
        k++;
    return k;
}

static void names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (const es_command *c = es_commands; c->name && used < n; c++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", c == es_commands ? "" : ", ",
                                 c->name);
}

int es_command_parse(char *buf, const es_command **cmd, es_command_args *args, int *given,
                     char *err, size_t n)
{
    err[0] = 0;
    *cmd = NULL;
    *given = 0;
    memset(args, 0, sizeof *args);
    for (char *c = buf; *c; c++)
        if ((unsigned char)*c < 0x20 && *c != '\t' && *c != '\r' && *c != '\n') {
            snprintf(err, n, "a command line with control characters; ignored");
            return -1;
        }
    buf[strcspn(buf, "\r\n")] = 0;
    char *word = buf + strspn(buf, " \t");
    if (!*word)
        return 0;
    char *rest = word + strcspn(word, " \t");
    if (*rest)
        *rest++ = 0;
    rest += strspn(rest, " \t");
    const es_command *c = es_commands;
    while (c->name && strcmp(c->name, word) != 0)
        c++;
    if (!c->name) {
        char list[256], mean[96];
        es_suggestion near = {0};
        for (const es_command *k = es_commands; k->name; k++)
            es_suggest_consider(&near, word, k->name);
        names(list, sizeof list);
        snprintf(err, n, "unknown command '%.40s'%s (%s)", word,
                 es_suggest_text(&near, "", mean, sizeof mean), list);
        return -1;
    }
    const int fields = field_count(c);
    for (int k = 0; k < fields; k++) {
        const es_param *f = &c->fields[k];
        char *value = rest;
        if (!*value) {
            if (k >= c->optional)
                break;
            snprintf(err, n, "%s needs %s", c->name, f->arg);
            return -1;
        }
        if (fields == 1 && f->type == ES_PARAM_STRING) {
            /* a file or room name: the rest of the line, spaces and all */
            char *end = rest + strlen(rest);
            while (end > rest && (end[-1] == ' ' || end[-1] == '\t'))
                *--end = 0;
            rest = end;
        } else {
            rest = value + strcspn(value, " \t");
            if (*rest)
                *rest++ = 0;
            rest += strspn(rest, " \t");
        }
        char label[64];
        if (fields == 1)
            snprintf(label, sizeof label, "%s", c->name);
        else
            snprintf(label, sizeof label, "%s %s", c->name, f->name);
        if (es_param_parse(f, label, value, args, err, n) != 0)
            return -1;
        (*given)++;
    }
    if (*rest) {
        snprintf(err, n, "%s: unexpected '%.40s' after its %s", c->name, rest,
                 fields ? "values" : "name");
        return -1;
    }
    *cmd = c;
    return 0;
}

int es_command_run(es_session *s, const char *line, char *err, size_t n)
{
    err[0] = 0;
    const size_t len = strlen(line);
    if (len > ES_COMMAND_LINE_MAX) {
        snprintf(err, n, "a command line of %zu characters: the most is %d; ignored", len,
                 ES_COMMAND_LINE_MAX);
        return -1;
    }
    char buf[ES_COMMAND_LINE_MAX + 1];
    memcpy(buf, line, len + 1);
    const es_command *c;
    es_command_args args;
    int given;
    if (es_command_parse(buf, &c, &args, &given, err, n) != 0)
        return -1;
    if (!c)
        return 0;
    const int rc = c->run(s, &args, given);
    return rc > 0 ? 1 : rc < 0 ? -1 : 0;
}

int es_command_vrunf(es_session *s, char *err, size_t n, const char *fmt, va_list ap)
{
    char line[ES_COMMAND_LINE_MAX + 2];
    const int len = vsnprintf(line, sizeof line, fmt, ap);
    if (len < 0 || len > ES_COMMAND_LINE_MAX) {
        snprintf(err, n, "a command line of more than %d characters; ignored",
                 ES_COMMAND_LINE_MAX);
        return -1;
    }
    return es_command_run(s, line, err, n);
}

void es_commands_help(FILE *to)
{
    for (const es_command *c = es_commands; c->name; c++) {
        char head[64];
        int used = snprintf(head, sizeof head, "%s", c->name);
        for (int k = 0; k < ES_COMMAND_FIELDS && c->fields[k].name; k++)
            used += snprintf(head + used, sizeof head - (size_t)used, k >= c->optional ? " [%s]" : " %s",
                             c->fields[k].arg);
        fprintf(to, "  %-24s %s\n", head, c->help);
    }
}
