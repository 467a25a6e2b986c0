/* `earshot bench --plot`: the sweeps, and the SVG drawn from them (see
 * bench_plot.h). The SVG is written by hand: two log-log panels, a
 * polyline per engine and figure, markers for other programs' points. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_plot.h"
#include "core/args.h"
#include "core/files.h"
#include "core/lines.h"

enum { AXIS_IR, AXIS_PATHS, AXES };
enum { FIG_MEAN, FIG_P99, FIG_GPU, FIGS };

#define MAX_POINTS 64
#define LABEL_MAX 80

typedef struct {
    int axis;
    double x, load;       /* load in % of real time */
    char label[LABEL_MAX];
} peer_point;

/* One engine's figures, % of the block's duration; NAN where none. */
typedef struct {
    double v[AXES][FIGS][ES_PLOT_MAX_X];
    long misses[AXES][ES_PLOT_MAX_X]; /* engine misses in the point's run */
} engine_curves;

typedef struct {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int need = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0,
                                   fmt, ap);
        va_end(ap);
        if (need < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)need < t->cap) {
            t->len += (size_t)need;
            return;
        }
        const size_t cap = (t->cap + (size_t)need + 1) * 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
}

/* Text into SVG: the five XML specials as entities; control characters
 * (which XML 1.0 forbids) and bytes past ASCII as '?', so a label from a
 * file can neither break the document nor hide in it. */
static void put_escaped(text *t, const char *s)
{
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '&')
            put(t, "&amp;");
        else if (c == '<')
            put(t, "&lt;");
        else if (c == '>')
            put(t, "&gt;");
        else if (c == '"')
            put(t, "&quot;");
        else if (c == '\'')
            put(t, "&apos;");
        else
            put(t, "%c", c < 0x20 || c >= 0x7f ? '?' : (char)c);
    }
}

/* ---- the points of other programs ---- */

/* "AXIS X LOAD LABEL": AXIS ir (X in seconds) or paths (X a count), LOAD
 * in % of real time, LABEL the rest of the line; '#' starts a comment. */
static int read_points(const char *path, peer_point *p, int *count)
{
    char err[300];
    FILE *f = es_fopen_regular(path, err, sizeof err);
    if (!f) {
        es_error("bench: --plot-points %s", err);
        return -1;
    }
    char line[256];
    size_t len;
    int rc, number = 0, bad = 0;
    *count = 0;
    while (!bad && (rc = es_line_read(f, line, sizeof line, &len)) != ES_LINE_END) {
        number++;
        if (rc != ES_LINE_OK) {
            es_error("bench: --plot-points %s:%d: %s", path, number,
                     rc == ES_LINE_LONG ? "a line over 255 bytes"
                     : rc == ES_LINE_NUL ? "a NUL byte"
                                         : strerror(errno));
            bad = 1;
            break;
        }
        const char *s = line + strspn(line, " \t");
        if (*s == '#' || *s == '\0')
            continue;
        char axis[16];
        int used = 0;
        peer_point q = {0};
        if (sscanf(s, "%15s %lf %lf %n", axis, &q.x, &q.load, &used) != 3 ||
            (strcmp(axis, "ir") != 0 && strcmp(axis, "paths") != 0) || !(q.x > 0) ||
            !(q.load > 0) || !isfinite(q.x) || !isfinite(q.load) || s[used] == '\0') {
            es_error("bench: --plot-points %s:%d: want 'ir|paths X LOAD_PERCENT LABEL' with X "
                     "and LOAD above 0", path, number);
            bad = 1;
            break;
        }
        if (*count == MAX_POINTS) {
            es_error("bench: --plot-points %s: more than %d points", path, MAX_POINTS);
            bad = 1;
            break;
        }
        q.axis = axis[0] == 'i' ? AXIS_IR : AXIS_PATHS;
        snprintf(q.label, sizeof q.label, "%s", s + used);
        p[(*count)++] = q;
    }
    fclose(f);
    return bad ? -1 : 0;
}

/* The output before any sweep: not a folder, in a folder that exists and
 * can be written (a FIFO or a device is written into, later). */
static int output_ok(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        es_error("bench: --plot %s: a folder, not a file", path);
        return -1;
    }
    char dir[4096];
    es_path_dir(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        es_error("bench: --plot %s: no folder %s", path, dir);
        return -1;
    }
    if (access(dir, W_OK) != 0 && (stat(path, &st) != 0 || S_ISREG(st.st_mode))) {
        es_error("bench: --plot %s: the folder %s cannot be written", path, dir);
        return -1;
    }
    return 0;
}

