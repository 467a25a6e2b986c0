/* The live spectrum: the latest 4096 samples of the dry input and the wet
 * output from the scope (filled by the callback, read here on the UI
 * thread), Hann-windowed, FFTW magnitude in dBFS (a full-scale sine reads
 * 0 dB), held with a 30 dB/s fall so the picture does not flicker. Drawn
 * on a log frequency axis as a spectrum (wet filled, dry as a line) or as
 * a scrolling spectrogram (dry above, wet below, newest at the top). */
#include "curses_loaded.h"
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "fftw_planner.h"
#include "layout.h"
#include "panel.h"
#include "spectrum.h"

#define FFT_N 4096
#define BINS (FFT_N / 2 + 1)
#define FLOOR_DB -90.0
#define FALL_DB_PER_S 30.0
#define F_LOW 30.0
#define MAX_COLS 512
#define GRAM_ROWS 128
#define GRAM_PERIOD_S 0.1 /* a spectrogram row every 100 ms */

static const char shades[] = " .:-=+*#%@"; /* spectrogram: floor to 0 dB */

struct ui_spectrum {
    double rate, last_update, last_row;
    float *frame;                /* FFT_N samples, windowed in place */
    fftwf_complex *bins;
    fftwf_plan plan;
    float window[FFT_N];
    float window_gain;           /* 2 / sum(window): a full-scale sine is 1 */
    float db[2][BINS];           /* held levels: [ES_SCOPE_DRY], [ES_SCOPE_WET] */
    float gram[2][GRAM_ROWS][MAX_COLS]; /* spectrogram rows, dB per column */
    int gram_at, gram_len, gram_cols;
};

ui_spectrum *ui_spectrum_create(double rate)
{
    ui_spectrum *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->rate = rate;
    s->frame = fftwf_alloc_real(FFT_N);
    s->bins = fftwf_alloc_complex(BINS);
    if (s->frame && s->bins) {
        es_fftw_planner_lock();
        s->plan = fftwf_plan_dft_r2c_1d(FFT_N, s->frame, s->bins, FFTW_ESTIMATE);
        es_fftw_planner_unlock();
    }
    if (!s->plan) {
        ui_spectrum_destroy(s);
        return NULL;
    }
    double sum = 0;
    for (int i = 0; i < FFT_N; i++) {
        s->window[i] = (float)(0.5 - 0.5 * cos(2 * 3.14159265358979323846 * i / FFT_N));
        sum += s->window[i];
    }
    s->window_gain = (float)(2.0 / sum);
    for (int w = 0; w < 2; w++)
        for (int b = 0; b < BINS; b++)
            s->db[w][b] = (float)FLOOR_DB;
    return s;
}

void ui_spectrum_destroy(ui_spectrum *s)
{
    if (!s)
        return;
    if (s->plan) {
        es_fftw_planner_lock();
        fftwf_destroy_plan(s->plan);
        es_fftw_planner_unlock();
    }
    fftwf_free(s->frame);
    fftwf_free(s->bins);
    free(s);
}

/* The latest samples of each ring, windowed and transformed; the levels
 * held fall by the time since the last look. */
static void analyse(ui_spectrum *s, const es_scope *scope, double now)
{
    const float fall = (float)(FALL_DB_PER_S * (now - s->last_update));
    s->last_update = now;
    for (int w = 0; w < 2; w++) {
        es_scope_read(scope, w, s->frame, FFT_N);
        for (int i = 0; i < FFT_N; i++)
            s->frame[i] *= s->window[i];
        fftwf_execute(s->plan);
        for (int b = 0; b < BINS; b++) {
            const float re = s->bins[b][0], im = s->bins[b][1];
            const float mag = sqrtf(re * re + im * im) * s->window_gain;
            float db = mag > 0 ? 20.0f * log10f(mag) : (float)FLOOR_DB;
            db = db < FLOOR_DB ? (float)FLOOR_DB : db;
            const float held = s->db[w][b] - fall;
            s->db[w][b] = db > held ? db : held;
        }
    }
}

/* The level of column c of `cols`, on a log axis from F_LOW to Nyquist (or
 * 20 kHz): the loudest bin in the column's band, or the nearest bin where
 * the band is narrower than one. */
static float column_db(const ui_spectrum *s, int which, int c, int cols)
{
    const double top = s->rate / 2 < 20000 ? s->rate / 2 : 20000;
    const double ratio = log(top / F_LOW);
    const double f0 = F_LOW * exp(ratio * (c - 0.5) / (cols - 1));
    const double f1 = F_LOW * exp(ratio * (c + 0.5) / (cols - 1));
    const double per_bin = s->rate / FFT_N;
    int b0 = (int)ceil(f0 / per_bin), b1 = (int)floor(f1 / per_bin);
    if (b1 < b0)
        b0 = b1 = (int)lround(0.5 * (f0 + f1) / per_bin);
    b1 = b1 < BINS ? b1 : BINS - 1;
    float best = (float)FLOOR_DB;
    for (int b = b0; b <= b1; b++)
        best = s->db[which][b] > best ? s->db[which][b] : best;
    return best;
}

