/* The recorder's ring overflowing: a 10 ms ring fed a second of audio as
 * fast as the test can push it loses frames. They must be counted, never
 * waited for, and the file must hold exactly the frames that were not
 * lost, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "audiofile.h"
#include "recorder.h"

int main(void)
{
    char dir[] = "/tmp/es-rec-XXXXXX", path[64], err[512];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/r.wav", dir);
    es_recorder *r = es_recorder_open(path, 48000, 1, 0, 0.01, err, sizeof err);
    if (!r) {
        printf("FAIL open: %s\n", err);
        return 1;
    }
    float block[64];
    const float *ch[1] = {block};
    long pushed = 0;
    for (int b = 0; b < 750; b++) { /* 48000 frames, no pause */
        for (int t = 0; t < 64; t++)
            block[t] = (float)(pushed + t); /* each frame says which it was */
        es_recorder_tap(r, ch, 1, 64);
        pushed += 64;
    }
    if (es_recorder_finish(r, err, sizeof err) != 0)
        printf("FAIL finish: %s\n", err);
    const unsigned long long dropped = es_recorder_dropped(r), written = es_recorder_written(r);
    es_recorder_free(r);
    float **x = NULL;
    es_audio_info info;
    int ok = es_audiofile_load(path, &x, &info, err, sizeof err) == 0;
    int ordered = ok;
    for (long t = 1; ok && t < info.frames; t++)
        ordered &= x[0][t] > x[0][t - 1];
    ok = ok && dropped > 0 && written + dropped == (unsigned long long)pushed &&
         (unsigned long long)info.frames == written && ordered;
    printf("%s pushed %ld frames into a 10 ms ring: %llu lost (counted), %llu written, "
           "file has %lld, in order: %s\n", ok ? "ok  " : "FAIL", pushed, dropped, written,
           ok ? (long long)info.frames : -1LL, ordered ? "yes" : "no");
    if (x) {
        free(x[0]);
        free(x);
    }
    unlink(path);
    rmdir(dir);
    return ok ? 0 : 1;
}
