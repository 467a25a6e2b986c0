/* The A/B slots' statistics side by side, one row each: what the slot
 * holds (room, block; its engine is marked A or B in the engines list)
 * and its own load, misses and speed, over the blocks its engine played
 * alone since the slot last changed or the meters were cleared (see
 * es_ab_stats), and its level (output over input, dB, as heard), so that
 * a louder slot is seen to be louder, not taken for a better one. The
 * load's quantiles are the audio thread's; x RT counts the engine's
 * helper threads too. The slot playing is marked '>'; a slot never played
 * is shown empty. */
#include "curses_loaded.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "hits.h"
#include "slots.h"

/* A count in at most 4 characters: 12, 9999, 12k, 3M. */
static void count4(char *out, size_t n, uint64_t v)
{
    if (v < 10000)
        snprintf(out, n, "%llu", (unsigned long long)v);
    else if (v < 1000000)
        snprintf(out, n, "%lluk", (unsigned long long)(v / 1000));
    else
        snprintf(out, n, "%lluM", (unsigned long long)(v / 1000000));
}

/* The room's name as the list shows it: a file's base name. */
static const char *room_name(const char *room)
{
    const char *slash = strrchr(room, '/');
    return slash ? slash + 1 : room;
}

void ui_draw_slots(const ui_model *m, int y, int x, int w)
{
    /* Wider panels add the median load, late GPU results and the time
     * counted. */
    const int wide = w >= 62;
    /* The narrow rows give the worst load's place to the level. */
    const int room_w = w - (wide ? 53 : 30) > 6 ? w - (wide ? 53 : 30) : 6;
    char line[256];
    attron(COLOR_PAIR(UI_DIM));
    if (wide)
        snprintf(line, sizeof line, "   %-*s  blk  p50  p99   max miss late   xRT   secs    dB",
                 room_w, "slot");
    else
        snprintf(line, sizeof line, "   %-*s  blk  p99 miss   xRT    dB", room_w, "slot");
    mvaddnstr(y, x, line, w);
    attroff(COLOR_PAIR(UI_DIM));
    const es_live_snapshot *snap = m->snap;
    const int active = snap->active_slot, playing = snap->playing_slot;
    for (int k = 0; k < ES_AB_SLOTS; k++) {
        const es_live_slot *sl = &snap->slot[k];
        ui_hit_add(k, y + 1 + k, x, w); /* a click plays the slot */
        const es_ab_stats *a = &sl->stats;
        const char mark = k == playing ? '>' : k == active ? '~' : ' ';
        if (!sl->set) {
            snprintf(line, sizeof line, "%c%c (empty: Tab makes it a copy to change)", mark,
                     "AB"[k]);
            attron(COLOR_PAIR(UI_DIM));
            ui_text(y + 1 + k, x, line, w);
            attroff(COLOR_PAIR(UI_DIM));
            continue;
        }
        char miss[24], late[24];
        count4(miss, sizeof miss, a->misses);
        count4(late, sizeof late, a->late_results);
        /* The histogram's last bin holds every block at 200 % and over. */
        const double p99 = 100 * sl->load_p99;
        char p99_text[16];
        if (p99 >= 200)
            snprintf(p99_text, sizeof p99_text, "200+");
        else
            snprintf(p99_text, sizeof p99_text, "%3.0f%%", p99);
        const double rt = sl->realtime_factor;
        char rt_text[16];
        if (!a->blocks)
            snprintf(rt_text, sizeof rt_text, "-");
        else if (rt < 1000)
            snprintf(rt_text, sizeof rt_text, "%.1f", rt);
        else
            snprintf(rt_text, sizeof rt_text, "%.0f", rt);
        char level[16] = "    -";
        if (isfinite(sl->level_db))
            snprintf(level, sizeof level, "%+5.1f", sl->level_db);
        if (wide)
            snprintf(line, sizeof line, "%c%c %-*.*s %4d %3.0f%% %4s %4.0f%% %4s %4s %5s "
                     "%6.1f %5s", mark, "AB"[k], room_w, room_w, room_name(sl->spec.room),
                     sl->spec.block, 100 * sl->load_p50, p99_text, 100 * sl->load_max, miss,
                     late, rt_text, sl->seconds, level);
        else
            snprintf(line, sizeof line, "%c%c %-*.*s %4d %4s %4s %5s %5s", mark, "AB"[k],
                     room_w, room_w, room_name(sl->spec.room), sl->spec.block, p99_text, miss,
                     rt_text, level);
        const int late_now = k == playing && m->meters.misses_lately > 0;
        const int attr = a->misses ? (late_now ? COLOR_PAIR(UI_BAD) | A_BOLD : COLOR_PAIR(UI_WARN))
                                   : k == playing ? A_BOLD : 0;
        attron(attr);
        ui_text(y + 1 + k, x, line, w);
        attroff(attr);
    }
}
