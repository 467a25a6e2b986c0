/* The meters panel, from the session's snapshot: DSP load with a
 * scrolling history, the A/B slots' figures, the line of short figures
 * (the meter table's: xruns, stalls, wake, throughput, the GPU's time),
 * and the levels with held peaks and clip hold. What the panel remembers
 * between snapshots (the history, misses lately, the holds) is
 * ui_meter_memory. A click on an A/B slot's row plays that slot. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "layout.h"
#include "messages.h"
#include "meter.h"
#include "panel.h"
#include "slots.h"

#define CLIP_HOLD_S 2.0
#define LEVEL_FLOOR_DB -60.0

static const char spark[] = " .:-=+*#%@"; /* one-row history, low to high */

/* The worst block since `from` (a block number), exactly, from the
 * processor's ring of per-block loads; when more blocks passed than the
 * ring holds, the worst of those it still holds. */
static double worst_since(const es_stats *s, uint64_t from)
{
    if (s->blocks > ES_LOAD_RECENT && from < s->blocks - ES_LOAD_RECENT)
        from = s->blocks - ES_LOAD_RECENT;
    double worst = 0;
    for (uint64_t b = from; b < s->blocks; b++) {
        const double v = s->load_recent[b % ES_LOAD_RECENT];
        worst = v > worst ? v : worst;
    }
    return worst;
}

/* A slot's history: the worst block of each UI_HISTORY_PERIOD it played;
 * emptied when the slot's statistics start again (another room, engine or
 * block, or the meters cleared). */
static void history_update(ui_model *m, int k, double worst)
{
    ui_history *h = &m->meters.history[k];
    const es_live_snapshot *s = m->snap;
    if (h->generation != s->slot[k].generation) {
        h->len = h->at = 0;
        h->pending = 0;
        h->pushed_at = m->now;
        h->generation = s->slot[k].generation;
    }
    if (s->playing_slot != k)
        return;
    h->pending = worst > h->pending ? worst : h->pending;
    if (m->now - h->pushed_at >= UI_HISTORY_PERIOD) {
        h->load[h->at] = (float)h->pending;
        h->at = (h->at + 1) % UI_HISTORY;
        h->len += h->len < UI_HISTORY;
        h->pending = 0;
        h->pushed_at = m->now;
    }
}

/* Misses lately: the count now minus the count UI_MISS_WINDOW ago. */
static void misses_update(ui_meter_memory *mm, double now, uint64_t misses, int restarted)
{
    if (restarted)
        mm->miss_len = 0;
    mm->miss_times[mm->miss_at] = now;
    mm->miss_counts[mm->miss_at] = misses;
    mm->miss_at = (mm->miss_at + 1) % UI_HISTORY;
    if (mm->miss_len < UI_HISTORY)
        mm->miss_len++;
    int oldest = (mm->miss_at - mm->miss_len + UI_HISTORY) % UI_HISTORY;
    while (mm->miss_len > 1 && now - mm->miss_times[oldest] > UI_MISS_WINDOW) {
        oldest = (oldest + 1) % UI_HISTORY;
        mm->miss_len--;
    }
    mm->misses_lately = misses - mm->miss_counts[oldest];
}

/* Each frame: the meters' memory from the new snapshot. */
static void meters_update(ui_model *m)
{
    ui_meter_memory *mm = &m->meters;
    const es_stats *s = &m->snap->stats;
    const int restarted = s->blocks < mm->last_blocks; /* reset, or the stream reopened */
    mm->load_now = worst_since(s, restarted ? 0 : mm->load_seen);
    mm->load_seen = s->blocks;
    for (int k = 0; k < ES_AB_SLOTS; k++)
        history_update(m, k, mm->load_now);
    misses_update(mm, m->now, s->misses, restarted);
    /* CLIP and LIM light when their counts rise, and hold for a while. */
    if (s->clipped > mm->last_clipped && !restarted)
        mm->clip_out_until = m->now + CLIP_HOLD_S;
    if (s->limited > mm->last_limited && !restarted)
        mm->limit_until = m->now + CLIP_HOLD_S;
    for (int c = 0; c < s->inputs && c < ES_METER_CHANNELS; c++)
        if (s->in_hold[c] >= 1.0f)
            mm->clip_in_until = m->now + CLIP_HOLD_S;
    if (s->bad_input > mm->last_bad_input && !restarted)
        mm->bad_in_until = m->now + CLIP_HOLD_S;
    if (s->bad_output > mm->last_bad_output && !restarted)
        mm->bad_out_until = m->now + CLIP_HOLD_S;
    mm->last_bad_input = s->bad_input;
    mm->last_bad_output = s->bad_output;
    mm->last_blocks = s->blocks;
    mm->last_misses = s->misses;
    mm->last_clipped = s->clipped;
    mm->last_limited = s->limited;
}

