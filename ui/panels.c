/* The panels that show state rather than measure it: the header, the room
 * list with the selected room's parameters and decay, the engines, the
 * messages, the status line and the help screen. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

void ui_colors_init(void)
{
    if (!has_colors())
        return;
    start_color();
    use_default_colors();
    init_pair(UI_GOOD, COLOR_GREEN, -1);
    init_pair(UI_WARN, COLOR_YELLOW, -1);
    init_pair(UI_BAD, COLOR_RED, -1);
    init_pair(UI_TITLE, COLOR_CYAN, -1);
    init_pair(UI_DRY, COLOR_YELLOW, -1);
    init_pair(UI_WET, COLOR_CYAN, -1);
    init_pair(UI_DIM, COLOR_BLUE, -1);
}

/* Text clipped to the rectangle's width from column x. */
static void put(const ui_rect *r, int row, int x, const char *text)
{
    if (row < 0 || row >= r->h || x >= r->w)
        return;
    ui_text(r->y + row, r->x + x, text, r->w - x);
}

static void title(const ui_rect *r, const char *text)
{
    attron(COLOR_PAIR(UI_TITLE) | A_BOLD);
    put(r, 0, 0, text);
    attroff(COLOR_PAIR(UI_TITLE) | A_BOLD);
}

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
        put(r, 0, at, line);
    attroff(A_REVERSE | A_BOLD);
    if (at) {
        attron(COLOR_PAIR(UI_BAD) | A_BOLD | A_REVERSE);
        put(r, 0, 0, flag);
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

void ui_draw_header(const ui_model *m, const ui_rect *r)
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
    /* A room that follows the head: the yaw, and the set playing. */
    char head[48] = "";
    if (s->head.sets > 0 && s->head.set >= 0)
        snprintf(head, sizeof head, " | head %.0f set %d/%d", s->head.yaw, s->head.set + 1,
                 s->head.sets);
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
    put(r, 1, 0, line);
    /* How long the stream has played, to a tenth: it moves on every other
     * redraw, so a screen that stopped drawing shows it. */
    snprintf(line, sizeof line, "up %.1f s", s->elapsed);
    const int at = r->w - (int)strlen(line) - 1 - rec_w;
    if (at > getcurx(stdscr) + 1)
        put(r, 1, at, line);
    if (rec[0]) {
        attron(COLOR_PAIR(UI_BAD) | A_BOLD);
        addnstr(rec, r->w - getcurx(stdscr));
        attroff(COLOR_PAIR(UI_BAD) | A_BOLD);
    }
}

/* The decay curve, 0 to -60 dB down the rows, 0 to usable_s across. */
static void decay_plot(const es_room_info *info, const ui_rect *r, int top)
{
    const int rows = r->h - top, cols = r->w - 7;
    if (rows < 2 || cols < 8)
        return;
    for (int row = 0; row < rows; row++) {
        char label[8];
        snprintf(label, sizeof label, "%4.0f |", -60.0 * row / (rows - 1) + 0.0);
        put(r, top + row, 0, label);
    }
    attron(COLOR_PAIR(UI_WET));
    for (int c = 0; c < cols; c++) {
        const int k = (int)((double)c * (ES_DECAY_POINTS - 1) / (cols - 1) + 0.5);
        double db = info->decay[k] < -60 ? -60 : info->decay[k];
        const int row = (int)lround(-db / 60.0 * (rows - 1));
        if (info->decay[k] >= -60)
            mvaddch(r->y + top + row, r->x + 6 + c, '*');
    }
    attroff(COLOR_PAIR(UI_WET));
}

/* Rows of rooms shown from `top` in `rows` list rows, when each hidden
 * end takes a row for its "more" mark. */
static int rooms_shown(int top, int count, int rows)
{
    int shown = rows - (top > 0);
    if (top + shown < count)
        shown--; /* the mark below */
    return shown < 1 ? 1 : shown;
}

/* The list's rows: the rooms from m->top, each marked playing or
 * preparing. */
