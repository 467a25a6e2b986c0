/* The engines panel: each engine the session probed, its number (the key
 * that picks it), the A/B slots that hold it, and what it is doing, or
 * why it cannot play here; and the pick itself, for a key or a click. */
#include "curses_loaded.h"
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "engines.h"
#include "hits.h"
#include "layout.h"
#include "messages.h"
#include "panel.h"

void ui_engine_pick(ui_model *m, int i)
{
    const es_live_snapshot *s = m->snap;
    if (i >= s->engine_count)
        return;
    const es_live_engine *e = &s->engines[i];
    char line[300];
    if (!e->usable) {
        snprintf(line, sizeof line, "%s is unavailable here: %s", e->engine->name, e->why);
        ui_note(m, 1, line);
    } else if (e->engine == s->wanted.engine) {
        snprintf(line, sizeof line, "%s is playing already", e->engine->name);
        ui_note(m, 0, line);
    } else {
        ui_refused(m, es_session_set_engine(m->session, e->engine), "");
    }
}

/* An engine's row: its number, the A/B slots that hold it, its name, and
 * what it is doing (with the latency heard with its slot playing and its
 * options), or why it is off. */
static void engine_row(const ui_model *m, int i, int w, char *line, size_t n)
{
    const es_live_snapshot *s = m->snap;
    const es_live_engine *le = &s->engines[i];
    const es_engine_class *k = le->engine;
    const int lost = s->device_state == ES_DEVICE_LOST;
    const int playing = !lost && !strcmp(s->stats.engine, k->name);
    char mark[3] = "  ", opts[96] = "", heard[24] = "";
    for (int slot = 0; slot < ES_AB_SLOTS; slot++)
        if (s->slot[slot].set && s->slot[slot].spec.engine == k)
            mark[slot] = "AB"[slot];
    if (!le->usable) {
        snprintf(line, n, "%d %s %-17s off: %s", i + 1, mark, k->name, le->why);
        return;
    }
    const int coming = s->preparing && k == s->wanted.engine && k != s->playing.engine;
    /* The latency a person hears with this engine's slot playing. */
    const int held_by = mark[0] != ' ' && mark[1] != ' ' ? s->playing_slot
                        : mark[0] != ' ' ? ES_SLOT_A : mark[1] != ' ' ? ES_SLOT_B : -1;
    if (held_by >= 0 && s->slot[held_by].played && s->slot[held_by].latency >= 0)
        snprintf(heard, sizeof heard, " %.1fms", 1e3 * s->slot[held_by].latency / s->rate);
    else if (held_by >= 0 && s->slot[held_by].played) /* the device's figure failed its check */
        snprintf(heard, sizeof heard, " ?ms");
    const es_options *o = &s->playing.options;
    if (playing && (k->caps & ES_CAP_PARTITION))
        snprintf(opts, sizeof opts, " p%d", o->partition ? o->partition
                                                          : es_engine_default_partition(
                                                                s->playing.block));
    if (playing && (k->caps & ES_CAP_PIPELINED) && o->gpu_pipelined)
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " pipe");
    /* --gpu's list is every GPU engine's: said on each of their rows. */
    char gpus[64];
    if ((k->caps & ES_CAP_GPU) && o->gpu.list.count != 0)
        snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " gpu %s",
                 es_gpu_list_text(&o->gpu.list, gpus, sizeof gpus));
    snprintf(line, n, "%d %s %-17s %s%s%s", i + 1, mark, k->name,
             playing ? (s->stats.crossfading ? "crossfading" : "playing")
             : coming ? "preparing"
             : lost && k == s->playing.engine ? "stopped (device lost)" : "", heard, opts);
    if (opts[0] && (int)strlen(line) > w) /* the options whole, or not at all */
        line[strlen(line) - strlen(opts)] = 0;
}

/* The engines, each marked with the A/B slots that hold it; the one
 * playing says so, with its partition and pipelining when it has them. */
static void draw_engines(ui_model *m, const ui_rect *r)
{
    const es_live_snapshot *s = m->snap;
    char heading[64];
    snprintf(heading, sizeof heading, "Engines  1-%d: pick  Tab: A/B", s->engine_count);
    ui_title(r, heading);
    for (int i = 0; i < s->engine_count && 1 + i < r->h; i++) {
        char line[256];
        engine_row(m, i, r->w, line, sizeof line);
        const int playing = s->device_state != ES_DEVICE_LOST &&
                            !strcmp(s->stats.engine, s->engines[i].engine->name);
        const int attr = playing ? (COLOR_PAIR(UI_GOOD) | A_BOLD)
                         : s->engines[i].usable ? 0 : COLOR_PAIR(UI_DIM);
        attron(attr);
        ui_hit_add(i, r->y + 1 + i, r->x, r->w);
        ui_put(r, 1 + i, 0, line);
        attroff(attr);
    }
}

static void click_engine(ui_model *m, int i, int twice)
{
    (void)twice;
    ui_engine_pick(m, i);
}

const ui_panel ui_engines_panel = {
    .name = "engines",
    .area = UI_AREA_ENGINES,
    .draw = draw_engines,
    .hit = click_engine,
};
