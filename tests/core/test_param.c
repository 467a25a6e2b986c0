/* core/param.h on bad and edge input: every refusal is one line naming the
 * option and what is wrong, and nothing is stored; values at the limits
 * are taken. The defaults: es_params_defaults fills what each entry's
 * default text parses to (and nothing else), a default the entry refuses
 * is said, and the help shows each default with the entry it belongs to. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/param.h"

typedef struct {
    int block, on, choice, flag;
    double gain;
    const char *name;
    es_int_list blocks;
} values;

static const es_param table[] = {
    {"block", ES_PARAM_INT, 16, 8192, NULL, "N", "frames", offsetof(values, block), NULL, NULL},
    {"gain", ES_PARAM_DOUBLE, 0, 16, NULL, "G", "gain", offsetof(values, gain), NULL, NULL},
    {"pipelined", ES_PARAM_ONOFF, 0, 1, NULL, "on|off", NULL, offsetof(values, on), NULL, NULL},
    {"source", ES_PARAM_CHOICE, 0, 0, NULL, "S", NULL, offsetof(values, choice), "signal|file|mic",
     NULL},
    {"name", ES_PARAM_STRING, 0, 32, NULL, "NAME", NULL, offsetof(values, name), NULL, NULL},
    {"blocks", ES_PARAM_INT_LIST, 16, 8192, NULL, "N,...", NULL, offsetof(values, blocks), NULL,
     NULL},
    {"headless", ES_PARAM_FLAG, 0, 1, NULL, NULL, NULL, offsetof(values, flag), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

static int failed;

static void int_pairs(void);
static void defaults_filled(void);
static void default_refused(void);
static void help_shows_defaults(void);

/* `text` for `name` must be refused with `want` in the message, leaving
 * the stored value as it was. */
static void refused(const char *name, const char *text, const char *want)
{
    values v = {.block = 7, .gain = 7, .on = 7, .choice = 7};
    const values before = v;
    char err[256] = "";
    const es_param *p = es_param_find(table, name);
    const int rc = es_param_parse(p, name, text, &v, err, sizeof err);
    int printable = 1;
    for (const char *c = err; *c; c++)
        printable &= (unsigned char)*c >= 0x20;
    const int ok = rc != 0 && strstr(err, want) && printable && strlen(err) < 200 &&
                   !memcmp(&v, &before, sizeof v);
    printf("%s %s (%zu characters): %s\n", ok ? "ok  " : "FAIL", name, strlen(text), err);
    failed |= !ok;
}

static void taken(const char *name, const char *text)
{
    values v = {0};
    char err[256] = "";
    const int rc = es_param_parse(es_param_find(table, name), name, text, &v, err, sizeof err);
    printf("%s %s '%s' taken%s%s\n", rc == 0 ? "ok  " : "FAIL", name, text, rc ? ": " : "", err);
    failed |= rc != 0;
}

