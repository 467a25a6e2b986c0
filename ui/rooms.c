/* The room list's cursor: moving through the list (a line, a page, the
 * ends), searching it (/ then n and N), playing the room under it. The
 * keys that do these are in keys.c's table, the search typed in the
 * prompt (prompt.c), the list drawn by room_panel.c. The list is the
 * session's (the snapshot's `rooms`); when it changes (a rescan, a file
 * played) the cursor stays on its room. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "messages.h"
#include "rooms.h"

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

void ui_rooms_search(ui_model *m, const char *text)
{
    snprintf(m->search, sizeof m->search, "%.255s", text);
    search_step(m, -1, 1); /* the first match in the list */
}
