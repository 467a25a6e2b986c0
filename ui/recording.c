/* The recording key's takes: earshot-YYYYMMDD-HHMMSS.wav and its -dry.wav
 * in the current folder; a second take within the second gets
 * -2, -3, ... The session refuses rather than replace a file that appears
 * meanwhile (exclusive). */
#define _DEFAULT_SOURCE /* localtime_r */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "recording.h"

void ui_recording_toggle(ui_model *m)
{
    if (m->snap->recording) {
        es_session_record(m->session, NULL, NULL, 0);
        return;
    }
    char out[80], dry[80], stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int take = 1; take < 100; take++) {
        char suffix[8] = "";
        if (take > 1)
            snprintf(suffix, sizeof suffix, "-%d", take);
        snprintf(out, sizeof out, "earshot-%s%s.wav", stamp, suffix);
        snprintf(dry, sizeof dry, "earshot-%s%s-dry.wav", stamp, suffix);
        if (access(out, F_OK) != 0 && access(dry, F_OK) != 0)
            break;
    }
    es_session_record(m->session, out, dry, 1); /* the dry take too */
}
