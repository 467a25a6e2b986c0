/* What /earshot/get answers (osc_values.h): a row per value, each added
 * to the reply as OSC's types carry it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "figures.h"
#include "osc_values.h"

/* A level in dB, or "off". */
static void add_db(lo_message m, double linear)
{
    if (linear > 0)
        lo_message_add_float(m, (float)(20 * log10(linear)));
    else
        lo_message_add_string(m, "off");
}

static void get_room(es_session *s, lo_message m) { lo_message_add_string(m, es_session_wanted(s)->room); }
static void get_engine(es_session *s, lo_message m) { lo_message_add_string(m, es_session_wanted(s)->engine->name); }
static void get_slot(es_session *s, lo_message m) { lo_message_add_string(m, es_session_wanted_slot(s) ? "b" : "a"); }
static void get_block(es_session *s, lo_message m) { lo_message_add_int32(m, es_session_wanted(s)->block); }
static void get_partition(es_session *s, lo_message m) { lo_message_add_int32(m, es_session_wanted(s)->options.partition); }
static void get_pipelined(es_session *s, lo_message m) { lo_message_add_string(m, es_session_wanted(s)->options.gpu_pipelined ? "on" : "off"); }
static void get_raw(es_session *s, lo_message m) { lo_message_add_string(m, es_session_wanted(s)->raw ? "on" : "off"); }
static void get_level(es_session *s, lo_message m) { lo_message_add_float(m, (float)es_session_wanted(s)->level_db); }
static void get_trim(es_session *s, lo_message m) { lo_message_add_float(m, es_session_mix(s)->trim_db); }
static void get_wet(es_session *s, lo_message m) { add_db(m, es_session_mix(s)->wet); }
static void get_dry(es_session *s, lo_message m) { add_db(m, es_session_mix(s)->dry); }
static void get_gain(es_session *s, lo_message m) { add_db(m, es_session_mix(s)->gain); }
static void get_bypass(es_session *s, lo_message m) { lo_message_add_string(m, es_session_mix(s)->bypass ? "on" : "off"); }
static void get_source(es_session *s, lo_message m) { lo_message_add_string(m, es_source_word(es_session_wanted(s)->source)); }
static void get_pitch(es_session *s, lo_message m) { lo_message_add_float(m, es_session_snapshot(s)->head.pitch); }
static void get_roll(es_session *s, lo_message m) { lo_message_add_float(m, es_session_snapshot(s)->head.roll); }
static void get_latency(es_session *s, lo_message m) { lo_message_add_string(m, es_session_snapshot(s)->latency_text); }

static void get_mix(es_session *s, lo_message m)
{
    const es_mix *x = es_session_mix(s);
    lo_message_add_float(m, x->wet);
    lo_message_add_float(m, x->dry);
    lo_message_add_float(m, x->gain);
}

static void get_limiter(es_session *s, lo_message m)
{
    const es_mix *x = es_session_mix(s);
    if (x->limiter)
        lo_message_add_float(m, x->ceiling_db);
    else
        lo_message_add_string(m, "off");
}

static void get_record(es_session *s, lo_message m)
{
    const es_live_snapshot *snap = es_session_snapshot(s);
    lo_message_add_string(m, snap->recording ? snap->record_path : "");
}

static void get_head(es_session *s, lo_message m)
{
    const es_live_snapshot *snap = es_session_snapshot(s);
    lo_message_add_float(m, snap->head.yaw);
    lo_message_add_float(m, snap->head.pitch);
    lo_message_add_float(m, snap->head.roll);
}

/* The figures, as the meters send them (those a blind test hides left out). */
static void get_meters(es_session *s, lo_message m)
{
    const int blind = es_session_blind(s);
    for (const es_figure *f = es_figures; f->name; f++) {
        if (blind && f->reveals)
            continue;
        lo_message_add_string(m, f->name);
        if (f->integer)
            lo_message_add_int32(m, (int32_t)f->value(es_session_snapshot(s)));
        else
            lo_message_add_float(m, (float)f->value(es_session_snapshot(s)));
    }
}

/* The listening test's state: running (1/0), the trial, of how many, its
 * kind and the labels it has; nothing that names a stimulus. */
static void get_test(es_session *s, lo_message m)
{
    es_test_view v;
    es_session_test_view(s, &v);
    lo_message_add_int32(m, v.running);
    lo_message_add_int32(m, v.trial);
    lo_message_add_int32(m, v.trials);
    lo_message_add_string(m, v.kind);
    lo_message_add_string(m, v.labels);
    lo_message_add_string(m, v.hearing);
}

static const struct {
    const char *name;
    int reveals;               /* hidden while a blind test runs */
    void (*add)(es_session *s, lo_message m);
} gets[] = {
    {"room", 1, get_room}, {"engine", 1, get_engine}, {"slot", 1, get_slot},
    {"block", 1, get_block}, {"partition", 1, get_partition},
    {"pipelined", 1, get_pipelined}, {"raw", 1, get_raw}, {"level", 1, get_level},
    {"mix", 0, get_mix}, {"trim", 0, get_trim}, {"wet", 0, get_wet}, {"dry", 0, get_dry},
    {"gain", 0, get_gain}, {"bypass", 0, get_bypass}, {"limiter", 0, get_limiter},
    {"source", 0, get_source}, {"record", 0, get_record}, {"head", 0, get_head},
    {"pitch", 0, get_pitch}, {"roll", 0, get_roll}, {"latency", 1, get_latency},
    {"meters", 0, get_meters}, {"test", 0, get_test},
};

void es_osc_value_names(char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t k = 0; k < sizeof gets / sizeof *gets && used < n; k++)
        used += (size_t)snprintf(out + used, n - used, "%s%s", k ? ", " : "", gets[k].name);
}

int es_osc_value(es_session *s, const char *name, lo_message m, char *why, size_t n)
{
    for (size_t k = 0; k < sizeof gets / sizeof *gets; k++) {
        if (strcmp(gets[k].name, name) != 0)
            continue;
        if (gets[k].reveals && es_session_blind(s)) {
            snprintf(why, n, "get %s: hidden while a blind test runs", name);
            return -1;
        }
        gets[k].add(s, m);
        return 0;
    }
    char list[400], safe[64];
    es_osc_value_names(list, sizeof list);
    snprintf(why, n, "get %s: no such value (%s)", es_text_escape(safe, sizeof safe, name),
             list);
    return -1;
}

