/* The header: its first row the stream (block, latency with its parts,
 * rate, source and device; a flag before it when the device is not
 * playing, the output is muted, or a sweep plays), its second the room,
 * the engine, the head, the levels, how long the stream has played, and a
 * recording's time. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "layout.h"
#include "panel.h"

/* A level in whole dB for the header: "off", "-6", "+0" (sign: with_plus). */
static void short_db(float linear, int with_plus, char *out, size_t n)
{
    if (linear <= 0)
        snprintf(out, n, "off");
    else
        snprintf(out, n, with_plus ? "%+.0f" : "%.0f", round(20 * log10(linear)) + 0.0);
}

/* A room as the header names it: a file by its base name (the list marks
 * it [file]), a library room by its name. */
static const char *room_label(const char *room)
{
    const char *slash = strrchr(room, '/');
    return slash ? slash + 1 : room;
}

/* The header's first row: block, latency, rate, source and device; the
 * device's state over it when it is not playing. */
static void header_stream(const es_live_snapshot *s, const ui_rect *r)
{
    /* A server whose period is longer than the block (JACK's own, or a
     * PipeWire quantum another client forced): said beside the block, as
     * it is what the latency counts. */
    char period[32] = "", line[2048], flag[64] = "";
    if (s->latency.period > s->playing.block)
        snprintf(period, sizeof period, " (period %d)", s->latency.period);
    /* Where the eye starts: the meters are stale, or nothing is heard. The
     * flag comes first and the stream's line after it, never over it (a
     * word drawn over the line left "device lost ck 128"). */
    if (s->device_state != ES_DEVICE_PLAYING)
        snprintf(flag, sizeof flag, " %s ", es_device_state_word(s->device_state));
    else if (s->stats.muted)
        snprintf(flag, sizeof flag, " MUTED (%s): ! plays again ",
                 s->stats.muted == 2 ? "panic" : "runaway");
    else if (s->stats.freewheeling) /* an export: faster than real time, no deadline */
        snprintf(flag, sizeof flag, " FREEWHEEL ");
    else if (s->measuring && s->measure_share < 1) /* a sweep plays: the room is not heard */
        snprintf(flag, sizeof flag, " MEASURING %d/%d %.0f%% ", s->measure_pass,
                 s->measure_passes, 100 * s->measure_share);
    else if (s->measuring)
        snprintf(flag, sizeof flag, " MEASURING: analysing ");
    const int at = (int)strlen(flag);
    attron(A_REVERSE | A_BOLD);
    mvhline(r->y, r->x, ' ', r->w);
    /* The latency first: a long device name may run off the edge. Its
     * parts go inside its brackets, in words where the whole line fits
     * ("latency 13.33 ms (640 fr = 128 in + 256 earshot + 256 out)"), else
     * in figures ("(640 = 128 in+256+256 out)": in, earshot's own, out),
     * which keep them at 80 columns on JACK. */
    char forms[2][360];
    const es_latency_parts *lp = &s->latency;
    snprintf(forms[0], sizeof forms[0], "%s", s->latency_text);
    snprintf(forms[1], sizeof forms[1], "%s", s->latency_text);
    const size_t close = strlen(s->latency_text);
    if (s->latency_parts[0] && close > 0 && s->latency_text[close - 1] == ')') {
        char in[24] = "";
        if (lp->input_counts)
            snprintf(in, sizeof in, "%d in+", lp->input);
        snprintf(forms[0] + close - 1, sizeof forms[0] - close + 1, " = %s)", s->latency_parts);
        snprintf(forms[1], sizeof forms[1], "%.*s (%d = %s%d+%d out)",
                 (int)(strchr(s->latency_text, '(') ? strchr(s->latency_text, '(') -
                                                          s->latency_text - 1
                                                    : (long)close),
                 s->latency_text, lp->total, in, lp->engine + lp->inside, lp->output);
    }
    /* Then, as the width asks: the parts in figures, then the program's
     * name left out; every figure stays, and what does not fit at the end
     * (the device's name) is cut, said by "...". */
    for (int form = 0; form < 3; form++) {
        snprintf(line, sizeof line, "%s  block %d%s  latency %s  %g kHz  %s > %s",
                 form < 2 ? " earshot" : "", s->playing.block, period, forms[form > 0],
                 s->rate / 1e3, s->source, s->device);
        if ((int)strlen(line) + at <= r->w)
            break;
    }
    if (at < r->w)
        ui_put(r, 0, at, line);
    attroff(A_REVERSE | A_BOLD);
    if (at) {
        attron(COLOR_PAIR(UI_BAD) | A_BOLD | A_REVERSE);
        ui_put(r, 0, 0, flag);
        attroff(COLOR_PAIR(UI_BAD) | A_BOLD | A_REVERSE);
    }
}

