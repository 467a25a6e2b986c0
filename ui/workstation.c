/* The workstation's loop: open the session, take the terminal, then about
 * `fps` times a second poll the session, update and draw every panel from
 * the panel table (panel.h), and give each key to the view up over the
 * screen, a click to the panel under it, or the rest to the main screen's
 * keys (keys.c). The terminal is given back sane on q, on Ctrl-C and
 * SIGTERM (a flag the loop sees), and on a crash or SIGQUIT (the saved
 * terminal modes are restored from the signal handler). */
#define _DEFAULT_SOURCE /* SA_RESETHAND naming */
#include "curses_loaded.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "core/args.h"
#include "core/files.h"
#include "core/text.h"
#include "draw.h"
#include "hits.h"
#include "keys.h"
#include "layout.h"
#include "messages.h"
#include "panel.h"
#include "report.h"
#include "rooms.h"
#include "spectrum.h"
#include "workstation.h"

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

/* The session's lines: kept by the session (its snapshot carries them);
 * once the screen is gone, on the terminal, as play says them. */
static void say(void *ctx, int problem, const char *line)
{
    ui_model *m = ctx;
    (void)problem;
    if (m->screen_done) {
        fputs("earshot: ", stderr);
        es_text_put(stderr, line);
        fputc('\n', stderr);
    }
}

/* A line a library printed on stderr while the screen was up. */
static void host_line(void *ctx, const char *text)
{
    char line[300];
    snprintf(line, sizeof line, "host API: %.280s", text);
    ui_note(ctx, 0, line);
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

/* The panels, in the table's order, each in its area; a view over the
 * screen only while it is up. The rows a click can act on are noted as
 * each panel's (hits.h). */
static void draw(ui_model *m)
{
    erase();
    ui_hits_clear();
    ui_layout l;
    ui_layout_compute(LINES, COLS, m->snap->engine_count, &l);
    if (l.too_small) {
        mvprintw(0, 0, "earshot needs at least 80x24 (this is %dx%d); q or F10 quits", COLS,
                 LINES);
    } else {
        for (int k = 0; ui_panels[k]; k++) {
            const ui_panel *p = ui_panels[k];
            if (p->up && !p->up(m))
                continue;
            ui_hits_drawing(k);
            p->draw(m, &l.area[p->area]);
        }
    }
    refresh();
}

/* Each panel's update from the new snapshot. */
static void update(ui_model *m)
{
    for (int k = 0; ui_panels[k]; k++)
        if (ui_panels[k]->update)
            ui_panels[k]->update(m);
}

/* A click: to the panel that drew the row under it. */
static int click(ui_model *m)
{
    int y, x, twice, panel, index;
    if (ui_click_read(&y, &x, &twice) && ui_hit_at(y, x, &panel, &index) &&
        ui_panels[panel]->hit)
        ui_panels[panel]->hit(m, index, twice);
    return UI_KEEP;
}

/* A key: F10 quits from everywhere (as in htop and mc); else the topmost
 * view that is up takes it (the help, the history, M's form, the prompt),
 * else a click goes to its panel and any other key to the main screen. */
static int take_key(ui_model *m, int key)
{
    if (key == KEY_F(10))
        return UI_QUIT;
    int top = 0;
    while (ui_panels[top])
        top++;
    while (--top >= 0)
        if (ui_panels[top]->key && ui_panels[top]->up && ui_panels[top]->up(m))
            return ui_panels[top]->key(m, key);
    return key == KEY_MOUSE ? click(m) : ui_key(m, key);
}

static void model_init(ui_model *m, es_session *s)
{
    m->session = s;
    m->snap = es_session_snapshot(s);
    ui_rooms_follow(m); /* the cursor on the room playing */
    m->spectrum = ui_spectrum_create(m->snap->rate);
    if (!m->spectrum)
        ui_note(m, 1, "the spectrum view is off: FFTW could not plan its transform");
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
    es_report_write(es_session_snapshot(s), f, 1);
    fclose(f);
    if (es_file_write_out(path, text, len, err, sizeof err) != 0)
        es_error("--report %s", err);
    free(text);
}

/* The terminal taken: curses, keys, clicks, colours; fd 2 into the
 * message log. */
static void open_screen(void)
{
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
}

/* About fps times a second: poll the session, draw its snapshot, and take
 * the keys until the next frame is due. Returns the redraws made. */
static unsigned long run_loop(ui_model *m, const es_ui_options *opt)
{
    const double start = seconds_now(), period = 1.0 / opt->fps;
    double next_frame = start;
    int quit = 0;
    unsigned long redraws = 0;
    while (!quit && !quit_requested) {
        m->now = seconds_now() - start;
        if (opt->seconds > 0 && m->now >= opt->seconds)
            break;
        es_session_poll(m->session);
        if (es_session_quit_asked(m->session))
            break;
        ui_console_drain(host_line, m);
        update(m);
        draw(m);
        redraws++;
        next_frame += period;
        const double left = next_frame - seconds_now();
        if (left < -period)
            next_frame = seconds_now(); /* fell behind: do not race to catch up */
        timeout(left > 0 ? (int)(left * 1000) : 0);
        for (int key = getch(); key != ERR && !quit; key = getch()) {
            const int flags = take_key(m, key);
            quit = flags & UI_QUIT;
            if (flags & UI_REPAINT) { /* whatever wrote on the terminal */
                clearok(curscr, TRUE);
                redrawwin(stdscr);
            }
            timeout(0);
        }
    }
    return redraws;
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
    /* Before anything plays: without ncurses there is no screen to say so. */
    if (!es_curses_load(err, sizeof err)) {
        es_error("the workstation needs ncurses: %s; earshot play --headless plays without it",
                 err);
        return 1;
    }
    es_session *s = es_session_open(cfg, say, m, err, sizeof err);
    if (!s) {
        es_error("%s", err);
        return 1;
    }
    model_init(m, s);
    if (opt->settings && opt->restore) { /* opened as they were: only their problems to say */
        m->spectrogram = opt->settings->spectrogram;
        es_settings_rooms_gone(opt->settings, m->snap->remembered_gone);
        if (es_settings_problem(opt->settings, err, sizeof err))
            ui_note(m, 1, err);
        if (es_settings_restored(opt->settings, err, sizeof err))
            ui_note(m, 0, err);
    }
    if (opt->test && es_session_test_start(s, opt->test, err, sizeof err) != 0) {
        es_session_close(s);
        es_error("%s", err);
        return 1;
    }
    open_screen();
    const unsigned long redraws = run_loop(m, opt);
    leave_screen();
    m->screen_done = 1;
    if (opt->settings && opt->remember) { /* on quit only: a crash keeps the last good file */
        es_settings_capture(opt->settings, m->snap, m->spectrogram);
        if (es_settings_write(opt->settings, err, sizeof err) != 0)
            es_error("%s", err);
    }
    const int status = es_session_stop(s) == 0 ? 0 : 1;
    /* What happened since the screen went away, then the run's summary. */
    es_report_write(m->snap, stdout, 0);
    printf("  screen      %lu redraws in %.1f s (%.0f a second)\n", redraws, m->now,
           m->now > 0 ? redraws / m->now : 0.0);
    if (opt->report)
        write_report(s, opt->report);
    ui_spectrum_destroy(m->spectrum);
    es_session_close(s);
    return status;
}