static int load_colour(double load)
{
    return load < 0.5 ? UI_GOOD : load < 0.8 ? UI_WARN : UI_BAD;
}

static void bar(int y, int x, int w, double fill, int colour)
{
    const int n = fill <= 0 ? 0 : fill >= 1 ? w : (int)(fill * w + 0.5);
    mvaddch(y, x, '[');
    attron(COLOR_PAIR(colour));
    for (int i = 0; i < w; i++)
        mvaddch(y, x + 1 + i, i < n ? '#' : ' ');
    attroff(COLOR_PAIR(colour));
    mvaddch(y, x + 1 + w, ']');
}

/* The levels' scale: the bar spans LEVEL_FLOOR_DB..0 dBFS, with ticks. */
static const double level_ticks[] = {-40, -20, -6};
static const double level_labels[] = {-60, -40, -20, -6, 0};

static int level_at(double db, int w)
{
    const int at = (int)((db - LEVEL_FLOOR_DB) / -LEVEL_FLOOR_DB * w);
    return at < 0 ? 0 : at >= w ? w - 1 : at;
}

/* The width of a level row's numbers: one decimal where the panel is wide. */
static int level_text_w(const ui_rect *r)
{
    return r->w >= 50 ? 19 : 15;
}

/* The bar's width: the label, the brackets, the numbers and the mark's
 * five reserved columns (" CLIP") take the rest, so nothing overlaps. */
static int level_bar_w(const ui_rect *r)
{
    return r->w - 6 - 2 - level_text_w(r) - 5;
}

/* One channel: RMS as the bar, the held peak as '|', ticks at -40, -20 and
 * -6 dB, the numbers after it, and in the last columns, kept for it, CLIP
 * (beyond full scale lately) or LIM (the limiter acted lately). */
static void level(const ui_rect *r, int row, const char *label, float rms, float hold,
                  int mark)
{
    const double rms_db = rms > 0 ? 20 * log10(rms) : -INFINITY;
    const double pk_db = hold > 0 ? 20 * log10(hold) : -INFINITY;
    const int y = r->y + row, w = level_bar_w(r);
    if (w < 4)
        return;
    mvaddnstr(y, r->x, label, 6);
    const double fill = (rms_db - LEVEL_FLOOR_DB) / -LEVEL_FLOOR_DB;
    const int n = fill <= 0 ? 0 : fill >= 1 ? w : (int)(fill * w + 0.5);
    const int colour = rms_db > -6 ? UI_BAD : rms_db > -18 ? UI_WARN : UI_GOOD;
    mvaddch(y, r->x + 6, '[');
    for (int i = 0; i < w; i++) {
        int tick = 0;
        for (size_t k = 0; k < sizeof level_ticks / sizeof level_ticks[0]; k++)
            tick |= level_at(level_ticks[k], w) == i;
        if (i < n) {
            attron(COLOR_PAIR(colour));
            mvaddch(y, r->x + 7 + i, '#');
            attroff(COLOR_PAIR(colour));
        } else {
            mvaddch(y, r->x + 7 + i, tick ? ':' : ' ');
        }
    }
    mvaddch(y, r->x + 7 + w, ']');
    if (pk_db > LEVEL_FLOOR_DB)
        mvaddch(y, r->x + 7 + level_at(pk_db, w), '|');
    char text[64];
    if (!isfinite(rms) || !isfinite(hold)) /* never shown as silence */
        snprintf(text, sizeof text, " pk %s rms %s", isfinite(hold) ? "ok" : "NaN",
                 isfinite(rms) ? "ok" : "NaN");
    else if (level_text_w(r) == 19)
        snprintf(text, sizeof text, " pk %5.1f rms %5.1f", pk_db < -99 ? -99.9 : pk_db,
                 rms_db < -99 ? -99.9 : rms_db);
    else
        snprintf(text, sizeof text, " pk %3.0f rms %3.0f", pk_db < -99 ? -99.0 : pk_db,
                 rms_db < -99 ? -99.0 : rms_db);
    mvaddnstr(y, r->x + 8 + w, text, level_text_w(r));
    if (mark) {
        /* 1 CLIP, 2 LIM, 3 NaN: samples that were not numbers, silenced */
        static const char *const marks[] = {"", "CLIP", "LIM", "NaN"};
        const int colour = mark == 2 ? UI_WARN : UI_BAD;
        attron(COLOR_PAIR(colour) | A_BOLD | A_REVERSE);
        mvaddstr(y, r->x + r->w - 4, marks[mark]);
        attroff(COLOR_PAIR(colour) | A_BOLD | A_REVERSE);
    }
}