int main(void)
{
    static char huge[20001];
    memset(huge, '9', sizeof huge - 1);
    static char longname[40];
    memset(longname, 'a', sizeof longname - 1);
    refused("gain", "nan", "gain 'nan': not a number");
    refused("gain", "inf", "not a number");
    refused("gain", "-inf", "not a number");
    refused("gain", "1e400", "not a number");
    refused("gain", "16.0001", "gain 16.0001: out of range (0..16)");
    refused("gain", "", "not a number");
    refused("gain", "1.5x", "not a number");
    refused("block", huge, "not a whole number");
    refused("block", "99999999999999999999", "not a whole number");
    refused("block", "15", "block 15: out of range (16..8192)");
    refused("block", "-16", "out of range");
    refused("block", "", "not a whole number");
    refused("pipelined", "yes", "expected on or off");
    refused("source", "tape", "expected one of signal,file,mic");
    refused("source", "", "expected one of");
    refused("name", "", "empty");
    refused("name", "a\nb", "control characters");
    refused("name", "a\033[2Jb", "control characters");
    refused("name", longname, "longer than 32 characters");
    refused("blocks", "64,,128", "expected a value or a comma-separated list");
    refused("blocks", "64,8", "blocks 8: out of range");
    refused("blocks", "64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64", "at most 16 values");
    taken("gain", "0");
    taken("gain", "16");
    taken("block", "16");
    taken("block", "8192");
    taken("pipelined", "off");
    taken("source", "mic");
    taken("blocks", "64,128,256");

    /* argv: unknown options, a missing value, positional arguments. */
    char a0[] = "x", a1[] = "--blok", a2[] = "64", a3[] = "--block", a4[] = "in.wav";
    char *bad[] = {a0, a1, a2};
    char *missing[] = {a0, a3};
    char *extra[] = {a0, a4};
    values v = {0};
    char err[256];
    int help;
    const char *pos[1];
    int npos;
    int rc = es_params_parse_argv(table, 3, bad, &v, NULL, 0, NULL, &help, err, sizeof err);
    printf("%s argv: %s\n", rc && strstr(err, "unknown option '--blok'") ? "ok  " : "FAIL", err);
    failed |= !(rc && strstr(err, "unknown option '--blok'"));
    rc = es_params_parse_argv(table, 2, missing, &v, NULL, 0, NULL, &help, err, sizeof err);
    printf("%s argv: %s\n", rc && strstr(err, "--block needs a value") ? "ok  " : "FAIL", err);
    failed |= !(rc && strstr(err, "--block needs a value"));
    rc = es_params_parse_argv(table, 2, extra, &v, NULL, 0, NULL, &help, err, sizeof err);
    printf("%s argv: %s\n", rc && strstr(err, "unexpected argument 'in.wav'") ? "ok  " : "FAIL",
           err);
    failed |= !(rc && strstr(err, "unexpected argument"));
    rc = es_params_parse_argv(table, 2, extra, &v, pos, 1, &npos, &help, err, sizeof err);
    printf("%s argv: a positional argument kept\n", !rc && npos == 1 ? "ok  " : "FAIL");
    failed |= !(!rc && npos == 1 && !strcmp(pos[0], "in.wav"));
    int_pairs();
    defaults_filled();
    default_refused();
    help_shows_defaults();
    printf("%s\n", failed ? "param: FAILED" : "param: all refusals one line, limits taken");
    return failed;
}

/* es_param_int_pair: A-B and A; everything else is 0. */
static void int_pairs(void)
{
    static const struct {
        const char *text;
        int parts, a, b;
    } pairs[] = {{"3-4", 2, 3, 4}, {"7", 1, 7, 7}, {"128x64", 0, 0, 0}, {"0-0", 2, 0, 0},
                 {"", 0, 0, 0},    {"-", 0, 0, 0},  {"3-", 0, 0, 0},    {"-3", 0, 0, 0},
                 {"+3", 0, 0, 0},  {" 3", 0, 0, 0}, {"3-4-5", 0, 0, 0}, {"nan", 0, 0, 0},
                 {"1e9", 0, 0, 0}, {"3\x01", 0, 0, 0}, {"9999999999", 0, 0, 0},
                 {"1-99999999999999999999", 0, 0, 0}, {"123456789-2", 2, 123456789, 2}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        int a = -1, b = -1;
        const int parts = es_param_int_pair(pairs[k].text, '-', &a, &b);
        const int ok = parts == pairs[k].parts &&
                       (!parts || (a == pairs[k].a && b == pairs[k].b));
        printf("%s int pair '%s': %d (%d, %d)\n", ok ? "ok  " : "FAIL", pairs[k].text, parts, a,
               b);
        failed |= !ok;
    }
}

/* ---- defaults ---- */

/* CUSTOM: "xN" stores N doubled (a parser of the caller's own). */
static int parse_twice(const char *text, void *dst, char *why, size_t n)
{
    if (text[0] != 'x' || !text[1]) {
        snprintf(why, n, "not xN");
        return -1;
    }
    *(int *)dst = 2 * atoi(text + 1);
    return 0;
}

typedef struct {
    values v;
    int twice, untouched;
    es_double_list gains;
} with_defaults;

