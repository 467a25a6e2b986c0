/* The head-tracking meter (meter.h): the orientation, the set it picked,
 * the switches and their filter-exchange latency, and the tracker's OSC
 * messages, taken or refused. Reads the snapshot only. */
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "meter.h"

typedef unsigned long long ull;

/* Where the tracker is listened for (ADDRESS:PORT, an IPv6 address in
 * brackets), and what came of what it sent. */
static void osc_text(const es_head_view *h, FILE *to)
{
    char where[96];
    snprintf(where, sizeof where, strchr(h->osc_address, ':') ? "[%s]:%d" : "%s:%d",
             h->osc_address, h->osc_port);
    fprintf(to, "  OSC         %s: %llu messages, %llu taken, %llu bad values, %llu bad form, "
            "%llu unknown addresses", where, (ull)h->osc_messages, (ull)h->osc_taken,
            (ull)h->osc_bad_values, (ull)h->osc_bad_form, (ull)h->osc_unknown);
    if (h->osc_early)
        fprintf(to, ", %llu from bundles timed for later (taken on arrival)", (ull)h->osc_early);
    fprintf(to, "; %llu bad packets, %llu dropped by the system%s%s\n", (ull)h->osc_bad_packets,
            (ull)h->osc_dropped, h->osc_last_bad[0] ? "; last: " : "", h->osc_last_bad);
}

/* A field room: its order, decoder, orientation and what turning it
 * costs a block. */
static void field_json(const es_live_snapshot *s, FILE *to)
{
    const es_head_view *h = &s->head;
    const es_stats *st = &s->stats;
    if (!h->field_order || st->field_order < 1) {
        fprintf(to, ",\"field\":null");
        return;
    }
    fprintf(to, ",\"field\":{\"order\":%d,\"decoder\":", st->field_order);
    es_json_string(to, h->field_decoder);
    fprintf(to, ",\"yaw\":%.2f,\"pitch\":%.2f,\"roll\":%.2f,\"turns\":%llu,"
            "\"rotate_decode_us\":{\"mean\":%.2f,\"max\":%.2f,\"last\":%.2f}}",
            st->field_yaw, st->field_pitch, st->field_roll, (ull)st->field_turns,
            st->field_blocks ? st->field_us_sum / (double)st->field_blocks : 0.0,
            st->field_us_max, st->field_us_last);
}

static void field_text(const es_live_snapshot *s, FILE *to)
{
    const es_head_view *h = &s->head;
    const es_stats *st = &s->stats;
    if (!h->field_order || st->field_order < 1)
        return;
    fprintf(to, "  field       Ambisonic order %d at yaw %.1f pitch %.1f roll %.1f, %llu turns; "
            "rotation and decoding %.1f us a block (mean), %.1f us max; %s\n", st->field_order,
            st->field_yaw, st->field_pitch, st->field_roll, (ull)st->field_turns,
            st->field_blocks ? st->field_us_sum / (double)st->field_blocks : 0.0,
            st->field_us_max, h->field_decoder);
}

void ui_meter_head_json(const es_live_snapshot *s, FILE *to)
{
    const es_head_view *h = &s->head;
    const es_stats *st = &s->stats;
    fprintf(to, "{\"sets\":%d,\"varies\":", h->sets);
    es_json_string(to, h->sets ? es_sofa_varies_key(h->varies) : "none");
    fprintf(to, ",\"yaw\":%.2f,\"pitch\":%.2f,\"roll\":%.2f,\"turns\":%llu", h->yaw, h->pitch,
            h->roll, (ull)h->turns);
    if (h->set >= 0)
        fprintf(to, ",\"set\":%d,\"azimuth\":%.2f,\"elevation\":%.2f", h->set + 1,
                h->pose.azimuth, h->pose.elevation);
    else
        fprintf(to, ",\"set\":null,\"azimuth\":null,\"elevation\":null");
    fprintf(to, ",\"interp\":\"%s\",\"blends\":%llu,\"blend\":",
            h->blending ? "linear" : "nearest", (ull)h->blends);
    if (h->blending && h->blend.count > 0) {
        fputc('[', to);
        for (int c = 0; c < h->blend.count; c++)
            fprintf(to, "%s{\"set\":%d,\"weight\":%.4f}", c ? "," : "", h->blend.index[c] + 1,
                    h->blend.weight[c]);
        fputc(']', to);
    } else {
        fprintf(to, "null");
    }
    fprintf(to, ",\"requests\":%llu,\"superseded\":%llu,\"switches\":%llu",
            (ull)st->set_requests, (ull)st->set_superseded, (ull)st->set_switches);
    if (st->set_switches)
        fprintf(to, ",\"exchange_ms\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"last\":%.3f}",
                s->exchange_p50_us / 1000, s->exchange_p99_us / 1000,
                st->exchange_max_us / 1000, st->exchange_last_us / 1000);
    else
        fprintf(to, ",\"exchange_ms\":null");
    if (st->motion_switches)
        fprintf(to, ",\"motion_to_sound_ms\":{\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f,"
                "\"last\":%.3f,\"switches\":%llu}", s->motion_p50_us / 1000,
                s->motion_p99_us / 1000, st->motion_max_us / 1000, st->motion_last_us / 1000,
                (ull)st->motion_switches);
    else
        fprintf(to, ",\"motion_to_sound_ms\":null");
    if (h->osc_port) {
        fprintf(to, ",\"osc\":{\"address\":");
        es_json_string(to, h->osc_address);
        fprintf(to, ",\"port\":%d,\"messages\":%llu,\"taken\":%llu,\"bad_values\":%llu,"
                "\"bad_form\":%llu,\"unknown\":%llu,\"early\":%llu,\"bad_packets\":%llu,"
                "\"dropped\":%llu,\"last_bad\":",
                h->osc_port, (ull)h->osc_messages, (ull)h->osc_taken, (ull)h->osc_bad_values,
                (ull)h->osc_bad_form, (ull)h->osc_unknown, (ull)h->osc_early,
                (ull)h->osc_bad_packets, (ull)h->osc_dropped);
        es_json_string(to, h->osc_last_bad);
        fputc('}', to);
    } else {
        fprintf(to, ",\"osc\":null");
    }
    field_json(s, to);
    fputc('}', to);
}

