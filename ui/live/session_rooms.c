/* The session's room list: what the screen lists and measures. It is the
 * session's own copy of the library (the loader's belongs to the preparer
 * thread once the stream plays), with the IR files played by their path
 * after it, and the room playing when a rescan found it gone. A rescan is
 * read on the preparer thread; es_session_poll swaps it in here, on the
 * control thread, so the screen never reads a list being rebuilt. The
 * measurements are kept by room name and file: an unchanged room keeps
 * its own across a rescan, a changed one is measured again.
 *
 * A library may hold 100,000 rooms: nothing here is per room and large.
 * An entry's measurement is allocated when the screen first asks for it,
 * and every lookup by name goes through the library's index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_private.h"

static int is_file(const es_room *r)
{
    return r->origin == ES_ROOMS_FILE;
}

const char *es_session_room_word(const es_room *r)
{
    return is_file(r) ? r->path : r->name;
}

/* The entry of kind `file` (a file played, or a library room) named
 * `name` (a file by its path too, when path is not NULL), or -1. Library
 * rooms come first in the list and by the index; the files played are a
 * few at the end. */
static int entry(const es_library *v, int file, const char *name, const char *path)
{
    if (!file) {
        const es_room *r = es_library_find(v, name);
        return r && !is_file(r) ? (int)(r - v->rooms) : -1;
    }
    for (int i = v->count - 1; i >= 0 && is_file(&v->rooms[i]); i--)
        if ((!name || !strcmp(v->rooms[i].name, name)) &&
            (!path || !strcmp(v->rooms[i].path, path)))
            return i;
    return -1;
}

int es_session_room_index(const es_session *s, const char *room)
{
    /* A name in the library comes first, as in the loader. */
    const int i = entry(&s->view, 0, room, NULL);
    return i >= 0 ? i : entry(&s->view, 1, NULL, room);
}

const es_library *es_session_library(const es_session *s)
{
    return &s->view;
}

unsigned es_session_rooms_version(const es_session *s)
{
    return s->rooms_version;
}

/* Measurement slots for `count` entries, none asked for yet; NULL when
 * out of memory. */
static es_room_info **infos(int count)
{
    return calloc((size_t)(count > 0 ? count : 1), sizeof(es_room_info *));
}

static void free_infos(es_room_info **info, int count)
{
    for (int i = 0; info && i < count; i++)
        free(info[i]);
    free(info);
}

/* Appends an entry, taking its measurement when given. 0 or -1. */
static int add(es_session *s, const es_room *r, es_room_info *info)
{
    es_room_info **grown = realloc(s->room_info, sizeof *grown * (size_t)(s->view.count + 1));
    if (!grown)
        return -1;
    s->room_info = grown;
    if (es_library_add(&s->view, r) != 0)
        return -1;
    s->room_info[s->view.count - 1] = info;
    if (info)
        info->index = s->view.count - 1;
    return 0;
}

/* The room playing as a file entry, when no entry is it yet. */
static void add_playing_file(es_session *s)
{
    if (es_session_room_index(s, s->room) >= 0)
        return;
    es_room r = {.origin = ES_ROOMS_FILE, .file_mtime_ns = -1, .file_size = -1,
                 .path = s->room, .description = "", .source = "", .licence = ""};
    const char *slash = strrchr(s->room, '/');
    snprintf(r.name, sizeof r.name, "%.63s", slash ? slash + 1 : s->room);
    if (add(s, &r, NULL) == 0)
        s->rooms_version++;
}

int es_session_rooms_open(es_session *s, char *err, size_t n)
{
    if (es_library_copy(&s->view, &s->rooms.lib) != 0 || !(s->room_info = infos(s->view.count))) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    add_playing_file(s);
    return 0;
}

void es_session_rooms_close(es_session *s)
{
    free_infos(s->room_info, s->view.count);
    s->room_info = NULL;
    es_library_close(&s->view);
}

void es_session_rooms_played(es_session *s)
{
    /* A gone room leaves the list once something else plays. */
    int kept = 0, changed = 0;
    for (int i = 0; i < s->view.count; i++) {
        const es_room *r = &s->view.rooms[i];
        if (r->gone && strcmp(r->name, s->room) != 0) {
            changed = 1;
            free(s->room_info[i]);
            continue;
        }
        s->view.rooms[kept] = *r; /* its text stays where it is, in the view's blocks */
        s->room_info[kept] = s->room_info[i];
        if (s->room_info[kept])
            s->room_info[kept]->index = kept;
        kept++;
    }
    s->view.count = kept;
    if (changed)
        es_library_reindex(&s->view);
    s->rooms_version += changed;
    add_playing_file(s);
}

/* The old entry that is `r` (same kind, same name), or -1. */
static int old_entry(const es_library *old, const es_room *r)
{
    return entry(old, is_file(r), r->name, is_file(r) ? r->path : NULL);
}