/* ---- the sweeps ---- */

static int sweep(const es_plot_request *rq, int e, int axis, int k, engine_curves *c)
{
    es_bench_config cfg = *rq->base;
    cfg.engine = rq->engines[e];
    if ((cfg.engine->caps & ES_CAP_GPU) && !rq->back_to_back)
        cfg.paced = 1; /* as a callback calls it */
    cfg.ir_taps = 0;
    cfg.matrix = cfg.fan_out = cfg.true_stereo = 0;
    cfg.channels = axis == AXIS_IR ? rq->ir_channels : rq->channels.v[k];
    cfg.ir_seconds = axis == AXIS_IR ? rq->ir_seconds.v[k] : rq->paths_ir_seconds;
    es_bench_result r;
    const int failed = es_bench_run(&cfg, &r) != 0;
    if (failed) {
        printf("%-17s %6s %8.6g  failed: %s\n", cfg.engine->name,
               axis == AXIS_IR ? "ir s" : "paths",
               axis == AXIS_IR ? cfg.ir_seconds : (double)cfg.channels, r.error);
        fflush(stdout);
        return 1;
    }
    const double to_load = 100.0 / r.budget_us;
    c->misses[axis][k] = r.misses;
    c->v[axis][FIG_MEAN][k] = r.mean_us * to_load;
    c->v[axis][FIG_P99][k] = r.p99_us * to_load;
    if (r.device_p50_us >= 0 && (cfg.engine->caps & ES_CAP_GPU))
        c->v[axis][FIG_GPU][k] = r.device_p50_us * to_load;
    printf("%-17s %6s %8.6g  load %8.3f %%  p99 %8.3f %%", cfg.engine->name,
           axis == AXIS_IR ? "ir s" : "paths", axis == AXIS_IR ? cfg.ir_seconds : (double)r.paths,
           c->v[axis][FIG_MEAN][k], c->v[axis][FIG_P99][k]);
    if (!isnan(c->v[axis][FIG_GPU][k]))
        printf("  GPU %8.3f %%", c->v[axis][FIG_GPU][k]);
    printf("  misses %ld%s\n", r.misses, r.cut_short ? "  (cut short)" : "");
    fflush(stdout);
    return 0;
}

/* ---- the picture ---- */

#define WIDTH 1000
#define PANEL_W 400
#define PANEL_H 300
#define PANEL_TOP 60
#define PANEL_LEFT 80
#define PANEL_STEP 480

static const char *const palette[ES_PLOT_MAX_ENGINES] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
static const char *const figure_dash[FIGS] = {"", "6,4", "2,3"};
static const char *const figure_words[FIGS] = {
    "mean time per block / the block's duration",
    "p99 time per block / the block's duration",
    "GPU time per job (p50) / the block's duration"};
static const char *const peer_shape_fill[4] = {"#000000", "#ffffff", "#777777", "#bbbbbb"};

typedef struct {
    double x_lo, x_hi, y_lo, y_hi; /* decades */
    int left;
} panel;

static double px(const panel *p, double x)
{
    return p->left + PANEL_W * (log10(x) - p->x_lo) / (p->x_hi - p->x_lo);
}

static double py(const panel *p, double y)
{
    return PANEL_TOP + PANEL_H * (1.0 - (log10(y) - p->y_lo) / (p->y_hi - p->y_lo));
}

static void decade_label(char *out, size_t n, double v)
{
    if (v >= 1)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%g", v);
}

