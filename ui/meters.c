/* The meters, from the processor's stats snapshot (nothing else is read
 * from the audio side): DSP load with a scrolling history, deadline misses
 * (total and lately), xruns, throughput, levels with held peaks and clip
 * hold, and the GPU's time per block. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

#define CLIP_HOLD_S 2.0
#define LEVEL_FLOOR_DB -60.0

static const char spark[] = " .:-=+*#%@"; /* one-row history, low to high */

/* The worst block since the last snapshot, from the histogram's growth
 * (the snapshot's load_now is only the last block's). */
static double interval_worst(const es_stats *now, const es_stats *before, int restarted)
{
    if (restarted)
        return now->blocks ? now->load_now : 0;
    for (int b = ES_LOAD_BINS - 1; b >= 0; b--)
        if (now->load_hist[b] > before->load_hist[b])
            return (b + 0.5) / 100.0;
    return 0;
}

void ui_meters_update(ui_model *m)
{
    m->last = m->stats;
    es_processor_stats(es_player_processor(es_session_player(m->session)), &m->stats);
    const es_stats *s = &m->stats, *l = &m->last;
    const int restarted = s->blocks < l->blocks; /* reset, or the stream reopened */
    m->load_now = interval_worst(s, l, restarted);
    m->load_pending = m->load_now > m->load_pending ? m->load_now : m->load_pending;
    if (m->now - m->history_pushed_at >= UI_HISTORY_PERIOD) {
        m->load_history[m->history_at] = (float)m->load_pending;
        m->history_at = (m->history_at + 1) % UI_HISTORY;
        m->history_len += m->history_len < UI_HISTORY;
        m->load_pending = 0;
        m->history_pushed_at = m->now;
    }

    /* Misses lately: the count now minus the count UI_MISS_WINDOW ago. */
    if (restarted)
        m->miss_len = 0;
    m->miss_times[m->miss_at] = m->now;
    m->miss_counts[m->miss_at] = s->misses;
    m->miss_at = (m->miss_at + 1) % UI_HISTORY;
    if (m->miss_len < UI_HISTORY)
        m->miss_len++;
    int oldest = (m->miss_at - m->miss_len + UI_HISTORY) % UI_HISTORY;
    while (m->miss_len > 1 && m->now - m->miss_times[oldest] > UI_MISS_WINDOW) {
        oldest = (oldest + 1) % UI_HISTORY;
        m->miss_len--;
    }
    m->misses_lately = s->misses - m->miss_counts[oldest];
    if (!restarted && s->misses > l->misses)
        m->misses_rose_at = m->now;

    if (s->clipped > l->clipped && !restarted)
        m->clip_out_until = m->now + CLIP_HOLD_S;
    if (s->limited > l->limited && !restarted)
        m->limit_until = m->now + CLIP_HOLD_S;
    for (int c = 0; c < s->inputs && c < ES_METER_CHANNELS; c++)
        if (s->in_hold[c] >= 1.0f)
            m->clip_in_until = m->now + CLIP_HOLD_S;
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
    if (level_text_w(r) == 19)
        snprintf(text, sizeof text, " pk %5.1f rms %5.1f", pk_db < -99 ? -99.9 : pk_db,
                 rms_db < -99 ? -99.9 : rms_db);
    else
        snprintf(text, sizeof text, " pk %3.0f rms %3.0f", pk_db < -99 ? -99.0 : pk_db,
                 rms_db < -99 ? -99.0 : rms_db);
    mvaddnstr(y, r->x + 8 + w, text, level_text_w(r));
    if (mark) {
        attron(COLOR_PAIR(mark == 1 ? UI_BAD : UI_WARN) | A_BOLD | A_REVERSE);
        mvaddstr(y, r->x + r->w - 4, mark == 1 ? "CLIP" : "LIM");
        attroff(COLOR_PAIR(mark == 1 ? UI_BAD : UI_WARN) | A_BOLD | A_REVERSE);
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

/* The load over the last seconds (each column the worst block of
 * UI_HISTORY_PERIOD), newest on the right: one row of shades, or columns
 * of '#' when the panel has rows to spare. */
static void history(const ui_model *m, const ui_rect *r, int row, int rows, int x0)
{
    const int w = r->w - 5 - x0;
    mvaddstr(r->y + row + rows - 1, r->x + x0, "hist");
    for (int c = 0; c < w; c++) {
        const int back = w - 1 - c;
        double v = 0;
        if (back < m->history_len)
            v = m->load_history[(m->history_at - 1 - back + 2 * UI_HISTORY) % UI_HISTORY];
        const int colour = load_colour(v);
        attron(COLOR_PAIR(colour));
        if (rows == 1) {
            int k = (int)ceil(v * (sizeof spark - 2));
            k = k < 0 ? 0 : k > (int)sizeof spark - 2 ? (int)sizeof spark - 2 : k;
            mvaddch(r->y + row, r->x + x0 + 5 + c, spark[k]);
        } else {
            const int filled = (int)lround((v > 1 ? 1 : v) * rows);
            for (int k = 0; k < rows; k++)
                mvaddch(r->y + row + rows - 1 - k, r->x + x0 + 5 + c, k < filled ? '#' : ' ');
        }
        attroff(COLOR_PAIR(colour));
    }
}

void ui_draw_meters(const ui_model *m, const ui_rect *r)
{
    const es_stats *s = &m->stats;
    const double rate = es_session_now(m->session)->rate;
    char line[256];
    attron(COLOR_PAIR(UI_TITLE) | A_BOLD);
    mvaddnstr(r->y, r->x, "Meters  (c: clear)", r->w);
    attroff(COLOR_PAIR(UI_TITLE) | A_BOLD);

    const double load = m->load_now;
    mvaddstr(r->y + 1, r->x, "DSP");
    bar(r->y + 1, r->x + 4, r->w - 17, load, load_colour(load));
    snprintf(line, sizeof line, " now %5.1f%%", 100 * load);
    mvaddnstr(r->y + 1, r->x + r->w - 12, line, 12);

    const int levels = s->outputs < 2 ? 1 + s->outputs : 3; /* rows for levels */
    /* The history gets the rows to spare, or shares the title's row; a
     * second spare row goes to the levels' scale. */
    const int scale = r->h - 4 - levels >= 2;
    const int hist_rows = r->h - 4 - levels - scale;
    if (hist_rows >= 1)
        history(m, r, 2, hist_rows, 0);
    else
        history(m, r, 0, 1, 19);
    int row = 2 + (hist_rows > 0 ? hist_rows : 0);

    const int rising = m->misses_lately > 0;
    snprintf(line, sizeof line, "p99 %.1f%% max %.1f%%  ", 100 * es_stats_load_quantile(s, 0.99),
             100 * s->load_max);
    mvaddnstr(r->y + row, r->x, line, r->w);
    snprintf(line, sizeof line, "misses %llu (%llu in 10 s)", (unsigned long long)s->misses,
             (unsigned long long)m->misses_lately);
    const int attr = rising ? COLOR_PAIR(UI_BAD) | A_BOLD : COLOR_PAIR(UI_GOOD);
    attron(attr);
    addnstr(line, r->x + r->w - getcurx(stdscr));
    attroff(attr);
    row++;

    const int gpu = !strncmp(es_session_now(m->session)->engine->name, "cuda", 4);
    char gpu_text[48] = "GPU -";
    if (gpu)
        snprintf(gpu_text, sizeof gpu_text, "GPU %.0f us/blk", s->device_us);
    snprintf(line, sizeof line, "xruns %llu  %.1f Msmp/s x%.0f RT  %s",
             (unsigned long long)es_player_xruns(es_session_player(m->session)),
             es_stats_throughput(s) / 1e6, es_stats_realtime_factor(s, rate), gpu_text);
    mvaddnstr(r->y + row++, r->x, line, r->w);

    /* Levels: the input (all its channels as one row when they share it),
     * then each output. */
    const int clip_in = m->now < m->clip_in_until;
    const int out_mark = m->now < m->clip_out_until ? 1 : m->now < m->limit_until ? 2 : 0;
    float in_rms = 0, in_hold = 0;
    for (int c = 0; c < s->inputs && c < ES_METER_CHANNELS; c++) {
        in_rms = s->in_rms[c] > in_rms ? s->in_rms[c] : in_rms;
        in_hold = s->in_hold[c] > in_hold ? s->in_hold[c] : in_hold;
    }
    if (row < r->h)
        level(r, row++, s->inputs > 1 ? "in *" : "in", in_rms, in_hold, clip_in);
    for (int o = 0; o < s->outputs && o < 2 && row < r->h; o++) {
        const char *label = s->outputs == 1 ? "out" : o == 0 ? "out L" : "out R";
        level(r, row++, label, s->out_rms[o], s->out_hold[o], out_mark);
    }
    if (scale && row < r->h)
        level_scale(r, row++);
}
