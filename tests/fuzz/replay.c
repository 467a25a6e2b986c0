/* Runs a fuzz target over files and folders of inputs, as a plain program:
 * how every ctest replays the committed corpora and the inputs that once
 * crashed (tests/fuzz/corpus/TARGET, tests/fuzz/regressions/TARGET).
 *   replay_TARGET PATH...     exit 0 when every input ran */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        return -1;
    }
    uint8_t *data = NULL;
    size_t size = 0, cap = 0, got;
    uint8_t chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (size + got > cap) {
            cap = 2 * (size + got);
            uint8_t *grown = realloc(data, cap);
            if (!grown)
                abort();
            data = grown;
        }
        memcpy(data + size, chunk, got);
        size += got;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data ? data : chunk, size);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, failed = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            fprintf(stderr, "replay: %s: not found\n", argv[a]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += run_file(argv[a]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[a]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            failed += run_file(path) != 0;
            files++;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d inputs, %d unreadable\n", files, failed);
    return failed ? 1 : 0;
}
