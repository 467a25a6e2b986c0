/* The session's room list (room_list.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "room_list.h"

static int is_file(const es_room *r)
{
    return r->origin == ES_ROOMS_FILE;
}

static void say(es_room_list *l, int problem, const char *line)
{
    if (l->say)
        l->say(l->say_ctx, problem, line);
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

int es_room_list_index(const es_room_list *l, const char *room)
{
    /* A name in the library comes first, as in the loader. */
    const int i = entry(&l->view, 0, room, NULL);
    return i >= 0 ? i : entry(&l->view, 1, NULL, room);
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
static int add(es_room_list *l, const es_room *r, es_room_info *info)
{
    es_room_info **grown = realloc(l->info, sizeof *grown * (size_t)(l->view.count + 1));
    if (!grown)
        return -1;
    l->info = grown;
    if (es_library_add(&l->view, r) != 0)
        return -1;
    l->info[l->view.count - 1] = info;
    if (info)
        info->index = l->view.count - 1;
    return 0;
}

/* The room playing as a file entry, when no entry is it yet. */
static void add_playing_file(es_room_list *l, const char *playing)
{
    if (es_room_list_index(l, playing) >= 0)
        return;
    es_room r = {.origin = ES_ROOMS_FILE, .file_mtime_ns = -1, .file_size = -1,
                 .path = playing, .description = "", .source = "", .licence = ""};
    const char *slash = strrchr(playing, '/');
    snprintf(r.name, sizeof r.name, "%.63s", slash ? slash + 1 : playing);
    if (add(l, &r, NULL) == 0)
        l->version++;
}

int es_room_list_open(es_room_list *l, const es_library *lib, const char *playing,
                      es_room_list_say say_to, void *ctx, char *err, size_t n)
{
    memset(l, 0, sizeof *l);
    l->say = say_to;
    l->say_ctx = ctx;
    l->version = 1;
    l->shown = -1;
    if (es_library_copy(&l->view, lib) != 0 || !(l->info = infos(l->view.count))) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    add_playing_file(l, playing);
    return 0;
}

void es_room_list_show(es_room_list *l, int index)
{
    l->shown = index;
}

int es_room_list_shown(const es_room_list *l)
{
    return l->shown;
}

void es_room_list_close(es_room_list *l)
{
    free_infos(l->info, l->view.count);
    l->info = NULL;
    es_library_close(&l->view);
}

void es_room_list_played(es_room_list *l, const char *playing)
{
    /* A gone room leaves the list once something else plays. */
    int kept = 0, changed = 0;
    for (int i = 0; i < l->view.count; i++) {
        const es_room *r = &l->view.rooms[i];
        if (r->gone && strcmp(r->name, playing) != 0) {
            changed = 1;
            free(l->info[i]);
            continue;
        }
        l->view.rooms[kept] = *r; /* its text stays where it is, in the view's blocks */
        l->info[kept] = l->info[i];
        if (l->info[kept])
            l->info[kept]->index = kept;
        kept++;
    }
    l->view.count = kept;
    if (changed)
        es_library_reindex(&l->view);
    l->version += changed;
    add_playing_file(l, playing);
}

es_room_info *es_room_list_info(es_room_list *l, int index)
{
    if (index < 0 || index >= l->view.count)
        return NULL;
    es_room_info *info = l->info[index];
    if (!info && (info = l->info[index] = calloc(1, sizeof *info)))
        info->index = index;
    return info;
}

void es_room_list_take_measurement(es_room_list *l, const es_room_info *info)
{
    int i = entry(&l->view, 0, info->name, NULL);
    if (i < 0 || strcmp(l->view.rooms[i].path, info->path) != 0)
        i = entry(&l->view, 1, info->name, info->path);
    if (i >= 0 && l->info[i]) {
        *l->info[i] = *info;
        l->info[i]->index = i;
    }
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

/* The rescan's words: what came, went and changed. */
typedef struct {
    char added[200], went[200], changed[200];
    int n_added, n_went, n_changed;
} rescan_words;

/* Carries the measurements of rooms whose file did not change over to
 * the new list, and names what is new or changed. */
static void carry_measurements(es_room_list *l, const es_library *old, es_room_info **old_info,
                               rescan_words *w)
{
    for (int i = 0; i < l->view.count; i++) {
        const int j = old_entry(old, &l->view.rooms[i]);
        if (j < 0)
            name_to(w->added, sizeof w->added, &w->n_added, l->view.rooms[i].name);
        else if (!es_room_same(&old->rooms[j], &l->view.rooms[i]))
            name_to(w->changed, sizeof w->changed, &w->n_changed, l->view.rooms[i].name);
        else if ((l->info[i] = old_info[j])) { /* the same file: the same measurement */
            old_info[j] = NULL;
            l->info[i]->index = i;
        }
    }
}

/* The files played stay; so does the room playing if it went. */
static void keep_played(es_room_list *l, const es_library *old, es_room_info **old_info,
                        const char *playing, rescan_words *w)
{
    for (int j = 0; j < old->count; j++) {
        es_room r = old->rooms[j];
        const int in_fresh = old_entry(&l->view, &r) >= 0;
        if (!is_file(&r) && !in_fresh && !r.gone)
            name_to(w->went, sizeof w->went, &w->n_went, r.name);
        if (is_file(&r) || (!in_fresh && !strcmp(r.name, playing))) {
            r.gone = !is_file(&r);
            if (add(l, &r, old_info[j]) == 0)
                old_info[j] = NULL;
        }
    }
}

void es_room_list_take_rescan(es_room_list *l, es_library *fresh, const char *playing)
{
    es_library old = l->view;
    es_room_info **old_info = l->info;
    l->view = *fresh;
    memset(fresh, 0, sizeof *fresh);
    if (!(l->info = infos(l->view.count))) {
        es_library_close(&l->view); /* out of memory: the old list stays */
        l->view = old;
        l->info = old_info;
        return;
    }
    rescan_words w = {.added = ""};
    const int library = l->view.count;
    carry_measurements(l, &old, old_info, &w);
    keep_played(l, &old, old_info, playing, &w);
    char parts[700] = "";
    part(parts, sizeof parts, w.n_added, "new", w.added);
    part(parts, sizeof parts, w.n_went, "gone", w.went);
    part(parts, sizeof parts, w.n_changed, "changed", w.changed);
    char line[800];
    snprintf(line, sizeof line, "rooms: %d (%s)", library, parts[0] ? parts : "no change");
    say(l, 0, line);
    /* What was left out, where it was not said before. */
    for (int m = 0; m < l->view.message_count; m++) {
        int said = 0;
        for (int k = 0; k < old.message_count && !said; k++)
            said = !strcmp(old.messages[k], l->view.messages[m]);
        if (!said)
            say(l, 1, l->view.messages[m]);
    }
    free_infos(old_info, old.count);
    es_library_close(&old);
    l->version++;
}