static void room_rows(ui_model *m, const ui_rect *r, int list_h)
{
    const es_live_snapshot *snap = m->snap;
    const es_library *lib = snap->rooms;
    const int count = lib->count;
    /* The cursor's row always shows; the list fills its rows to the end. */
    if (m->top > m->cursor)
        m->top = m->cursor;
    while (m->cursor >= m->top + rooms_shown(m->top, count, list_h))
        m->top++;
    while (m->top > 0 && m->top - 1 + rooms_shown(m->top - 1, count, list_h) >= count)
        m->top--;
    if (m->top < 0)
        m->top = 0;
    const int shown = rooms_shown(m->top, count, list_h);
    m->rooms_page = shown;
    int row = 1;
    char line[200];
    if (m->top > 0) {
        snprintf(line, sizeof line, "  ^ %d more", m->top);
        attron(COLOR_PAIR(UI_DIM));
        put(r, row++, 0, line);
        attroff(COLOR_PAIR(UI_DIM));
    }
    for (int k = 0; k < shown && m->top + k < count; k++) {
        const int i = m->top + k;
        const es_room *room = &lib->rooms[i];
        const int here = i == snap->room_playing, coming = i == snap->room_wanted && !here;
        snprintf(line, sizeof line, "%c %-16s %s%s%s", i == m->cursor ? '>' : ' ', room->name,
                 room->origin == ES_ROOMS_FILE ? "[file] " : "", room->gone ? "gone " : "",
                 here ? "playing" : coming ? "preparing" : "");
        if (i == m->cursor)
            attron(A_REVERSE);
        ui_hit_add(UI_HIT_ROOM, i, r->y + row, r->x, r->w);
        put(r, row++, 0, line);
        if (i == m->cursor)
            attroff(A_REVERSE);
    }
    const int below = count - (m->top + shown);
    if (below > 0) {
        snprintf(line, sizeof line, "  v %d more", below);
        attron(COLOR_PAIR(UI_DIM));
        put(r, row, 0, line);
        attroff(COLOR_PAIR(UI_DIM));
    }
}

/* The room under the cursor: its parameters and decay, measured on the
 * session's preparer thread (shown once the snapshot carries it). */
static void room_figures(const ui_model *m, const ui_rect *r, int at)
{
    const es_room_info *info = &m->snap->shown;
    char line[200];
    if (info->index != m->cursor || info->measured == 0) {
        attron(COLOR_PAIR(UI_DIM));
        put(r, at, 0, "measuring...");
        attroff(COLOR_PAIR(UI_DIM));
        return;
    }
    if (info->measured < 0) {
        attron(COLOR_PAIR(UI_BAD));
        put(r, at, 0, info->error);
        attroff(COLOR_PAIR(UI_BAD));
        return;
    }
    /* A figure that cannot be measured reads n/a (es_acoustics says why;
     * earshot rooms --show prints it). */
    char t30[16], edt[16], c80[16], d50[16];
    snprintf(line, sizeof line, "T30 %s s  EDT %s s  C80 %s dB",
             es_figure_text(t30, sizeof t30, "%.2f", info->a.t30),
             es_figure_text(edt, sizeof edt, "%.2f", info->a.edt),
             es_figure_text(c80, sizeof c80, "%+.1f", info->a.c80));
    put(r, at, 0, line);
    snprintf(line, sizeof line, "D50 %s  %.2f s  ch %d/%d  gain %+.1f dB",
             es_figure_text(d50, sizeof d50, "%.2f", info->a.d50), info->seconds,
             info->channel + 1, info->channels, info->gain_db);
    put(r, at + 1, 0, line);
    snprintf(line, sizeof line, "energy decay over %.2f s:", info->a.usable_s);
    attron(COLOR_PAIR(UI_DIM));
    put(r, at + 2, 0, line);
    attroff(COLOR_PAIR(UI_DIM));
    decay_plot(info, r, at + 3);
}

void ui_draw_rooms(ui_model *m, const ui_rect *r)
{
    ui_rooms_follow(m);
    const int count = m->snap->rooms->count;
    title(r, "Rooms (Enter, / n N find, o open, R)");
    /* The list takes about half the panel; the rest is parameters and plot. */
    int list_h = (r->h - 1) / 2;
    if (list_h > count)
        list_h = count > 0 ? count : 1;
    if (count == 0) {
        put(r, 1, 1, "(no rooms: see earshot rooms --help)");
        return;
    }
    room_rows(m, r, list_h);
    room_figures(m, r, 1 + list_h);
}

/* An engine's row: its number, the A/B slots that hold it, its name, and
 * what it is doing (with the latency heard with its slot playing and its
 * options), or why it is off. */