static void draw_axes(text *t, const panel *p, const char *title, const char *x_words)
{
    put(t, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n", p->left,
        PANEL_TOP, PANEL_W, PANEL_H);
    put(t, "<text x='%d' y='%d' font-size='14' text-anchor='middle'>", p->left + PANEL_W / 2,
        PANEL_TOP - 22);
    put_escaped(t, title);
    put(t, "</text>\n");
    char label[32];
    for (int d = (int)p->x_lo; d <= (int)p->x_hi; d++)
        for (int m = 1; m < 10; m++) {
            const double v = m * pow(10, d);
            if (log10(v) < p->x_lo - 1e-9 || log10(v) > p->x_hi + 1e-9)
                continue;
            const double x = px(p, v);
            put(t, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s'/>\n", x, PANEL_TOP, x,
                PANEL_TOP + PANEL_H, m == 1 ? "#ccc" : "#eee");
            if (m == 1 || ((m == 2 || m == 5) && p->x_hi - p->x_lo <= 2)) {
                decade_label(label, sizeof label, v);
                put(t, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s</text>\n",
                    x, PANEL_TOP + PANEL_H + 15, label);
            }
        }
    for (int d = (int)p->y_lo; d <= (int)p->y_hi; d++) {
        const double y = py(p, pow(10, d));
        decade_label(label, sizeof label, pow(10, d));
        put(t, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ccc'/>\n", p->left, y,
            p->left + PANEL_W, y);
        put(t, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s %%</text>\n",
            p->left - 5, y + 4, label);
    }
    put(t, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>", p->left + PANEL_W / 2,
        PANEL_TOP + PANEL_H + 34);
    put_escaped(t, x_words);
    put(t, "</text>\n");
    /* The real-time line: a block that takes its whole duration. */
    const double rt = py(p, 100);
    put(t, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#c00' stroke-width='1.5'/>\n",
        p->left, rt, p->left + PANEL_W, rt);
    put(t, "<text x='%d' y='%.1f' font-size='11' fill='#c00' text-anchor='end'>real time"
           "</text>\n", p->left + PANEL_W - 4, rt - 4);
}

/* The mean's points carry their numbers (a title: shown on hover, and
 * read by the tests against the table's rows). */
static void draw_curve(text *t, const panel *p, const double *x, const double *v, int count,
                       const char *color, int figure, const char *engine, int axis,
                       const long *misses)
{
    int drawn = 0;
    for (int k = 0; k < count; k++) {
        if (isnan(v[k]) || !(v[k] > 0))
            continue;
        if (!drawn++)
            put(t, "<polyline fill='none' stroke='%s' stroke-width='%s'%s%s%s points='", color,
                figure == FIG_MEAN ? "2" : "1.5", figure_dash[figure][0] ? " stroke-dasharray='" : "",
                figure_dash[figure], figure_dash[figure][0] ? "'" : "");
        put(t, "%.1f,%.1f ", px(p, x[k]), py(p, v[k]));
    }
    if (drawn)
        put(t, "'/>\n");
    for (int k = 0; figure == FIG_MEAN && k < count; k++)
        if (!isnan(v[k]) && v[k] > 0) {
            /* A point whose run missed a deadline is ringed in red: a mean
             * under the line does not make it real time. */
            put(t, "<circle cx='%.1f' cy='%.1f' r='%d' fill='%s'%s><title>", px(p, x[k]),
                py(p, v[k]), misses[k] ? 5 : 3, color,
                misses[k] ? " stroke='#c00' stroke-width='2'" : "");
            put_escaped(t, engine);
            put(t, " %s %g: load %.3f %%, misses %ld</title></circle>\n",
                axis == AXIS_IR ? "ir s" : "paths", x[k], v[k], misses[k]);
        }
}

static void draw_peer(text *t, const panel *p, const peer_point *q, int shape)
{
    const double x = px(p, q->x), y = py(p, q->load);
    put(t, "<rect x='%.1f' y='%.1f' width='9' height='9' fill='%s' stroke='#000' "
           "transform='rotate(%d %.1f %.1f)'/>\n", x - 4.5, y - 4.5, peer_shape_fill[shape % 4],
        shape / 4 % 2 ? 45 : 0, x, y);
}

/* Decades that hold every value (and, for y, the real-time line). */
static void fit(panel *p, const double *xs, int nx, const engine_curves *c, int engines, int axis,
                const peer_point *peers, int peer_count)
{
    double x0 = INFINITY, x1 = 0, y0 = 100, y1 = 100;
    for (int k = 0; k < nx; k++) {
        x0 = fmin(x0, xs[k]);
        x1 = fmax(x1, xs[k]);
    }
    for (int e = 0; e < engines; e++)
        for (int f = 0; f < FIGS; f++)
            for (int k = 0; k < nx; k++)
                if (c[e].v[axis][f][k] > 0) {
                    y0 = fmin(y0, c[e].v[axis][f][k]);
                    y1 = fmax(y1, c[e].v[axis][f][k]);
                }
    for (int k = 0; k < peer_count; k++)
        if (peers[k].axis == axis) {
            x0 = fmin(x0, peers[k].x);
            x1 = fmax(x1, peers[k].x);
            y0 = fmin(y0, peers[k].load);
            y1 = fmax(y1, peers[k].load);
        }
    p->x_lo = floor(log10(x0));
    p->x_hi = ceil(log10(x1));
    if (p->x_hi <= p->x_lo)
        p->x_hi = p->x_lo + 1;
    p->y_lo = floor(log10(fmax(y0, 1e-3)));
    p->y_hi = ceil(log10(y1) + 1e-9);
    if (p->y_hi <= p->y_lo)
        p->y_hi = p->y_lo + 1;
}

