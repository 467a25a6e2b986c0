/* Loudspeakers heard on headphones (sofa.h): a set of BRIRs with one
 * emitter per loudspeaker (SOFA MultiSpeakerBRIR) plays a file laid out
 * as a loudspeaker layout names it (--layout 5.1), each channel through
 * the BRIRs of the loudspeaker at its place, the whole array turning with
 * the head as the set's orientations do: the "virtual monitoring" of a
 * studio's room on headphones.
 *
 * The places are ITU-R BS.2051's (azimuth counter-clockwise from ahead,
 * as SOFA counts it: L at +30), the channel order a WAV file's (the
 * WAVE_FORMAT_EXTENSIBLE order: front left, front right, centre, LFE,
 * back, side, top front, top back). Each channel takes the emitter nearest
 * its place (a great circle); one further than 45 degrees is refused,
 * as the file would then sound from somewhere it was not mixed for. The
 * LFE has no loudspeaker of its own in such a set: it plays through the
 * front left and right loudspeakers at -3 dB each, as a room without a
 * subwoofer plays it. Off the audio thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sofa.h"

#define PI 3.14159265358979323846
/* How far a channel's loudspeaker may be from its place, degrees. */
#define NEAREST_MAX_DEG 45.0
#define LFE_GAIN 0.70710678f /* -3 dB */

typedef struct {
    const char *label;
    float azimuth, elevation;
    int lfe;
} speaker;

typedef struct {
    const char *name;
    int count;
    speaker ch[12];
} speaker_layout;

#define L {"L", 30, 0, 0}
#define R {"R", -30, 0, 0}
#define C {"C", 0, 0, 0}
#define LFE {"LFE", 0, 0, 1}
static const speaker_layout layouts[] = {
    {"stereo", 2, {L, R}},
    {"5.0", 5, {L, R, C, {"Ls", 110, 0, 0}, {"Rs", -110, 0, 0}}},
    {"5.1", 6, {L, R, C, LFE, {"Ls", 110, 0, 0}, {"Rs", -110, 0, 0}}},
    {"7.1", 8, {L, R, C, LFE, {"Lrs", 135, 0, 0}, {"Rrs", -135, 0, 0}, {"Lss", 90, 0, 0},
                {"Rss", -90, 0, 0}}},
    {"7.1.4", 12, {L, R, C, LFE, {"Lrs", 135, 0, 0}, {"Rrs", -135, 0, 0}, {"Lss", 90, 0, 0},
                   {"Rss", -90, 0, 0}, {"Ltf", 45, 45, 0}, {"Rtf", -45, 45, 0},
                   {"Ltr", 135, 45, 0}, {"Rtr", -135, 45, 0}}},
};
#undef L
#undef R
#undef C
#undef LFE

static const speaker_layout *find(const char *name)
{
    for (size_t k = 0; k < sizeof layouts / sizeof *layouts; k++)
        if (!strcmp(layouts[k].name, name))
            return &layouts[k];
    return NULL;
}

int es_speaker_layout_channels(const char *name)
{
    const speaker_layout *l = find(name);
    return l ? l->count : 0;
}

int es_speaker_layout_places(const char *name, es_sofa_pose *places, int *lfe)
{
    const speaker_layout *l = find(name);
    for (int c = 0; l && c < l->count; c++) {
        places[c] = (es_sofa_pose){l->ch[c].azimuth, l->ch[c].elevation, 1};
        lfe[c] = l->ch[c].lfe;
    }
    return l ? l->count : 0;
}

const char *es_speaker_layout_names(void)
{
    return "stereo, 5.0, 5.1, 7.1, 7.1.4";
}

/* The great-circle angle between two directions, degrees. */
static double angle_deg(float az1, float el1, float az2, float el2)
{
    const double a1 = az1 * PI / 180, e1 = el1 * PI / 180, a2 = az2 * PI / 180,
                 e2 = el2 * PI / 180;
    const double c = sin(e1) * sin(e2) + cos(e1) * cos(e2) * cos(a1 - a2);
    return acos(c > 1 ? 1 : c < -1 ? -1 : c) * 180 / PI;
}

/* The emitter nearest a place, and how far (degrees). */
static int nearest(const es_sofa *s, const speaker *ch, double *deg)
{
    int best = 0;
    *deg = 360;
    for (int e = 0; e < s->inputs; e++) {
        const double d = angle_deg(ch->azimuth, ch->elevation, s->emitter[e].azimuth,
                                   s->emitter[e].elevation);
        if (d < *deg)
            *deg = d, best = e;
    }
    return best;
}