static void engine_row(const ui_model *m, int i, int w, char *line, size_t n)
{
    const es_live_snapshot *s = m->snap;
    const es_live_engine *le = &s->engines[i];
    const es_engine_class *k = le->engine;
    const int lost = s->device_state == ES_DEVICE_LOST;
    const int playing = !lost && !strcmp(s->stats.engine, k->name);
    char mark[3] = "  ", opts[96] = "", heard[24] = "";
    for (int slot = 0; slot < ES_AB_SLOTS; slot++)
        if (s->slot[slot].set && s->slot[slot].spec.engine == k)
            mark[slot] = "AB"[slot];
    if (!le->usable) {
        snprintf(line, n, "%d %s %-17s off: %s", i + 1, mark, k->name, le->why);
        return;
    }
    const int coming = s->preparing && k == s->wanted.engine && k != s->playing.engine;
    /* The latency a person hears with this engine's slot playing. */
    const int held_by = mark[0] != ' ' && mark[1] != ' ' ? s->playing_slot
                        : mark[0] != ' ' ? ES_SLOT_A : mark[1] != ' ' ? ES_SLOT_B : -1;
    if (held_by >= 0 && s->slot[held_by].played && s->slot[held_by].latency >= 0)
        snprintf(heard, sizeof heard, " %.1fms", 1e3 * s->slot[held_by].latency / s->rate);
    else if (held_by >= 0 && s->slot[held_by].played) /* the device's figure failed its check */
        snprintf(heard, sizeof heard, " ?ms");
    const es_options *o = &s->playing.options;
    if (playing && (k->caps & ES_CAP_PARTITION))
        snprintf(opts, sizeof opts, " p%d", o->partition ? o->partition
                                                          : es_engine_default_partition(
                                                                s->playing.block));
    if (playing && (k->caps & ES_CAP_PIPELINED) && o->gpu_pipelined)
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " pipe");
    /* --gpu's list is every GPU engine's: said on each of their rows. */
    char gpus[64];
    if ((k->caps & ES_CAP_GPU) && o->gpu.list.count != 0)
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " gpu %s",
                 es_gpu_list_text(&o->gpu.list, gpus, sizeof gpus));
    snprintf(line, n, "%d %s %-17s %s%s%s", i + 1, mark, k->name,
             playing ? (s->stats.crossfading ? "crossfading" : "playing")
             : coming ? "preparing"
             : lost && k == s->playing.engine ? "stopped (device lost)" : "", heard, opts);
    if (opts[0] && (int)strlen(line) > w) /* the options whole, or not at all */
        line[strlen(line) - strlen(opts)] = 0;
}

/* The engines, each marked with the A/B slots that hold it; the one
 * playing says so, with its partition and pipelining when it has them. */
void ui_draw_engines(const ui_model *m, const ui_rect *r)
{
    const es_live_snapshot *s = m->snap;
    char heading[64];
    snprintf(heading, sizeof heading, "Engines  1-%d: pick  Tab: A/B", s->engine_count);
    title(r, heading);
    for (int i = 0; i < s->engine_count && 1 + i < r->h; i++) {
        char line[256];
        engine_row(m, i, r->w, line, sizeof line);
        const int playing = s->device_state != ES_DEVICE_LOST &&
                            !strcmp(s->stats.engine, s->engines[i].engine->name);
        const int attr = playing ? (COLOR_PAIR(UI_GOOD) | A_BOLD)
                         : s->engines[i].usable ? 0 : COLOR_PAIR(UI_DIM);
        attron(attr);
        ui_hit_add(UI_HIT_ENGINE, i, r->y + 1 + i, r->x, r->w);
        put(r, 1 + i, 0, line);
        attroff(attr);
    }
}

void ui_draw_messages(const ui_model *m, const ui_rect *r)
{
    const int kept = es_live_messages_kept(m->snap);
    const int shown = kept < r->h ? kept : r->h;
    for (int k = 0; k < shown; k++) {
        const es_live_message *msg = es_live_message_at(m->snap, kept - shown + k);
        char line[400];
        snprintf(line, sizeof line, "%s %s", msg->when, msg->text);
        const int attr = msg->problem ? COLOR_PAIR(UI_BAD) | A_BOLD : 0;
        attron(attr);
        put(r, r->h - shown + k, 0, line);
        attroff(attr);
    }
}