void ui_meter_head_text(const es_live_snapshot *s, FILE *to)
{
    const es_head_view *h = &s->head;
    const es_stats *st = &s->stats;
    if (!h->sets && !h->osc_port && !h->turns && !h->field_order)
        return;
    fprintf(to, "  head        yaw %.1f pitch %.1f roll %.1f", h->yaw, h->pitch, h->roll);
    char blend[200];
    if (h->sets && es_head_blend_words(h, blend, sizeof blend))
        fprintf(to, ": %s (%llu blends made)", blend, (ull)h->blends);
    else if (h->sets && h->set >= 0)
        fprintf(to, ": set %d of %d (%s azimuth %.1f, elevation %.1f)", h->set + 1, h->sets,
                h->varies == ES_SOFA_SOURCE ? "source at" : "measured at", h->pose.azimuth,
                h->pose.elevation);
    else if (h->field_order)
        fprintf(to, " (a field: it turns with the head)");
    else
        fprintf(to, " (the room has no sets to follow it)");
    fprintf(to, "; %llu switches", (ull)st->set_switches);
    if (st->set_switches)
        fprintf(to, ", filter exchange p50 %.2f ms p99 %.2f ms max %.2f ms", s->exchange_p50_us / 1000,
                s->exchange_p99_us / 1000, st->exchange_max_us / 1000);
    if (st->motion_switches)
        fprintf(to, ", motion-to-sound p50 %.2f ms p99 %.2f ms max %.2f ms",
                s->motion_p50_us / 1000, s->motion_p99_us / 1000, st->motion_max_us / 1000);
    fprintf(to, " (%llu requests, %llu replaced by a newer one)\n", (ull)st->set_requests,
            (ull)st->set_superseded);
    if (h->osc_port)
        osc_text(h, to);
    field_text(s, to);
}

int ui_meter_head_short(const es_live_snapshot *s, char *out, size_t n)
{
    const es_head_view *h = &s->head;
    if (h->field_order && s->stats.field_order > 0) {
        snprintf(out, n, "head %.0f field order %d rot %.0f us", h->yaw, s->stats.field_order,
                 s->stats.field_blocks ? s->stats.field_us_sum / (double)s->stats.field_blocks
                                       : 0.0);
        return 1;
    }
    if (!h->sets || h->set < 0)
        return 0;
    if (s->stats.motion_switches)
        snprintf(out, n, "head %.0f set %d/%d m2s p99 %.2f xchg %.2f ms", h->yaw, h->set + 1,
                 h->sets, s->motion_p99_us / 1000, s->exchange_p99_us / 1000);
    else if (s->stats.set_switches)
        snprintf(out, n, "head %.0f set %d/%d xchg p99 %.2f ms", h->yaw, h->set + 1, h->sets,
                 s->exchange_p99_us / 1000);
    else
        snprintf(out, n, "head %.0f set %d/%d", h->yaw, h->set + 1, h->sets);
    return 1;
}

/* The OSC listener on the meters' line, never left out while it listens:
 * where (whoever reaches that address turns the head), what it took, and
 * what it refused or lost, so that a flood or a misaddressed tracker
 * shows. Tight: the address and the counts alone. */
static int osc_line(const es_live_snapshot *s, int tight, char *out, size_t n)
{
    const es_head_view *h = &s->head;
    if (!h->osc_port)
        return 0;
    char where[96];
    /* Narrow, the loopback is "lo" (the help says so): a 40-column panel
     * keeps the counts. */
    if (tight && (!strcmp(h->osc_address, "127.0.0.1") || !strcmp(h->osc_address, "::1")))
        snprintf(where, sizeof where, "lo:%d", h->osc_port);
    else
        snprintf(where, sizeof where, strchr(h->osc_address, ':') ? "[%s]:%d" : "%s:%d",
                 h->osc_address, h->osc_port);
    const ull refused = h->osc_bad_values + h->osc_bad_form + h->osc_unknown + h->osc_bad_packets;
    if (!refused && !h->osc_dropped)
        snprintf(out, n, tight ? "OSC %s %llu" : "OSC %s %llu taken", where, (ull)h->osc_taken);
    else
        snprintf(out, n, tight ? "OSC %s %llu/%llu/%llu" : "OSC %s %llu taken %llu refused %llu lost",
                 where, (ull)h->osc_taken, refused, (ull)h->osc_dropped);
    return 1;
}

int ui_meter_osc_short(const es_live_snapshot *s, char *out, size_t n)
{
    return osc_line(s, 0, out, n);
}

int ui_meter_osc_tight(const es_live_snapshot *s, char *out, size_t n)
{
    return osc_line(s, 1, out, n);
}

/* Narrow: motion-to-sound alone (the filter exchange where no motion was
 * timed); the header shows the yaw and set. */
int ui_meter_head_tight(const es_live_snapshot *s, char *out, size_t n)
{
    if (!s->head.sets || s->head.set < 0 || !s->stats.set_switches)
        return 0;
    if (s->stats.motion_switches)
        snprintf(out, n, "m2s %.2fms", s->motion_p99_us / 1000);
    else
        snprintf(out, n, "xchg %.2fms", s->exchange_p99_us / 1000);
    return 1;
}