#define W(f) offsetof(with_defaults, f)
static const es_param defaulted[] = {
    {"block", ES_PARAM_INT, 16, 8192, "256", "N", "frames", W(v.block), NULL, NULL},
    {"gain", ES_PARAM_DOUBLE, 0, 16, "0.5", "G", "gain\non two lines", W(v.gain), NULL, NULL},
    {"pipelined", ES_PARAM_ONOFF, 0, 1, "on", "on|off", NULL, W(v.on), NULL, NULL},
    {"source", ES_PARAM_CHOICE, 0, 0, "mic", "S", NULL, W(v.choice), "signal|file|mic", NULL},
    {"name", ES_PARAM_STRING, 0, 32, "auto", "NAME", NULL, W(v.name), NULL, NULL},
    {"blocks", ES_PARAM_INT_LIST, 16, 8192, "64,128", "N,...", NULL, W(v.blocks), NULL, NULL},
    {"gains", ES_PARAM_DOUBLE_LIST, 0, 1, "0.25,1", "G,...", NULL, W(gains), NULL, NULL},
    {"twice", ES_PARAM_CUSTOM, 0, 0, "x21", "xN", "doubled", W(twice), NULL, parse_twice},
    {"headless", ES_PARAM_FLAG, 0, 1, NULL, NULL, "no screen", W(v.flag), NULL, NULL},
    {"untouched", ES_PARAM_INT, 0, 100, NULL, "N", "decided later", W(untouched), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failed |= !ok;
}

/* The table's defaults equal each default text parsed on its own, and the
 * values those texts say; an entry without one keeps what it held. */
static void defaults_filled(void)
{
    with_defaults got, want;
    memset(&got, 0, sizeof got);
    memset(&want, 0, sizeof want);
    got.untouched = want.untouched = 7;
    char err[256] = "";
    const int rc = es_params_defaults(defaulted, &got, err, sizeof err);
    check(rc == 0, "defaults: the table's defaults parse");
    for (const es_param *p = defaulted; p->name; p++)
        if (p->def && es_param_parse(p, p->name, p->def, &want, err, sizeof err) != 0)
            check(0, err);
    check(!memcmp(&got, &want, sizeof got), "defaults: as each default text parses");
    check(got.v.block == 256 && got.v.gain == 0.5 && got.v.on == 1 && got.v.choice == 2 &&
              !strcmp(got.v.name, "auto") && got.v.blocks.count == 2 &&
              got.v.blocks.v[1] == 128 && got.gains.count == 2 && got.gains.v[0] == 0.25 &&
              got.twice == 42,
          "defaults: the values the texts say, every type");
    check(got.v.flag == 0 && got.untouched == 7, "defaults: no default, the field left alone");
}

/* A default its own entry refuses is the table's mistake, said as a value
 * given to the option would be. */
static void default_refused(void)
{
    static const es_param bad[] = {
        {"block", ES_PARAM_INT, 16, 8192, "256", "N", NULL, offsetof(values, block), NULL, NULL},
        {"gain", ES_PARAM_DOUBLE, 0, 16, "loud", "G", NULL, offsetof(values, gain), NULL, NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
    };
    static const es_param flag[] = {
        {"headless", ES_PARAM_FLAG, 0, 1, "on", NULL, NULL, offsetof(values, flag), NULL, NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
    };
    values v = {0};
    char err[256] = "";
    int rc = es_params_defaults(bad, &v, err, sizeof err);
    printf("     %s\n", err);
    check(rc != 0 && strstr(err, "--gain default 'loud': not a number"),
          "defaults: a default the entry refuses is said, naming the option");
    rc = es_params_defaults(flag, &v, err, sizeof err);
    printf("     %s\n", err);
    check(rc != 0 && strstr(err, "--headless") && v.flag == 0,
          "defaults: a flag given a default is refused (it is off until given)");
}

/* Entry `name`'s lines in the help: from "  --name" to the next entry. */
static void entry_of(const char *help, const char *name, char *out, size_t n)
{
    char head[64];
    snprintf(head, sizeof head, "  --%s ", name);
    const char *at = strstr(help, head);
    if (!at) {
        snprintf(head, sizeof head, "  --%s\n", name);
        at = strstr(help, head);
    }
    const char *end = at ? strstr(at + 1, "\n  --") : NULL;
    const size_t len = !at ? 0 : end ? (size_t)(end - at) : strlen(at);
    snprintf(out, n, "%.*s", (int)len, at ? at : "");
}

/* Each default in the help, in its own entry ("(16..8192; default 256)"),
 * and no default where an entry has none. */
static void help_shows_defaults(void)
{
    FILE *f = tmpfile();
    es_params_help(defaulted, f);
    static char help[8192];
    rewind(f);
    help[fread(help, 1, sizeof help - 1, f)] = 0;
    fclose(f);
    fputs(help, stdout);
    for (const es_param *p = defaulted; p->name; p++) {
        char entry[1024], shown[96], what[160];
        entry_of(help, p->name, entry, sizeof entry);
        snprintf(shown, sizeof shown, "default %s)", p->def ? p->def : "");
        const int has = strstr(entry, shown) != NULL, any = strstr(entry, "default") != NULL;
        snprintf(what, sizeof what, "help: --%s %s", p->name,
                 p->def ? "shows its default" : "shows no default");
        check(entry[0] && (p->def ? has : !any), what);
    }
    check(strstr(help, "frames (16..8192; default 256)\n") != NULL,
          "help: the range and the default together");
    check(strstr(help, "on two lines (0..16; default 0.5)\n") != NULL,
          "help: after the entry's last line");
}