void ui_draw_status(const ui_model *m, const ui_rect *r)
{
    char line[160];
    if (m->snap->preparing)
        snprintf(line, sizeof line, " preparing %.120s ...", m->snap->preparing_what);
    else
        snprintf(line, sizeof line, " ?:help q:quit Enter:room 1-%d:engine Tab:A/B [ ]:block "
                 "s:source r:record v:view", m->snap->engine_count);
    attron(A_REVERSE);
    mvhline(r->y, r->x, ' ', r->w);
    put(r, 0, 0, line);
    attroff(A_REVERSE);
}

/* A box over the screen, blank inside: its top row and left column. */
void ui_box(int lines, int cols, int h, int w, int *y, int *x)
{
    *y = (lines - h) / 2;
    *x = (cols - w) / 2;
    for (int row = 0; row < h; row++)
        mvhline(*y + row, 0, ' ', cols);
    attron(COLOR_PAIR(UI_TITLE));
    mvhline(*y, *x, '-', w);
    mvhline(*y + h - 1, *x, '-', w);
    attroff(COLOR_PAIR(UI_TITLE));
}

int ui_draw_help(const ui_model *m, int lines, int cols)
{
    static char text[UI_HELP_CAP][UI_HELP_W];
    const int n = ui_help_lines(text);
    /* Borders, a title and a footer around each page. */
    const int per_page = lines - 4 < n ? lines - 4 : n;
    const int pages = (n + per_page - 1) / per_page;
    const int page = m->help > pages ? pages : m->help;
    const int w = 76 < cols - 2 ? 76 : cols - 2, h = per_page + 4;
    int y, x;
    ui_box(lines, cols, h, w, &y, &x);
    char line[UI_HELP_W];
    snprintf(line, sizeof line, "earshot workstation: keys (and play --commands lines)  %d/%d",
             page, pages);
    attron(A_BOLD);
    mvaddnstr(y + 1, x + 2, line, w - 4);
    attroff(A_BOLD);
    for (int i = 0; i < per_page && (page - 1) * per_page + i < n; i++)
        mvaddnstr(y + 2 + i, x + 2, text[(page - 1) * per_page + i], w - 4);
    attron(COLOR_PAIR(UI_DIM));
    mvaddnstr(y + h - 2, x + 2, page < pages ? "Space PgDn: next page  PgUp: back  Esc: close"
                                            : "PgUp: back  Esc or any other key: close", w - 4);
    attroff(COLOR_PAIR(UI_DIM));
    return pages;
}

void ui_draw_history(ui_model *m, int lines, int cols)
{
    /* Each message wrapped to the box, its time on its first line. */
    enum { MAX_LINES = ES_LIVE_MESSAGES * 8, TEXT_W = 200 };
    static char text[MAX_LINES][TEXT_W];
    static int bad[MAX_LINES];
    const int w = cols - 2, room = w - 4 - 9 > 20 ? w - 4 - 9 : 20;
    const int kept = es_live_messages_kept(m->snap);
    int n = 0;
    for (int k = 0; k < kept && n < MAX_LINES; k++) {
        const es_live_message *msg = es_live_message_at(m->snap, k);
        const char *rest = msg->text;
        int lead = 1;
        do {
            const int len = ui_wrap(rest, room);
            snprintf(text[n], TEXT_W, "%-8s %.*s", lead ? msg->when : "", len, rest);
            bad[n++] = msg->problem;
            rest += len;
            rest += *rest == ' ';
            lead = 0;
        } while (*rest && n < MAX_LINES);
    }
    const int h = lines, shown = h - 3;
    const int most_back = n - shown > 0 ? n - shown : 0;
    m->log_back = m->log_back < 0 ? 0
                      : m->log_back > most_back ? most_back : m->log_back;
    int y, x;
    ui_box(lines, cols, h, w, &y, &x);
    char line[160];
    snprintf(line, sizeof line, "Messages: the last %d of %d, newest last  (up down PgUp PgDn, "
             "Esc: close)", kept, m->snap->message_count);
    attron(A_BOLD);
    mvaddnstr(y + 1, x + 2, line, w - 4);
    attroff(A_BOLD);
    const int top = n - shown - m->log_back > 0 ? n - shown - m->log_back : 0;
    for (int i = 0; i < shown && top + i < n; i++) {
        const int attr = bad[top + i] ? COLOR_PAIR(UI_BAD) | A_BOLD : 0;
        attron(attr);
        ui_text(y + 2 + i, x + 2, text[top + i], w - 4);
        attroff(attr);
    }
    if (n == 0)
        mvaddnstr(y + 2, x + 2, "(no messages yet)", w - 4);
}