/* While recording, REC and its time (or why it failed). */
static void recording_text(const es_live_snapshot *s, char *rec, size_t n)
{
    rec[0] = 0;
    if (s->recording && s->record_failed)
        snprintf(rec, n, "  REC FAILED: %s", s->record_failed);
    else if (s->recording)
        snprintf(rec, n, "  REC %.1f s", (double)s->recorded_frames / s->rate);
}

static void draw_header(ui_model *m, const ui_rect *r)
{
    const es_live_snapshot *s = m->snap;
    header_stream(s, r);
    /* The levels after the room and engine, the room's name shortened so
     * they always show: "trim -6 wet 0 dry off out +0 dB BYPASS NO LIMIT". */
    const es_mix *mx = &s->mix;
    char wet[16], dry[16], out[16], tail[160], rec[48], line[768];
    short_db(mx->wet, 0, wet, sizeof wet);
    short_db(mx->dry, 0, dry, sizeof dry);
    short_db(mx->gain, 1, out, sizeof out);
    /* The limiter at its default ceiling (on wherever a person listens)
     * goes without saying; another ceiling, or none, is said. */
    char limit[24] = "";
    if (!mx->limiter)
        snprintf(limit, sizeof limit, " NO LIMIT");
    else if (mx->ceiling_db != (float)ES_LIMITER_DEFAULT_DB)
        snprintf(limit, sizeof limit, " LIMIT %.0f", (double)mx->ceiling_db);
    /* A room that follows the head: the yaw, and the set playing (or the
     * field's order, which turns every block). */
    char head[48] = "";
    if (s->head.sets > 0 && s->head.set >= 0)
        snprintf(head, sizeof head, " | head %.0f set %d/%d", s->head.yaw, s->head.set + 1,
                 s->head.sets);
    else if (s->head.field_order > 0)
        snprintf(head, sizeof head, " | head %.0f field %d", s->head.yaw, s->head.field_order);
    snprintf(tail, sizeof tail, "engine %s%s | trim %s%.0f wet %s dry %s out %s dB%s%s",
             s->stats.engine, head, mx->trim_db > 0 ? "+" : "", round(mx->trim_db) + 0.0, wet,
             dry, out, mx->bypass ? " BYPASS" : "", limit);
    recording_text(s, rec, sizeof rec);
    const int rec_w = rec[0] ? ((int)strlen(rec) > 13 ? (int)strlen(rec) : 13) : 0;
    /* Where the room's name would get under 4 letters it is left out (the
     * room list marks it playing); while recording, REC keeps its place. */
    const int room_w = r->w - 10 - (int)strlen(tail) - rec_w;
    if (room_w >= 4)
        snprintf(line, sizeof line, " room %.*s | %s", room_w, room_label(s->playing.room), tail);
    else
        snprintf(line, sizeof line, " %s", tail);
    ui_put(r, 1, 0, line);
    /* How long the stream has played, to a tenth: it moves on every other
     * redraw, so a screen that stopped drawing shows it. */
    snprintf(line, sizeof line, "up %.1f s", s->elapsed);
    const int at = r->w - (int)strlen(line) - 1 - rec_w;
    if (at > getcurx(stdscr) + 1)
        ui_put(r, 1, at, line);
    if (rec[0]) {
        attron(COLOR_PAIR(UI_BAD) | A_BOLD);
        addnstr(rec, r->w - getcurx(stdscr));
        attroff(COLOR_PAIR(UI_BAD) | A_BOLD);
    }
}

const ui_panel ui_header_panel = {
    .name = "header",
    .area = UI_AREA_HEADER,
    .draw = draw_header,
};
