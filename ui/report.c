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
 * two spaces apart, of those whose `optional` is 0 or under `cut`. */
static int line_with(const ui_meter *table, const es_live_snapshot *s, int tight, int cut,
                     char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (const ui_meter *m = table; m->name; m++) {
        char part[64];
        int (*form)(const es_live_snapshot *, char *, size_t) =
            tight && m->tight_text ? m->tight_text : m->short_text;
        if (!m->short_text || (m->optional && m->optional >= cut) || !form(s, part, sizeof part))
            continue;
        if (used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? "  " : "", part);
    }
    return (int)used;
}

void ui_meters_line(const ui_meter *table, const es_live_snapshot *s, char *out, int w)
{
    /* Every figure; without the optional ones of the highest rank; then
     * each rank down with the tight forms (the head's exchange alone, its
     * set being in the header). */
    static const struct {
        int tight, cut;
    } tries[] = {{0, 4}, {0, 3}, {1, 3}, {1, 2}, {1, 1}};
    char line[512];
    for (size_t k = 0; k < sizeof tries / sizeof *tries; k++)
        if (line_with(table, s, tries[k].tight, tries[k].cut, line, sizeof line) <= w)
            break;
    snprintf(out, (size_t)w + 1 > sizeof line ? sizeof line : (size_t)w + 1, "%s", line);
}
