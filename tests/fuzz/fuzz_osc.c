/* Any bytes as a UDP packet to the head tracker's port: liblo's reading of
 * it as an OSC message, then earshot's (ui/live/head_osc.c), with a room of
 * 72 head orientations playing. Whatever comes, the orientation held is
 * within its ranges and a set of the room's, and every message is counted
 * once: taken, or refused for its values, its form or its address. A
 * broken promise aborts. */
#include <lo/lo.h>
#include <math.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "head_private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static es_set_requests requests;
    static es_head *h;
    if (!h) {
        es_sofa_pose poses[72];
        for (int m = 0; m < 72; m++)
            poses[m] = (es_sofa_pose){(float)(5 * m), 0, 1};
        h = es_head_create(&requests);
        es_head_set_room(h, poses, 72, ES_SOFA_VIEW);
    }
    int err = 0;
    lo_message m = lo_message_deserialise((void *)data, size, &err);
    const char *path = m ? lo_get_path((void *)data, (ssize_t)size) : NULL;
    if (!m || !path) {
        if (m)
            lo_message_free(m);
        return 0;
    }
    es_head_view before, after;
    es_head_view_get(h, &before);
    es_head_osc_message(h, path, lo_message_get_types(m), lo_message_get_argv(m),
                        lo_message_get_argc(m), 1);
    es_head_view_get(h, &after);
    const uint64_t counted = (after.osc_taken - before.osc_taken) +
                             (after.osc_bad_values - before.osc_bad_values) +
                             (after.osc_bad_form - before.osc_bad_form) +
                             (after.osc_unknown - before.osc_unknown);
    if (after.osc_messages != before.osc_messages + 1 || counted != 1)
        abort();
    if (!(fabsf(after.yaw) <= 180) || !(fabsf(after.pitch) <= 90) || !(fabsf(after.roll) <= 180) ||
        after.set < 0 || after.set >= 72)
        abort();
    lo_message_free(m);
    return 0;
}