/* The levels' dB labels under the bars, each where its tick is. */
static void level_scale(const ui_rect *r, int row)
{
    const int w = level_bar_w(r);
    if (w < 4)
        return;
    int free_from = r->x + 7;
    for (size_t k = 0; k < sizeof level_labels / sizeof level_labels[0]; k++) {
        char text[8];
        const int len = snprintf(text, sizeof text, "%.0f", level_labels[k]);
        int x = r->x + 7 + level_at(level_labels[k], w) - (k ? len - 1 : 0);
        if (x < free_from)
            continue; /* no room beside the one before */
        mvaddstr(r->y + row, x, text);
        free_from = x + len + 1;
    }
    mvaddstr(r->y + row, r->x + 8 + w, " dBFS");
}

/* The slot the panel's figures are for: the one playing alone, or while
 * crossfading the one changes go to. */
static int shown_slot(const es_live_snapshot *s)
{
    return s->playing_slot >= 0 ? s->playing_slot : s->active_slot;
}

/* One column of the history, `rows` high, for a load v. */
static void history_column(int y, int x, int rows, double v)
{
    static const char part[] = " _-=#"; /* a cell a quarter, half, ... full */
    if (rows == 1) {
        int q = (int)ceil(v * (sizeof spark - 2));
        q = q < 0 ? 0 : q > (int)sizeof spark - 2 ? (int)sizeof spark - 2 : q;
        mvaddch(y, x, spark[q]);
        return;
    }
    const double cells = (v > 1 ? 1 : v) * rows;
    for (int q = 0; q < rows; q++) {
        const double in_cell = cells - q; /* of this cell, from the bottom */
        const int shade = in_cell >= 1 ? 4 : in_cell <= 0 ? 0 : (int)ceil(in_cell * 4);
        mvaddch(y + rows - 1 - q, x, part[shade]);
    }
}

/* The playing slot's load over the last seconds (each column the worst
 * block of UI_HISTORY_PERIOD), newest on the right: one row of shades, or
 * columns of '#' whose top cell shows the fraction (so a load of 1 % still
 * shows) when the panel has rows to spare. */
static void history(const ui_model *m, const ui_rect *r, int row, int rows, int x0)
{
    const ui_history *h = &m->meters.history[shown_slot(m->snap)];
    const int w = r->w - 5 - x0;
    if (w < 4)
        return;
    mvaddstr(r->y + row + rows - 1, r->x + x0, "hist");
    for (int c = 0; c < w; c++) {
        const int back = w - 1 - c;
        const double v = back < h->len ? h->load[(h->at - 1 - back + 2 * UI_HISTORY) % UI_HISTORY]
                                       : 0;
        attron(COLOR_PAIR(load_colour(v)));
        history_column(r->y + row, r->x + x0 + 5 + c, rows, v);
        attroff(COLOR_PAIR(load_colour(v)));
    }
}

/* The title ("Meters  A: 12 s", or STALE when no audio comes, every figure
 * below then being the last seen); returns its width. */
static int title_row(const es_live_snapshot *s, const ui_rect *r)
{
    char line[128];
    const int stale = s->device_state != ES_DEVICE_PLAYING;
    const int k = shown_slot(s);
    const int attr = stale ? COLOR_PAIR(UI_BAD) | A_BOLD : COLOR_PAIR(UI_TITLE) | A_BOLD;
    const int w = stale ? snprintf(line, sizeof line, "Meters  STALE (%s)",
                                   es_device_state_word(s->device_state))
                        : snprintf(line, sizeof line, "Meters  %c: %.0f s", "AB"[k],
                                   s->slot[k].seconds);
    attron(attr);
    mvaddnstr(r->y, r->x, line, r->w);
    attroff(attr);
    return w;
}

