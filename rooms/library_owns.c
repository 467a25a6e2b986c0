/* What a write must never replace: a file a room library holds. A take
 * replaces its file when it starts, so `record` onto a room's WAV, a
 * .conf's filters or a manifest would lose the room (an adversarial pass
 * recorded over the playing concert hall). Files are told apart by device
 * and inode, as inputs are, so a link or another spelling of the path is
 * the same file. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/files.h"
#include "library.h"

/* 1 when the folder `dir` is `folder` or lies beneath it. Walks up from
 * `dir` by "..", comparing device and inode, so links in either path do
 * not hide the relation. */
static int folder_holds(const struct stat *folder, const char *dir)
{
    char up[1200];
    snprintf(up, sizeof up, "%s", dir);
    struct stat at, last = {0};
    for (int depth = 0; depth < 64 && stat(up, &at) == 0; depth++) {
        if (at.st_dev == folder->st_dev && at.st_ino == folder->st_ino)
            return 1;
        if (depth && at.st_dev == last.st_dev && at.st_ino == last.st_ino)
            return 0; /* the root: its ".." is itself */
        last = at;
        const size_t used = strlen(up);
        if (used + 4 >= sizeof up)
            return 0;
        snprintf(up + used, sizeof up - used, "/..");
    }
    return 0;
}

int es_library_owns(const es_library *lib, const char *path, char *what, size_t n)
{
    char target[1200], err[256];
    struct stat t;
    if (es_path_follow(path, target, sizeof target, err, sizeof err) != 0 ||
        stat(target, &t) != 0 || !S_ISREG(t.st_mode))
        return 0; /* nothing there to lose (or not a file a write replaces) */
    char dir[1200];
    es_path_dir(target, dir, sizeof dir);
    for (int d = 0; d < lib->dir_count; d++) {
        struct stat folder;
        if (lib->dirs[d][0] && stat(lib->dirs[d], &folder) == 0 && S_ISDIR(folder.st_mode) &&
            folder_holds(&folder, dir)) {
            snprintf(what, n, "a file in the room library %.900s", lib->dirs[d]);
            return 1;
        }
    }
    /* A manifest may name a file outside its folder. */
    for (int i = 0; i < lib->count; i++) {
        struct stat r;
        if (stat(lib->rooms[i].path, &r) == 0 && r.st_dev == t.st_dev && r.st_ino == t.st_ino) {
            snprintf(what, n, "room %.64s's file %.900s", lib->rooms[i].name,
                     lib->rooms[i].path);
            return 1;
        }
    }
    return 0;
}
