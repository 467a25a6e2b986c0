/* The workstation's loop: open the session, take the terminal, then about
 * `fps` times a second poll the session, read the stats, analyse the
 * spectrum, redraw, and turn keys into changes. The terminal is given back
 * sane on q, on Ctrl-C and SIGTERM (a flag the loop sees), and on a crash
 * or SIGQUIT (the saved terminal modes are restored from the signal
 * handler). */
#define _DEFAULT_SOURCE /* SA_RESETHAND naming, localtime_r */
#include <curses.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "core/args.h"
#include "core/files.h"
#include "core/text.h"
#include "engine.h"
#include "ui.h"

static volatile sig_atomic_t quit_requested;
static struct termios saved_modes;
static int have_saved_modes;
static volatile sig_atomic_t screen_up;

static void on_quit_signal(int sig)
{
    (void)sig;
    quit_requested = 1;
}

/* A crash with the screen up: give the terminal back (only async-signal-safe
 * calls), then die of the same signal. */
static void on_crash(int sig)
{
    if (screen_up) {
        static const char reset[] = "\033[0m\033[?25h\033[?1049l\r\n";
        if (have_saved_modes)
            tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
        (void)!write(STDOUT_FILENO, reset, sizeof reset - 1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void leave_screen(void)
{
    if (screen_up) {
        endwin();
        ui_console_end();
        screen_up = 0;
    }
}

static void install_signals(void)
{
    struct sigaction quit = {.sa_handler = on_quit_signal};
    sigaction(SIGINT, &quit, NULL);
    sigaction(SIGTERM, &quit, NULL);
    sigaction(SIGHUP, &quit, NULL);
    struct sigaction crash = {.sa_handler = on_crash};
    /* SIGQUIT (Ctrl-\) dumps core as it always does, with the terminal
     * given back first. */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT};
    for (size_t i = 0; i < sizeof fatal / sizeof *fatal; i++)
        sigaction(fatal[i], &crash, NULL);
    if (tcgetattr(STDIN_FILENO, &saved_modes) == 0)
        have_saved_modes = 1;
    atexit(leave_screen);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The session's lines (and the workstation's own), stamped with the time. */
static void say(void *ctx, int problem, const char *line)
{
    ui_model *m = ctx;
    if (m->screen_done) { /* after quitting: on the terminal, as play says it */
        fputs("earshot: ", stderr);
        es_text_put(stderr, line);
        fputc('\n', stderr);
        return;
    }
    ui_message *msg = &m->messages[m->message_count % UI_MESSAGES];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(msg->when, sizeof msg->when, "%H:%M:%S", &tm);
    es_text_escape(msg->text, sizeof msg->text, line); /* host lines too: anything */
    msg->problem = problem;
    m->message_count++;
}

static void note(ui_model *m, int problem, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A line a library printed on stderr while the screen was up. */
static void host_line(void *ctx, const char *text)
{
    note(ctx, 0, "host API: %.280s", text);
}

/* A test hook: a line on fd 2 from another thread, as a host API's
 * thread would print one, while the screen is up. */
static void *stderr_hook(void *arg)
{
    (void)arg;
    usleep(300000);
    fprintf(stderr, "earshot test: a line on stderr from another thread\n");
    return NULL;
}

static void note(ui_model *m, int problem, const char *fmt, ...)
{
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    say(m, problem, line);
}

/* Every key that changes the session becomes a command line, run through
 * the same table (commands.h) as play's --commands: the same limits, the
 * same refusals in the same words. */
static void command(ui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void command(ui_model *m, const char *fmt, ...)
{
    char err[600];
    va_list ap;
    va_start(ap, fmt);
    if (es_command_vrunf(m->session, err, sizeof err, fmt, ap) < 0 && err[0])
        note(m, 1, "%s", err);
    va_end(ap);
}

void ui_command(ui_model *m, const char *line)
{
    command(m, "%s", line);
}

void ui_note(ui_model *m, int problem, const char *line)
{
    note(m, problem, "%s", line);
}

/* A level now in dB, -inf when off. */
static double level_db(float linear)
{
    return linear > 0 ? 20 * log10(linear) : -INFINITY;
}

/* Wet and dry as an equal-power balance (0 dry .. 1 wet), in dB. */
static void apply_balance(ui_model *m)
{
    const double quarter = 1.5707963267948966;
    const double wet = sin(m->balance * quarter), dry = cos(m->balance * quarter);
    char w[24] = "off", d[24] = "off";
    if (wet > 1e-3)
        snprintf(w, sizeof w, "%.1f", 20 * log10(wet));
    if (dry > 1e-3)
        snprintf(d, sizeof d, "%.1f", 20 * log10(dry));
    command(m, "wet %s", w);
    command(m, "dry %s", d);
}

/* One dB up or down from a level now, within lo..hi (off steps up to lo). */
static void step_db(ui_model *m, const char *name, double now, int up, double lo, double hi)
{
    double next = now == -INFINITY ? lo : round(now) + (up ? 1 : -1);
    next = next < lo ? lo : next > hi ? hi : next;
    command(m, "%s %.0f", name, next);
}

static void pick_engine(ui_model *m, int i)
{
    if (i >= m->engine_count)
        return;
    if (!m->engine_ok[i]) {
        note(m, 1, "%s is unavailable here: %s", es_engines[i]->name, m->engine_why[i]);
        return;
    }
    if (es_engines[i] == es_session_want(m->session).engine) {
        note(m, 0, "%s is playing already", es_engines[i]->name);
        return;
    }
    command(m, "engine %s", es_engines[i]->name);
}

/* Halves or doubles a setting; at its limit, says so rather than asking. */
static void step(ui_model *m, const char *name, int now, int up, double min, double max)
{
    const int next = up ? now * 2 : now / 2;
    if (next < min || next > max) {
        note(m, 1, "%s %d is the %s there is (%.0f..%.0f)", name, now,
             up ? "largest" : "smallest", min, max);
        return;
    }
    command(m, "%s %d", name, next);
}

static void change_partition(ui_model *m, int up)
{
    const es_session_wanted w = es_session_want(m->session);
    if (!(w.engine->caps & ES_CAP_PARTITION)) {
        note(m, 1, "%s takes no partition size (pick one that does)", w.engine->name);
        return;
    }
    const int now = w.options.partition ? w.options.partition
                                        : es_engine_default_partition(w.block);
    step(m, "partition", now, up, ES_PARTITION_MIN, ES_PARTITION_MAX);
}

static void toggle_pipelined(ui_model *m)
{
    const es_session_wanted w = es_session_want(m->session);
    if (!(w.engine->caps & ES_CAP_PIPELINED)) {
        note(m, 1, "%s has no pipelined mode", w.engine->name);
        return;
    }
    command(m, "pipelined %s", w.options.gpu_pipelined ? "off" : "on");
}

/* The next source that can play here: signal, file (when one was given),
 * microphone (when the device is not the null device). */
static void next_source(ui_model *m)
{
    static const char *const words[] = {"signal", "file", "mic"};
    const es_session_config *c = es_session_now(m->session);
    const es_session_wanted w = es_session_want(m->session);
    for (int step = 1; step < 3; step++) {
        const es_source_kind k = (es_source_kind)((w.source + step) % 3);
        if ((k == ES_SOURCE_FILE && !c->file) ||
            (k == ES_SOURCE_MIC && !es_device_can_capture(es_player_device(es_session_player(m->session)))))
            continue;
        command(m, "source %s", words[k]);
        return;
    }
    note(m, 1, "no other source: start with --input FILE for a file, or play on a sound "
         "device for the microphone");
}

static void toggle_recording(ui_model *m)
{
    if (es_session_recording(m->session)) {
        command(m, "record");
        return;
    }
    char out[80], dry[80], stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    /* Names no file has yet (a second take within the second gets -2, -3,
     * ...); the session refuses rather than replace one that appears
     * meanwhile. */
    for (int take = 1; take < 100; take++) {
        char suffix[8] = "";
        if (take > 1)
            snprintf(suffix, sizeof suffix, "-%d", take);
        snprintf(out, sizeof out, "earshot-%s%s.wav", stamp, suffix);
        snprintf(dry, sizeof dry, "earshot-%s%s-dry.wav", stamp, suffix);
        if (access(out, F_OK) != 0 && access(dry, F_OK) != 0)
            break;
    }
    /* The dry take too: more than a command line says, so straight to the
     * session (the names are made here, never typed). */
    es_session_record(m->session, out, dry, 1);
}

/* A click: a room row moves the cursor there (a second click on it, or a
 * double click, plays it), an engine row picks the engine, an A/B slot row
 * plays that slot. Where and what is read from the last redraw's hits. */
static void handle_click(ui_model *m)
{
    MEVENT ev;
    if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
        return;
    const int twice = (ev.bstate & BUTTON1_DOUBLE_CLICKED) != 0;
    int i;
    switch (ui_hit_at(ev.y, ev.x, &i)) {
    case UI_HIT_ROOM:
        ui_rooms_click(m, i, twice || i == m->cursor);
        return;
    case UI_HIT_ENGINE:
        pick_engine(m, i);
        return;
    case UI_HIT_SLOT:
        command(m, "slot %c", "ab"[i]);
        return;
    default:
        return;
    }
}

/* A key while the help is up: Space and PgDn page on, PgUp back; any
 * other key closes it. */
static void help_key(ui_model *m, int key)
{
    if (key == KEY_MOUSE) {
        MEVENT ev;
        (void)getmouse(&ev); /* read and dropped: a click does not close it */
        return;
    }
    if (key == ' ' || key == KEY_NPAGE || key == KEY_DOWN || key == 'j')
        m->help = m->help < m->help_pages ? m->help + 1 : 0;
    else if (key == KEY_PPAGE || key == KEY_UP || key == 'k')
        m->help = m->help > 1 ? m->help - 1 : 1;
    else
        m->help = 0;
}

/* A key while the message history is up: it scrolls; Esc, m or q closes. */
static void history_key(ui_model *m, int key)
{
    const int page = LINES - 4 > 1 ? LINES - 4 : 1;
    switch (key) {
    case KEY_UP: case 'k': m->log_back++; break;
    case KEY_DOWN: case 'j': m->log_back--; break;
    case KEY_PPAGE: m->log_back += page; break;
    case KEY_NPAGE: m->log_back -= page; break;
    case KEY_HOME: m->log_back = UI_MESSAGES * 8; break; /* clamped when drawn */
    case KEY_END: m->log_back = 0; break;
    case KEY_MOUSE: { MEVENT ev; (void)getmouse(&ev); break; }
    case 27: case 'm': case 'q': m->log_open = 0; break;
    default: break;
    }
}

/* One key. Returns 1 to quit. */
static int handle_key(ui_model *m, int key)
{
    if (key == KEY_F(10)) /* quits from everywhere, as in htop and mc */
        return 1;
    if (m->help) {
        help_key(m, key);
        return 0;
    }
    if (m->log_open) {
        history_key(m, key);
        return 0;
    }
    if (m->prompt) { /* the prompt takes every key until Enter or Esc */
        ui_prompt_key(m, key);
        return 0;
    }
    if (ui_rooms_key(m, key)) /* rooms.c: the list, search, open, rescan */
        return 0;
    switch (key) {
    case 'q': case 'Q':
        return 1;
    case 12: /* Ctrl-L: repaint everything, whatever wrote on the terminal */
        clearok(curscr, TRUE);
        redrawwin(stdscr);
        break;
    case 'l':
        command(m, "latency");
        break;
    case '?': case 'h': case KEY_F(1):
        m->help = 1;
        break;
    case 27: /* Esc: closes what is open; here nothing is, so it only says how to quit */
        note(m, 0, "q or F10 quits");
        break;
    case 'm':
        m->log_open = 1;
        m->log_back = 0;
        break;
    case KEY_MOUSE:
        handle_click(m);
        break;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        pick_engine(m, key - '1');
        break;
    case '\t':
        command(m, "slot");
        break;
    case '[': case ']':
        step(m, "block", es_session_want(m->session).block, key == ']', ES_BLOCK_MIN,
             ES_BLOCK_MAX);
        break;
    case '{': case '}':
        change_partition(m, key == '}');
        break;
    case 'p':
        toggle_pipelined(m);
        break;
    case ',': case '.':
        m->balance += key == '.' ? 0.1 : -0.1;
        m->balance = m->balance < 0.001 ? 0 : m->balance > 0.999 ? 1 : m->balance;
        apply_balance(m);
        break;
    case '-': case '+': case '=':
        step_db(m, "gain", level_db(es_session_mix(m->session)->gain), key != '-', -40, 12);
        break;
    case '<': case '>':
        step_db(m, "trim", es_session_mix(m->session)->trim_db, key == '>', ES_TRIM_DB_MIN,
                ES_TRIM_DB_MAX);
        break;
    case 'b': case ' ': /* Space: the A/B against dry that players expect */
        command(m, "bypass");
        break;
    case 'L':
        command(m, "limiter %s", es_session_mix(m->session)->limiter ? "off" : "-1");
        break;
    case 's':
        next_source(m);
        break;
    case 'r':
        toggle_recording(m);
        break;
    case 'c':
        command(m, "reset");
        if (m->message_count == 0 || !m->messages[(m->message_count - 1) % UI_MESSAGES].problem)
            note(m, 0, "meters cleared: both slots, xruns and the history count from now");
        break;
    case 'v':
        m->spectrogram = !m->spectrogram;
        break;
    default:
        break;
    }
    return 0;
}

static void draw(ui_model *m)
{
    erase();
    ui_hits_clear();
    ui_layout l;
    ui_layout_compute(LINES, COLS, m->engine_count, &l);
    if (l.too_small) {
        mvprintw(0, 0, "earshot needs at least 80x24 (this is %dx%d); q or F10 quits", COLS, LINES);
    } else {
        ui_draw_header(m, &l.header);
        ui_draw_rooms(m, &l.rooms);
        ui_draw_engines(m, &l.engines);
        ui_draw_meters(m, &l.meters);
        ui_draw_spectrum(m->spectrum, m->spectrogram, &l.spectrum);
        ui_draw_messages(m, &l.messages);
        ui_draw_status(m, &l.status);
        ui_draw_prompt(m, &l.status);
        if (m->log_open)
            ui_draw_history(m, LINES, COLS);
        if (m->help)
            m->help_pages = ui_draw_help(m, LINES, COLS);
    }
    refresh();
}

static void model_init(ui_model *m, es_session *s)
{
    m->session = s;
    m->balance = 1;
    ui_rooms_follow(m); /* the cursor on the room playing */
    for (int i = 0; es_engines[i] && i < UI_MAX_ENGINES; i++) {
        m->engine_ok[i] = es_engines[i]->probe(m->engine_why[i], sizeof m->engine_why[i]);
        m->engine_count++;
    }
    m->spectrum = ui_spectrum_create(es_session_now(s)->rate);
    if (!m->spectrum)
        note(m, 1, "the spectrum view is off: FFTW could not plan its transform");
}

/* The report as files are written (core/files.h): a regular file whole,
 * a FIFO or device written into, never replaced, a FIFO nobody reads
 * said rather than waited on. */
static void write_report(es_session *s, const char *path)
{
    char *text = NULL, err[1200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        es_error("--report %s: out of memory", path);
        return;
    }
    es_session_report(s, f, 1);
    fclose(f);
    if (es_file_write_out(path, text, len, err, sizeof err) != 0)
        es_error("--report %s", err);
    free(text);
}

int es_workstation_run(const es_session_config *cfg, const es_ui_options *opt)
{
    static ui_model model; /* large (histories, spectrogram), and one per process */
    ui_model *m = &model;
    char err[1024];
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        es_error("the workstation needs a terminal; use earshot play --headless");
        return 1;
    }
    es_session *s = es_session_open(cfg, say, m, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    model_init(m, s);
    if (opt->settings && opt->restore) { /* before the screen: it waits for the slots */
        es_settings_apply(opt->settings, s);
        m->spectrogram = opt->settings->spectrogram;
        if (es_settings_problem(opt->settings, err, sizeof err))
            note(m, 1, "%.290s", err);
    }
    install_signals();
    ui_console_begin();
    initscr();
    screen_up = 1;
    if (getenv("EARSHOT_TEST_STDERR")) {
        pthread_t t;
        if (pthread_create(&t, NULL, stderr_hook, NULL) == 0)
            pthread_detach(t);
    }
    cbreak(); /* not raw: Ctrl-C stays a signal */
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25); /* Esc acts at once, not after ncurses' default second */
    /* Clicks only (no motion, no drag): terminals still select text with
     * Shift+drag while the mouse is on. */
    mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED, NULL);
    curs_set(0);
    ui_colors_init();

    const double start = seconds_now(), period = 1.0 / opt->fps;
    double next_frame = start;
    int quit = 0;
    unsigned long redraws = 0;
    while (!quit && !quit_requested) {
        m->now = seconds_now() - start;
        if (opt->seconds > 0 && m->now >= opt->seconds)
            break;
        es_session_poll(s);
        ui_console_drain(host_line, m);
        ui_meters_update(m);
        if (m->spectrum)
            ui_spectrum_update(m->spectrum, es_session_scope(s), m->now);
        draw(m);
        redraws++;
        /* Keys until the next frame is due. */
        next_frame += period;
        const double left = next_frame - seconds_now();
        if (left < -period)
            next_frame = seconds_now(); /* fell behind: do not race to catch up */
        timeout(left > 0 ? (int)(left * 1000) : 0);
        int key = getch();
        while (key != ERR && !quit) {
            quit = handle_key(m, key);
            timeout(0);
            key = getch();
        }
    }
    leave_screen();
    m->screen_done = 1;
    if (opt->settings) { /* remembered on quit only: a crash keeps the last good file */
        es_settings_capture(opt->settings, s, m->spectrogram);
        if (es_settings_write(opt->settings, err, sizeof err) != 0)
            es_error("%s", err);
    }
    const int status = es_session_stop(s) == 0 ? 0 : 1;
    /* What happened since the screen went away, then the run's summary. */
    es_session_report(s, stdout, 0);
    printf("  screen      %lu redraws in %.1f s (%.0f a second)\n", redraws, m->now,
           m->now > 0 ? redraws / m->now : 0.0);
    if (opt->report)
        write_report(s, opt->report);
    ui_spectrum_destroy(m->spectrum);
    es_session_close(s);
    return status;
}