static void axis(const ui_spectrum *s, const ui_rect *r, int y, int x0, int cols)
{
    static const double marks[] = {100, 1000, 10000};
    static const char *const names[] = {"100", "1k", "10k"};
    const double top = s->rate / 2 < 20000 ? s->rate / 2 : 20000;
    attron(COLOR_PAIR(UI_DIM));
    mvhline(y, r->x, ' ', r->w);
    mvaddstr(y, r->x, "  Hz");
    for (int k = 0; k < 3; k++) {
        const int c = (int)lround(log(marks[k] / F_LOW) / log(top / F_LOW) * (cols - 1));
        if (c >= 0 && c < cols - 3)
            mvaddstr(y, x0 + c, names[k]);
    }
    attroff(COLOR_PAIR(UI_DIM));
}

static void draw_lines(const ui_spectrum *s, int y0, int rows, int x0, int cols)
{
    for (int c = 0; c < cols; c++) {
        const float wet = column_db(s, ES_SCOPE_WET, c, cols);
        const float dry = column_db(s, ES_SCOPE_DRY, c, cols);
        /* Row 0 is 0 dB, the last row FLOOR_DB. */
        const int wet_row = (int)lround(wet / FLOOR_DB * (rows - 1));
        const int dry_row = (int)lround(dry / FLOOR_DB * (rows - 1));
        attron(COLOR_PAIR(UI_WET));
        for (int row = 0; row < rows; row++)
            mvaddch(y0 + row, x0 + c, row >= wet_row && wet > FLOOR_DB + 1 ? '#' : ' ');
        attroff(COLOR_PAIR(UI_WET));
        if (dry > FLOOR_DB + 1) {
            attron(COLOR_PAIR(UI_DRY) | A_BOLD);
            mvaddch(y0 + dry_row, x0 + c, 'o');
            attroff(COLOR_PAIR(UI_DRY) | A_BOLD);
        }
    }
}

static void draw_gram(ui_spectrum *s, int y0, int rows, int x0, int cols)
{
    if (cols != s->gram_cols) { /* the width changed: start again */
        s->gram_cols = cols;
        s->gram_len = 0;
    }
    if (s->last_update - s->last_row >= GRAM_PERIOD_S || s->gram_len == 0) {
        s->last_row = s->last_update;
        s->gram_at = (s->gram_at + 1) % GRAM_ROWS;
        for (int w = 0; w < 2; w++)
            for (int c = 0; c < cols; c++)
                s->gram[w][s->gram_at][c] = column_db(s, w, c, cols);
        s->gram_len += s->gram_len < GRAM_ROWS;
    }
    /* Dry in the top half, wet in the bottom, each newest first. */
    const int half = rows / 2 > 0 ? rows / 2 : 1;
    for (int w = 0; w < 2; w++) {
        const int which = w == 0 ? ES_SCOPE_DRY : ES_SCOPE_WET;
        const int y = w == 0 ? y0 : y0 + half, n = w == 0 ? half : rows - half;
        attron(COLOR_PAIR(which == ES_SCOPE_DRY ? UI_DRY : UI_WET));
        for (int k = 0; k < n; k++) {
            const int have = k < s->gram_len;
            const float *row = s->gram[which][(s->gram_at - k + GRAM_ROWS) % GRAM_ROWS];
            for (int c = 0; c < cols; c++) {
                int shade = 0;
                if (have) {
                    shade = (int)((row[c] - FLOOR_DB) / -FLOOR_DB * (sizeof shades - 1));
                    shade = shade < 0 ? 0 : shade > (int)sizeof shades - 2 ? (int)sizeof shades - 2
                                                                             : shade;
                }
                mvaddch(y + k, x0 + c, shades[shade]);
            }
        }
        attroff(COLOR_PAIR(which == ES_SCOPE_DRY ? UI_DRY : UI_WET));
    }
}

/* Each frame: the latest dry and wet samples from the scope, analysed. */
static void spectrum_update(ui_model *m)
{
    if (m->spectrum)
        analyse(m->spectrum, m->snap->scope, m->now);
}

static void draw_spectrum(ui_model *m, const ui_rect *r)
{
    ui_spectrum *s = m->spectrum;
    const int spectrogram = m->spectrogram;
    attron(COLOR_PAIR(UI_TITLE) | A_BOLD);
    mvaddnstr(r->y, r->x, spectrogram ? "Spectrogram  (dry above, wet below; v: spectrum)"
                                      : "Spectrum  (dry o, wet #; v: spectrogram)", r->w);
    attroff(COLOR_PAIR(UI_TITLE) | A_BOLD);
    if (!s) {
        mvaddnstr(r->y + 1, r->x, "(no spectrum: FFTW could not plan)", r->w);
        return;
    }
    const int rows = r->h - 2, x0 = r->x + 5;
    int cols = r->w - 5;
    cols = cols > MAX_COLS ? MAX_COLS : cols;
    if (rows < 1 || cols < 8)
        return;
    if (spectrogram) {
        draw_gram(s, r->y + 1, rows, x0, cols);
    } else {
        draw_lines(s, r->y + 1, rows, x0, cols);
        attron(COLOR_PAIR(UI_DIM));
        mvaddstr(r->y + 1, r->x, "  0");
        mvaddstr(r->y + rows, r->x, "-90");
        attroff(COLOR_PAIR(UI_DIM));
    }
    axis(s, r, r->y + r->h - 1, x0, cols);
}

const ui_panel ui_spectrum_panel = {
    .name = "spectrum",
    .area = UI_AREA_SPECTRUM,
    .update = spectrum_update,
    .draw = draw_spectrum,
};
