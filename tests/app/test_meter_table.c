/* The meter table drives every view of a figure (ui/meter.h): a meter
 * added as one row of a table shows in the JSON report under its key, in
 * the text report as its line, on the meters panel's line of short
 * figures, and in the help's definitions, with nothing else written for
 * it. The snapshot comes from a real session on the null device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keys.h"
#include "meter.h"
#include "session.h"

/* The dummy: how many blocks the stream has played, times two. */
static void dummy_json(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "%llu", 2ULL * (unsigned long long)s->stats.blocks);
}

static void dummy_text(const es_live_snapshot *s, FILE *to)
{
    fprintf(to, "  dummy       %llu double blocks\n", 2ULL * (unsigned long long)s->stats.blocks);
}

static int dummy_short(const es_live_snapshot *s, char *out, size_t n)
{
    snprintf(out, n, "dbl %llu", 2ULL * (unsigned long long)s->stats.blocks);
    return 1;
}

static const ui_meter dummy = {"dummy", "blocks", "dummy_blocks",
                               "a meter a test added: the blocks played, twice",
                               dummy_json, dummy_text, dummy_short, 1, NULL};

static void quiet(void *ctx, int problem, const char *line)
{
    (void)ctx;
    if (problem)
        printf("     session: %s\n", line);
}

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

int main(void)
{
    /* The shipped table with the dummy added at its end. */
    int rows = 0;
    while (ui_meters[rows].name)
        rows++;
    ui_meter *table = calloc((size_t)rows + 2, sizeof *table);
    memcpy(table, ui_meters, sizeof *table * (size_t)rows);
    table[rows] = dummy;

    es_session_config cfg = {.device = "null", .rate = 48000, .crossfade_ms = 50,
                             .mix = {.wet = 1, .gain = 1}};
    cfg.slot[ES_SLOT_A] = (es_play_spec){.engine = es_engine_find("cpu-partitioned"),
                                         .block = 256};
    char err[512];
    es_session *s = es_session_open(&cfg, quiet, NULL, err, sizeof err);
    if (!s) {
        printf("FAIL open: %s\n", err);
        return 1;
    }
    const struct timespec nap = {0, 100000000};
    for (int k = 0; k < 5; k++) {
        nanosleep(&nap, NULL);
        es_session_poll(s);
    }
    const es_live_snapshot *snap = es_session_snapshot(s);
    char want[64];
    snprintf(want, sizeof want, "%llu", 2ULL * (unsigned long long)snap->stats.blocks);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ui_report_json(table, snap, f);
    fclose(f);
    char key[96];
    snprintf(key, sizeof key, "\"dummy_blocks\":%s", want);
    check(strstr(text, key) && strstr(text, "\"misses\":"),
          "the JSON report has the dummy's key and value, and the shipped ones");
    free(text);

    f = open_memstream(&text, &len);
    ui_report_text(table, snap, f);
    fclose(f);
    check(strstr(text, "  dummy       ") && strstr(text, want) && strstr(text, "  DSP load"),
          "the text report has the dummy's line, after the shipped ones");
    free(text);

    char line[256];
    ui_meters_line(table, snap, line, 200);
    snprintf(key, sizeof key, "dbl %s", want);
    check(strstr(line, key) && strstr(line, "xruns"), "the meters panel's line of figures has it");
    /* "xruns 0  stalls 0" (17) fits in 20 columns; with "  dbl N" it does not. */
    ui_meters_line(table, snap, line, 20);
    printf("     at 20 columns: '%s'\n", line);
    check(!strstr(line, "dbl") && strstr(line, "xruns"),
          "  and, being optional, is left out of a narrow line where the required ones stay");

    static char help[UI_HELP_CAP][UI_HELP_W];
    const int n = ui_help_lines_with(table, help);
    int found = 0;
    for (int k = 0; k < n; k++)
        found |= !strncmp(help[k], "dummy ", 6) && strstr(help[k], "a meter a test added");
    check(found, "the help defines it");

    es_session_stop(s);
    es_session_close(s);
    free(table);
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