static void cpu_name(char *out, size_t n)
{
    snprintf(out, n, "this machine");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    size_t len;
    while (f && es_line_read(f, line, sizeof line, &len) == ES_LINE_OK)
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
            snprintf(out, n, "%s", strchr(line, ':') + 2);
            break;
        }
    if (f)
        fclose(f);
}

/* The two panels side by side: load against the IR's length, and against
 * the paths, each engine's figures and other programs' points. */
static void draw_panels(text *t, const es_plot_request *rq, const engine_curves *c,
                        const peer_point *peers, int peer_count)
{
    double xs[AXES][ES_PLOT_MAX_X];
    for (int k = 0; k < rq->ir_seconds.count; k++)
        xs[AXIS_IR][k] = rq->ir_seconds.v[k];
    for (int k = 0; k < rq->channels.count; k++)
        xs[AXIS_PATHS][k] = rq->channels.v[k];
    const int nx[AXES] = {rq->ir_seconds.count, rq->channels.count};
    char title[2][160], x_words[2][80];
    snprintf(title[AXIS_IR], sizeof title[0], "Load against the IR's length (%d x %d, block %d)",
             rq->ir_channels, rq->ir_channels, rq->base->block);
    snprintf(title[AXIS_PATHS], sizeof title[0],
             "Load against paths (C x C, one filter each, %g s IR, block %d)",
             rq->paths_ir_seconds, rq->base->block);
    snprintf(x_words[AXIS_IR], sizeof x_words[0], "IR length, seconds (%g kHz)",
             rq->base->rate / 1000);
    snprintf(x_words[AXIS_PATHS], sizeof x_words[0], "paths");
    for (int a = 0; a < AXES; a++) {
        panel p = {.left = PANEL_LEFT + a * PANEL_STEP};
        fit(&p, xs[a], nx[a], c, rq->engine_count, a, peers, peer_count);
        draw_axes(t, &p, title[a], x_words[a]);
        for (int e = 0; e < rq->engine_count; e++)
            for (int f = 0; f < FIGS; f++)
                draw_curve(t, &p, xs[a], c[e].v[a][f], nx[a], palette[e], f,
                           rq->engines[e]->name, a, c[e].misses[a]);
        for (int k = 0; k < peer_count; k++)
            if (peers[k].axis == a)
                draw_peer(t, &p, &peers[k], k);
    }
}

/* The legend under the panels: the engines on the left, the figures'
 * line styles and other programs' points on the right. */
static void draw_legend(text *t, const es_plot_request *rq, const peer_point *peers,
                        int peer_count)
{
    const int top = PANEL_TOP + PANEL_H + 62, right = PANEL_LEFT + PANEL_STEP;
    for (int e = 0; e < rq->engine_count; e++) {
        const int y = top + 16 * e;
        put(t, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='3'/>"
               "<text x='%d' y='%d' font-size='12'>", PANEL_LEFT, y - 4, PANEL_LEFT + 24, y - 4,
            palette[e], PANEL_LEFT + 30, y);
        put_escaped(t, rq->engines[e]->name);
        put(t, "</text>\n");
    }
    int row = 0;
    {
        const int y = top + 16 * row++;
        put(t, "<circle cx='%d' cy='%d' r='5' fill='#fff' stroke='#c00' stroke-width='2'/>"
               "<text x='%d' y='%d' font-size='12'>a point whose run had engine misses</text>\n",
            right + 12, y - 4, right + 30, y);
    }
    for (int f = 0; f < FIGS; f++, row++) {
        const int y = top + 16 * row;
        put(t, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333' stroke-width='1.5'%s%s%s/>"
               "<text x='%d' y='%d' font-size='12'>%s</text>\n", right, y - 4, right + 24, y - 4,
            figure_dash[f][0] ? " stroke-dasharray='" : "", figure_dash[f],
            figure_dash[f][0] ? "'" : "", right + 30, y, figure_words[f]);
    }
    for (int k = 0; k < peer_count; k++, row++) {
        const int y = top + 16 * row;
        put(t, "<rect x='%d' y='%d' width='9' height='9' fill='%s' stroke='#000' "
               "transform='rotate(%d %d %d)'/><text x='%d' y='%d' font-size='12'>",
            right + 8, y - 12, peer_shape_fill[k % 4], k / 4 % 2 ? 45 : 0, right + 12, y - 8,
            right + 30, y);
        put_escaped(t, peers[k].label);
        put(t, "</text>\n");
    }
}

