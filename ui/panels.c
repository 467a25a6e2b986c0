/* The panels that show state rather than measure it: the header, the room
 * list with the selected room's parameters and decay, the engines, the
 * messages, the status line and the help screen. */
#include <curses.h>
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

void ui_draw_header(const ui_model *m, const ui_rect *r)
{
    es_session *s = m->session;
    es_player *pl = es_session_player(s);
    const es_session_config *c = es_session_now(s);
    es_latency_parts lp;
    es_player_latency_parts(pl, &lp);
    char latency[224];
    es_latency_text(&lp, c->rate, latency, sizeof latency);
    /* A server whose period is longer than the block (JACK's own, or a
     * PipeWire quantum another client forced): said beside the block, as
     * it is what the latency counts. */
    char period[32] = "";
    if (lp.period > c->block)
        snprintf(period, sizeof period, " (period %d)", lp.period);
    char line[768];
    attron(A_REVERSE | A_BOLD);
    mvhline(r->y, r->x, ' ', r->w);
    /* The latency first: a long device name may run off the edge. */
    snprintf(line, sizeof line, " earshot  block %d%s  latency %s  %g kHz  %s > %s",
             c->block, period, latency, c->rate / 1e3,
             es_session_source_name(s), es_player_device(pl));
    put(r, 0, 0, line);
    attroff(A_REVERSE | A_BOLD);
    const es_device_state ds = es_session_device_state(s);
    if (ds != ES_DEVICE_PLAYING) { /* said where the eye starts: the meters are stale */
        snprintf(line, sizeof line, " %s ", es_device_state_word(ds));
        attron(COLOR_PAIR(UI_BAD) | A_BOLD | A_REVERSE);
        put(r, 0, 0, line);
        attroff(COLOR_PAIR(UI_BAD) | A_BOLD | A_REVERSE);
    }
    /* The levels after the room and engine, the room's name shortened so
     * they always show: "trim -6 wet 0 dry off out +0 dB BYPASS LIMIT". */
    const es_mix *mx = es_session_mix(s);
    char wet[16], dry[16], out[16], tail[160];
    short_db(mx->wet, 0, wet, sizeof wet);
    short_db(mx->dry, 0, dry, sizeof dry);
    short_db(mx->gain, 1, out, sizeof out);
    snprintf(tail, sizeof tail, "engine %s | trim %s%.0f wet %s dry %s out %s dB%s%s",
             m->stats.engine ? m->stats.engine : c->engine->name,
             mx->trim_db > 0 ? "+" : "", round(mx->trim_db) + 0.0, wet, dry, out,
             mx->bypass ? " BYPASS" : "", mx->limiter ? " LIMIT" : "");
    /* While recording, REC and its time (or why it failed) at the end. */
    char rec[48] = "";
    if (es_session_recording(s)) {
        const char *failed = es_session_record_failed(s);
        if (failed)
            snprintf(rec, sizeof rec, "  REC FAILED: %s", failed);
        else
            snprintf(rec, sizeof rec, "  REC %.1f s",
                     (double)es_session_recorded_frames(s) / c->rate);
    }
    const int rec_w = rec[0] ? ((int)strlen(rec) > 13 ? (int)strlen(rec) : 13) : 0;
    /* Where the room's name would get under 4 letters it is left out (the
     * room list marks it playing); while recording, REC keeps its place. */
    const int room_w = r->w - 10 - (int)strlen(tail) - rec_w;
    if (room_w >= 4)
        snprintf(line, sizeof line, " room %.*s | %s", room_w, room_label(es_session_room(s)),
                 tail);
    else
        snprintf(line, sizeof line, " %s", tail);
    put(r, 1, 0, line);
    /* How long the stream has played, to a tenth: it moves on every other
     * redraw, so a screen that stopped drawing shows it. */
    snprintf(line, sizeof line, "up %.1f s", es_session_elapsed(s));
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

void ui_draw_rooms(ui_model *m, const ui_rect *r)
{
    ui_rooms_follow(m);
    const es_library *lib = es_session_library(m->session);
    title(r, "Rooms (Enter, / n N find, o open, R)");
    /* The list takes about half the panel; the rest is parameters and plot. */
    int list_h = (r->h - 1) / 2;
    if (list_h > m->room_count)
        list_h = m->room_count > 0 ? m->room_count : 1;
    /* The cursor's row always shows; the list fills its rows to the end. */
    if (m->top > m->cursor)
        m->top = m->cursor;
    while (m->cursor >= m->top + rooms_shown(m->top, m->room_count, list_h))
        m->top++;
    while (m->top > 0 && m->top - 1 + rooms_shown(m->top - 1, m->room_count, list_h) >=
                             m->room_count)
        m->top--;
    if (m->top < 0)
        m->top = 0;
    const int shown = rooms_shown(m->top, m->room_count, list_h);
    m->rooms_page = shown;
    if (m->room_count == 0)
        put(r, 1, 1, "(no rooms: see earshot rooms --help)");
    const int playing = es_session_room_index(m->session, es_session_room(m->session));
    char preparing[256] = "";
    const int wanted = es_session_preparing(m->session, preparing, sizeof preparing)
                           ? es_session_room_index(m->session, es_session_want(m->session).room)
                           : -1;
    int row = 1;
    char line[200];
    attron(COLOR_PAIR(UI_DIM));
    if (m->top > 0) {
        snprintf(line, sizeof line, "  ^ %d more", m->top);
        put(r, row++, 0, line);
    }
    attroff(COLOR_PAIR(UI_DIM));
    for (int k = 0; k < shown && m->top + k < m->room_count; k++) {
        const int i = m->top + k;
        const es_room *room = &lib->rooms[i];
        const int here = i == playing, coming = i == wanted && !here;
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
    const int below = m->room_count - (m->top + shown);
    if (below > 0) {
        snprintf(line, sizeof line, "  v %d more", below);
        attron(COLOR_PAIR(UI_DIM));
        put(r, row, 0, line);
        attroff(COLOR_PAIR(UI_DIM));
    }
    if (m->room_count == 0)
        return;
    /* Measured on the session's preparer thread; asked for here. */
    const es_room_info *info = es_session_room_info(m->session, m->cursor);
    const int at = 1 + list_h;
    if (info->measured == 0) {
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
    snprintf(line, sizeof line, "T30 %.2f s  EDT %.2f s  C80 %+.1f dB", info->a.t30,
             info->a.edt, info->a.c80);
    put(r, at, 0, line);
    snprintf(line, sizeof line, "D50 %.2f  %.2f s  %d ch  gain %+.1f dB", info->a.d50,
             info->seconds, info->channels, info->gain_db);
    put(r, at + 1, 0, line);
    snprintf(line, sizeof line, "energy decay over %.2f s:", info->a.usable_s);
    attron(COLOR_PAIR(UI_DIM));
    put(r, at + 2, 0, line);
    attroff(COLOR_PAIR(UI_DIM));
    decay_plot(info, r, at + 3);
}

/* The engines, each marked with the A/B slots that hold it; the one
 * playing says so, with its partition and pipelining when it has them. */
void ui_draw_engines(const ui_model *m, const ui_rect *r)
{
    char heading[64], preparing[256] = "";
    snprintf(heading, sizeof heading, "Engines  1-%d: pick  Tab: A/B", m->engine_count);
    es_session_preparing(m->session, preparing, sizeof preparing);
    const es_session_wanted want = es_session_want(m->session);
    const es_session_config *c = es_session_now(m->session);
    title(r, heading);
    for (int i = 0; i < m->engine_count && 1 + i < r->h; i++) {
        const es_engine_class *k = es_engines[i];
        const int lost = es_session_device_state(m->session) == ES_DEVICE_LOST;
        const int playing = !lost && m->stats.engine && !strcmp(m->stats.engine, k->name);
        char line[256], mark[3] = "  ", opts[96] = "";
        for (int slot = 0; slot < ES_AB_SLOTS; slot++)
            if (m->slot[slot].set && m->slot[slot].engine == k)
                mark[slot] = "AB"[slot];
        const int coming = preparing[0] && k == want.engine && k != c->engine;
        /* The latency a person hears with this engine's slot playing. */
        char heard[24] = "";
        const int held_by = mark[0] != ' ' && mark[1] != ' ' ? m->slot_playing
                            : mark[0] != ' ' ? ES_SLOT_A : mark[1] != ' ' ? ES_SLOT_B : -1;
        if (held_by >= 0 && m->slot[held_by].latency >= 0)
            snprintf(heard, sizeof heard, " %.1fms",
                     1e3 * m->slot[held_by].latency / c->rate);
        else if (held_by >= 0) /* the device's figure failed its check */
            snprintf(heard, sizeof heard, " ?ms");
        if (playing && (k->caps & ES_CAP_PARTITION))
            snprintf(opts, sizeof opts, " p%d", c->options.partition
                                                   ? c->options.partition
                                                   : es_engine_default_partition(c->block));
        if (playing && (k->caps & ES_CAP_PIPELINED) && c->options.gpu_pipelined)
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " pipe");
        /* --gpu's list is every GPU engine's: said on each of their rows. */
        char gpus[64];
        if ((k->caps & ES_CAP_GPU) && c->options.gpu.list.count != 0)
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " gpu %s",
                     es_gpu_list_text(&c->options.gpu.list, gpus, sizeof gpus));
        if (m->engine_ok[i]) {
            snprintf(line, sizeof line, "%d %s %-17s %s%s%s", i + 1, mark, k->name,
                     playing ? (m->stats.crossfading ? "crossfading" : "playing")
                     : coming ? "preparing"
                     : lost && k == c->engine ? "stopped (device lost)" : "", heard, opts);
            if (opts[0] && (int)strlen(line) > r->w) /* the options whole, or not at all */
                line[strlen(line) - strlen(opts)] = 0;
        } else {
            snprintf(line, sizeof line, "%d %s %-17s off: %s", i + 1, mark, k->name,
                     m->engine_why[i]);
        }
        const int attr = playing ? (COLOR_PAIR(UI_GOOD) | A_BOLD)
                         : m->engine_ok[i] ? 0 : COLOR_PAIR(UI_DIM);
        attron(attr);
        ui_hit_add(UI_HIT_ENGINE, i, r->y + 1 + i, r->x, r->w);
        put(r, 1 + i, 0, line);
        attroff(attr);
    }
}

void ui_draw_messages(const ui_model *m, const ui_rect *r)
{
    const int shown = m->message_count < r->h ? m->message_count : r->h;
    for (int k = 0; k < shown; k++) {
        const ui_message *msg =
            &m->messages[(m->message_count - shown + k) % UI_MESSAGES];
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
    char line[160], preparing[256];
    if (es_session_preparing(m->session, preparing, sizeof preparing))
        snprintf(line, sizeof line, " preparing %.120s ...", preparing);
    else
        snprintf(line, sizeof line, " ?:help q:quit Enter:room 1-%d:engine Tab:A/B [ ]:block "
                 "s:source r:record v:view", m->engine_count);
    attron(A_REVERSE);
    mvhline(r->y, r->x, ' ', r->w);
    put(r, 0, 0, line);
    attroff(A_REVERSE);
}

/* One entry of the help: keys, the command's word, and its words wrapped
 * to fit 80 columns beside them. */
enum { HELP_W = 100, HELP_CAP = 96, HELP_TEXT = 46 };

static void help_entry(char lines[][HELP_W], int *n, const char *keys, const char *name,
                       const char *text)
{
    const char *rest = text;
    int first = 1;
    /* Without a command's word, its column is the text's. */
    const int width = name[0] ? HELP_TEXT : HELP_TEXT + 11;
    while (*rest && *n < HELP_CAP) {
        int len = (int)strlen(rest);
        if (len > width) {
            len = width;
            while (len > 0 && rest[len] != ' ')
                len--;
            len = len ? len : width;
        }
        if (name[0])
            snprintf(lines[(*n)++], HELP_W, "%-14s %-10s %.*s", first ? keys : "",
                     first ? name : "", len, rest);
        else
            snprintf(lines[(*n)++], HELP_W, "%-14s %.*s", first ? keys : "", len, rest);
        rest += len;
        rest += *rest == ' ';
        first = 0;
    }
}

/* The help: the command table's keys and words (commands.h), then the
 * keys only the screen has, the mouse, and what the meters measure. */
static int help_lines(char lines[][HELP_W])
{
    int n = 0;
    for (const es_command *c = es_commands; c->name; c++)
        if (c->keys[0]) /* no key (mix): play --help lists it */
            help_entry(lines, &n, c->keys, c->name, c->help);
    static const char *const screen_only[][2] = {
        {"up down j k", "move in the room list (PgUp PgDn Home End too)"},
        {"/ n N", "find a room by name; the next, the one before"},
        {"o", "open an IR file by path"},
        {"v", "spectrum or scrolling spectrogram"},
        {"m", "the message history (up down PgUp PgDn; Esc or m closes)"},
        {"? h F1", "this help (Space PgDn: next page, PgUp: back)"},
        {"Esc", "closes the help, the history, a prompt; on the screen it only says "
                "q or F10 quits"},
        {"Ctrl-C", "quit, as q (recordings are finished first)"},
        {"Ctrl-L", "repaint the whole screen"},
        {"mouse", "click a room: the cursor there; click it again (or double-click): "
                  "play it; click an engine: pick it; an A/B slot row: play that slot"},
        {"Shift+drag", "selects text in most terminals while the mouse is on"},
    };
    for (size_t k = 0; k < sizeof screen_only / sizeof *screen_only; k++)
        help_entry(lines, &n, screen_only[k][0], "", screen_only[k][1]);
    static const char *const meters[][2] = {
        {"DSP load", "processing time / the block's budget (its frames / rate)"},
        {"miss", "an engine miss: a block over its budget while the audio thread was "
                 "busy for 80 % of it or more, or a GPU or tail result not ready in time"},
        {"stalls", "blocks over their budget while the audio thread was mostly off the "
                   "CPU: the machine's, not the engine's"},
        {"wake", "the stall probe: the latest a real-time thread beside the audio woke, "
                 "every period since the stream started or c"},
        {"p50 p99 max", "the load over the blocks the slot's engine played alone since "
                        "it last changed or c"},
        {"x RT", "the real time those blocks stood for / the time they took "
                 "= 1 / mean load"},
        {"Msmp/s", "samples (frames x channels) processed a second of processing time"},
        {"latency", "what a person at the microphone hears: the engine + the output "
                    "buffer (+ the input buffer when the mic is used)"},
    };
    if (n < HELP_CAP)
        snprintf(lines[n++], HELP_W, "Meters:");
    for (size_t k = 0; k < sizeof meters / sizeof *meters; k++)
        help_entry(lines, &n, meters[k][0], "", meters[k][1]);
    return n;
}

/* A box over the screen, blank inside: its top row and left column. */
static void help_box(int lines, int cols, int h, int w, int *y, int *x)
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
    static char text[HELP_CAP][HELP_W];
    const int n = help_lines(text);
    /* Borders, a title and a footer around each page. */
    const int per_page = lines - 4 < n ? lines - 4 : n;
    const int pages = (n + per_page - 1) / per_page;
    const int page = m->help > pages ? pages : m->help;
    const int w = 76 < cols - 2 ? 76 : cols - 2, h = per_page + 4;
    int y, x;
    help_box(lines, cols, h, w, &y, &x);
    char line[HELP_W];
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
    enum { MAX_LINES = UI_MESSAGES * 8, TEXT_W = 200 };
    static char text[MAX_LINES][TEXT_W];
    static int bad[MAX_LINES];
    const int w = cols - 2, room = w - 4 - 9 > 20 ? w - 4 - 9 : 20;
    const int first = m->message_count > UI_MESSAGES ? m->message_count - UI_MESSAGES : 0;
    int n = 0;
    for (int k = first; k < m->message_count && n < MAX_LINES; k++) {
        const ui_message *msg = &m->messages[k % UI_MESSAGES];
        const char *rest = msg->text;
        int lead = 1;
        do {
            int len = (int)strlen(rest);
            if (len > room) {
                len = room;
                while (len > 0 && rest[len] != ' ')
                    len--;
                len = len ? len : room;
            }
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
    help_box(lines, cols, h, w, &y, &x);
    char line[160];
    snprintf(line, sizeof line, "Messages: the last %d of %d, newest last  (up down PgUp PgDn, "
             "Esc: close)", m->message_count - first, m->message_count);
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
