/* Any bytes as a UDP packet to the head tracker's port, read as the
 * listener reads one (live/head_osc.c: a message through liblo's
 * parser, or a bundle walked by earshot, nested or not, whatever its
 * timetag), with a room of 72 head orientations playing. Whatever comes,
 * the orientation held is within its ranges and a set of the room's;
 * every message is counted once: taken, or refused for its values, its
 * form or its address; a packet that is not a bundle is one message or
 * one bad packet; no more messages are early than arrived. A broken
 * promise aborts. */
#include <lo/lo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    es_head_view before, after;
    es_head_view_get(h, &before);
    es_head_osc_packet(h, NULL, data, size, 1);
    es_head_view_get(h, &after);
    const uint64_t messages = after.osc_messages - before.osc_messages;
    const uint64_t counted = (after.osc_taken - before.osc_taken) +
                             (after.osc_bad_values - before.osc_bad_values) +
                             (after.osc_bad_form - before.osc_bad_form) +
                             (after.osc_unknown - before.osc_unknown);
    const uint64_t bad = after.osc_bad_packets - before.osc_bad_packets;
    const int is_bundle = size >= 8 && !memcmp(data, "#bundle", 8);
    if (counted != messages || after.osc_early - before.osc_early > messages ||
        (!is_bundle && messages + bad != 1))
        abort();
    if (!(fabsf(after.yaw) <= 180) || !(fabsf(after.pitch) <= 90) || !(fabsf(after.roll) <= 180) ||
        after.set < 0 || after.set >= 72)
        abort();
    return 0;
}