/* Each channel's emitter (the LFE's: -1, through those of L and R); 0,
 * or -1 and why. The mapping in words in `note`. */
static int map_channels(const es_sofa *s, const speaker_layout *l, int *emitter, char *note,
                        size_t nn, char *err, size_t n)
{
    size_t used = (size_t)snprintf(note, nn, "--layout %s:", l->name);
    for (int c = 0; c < l->count && used < nn; c++) {
        const speaker *ch = &l->ch[c];
        if (ch->lfe) {
            emitter[c] = -1;
            used += (size_t)snprintf(note + used, nn - used, " %s through L's and R's at -3 dB;",
                                     ch->label);
            continue;
        }
        double deg;
        const int e = emitter[c] = nearest(s, ch, &deg);
        const float az = s->emitter[e].azimuth > 180 ? s->emitter[e].azimuth - 360
                                                     : s->emitter[e].azimuth;
        if (deg > NEAREST_MAX_DEG) {
            snprintf(err, n, "--layout %s: channel %d (%s, azimuth %g, elevation %g) has no "
                     "loudspeaker within %.0f degrees in the set (the nearest, emitter %d, is "
                     "at azimuth %.0f, elevation %.0f)", l->name, c + 1, ch->label, ch->azimuth,
                     ch->elevation, NEAREST_MAX_DEG, e + 1, az, s->emitter[e].elevation);
            return -1;
        }
        used += (size_t)snprintf(note + used, nn - used, " %s emitter %d (%.0f, %.0f);",
                                 ch->label, e + 1, az, s->emitter[e].elevation);
    }
    if (used < nn && used > 0 && note[used - 1] == ';')
        note[used - 1] = '\0';
    return 0;
}

/* Row `r` (of `from`, whose outputs are `outputs`) scaled and added into
 * `to`; nothing for a missing row. */
static void add_row(float *to, const es_ir *from, int e, int o, float gain)
{
    const float *row = from->taps[e * from->outputs + o];
    for (int t = 0; row && t < from->length; t++)
        to[t] += gain * row[t];
}

int es_sofa_speakers(es_sofa *s, const char *layout, char *note, size_t nn, char *err, size_t n)
{
    note[0] = '\0';
    const speaker_layout *l = find(layout);
    if (!l) {
        snprintf(err, n, "--layout '%s': not a loudspeaker layout (%s)", layout,
                 es_speaker_layout_names());
        return -1;
    }
    if (!s->emitter) {
        snprintf(err, n, "--layout %s: the set gives no loudspeaker positions "
                 "(EmitterPosition), so its %d emitter%s play by channel order: give a file of "
                 "as many channels without --layout", layout, s->inputs,
                 s->inputs == 1 ? "" : "s");
        return -1;
    }
    int emitter[12];
    if (map_channels(s, l, emitter, note, nn, err, n) != 0)
        return -1;
    const int front[2] = {emitter[0], emitter[1]};
    for (int m = 0; m < s->count; m++) {
        const es_ir *old = s->sets[m];
        es_ir *made = es_ir_create(l->count, old->outputs, old->length, old->sample_rate);
        for (int c = 0; made && c < l->count; c++)
            for (int o = 0; o < old->outputs; o++) {
                float *row = es_ir_path(made, c, o);
                if (!row) {
                    es_ir_destroy(made);
                    made = NULL;
                    break;
                }
                if (emitter[c] >= 0)
                    add_row(row, old, emitter[c], o, 1.0f);
                else
                    for (int k = 0; k < 2; k++)
                        add_row(row, old, front[k], o, LFE_GAIN);
            }
        if (!made) {
            snprintf(err, n, "out of memory laying out %d sets as %s", s->count, layout);
            return -1;
        }
        es_ir_destroy(s->sets[m]);
        s->sets[m] = made;
    }
    es_sofa_pose *places = malloc((size_t)l->count * sizeof *places);
    for (int c = 0; places && c < l->count; c++)
        places[c] = emitter[c] >= 0 ? s->emitter[emitter[c]] : (es_sofa_pose){0, 0, 0};
    free(s->emitter);
    s->emitter = places;
    s->inputs = l->count;
    return 0;
}
