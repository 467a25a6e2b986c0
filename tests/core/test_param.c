/* core/param.h on bad and edge input: every refusal is one line naming the
 * option and what is wrong, and nothing is stored; values at the limits
 * are taken. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/param.h"

typedef struct {
    int block, on, choice, flag;
    double gain;
    const char *name;
    es_int_list blocks;
} values;

static const es_param table[] = {
    {"block", ES_PARAM_INT, 16, 8192, "N", "frames", offsetof(values, block), NULL, NULL},
    {"gain", ES_PARAM_DOUBLE, 0, 16, "G", "gain", offsetof(values, gain), NULL, NULL},
    {"pipelined", ES_PARAM_ONOFF, 0, 1, "on|off", NULL, offsetof(values, on), NULL, NULL},
    {"source", ES_PARAM_CHOICE, 0, 0, "S", NULL, offsetof(values, choice), "signal|file|mic",
     NULL},
    {"name", ES_PARAM_STRING, 0, 32, "NAME", NULL, offsetof(values, name), NULL, NULL},
    {"blocks", ES_PARAM_INT_LIST, 16, 8192, "N,...", NULL, offsetof(values, blocks), NULL, NULL},
    {"headless", ES_PARAM_FLAG, 0, 1, NULL, NULL, offsetof(values, flag), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, 0, NULL, NULL},
};

static int failed;

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
    /* es_param_int_pair: A-B and A; everything else is 0. */
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
    printf("%s\n", failed ? "param: FAILED" : "param: all refusals one line, limits taken");
    return failed;
}
