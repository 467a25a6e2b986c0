/* The reports (report.h), and the meters panel's line of short figures,
 * made from a meter table (meter.h): every row with a JSON key is a key
 * of the JSON report, every row with text lines is in the text report,
 * in the table's order. */
#include <stdio.h>
#include <string.h>

#include "meter.h"
#include "report.h"

void ui_report_json(const ui_meter *table, const es_live_snapshot *s, FILE *to)
{
    int first = 1;
    fputc('{', to);
    for (const ui_meter *m = table; m->name; m++) {
        if (!m->json || !m->json_value)
            continue;
        fprintf(to, "%s\"%s\":", first ? "" : ",", m->json);
        m->json_value(s, to);
        first = 0;
    }
    fputs("}\n", to);
}

void ui_report_text(const ui_meter *table, const es_live_snapshot *s, FILE *to)
{
    for (const ui_meter *m = table; m->name; m++)
        if (m->text_lines)
            m->text_lines(s, to);
}

void es_report_write(const es_live_snapshot *snap, FILE *to, int json)
{
    if (json)
        ui_report_json(ui_meters, snap, to);
    else
        ui_report_text(ui_meters, snap, to);
}

/* The line's words: each meter's short form (its tight one where `tight`),
 * two spaces apart; `skip` leaves out the optional ones from the end (the
 * first `skip` found from the end). */
static int line_with(const ui_meter *table, const es_live_snapshot *s, int tight, int skip,
                     char *out, size_t n)
{
    int optional = 0;
    for (const ui_meter *m = table; m->name; m++)
        optional += m->short_text && m->optional;
    size_t used = 0;
    int seen = 0;
    out[0] = 0;
    for (const ui_meter *m = table; m->name; m++) {
        char part[64];
        int (*form)(const es_live_snapshot *, char *, size_t) =
            tight && m->tight_text ? m->tight_text : m->short_text;
        if (!m->short_text || !form(s, part, sizeof part))
            continue;
        if (m->optional && seen++ >= optional - skip)
            continue;
        if (used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "  " : "", part);
    }
    return (int)used;
}

void ui_meters_line(const ui_meter *table, const es_live_snapshot *s, char *out, int w)
{
    char line[512];
    int fits = line_with(table, s, 0, 0, line, sizeof line) <= w;
    for (int skip = 0; !fits && skip < 8; skip++)
        fits = line_with(table, s, 1, skip, line, sizeof line) <= w;
    snprintf(out, (size_t)w + 1 > sizeof line ? sizeof line : (size_t)w + 1, "%s", line);
}