/* Adds ", name" to a list of names in words (clipped). */
static void name_to(char *list, size_t n, int *count, const char *name)
{
    const size_t used = strlen(list);
    if (used < n)
        snprintf(list + used, n - used, "%s%s", *count ? ", " : "", name);
    (*count)++;
}

/* Adds "N word: names" to the parts of a rescan's line. */
static void part(char *out, size_t n, int count, const char *word, const char *names)
{
    const size_t used = strlen(out);
    if (count && used < n)
        snprintf(out + used, n - used, "%s%d %s: %s", used ? "; " : "", count, word, names);
}

/* Swaps in the library the preparer read again, and says what changed. */
static void take_rescan(es_session *s, es_library *fresh)
{
    es_library old = s->view;
    es_room_info **old_info = s->room_info;
    s->view = *fresh;
    memset(fresh, 0, sizeof *fresh);
    if (!(s->room_info = infos(s->view.count))) {
        es_library_close(&s->view); /* out of memory: the old list stays */
        s->view = old;
        s->room_info = old_info;
        return;
    }
    char added[200] = "", went[200] = "", changed[200] = "";
    int n_added = 0, n_went = 0, n_changed = 0, library = s->view.count;
    for (int i = 0; i < s->view.count; i++) {
        const int j = old_entry(&old, &s->view.rooms[i]);
        if (j < 0)
            name_to(added, sizeof added, &n_added, s->view.rooms[i].name);
        else if (!es_room_same(&old.rooms[j], &s->view.rooms[i]))
            name_to(changed, sizeof changed, &n_changed, s->view.rooms[i].name);
        else if ((s->room_info[i] = old_info[j])) { /* the same file: the same measurement */
            old_info[j] = NULL;
            s->room_info[i]->index = i;
        }
    }
    /* The files played stay; so does the room playing if it went. */
    for (int j = 0; j < old.count; j++) {
        es_room r = old.rooms[j];
        const int in_fresh = old_entry(&s->view, &r) >= 0;
        if (!is_file(&r) && !in_fresh && !r.gone)
            name_to(went, sizeof went, &n_went, r.name);
        if (is_file(&r) || (!in_fresh && !strcmp(r.name, s->room))) {
            r.gone = !is_file(&r);
            if (add(s, &r, old_info[j]) == 0)
                old_info[j] = NULL;
        }
    }
    char parts[700] = "";
    part(parts, sizeof parts, n_added, "new", added);
    part(parts, sizeof parts, n_went, "gone", went);
    part(parts, sizeof parts, n_changed, "changed", changed);
    char line[800];
    snprintf(line, sizeof line, "rooms: %d (%s)", library, parts[0] ? parts : "no change");
    es_session_sayf(s, 0, "%s", line);
    /* What was left out, where it was not said before. */
    for (int m = 0; m < s->view.message_count; m++) {
        int said = 0;
        for (int k = 0; k < old.message_count && !said; k++)
            said = !strcmp(old.messages[k], s->view.messages[m]);
        if (!said)
            es_session_sayf(s, 1, "%s", s->view.messages[m]);
    }
    free_infos(old_info, old.count);
    es_library_close(&old);
    s->rooms_version++;
}

void es_session_rooms_poll(es_session *s)
{
    if (!s->preparer)
        return;
    /* Measurements first: those made before a rescan belong to the list
     * they were asked from, and the rescan keeps the ones still true. */
    es_room_info info;
    while (es_preparer_take_measurement(s->preparer, &info)) {
        int i = entry(&s->view, 0, info.name, NULL);
        if (i < 0 || strcmp(s->view.rooms[i].path, info.path) != 0)
            i = entry(&s->view, 1, info.name, info.path);
        if (i >= 0 && s->room_info[i]) {
            info.index = i;
            *s->room_info[i] = info;
        }
    }
    int asked; /* said either way: a rescan by itself follows a manifest's change */
    es_library *fresh = es_preparer_take_rescan(s->preparer, &asked);
    (void)asked;
    if (fresh) {
        take_rescan(s, fresh);
        es_library_close(fresh);
        free(fresh);
    }
}

const es_room_info *es_session_room_info(es_session *s, int index)
{
    static const es_room_info none = {.index = -1, .measured = -1, .error = "no such room"};
    static const es_room_info no_memory = {.index = -1, .measured = -1,
                                           .error = "out of memory"};
    if (index < 0 || index >= s->view.count)
        return &none;
    es_room_info *info = s->room_info[index];
    if (!info) { /* asked for the first time: measured on the preparer thread */
        if (!(info = s->room_info[index] = calloc(1, sizeof *info)))
            return &no_memory;
        info->index = index;
    }
    if (info->measured == 0 && s->preparer)
        es_preparer_measure(s->preparer, &s->view.rooms[index]);
    return info;
}

int es_session_rescan(es_session *s)
{
    if (!s->preparer) {
        es_session_sayf(s, 1, "rescan: the session has stopped");
        return -1;
    }
    es_preparer_rescan(s->preparer);
    return 0;
}