/* The DSP bar: the worst block since the last redraw, exact to the block. */
static void dsp_row(const ui_model *m, const ui_rect *r, int row)
{
    const int stale = m->snap->device_state != ES_DEVICE_PLAYING;
    const double load = stale ? 0 : m->meters.load_now;
    char line[32];
    mvaddstr(r->y + row, r->x, "DSP");
    bar(r->y + row, r->x + 4, r->w - 17, load, load_colour(load));
    if (stale)
        snprintf(line, sizeof line, " now     -");
    else
        snprintf(line, sizeof line, " now %5.1f%%", 100 * load);
    mvaddnstr(r->y + row, r->x + r->w - 12, line, 12);
}

/* The levels: the input (all its channels as one row when they share it),
 * then each output, or all outputs as one row when the panel is short. */
static int level_rows(const ui_model *m, const ui_rect *r, int row, int split_out)
{
    const es_stats *s = &m->snap->stats;
    const ui_meter_memory *mm = &m->meters;
    const int clip_in = m->now < mm->bad_in_until ? 3 : m->now < mm->clip_in_until;
    const int out_mark = m->now < mm->bad_out_until    ? 3
                         : m->now < mm->clip_out_until ? 1
                         : m->now < mm->limit_until    ? 2
                                                       : 0;
    float in_rms = 0, in_hold = 0, out_rms = 0, out_hold = 0;
    for (int c = 0; c < s->inputs && c < ES_METER_CHANNELS; c++) {
        in_rms = s->in_rms[c] > in_rms ? s->in_rms[c] : in_rms;
        in_hold = s->in_hold[c] > in_hold ? s->in_hold[c] : in_hold;
    }
    for (int o = 0; o < s->outputs && o < ES_METER_CHANNELS; o++) {
        out_rms = s->out_rms[o] > out_rms ? s->out_rms[o] : out_rms;
        out_hold = s->out_hold[o] > out_hold ? s->out_hold[o] : out_hold;
    }
    if (row < r->h)
        level(r, row++, s->inputs > 1 ? "in *" : "in", in_rms, in_hold, clip_in);
    if (s->outputs >= 2 && !split_out && row < r->h)
        level(r, row++, "out *", out_rms, out_hold, out_mark);
    for (int o = 0; split_out && o < s->outputs && o < 2 && row < r->h; o++)
        level(r, row++, o == 0 ? "out L" : "out R", s->out_rms[o], s->out_hold[o], out_mark);
    if (s->outputs == 1 && row < r->h)
        level(r, row++, "out", s->out_rms[0], s->out_hold[0], out_mark);
    return row;
}

static void draw_meters(ui_model *m, const ui_rect *r)
{
    const es_stats *s = &m->snap->stats;
    const int title_w = title_row(m->snap, r);
    dsp_row(m, r, 1);
    /* Rows: title, DSP, slots (3), short figures, levels; the history gets
     * the rows to spare, or shares the title's row; a second spare row
     * goes to the levels' scale. The levels are the input and each output,
     * or, when the panel is one row short (80x24 with six engines listed),
     * the input and the outputs on one row. */
    const int split_out = s->outputs >= 2 && r->h >= 6 + 3;
    const int levels = s->outputs < 2 ? 1 + s->outputs : split_out ? 3 : 2;
    const int scale = r->h - 6 - levels >= 2;
    const int hist_rows = r->h - 6 - levels - scale;
    if (hist_rows >= 1)
        history(m, r, 2, hist_rows, 0);
    else
        history(m, r, 0, 1, title_w + 2);
    int row = 2 + (hist_rows > 0 ? hist_rows : 0);
    ui_draw_slots(m, r->y + row, r->x, r->w);
    row += 3;
    char line[256];
    ui_meters_line(ui_meters, m->snap, line, r->w < 255 ? r->w : 255);
    mvaddnstr(r->y + row++, r->x, line, r->w);
    row = level_rows(m, r, row, split_out);
    if (scale && row < r->h)
        level_scale(r, row++);
}

static void click_slot(ui_model *m, int slot, int twice)
{
    (void)twice;
    ui_refused(m, es_session_switch_slot(m->session, slot), "");
}

const ui_panel ui_meters_panel = {
    .name = "meters",
    .area = UI_AREA_METERS,
    .update = meters_update,
    .draw = draw_meters,
    .hit = click_slot,
};
