/* The room list's cursor and the one-line prompt: moving through the list
 * (a line, a page, the ends), searching it (/ then n and N), opening an IR
 * file by its path (o). The keys that do these are in keys.c's tables. The
 * list is the session's (the snapshot's `rooms`); when it changes (a
 * rescan, a file played) the cursor stays on its room. */
#include <ctype.h>
#include "curses_loaded.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define ESC 27

static void remember(ui_model *m)
{
    const es_library *lib = m->snap->rooms;
    if (m->cursor < 0 || m->cursor >= lib->count)
        return;
    snprintf(m->cursor_name, sizeof m->cursor_name, "%s", lib->rooms[m->cursor].name);
    snprintf(m->cursor_path, sizeof m->cursor_path, "%s", lib->rooms[m->cursor].path);
}

static void move_to(ui_model *m, int i)
{
    const int count = m->snap->rooms->count;
    m->cursor = i < 0 ? 0 : i >= count ? count - 1 : i;
    if (m->cursor < 0)
        m->cursor = 0;
    remember(m);
    es_session_show_room(m->session, m->cursor); /* its measurement, from the next poll */
}

void ui_rooms_move(ui_model *m, int i)
{
    ui_rooms_follow(m);
    move_to(m, i);
}

void ui_rooms_follow(ui_model *m)
{
    const unsigned version = m->snap->rooms_version;
    const es_library *lib = m->snap->rooms;
    if (version == m->rooms_version)
        return;
    const int first = m->rooms_version == 0;
    m->rooms_version = version;
    if (first) { /* the start: the room playing */
        move_to(m, m->snap->room_playing);
        return;
    }
    /* The same room by name (and file, where two share a name); else the
     * same name; else where it was. */
    int at = -1;
    for (int i = 0; i < lib->count && at < 0; i++)
        if (!strcmp(lib->rooms[i].name, m->cursor_name) &&
            !strcmp(lib->rooms[i].path, m->cursor_path))
            at = i;
    for (int i = 0; i < lib->count && at < 0; i++)
        if (!strcmp(lib->rooms[i].name, m->cursor_name))
            at = i;
    move_to(m, at >= 0 ? at : m->cursor);
}

/* Case-blind: does `text` hold `part`? */
static int contains(const char *text, const char *part)
{
    const size_t n = strlen(part);
    for (; *text; text++) {
        size_t k = 0;
        while (k < n && text[k] &&
               tolower((unsigned char)text[k]) == tolower((unsigned char)part[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

/* The next room from `from` (not counting it) in direction `dir` whose
 * name or description holds the search, going round; -1 if none. */
static int find(const ui_model *m, int from, int dir)
{
    const es_library *lib = m->snap->rooms;
    for (int k = 1; k <= lib->count; k++) {
        const int i = ((from + dir * k) % lib->count + lib->count) % lib->count;
        if (contains(lib->rooms[i].name, m->search) ||
            contains(lib->rooms[i].description, m->search))
            return i;
    }
    return -1;
}

static void search_step(ui_model *m, int from, int dir)
{
    if (!m->search[0]) {
        ui_note(m, 0, "search: / then part of a room's name or description");
        return;
    }
    const int i = m->snap->rooms->count ? find(m, from, dir) : -1;
    if (i < 0) {
        char line[300];
        snprintf(line, sizeof line, "search: no room matches '%.200s'", m->search);
        ui_note(m, 1, line);
        return;
    }
    move_to(m, i);
}

void ui_rooms_search_step(ui_model *m, int dir)
{
    ui_rooms_follow(m);
    search_step(m, m->cursor, dir);
}

void ui_rooms_play(ui_model *m)
{
    ui_rooms_follow(m);
    const es_library *lib = m->snap->rooms;
    if (m->cursor < lib->count)
        ui_refused(m, es_session_set_room(m->session, es_session_room_word(&lib->rooms[m->cursor])),
                   "");
}

void ui_rooms_click(ui_model *m, int i, int play)
{
    ui_rooms_follow(m);
    if (i < 0 || i >= m->snap->rooms->count)
        return;
    move_to(m, i);
    if (play)
        ui_rooms_play(m);
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

void ui_prompt_key(ui_model *m, int key)
{
    const size_t len = strlen(m->prompt_text);
    if (key == ESC) {
        m->prompt = 0;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        if (len)
            m->prompt_text[len - 1] = 0;
    } else if (key == 21) { /* Ctrl-U: the line cleared, as in a shell */
        m->prompt_text[0] = 0;
    } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        const int which = m->prompt;
        m->prompt = 0;
        if (!m->prompt_text[0])
            return;
        if (which == '/') {
            snprintf(m->search, sizeof m->search, "%.255s", m->prompt_text);
            search_step(m, -1, 1); /* the first match in the list */
        } else {
            char path[1024];
            expand_home(m->prompt_text, path, sizeof path);
            /* A bad path: the session says so, as for `room`. */
            ui_refused(m, es_session_set_room(m->session, path), "");
        }
    } else if (key >= 32 && key < 127 && len + 1 < sizeof m->prompt_text) {
        m->prompt_text[len] = (char)key;
        m->prompt_text[len + 1] = 0;
    }
}

void ui_draw_prompt(const ui_model *m, const ui_rect *r)
{
    if (!m->prompt)
        return;
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
