/* ncurses through a table loaded when the workstation starts (internal to
 * ui/; core/library_loader.h says why). Include this, not <curses.h>: the
 * calls and variables keep their names, each one a macro for its table
 * entry (and curses.h's own macros, getch() or getmaxyx(), expand to
 * them). es_curses_load() comes before the first of them. */
#ifndef ES_CURSES_LOADED_H
#define ES_CURSES_LOADED_H

#include <stddef.h>

#include <curses.h>

#define ES_CURSES_CALLS(X)                                                                  \
    X(cbreak) X(clearok) X(curs_set) X(endwin) X(getmouse) X(has_colors) X(init_pair)        \
    X(initscr) X(keypad) X(mousemask) X(mvprintw) X(noecho) X(set_escdelay) X(start_color)  \
    X(use_default_colors) X(waddch) X(waddnstr) X(wattr_off) X(wattr_on) X(werase)          \
    X(wgetch) X(whline) X(wmove) X(wredrawln) X(wrefresh) X(wtimeout)
/* Its variables, reached through their addresses. */
#define ES_CURSES_VARIABLES(X) X(COLS) X(LINES) X(curscr) X(stdscr)

typedef struct {
#define ES_CURSES_SLOT(name) __typeof__(name) *name;
    ES_CURSES_CALLS(ES_CURSES_SLOT)
    ES_CURSES_VARIABLES(ES_CURSES_SLOT)
#undef ES_CURSES_SLOT
} es_curses_api;

extern es_curses_api es_libcurses;

/* Loads libncurses.so.6 once: 1, or 0 with why in `why` (n may be 0). */
int es_curses_load(char *why, size_t n);

#ifndef ES_CURSES_LOADER
#define cbreak (es_libcurses.cbreak)
#define clearok (es_libcurses.clearok)
#define curs_set (es_libcurses.curs_set)
#define endwin (es_libcurses.endwin)
#define getmouse (es_libcurses.getmouse)
#define has_colors (es_libcurses.has_colors)
#define init_pair (es_libcurses.init_pair)
#define initscr (es_libcurses.initscr)
#define keypad (es_libcurses.keypad)
#define mousemask (es_libcurses.mousemask)
#define mvprintw (es_libcurses.mvprintw)
#define noecho (es_libcurses.noecho)
#define set_escdelay (es_libcurses.set_escdelay)
#define start_color (es_libcurses.start_color)
#define use_default_colors (es_libcurses.use_default_colors)
#define waddch (es_libcurses.waddch)
#define waddnstr (es_libcurses.waddnstr)
#define wattr_off (es_libcurses.wattr_off)
#define wattr_on (es_libcurses.wattr_on)
#define werase (es_libcurses.werase)
#define wgetch (es_libcurses.wgetch)
#define whline (es_libcurses.whline)
#define wmove (es_libcurses.wmove)
#define wredrawln (es_libcurses.wredrawln)
#define wrefresh (es_libcurses.wrefresh)
#define wtimeout (es_libcurses.wtimeout)
#define COLS (*es_libcurses.COLS)
#define LINES (*es_libcurses.LINES)
#define curscr (*es_libcurses.curscr)
#define stdscr (*es_libcurses.stdscr)
#endif

#endif