/* Two lines at the foot of a picture `height` high: how it was measured
 * and when, and on what CPU and GPU. */
static void draw_footer(text *t, const es_plot_request *rq, const char *gpu, int height)
{
    char cpu[160], when[32];
    cpu_name(cpu, sizeof cpu);
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    put(t, "<text x='%d' y='%d' font-size='11' fill='#555'>earshot bench --plot, %s, "
           "%g s of audio a point, %s</text>\n", PANEL_LEFT, height - 26, when,
        rq->base->seconds,
        rq->back_to_back ? "back to back" : "GPU engines paced, CPU engines back to back");
    put(t, "<text x='%d' y='%d' font-size='11' fill='#555'>", PANEL_LEFT, height - 12);
    put_escaped(t, cpu);
    if (gpu[0]) {
        put(t, "; ");
        put_escaped(t, gpu);
    }
    put(t, "</text>\n");
}

static void draw(text *t, const es_plot_request *rq, const engine_curves *c,
                 const peer_point *peers, int peer_count, const char *gpu)
{
    const int legend_rows = rq->engine_count > FIGS + 1 + peer_count ? rq->engine_count
                                                                      : FIGS + 1 + peer_count;
    const int height = PANEL_TOP + PANEL_H + 60 + 16 * legend_rows + 54;
    put(t, "<?xml version='1.0' encoding='UTF-8'?>\n"
           "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
           "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='#fff'/>\n",
        WIDTH, height);
    draw_panels(t, rq, c, peers, peer_count);
    draw_legend(t, rq, peers, peer_count);
    draw_footer(t, rq, gpu, height);
    put(t, "</svg>\n");
}

int es_bench_plot(const es_plot_request *rq)
{
    static peer_point peers[MAX_POINTS];
    int peer_count = 0;
    if (output_ok(rq->out_path) != 0 ||
        (rq->points_path && read_points(rq->points_path, peers, &peer_count) != 0))
        return 2;
    engine_curves *c = calloc((size_t)rq->engine_count, sizeof *c);
    if (!c) {
        es_error("bench: --plot: out of memory");
        return 1;
    }
    int failures = 0;
    char gpu[160] = "";
    for (int e = 0; e < rq->engine_count; e++) {
        for (int a = 0; a < AXES; a++)
            for (int f = 0; f < FIGS; f++)
                for (int k = 0; k < ES_PLOT_MAX_X; k++)
                    c[e].v[a][f][k] = NAN;
        if (!gpu[0] && (rq->engines[e]->caps & ES_CAP_GPU))
            (void)rq->engines[e]->probe(gpu, sizeof gpu); /* the GPU's name, once */
        for (int k = 0; k < rq->ir_seconds.count; k++)
            failures += sweep(rq, e, AXIS_IR, k, &c[e]);
        for (int k = 0; k < rq->channels.count; k++)
            failures += sweep(rq, e, AXIS_PATHS, k, &c[e]);
    }
    text t = {0};
    draw(&t, rq, c, peers, peer_count, gpu);
    free(c);
    char err[300];
    int rc = failures ? 1 : 0;
    if (t.failed || !t.s) {
        es_error("bench: --plot %s: out of memory for the picture", rq->out_path);
        rc = 1;
    } else if (es_file_write_out(rq->out_path, t.s, t.len, err, sizeof err) != 0) {
        es_error("bench: --plot %s", err);
        rc = 1;
    } else {
        fprintf(stderr, "bench: the plot is in %s\n", rq->out_path);
    }
    free(t.s);
    return rc;
}
