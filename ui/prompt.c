/* The one-line prompt: typed here, never read from a file. Enter searches
 * the rooms ('/', rooms.c) or plays the IR file at the path typed ('o'),
 * Esc closes it, Backspace and Ctrl-U edit it as a shell's line. */
#include "curses_loaded.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "layout.h"
#include "messages.h"
#include "panel.h"
#include "prompt.h"
#include "rooms.h"

#define ESC 27
#define CTRL_U 21

void ui_prompt_open(ui_model *m, int which)
{
    m->prompt = which;
    m->prompt_text[0] = 0;
}

static int prompt_up(const ui_model *m)
{
    return m->prompt != 0;
}

/* ~ and ~/... as the shell reads them (the home folder from $HOME). */
static void expand_home(const char *in, char *out, size_t n)
{
    const char *home = getenv("HOME");
    if (in[0] == '~' && (in[1] == '/' || !in[1]) && home && *home)
        snprintf(out, n, "%s%s", home, in + 1);
    else
        snprintf(out, n, "%s", in);
}

/* Enter: what was typed, done. */
static void enter(ui_model *m)
{
    const int which = m->prompt;
    m->prompt = 0;
    if (!m->prompt_text[0])
        return;
    if (which == '/') {
        ui_rooms_search(m, m->prompt_text);
    } else {
        char path[1024];
        expand_home(m->prompt_text, path, sizeof path);
        /* A bad path: the session says so, as for `room`. */
        ui_refused(m, es_session_set_room(m->session, path), "");
    }
}

static int prompt_key(ui_model *m, int key)
{
    const size_t len = strlen(m->prompt_text);
    if (key == ESC) {
        m->prompt = 0;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (len)
            m->prompt_text[len - 1] = 0;
    } else if (key == CTRL_U) { /* the line cleared, as in a shell */
        m->prompt_text[0] = 0;
    } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        enter(m);
    } else if (key >= 32 && key < 127 && len + 1 < sizeof m->prompt_text) {
        m->prompt_text[len] = (char)key;
        m->prompt_text[len + 1] = 0;
    }
    return UI_KEEP;
}

static void draw_prompt(ui_model *m, const ui_rect *r)
{
    const char *label = m->prompt == '/' ? "/" : "open IR file: ";
    const int room = r->w - (int)strlen(label) - 2;
    const int len = (int)strlen(m->prompt_text);
    /* The end of a long path, where the typing is. */
    const char *shown = len > room ? m->prompt_text + (len - room) : m->prompt_text;
    char line[1200];
    snprintf(line, sizeof line, "%s%s_", label, shown);
    mvhline(r->y, r->x, ' ', r->w);
    attron(A_BOLD);
    ui_text(r->y, r->x, line, r->w);
    attroff(A_BOLD);
}

const ui_panel ui_prompt_panel = {
    .name = "prompt",
    .area = UI_AREA_STATUS,
    .up = prompt_up,
    .draw = draw_prompt,
    .key = prompt_key,
};
