/* Loudspeakers heard on headphones (rooms/sofa_speakers.c): SOFA
 * MultiSpeakerBRIR sets of the test's own (make_sofa.py speakers: 12 head
 * orientations 30 degrees apart, the loudspeakers of a 5.0 or a 7.1.4
 * layout, each response a known function of where the loudspeaker is seen
 * from the turned head), and fresh noise in every channel:
 *   - a 5-channel file through the 5.0 set (by its emitters' order), each
 *     channel alone: the output is the noise through its loudspeaker's
 *     BRIR, computed here, within -120 dB, at yaw 0 and yaw 30;
 *   - turned: the centre alone at yaw 30 sounds where the right
 *     loudspeaker (azimuth -30) sounds at yaw 0 (within -120 dB), its right
 *     ear leading by 8 samples;
 *   - a 5.1 file (--layout 5.1): each channel alone as its loudspeaker, the
 *     LFE as the front pair at -3 dB each;
 *   - a 7.1.4 file through the 7.1.4 set: each channel alone, the four
 *     heights included, at yaw 30;
 *   - played live at block 64 with the head turned to 30 degrees: the 7.1.4
 *     file, every window after the switch within -120 dB of render --head
 *     30 --layout 7.1.4;
 *   - one line each: a 5.1 layout for a 5-channel file, 7.1.4 through the
 *     5.0 set (no loudspeaker near the heights), a loudspeaker layout for a
 *     WAV room, a layout that is no layout.
 *
 *   test_speakers EARSHOT MAKE_WAV MAKE_SOFA */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"

#define RATE 48000
#define FRAMES RATE
#define PI 3.14159265358979323846

typedef struct {
    const char *label;
    double azimuth, elevation;
    int lfe;
} channel;

static const channel five_one[6] = {{"L", 30, 0, 0},   {"R", -30, 0, 0},  {"C", 0, 0, 0},
                                    {"LFE", 0, 0, 1},  {"Ls", 110, 0, 0}, {"Rs", -110, 0, 0}};
static const channel seven_one_four[12] = {
    {"L", 30, 0, 0},      {"R", -30, 0, 0},     {"C", 0, 0, 0},       {"LFE", 0, 0, 1},
    {"Lrs", 135, 0, 0},   {"Rrs", -135, 0, 0},  {"Lss", 90, 0, 0},    {"Rss", -90, 0, 0},
    {"Ltf", 45, 45, 0},   {"Rtf", -45, 45, 0},  {"Ltr", 135, 45, 0},  {"Rtr", -135, 45, 0}};

/* What make_sofa.py speakers gives a loudspeaker at (a, e) heard by a
 * head at yaw y: x through it, added into out[2] with `gain`. */
static void through(const float *x, double a, double e, double y, double gain, double **out)
{
    const double s = sin((a - y) * PI / 180) * cos(e * PI / 180);
    const int lag[2] = {10 - (int)lround(8 * s), 10 + (int)lround(8 * s)};
    const int second = 40 + (int)lround(10 * sin(e * PI / 180));
    for (int ear = 0; ear < 2; ear++)
        for (long t = 0; t < FRAMES + 64; t++) {
            double v = 0;
            if (t - lag[ear] >= 0 && t - lag[ear] < FRAMES)
                v += x[t - lag[ear]];
            if (t - second >= 0 && t - second < FRAMES)
                v += 0.5 * x[t - second];
            out[ear][t] += gain * v;
        }
}

/* `file` with channel c alone as channel `to` (the others silent) as
 * `out`: 0 or -1. */
static int channel_as(const char *file, int c, int to, const char *out)
{
    es_audio_info info;
    float **ch = app_load(file, &info);
    if (!ch)
        return -1;
    if (to != c)
        memcpy(ch[to], ch[c], (size_t)info.frames * sizeof(float));
    for (int k = 0; k < info.channels; k++)
        if (k != to)
            memset(ch[k], 0, (size_t)info.frames * sizeof(float));
    char path[512], err[300];
    app_path(path, sizeof path, out);
    es_write_spec spec = {.sample_rate = RATE, .channels = info.channels,
                          .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_REPLACE};
    es_audiofile *f = es_audiofile_create(path, &spec, err, sizeof err);
    const int rc = f && es_audiofile_write(f, (const float *const *)ch, (int)info.frames, err,
                                           sizeof err) == 0 &&
                           es_audiofile_commit(f, err, sizeof err) == 0
                       ? 0 : -1;
    es_audiofile_close(f);
    es_audiofile_free_channels(ch, info.channels);
    return rc;
}

static int one_channel(const char *file, int c, const char *out)
{
    return channel_as(file, c, c, out);
}

/* The residual of `got` (a WAV of the folder, two channels) against
 * want[2], dB of want's energy. */
static double residual_db(const char *got, double **want)
{
    es_audio_info info;
    float **g = app_load(got, &info);
    if (!g || info.channels != 2)
        return 0;
    double diff = 0, ref = 0;
    for (int ear = 0; ear < 2; ear++)
        for (long t = 0; t < (long)info.frames && t < FRAMES + 64; t++) {
            diff += (g[ear][t] - want[ear][t]) * (g[ear][t] - want[ear][t]);
            ref += want[ear][t] * want[ear][t];
        }
    es_audiofile_free_channels(g, info.channels);
    return diff == 0 ? -300 : 10 * log10(diff / ref);
}

/* Each channel of `file` alone through `set` at `yaw` (render's
 * `options`) against the BRIRs of its loudspeaker, computed: the worst. */
static double each_alone(const char *set, const char *file, const channel *layout, int count,
                         double yaw, const char *options)
{
    es_audio_info info;
    float **x = app_load(file, &info);
    double worst = -300;
    double *want[2] = {calloc(FRAMES + 64, sizeof(double)), calloc(FRAMES + 64, sizeof(double))};
    for (int c = 0; x && c < count; c++) {
        memset(want[0], 0, (FRAMES + 64) * sizeof(double));
        memset(want[1], 0, (FRAMES + 64) * sizeof(double));
        if (layout[c].lfe) /* the front pair at -3 dB each */
            for (int k = 0; k < 2; k++)
                through(x[c], layout[k].azimuth, 0, yaw, sqrt(0.5), want);
        else
            through(x[c], layout[c].azimuth, layout[c].elevation, yaw, 1, want);
        double db = 0;
        if (one_channel(file, c, "alone.wav") == 0 &&
            app_sh("'%s' render --ir %s --head %g %s alone.wav out.wav >/dev/null 2>&1",
                   app_earshot, set, yaw, options) == 0)
            db = residual_db("out.wav", want);
        printf("    %s at yaw %g: %s alone %.1f dB from its loudspeaker's BRIRs\n", set, yaw,
               layout[c].label, db);
        worst = fmax(worst, db);
    }
    free(want[0]), free(want[1]);
    if (x)
        es_audiofile_free_channels(x, info.channels);
    return worst;
}

/* The centre alone at yaw 30 against the right loudspeaker alone at yaw
 * 0: the same place, seen from the head. */
static void turned_centre(void)
{
    es_audio_info a, b;
    /* The centre's noise in the right loudspeaker's channel. */
    int ok = one_channel("five.wav", 2, "c.wav") == 0 && channel_as("five.wav", 2, 1, "r.wav") == 0;
    ok = ok && app_sh("'%s' render --ir sp5.sofa --head 30 c.wav c30.wav >/dev/null 2>&1 && "
                      "'%s' render --ir sp5.sofa --head 0 r.wav r0.wav >/dev/null 2>&1",
                      app_earshot, app_earshot) == 0;
    float **c30 = ok ? app_load("c30.wav", &a) : NULL, **r0 = ok ? app_load("r0.wav", &b) : NULL;
    double diff = 0, ref = 0;
    int lead = 0;
    if (c30 && r0) {
        for (int ear = 0; ear < 2; ear++)
            for (long t = 0; t < (long)a.frames; t++) {
                diff += (c30[ear][t] - r0[ear][t]) * (c30[ear][t] - r0[ear][t]);
                ref += (double)r0[ear][t] * r0[ear][t];
            }
        /* The centre's first samples reach the left ear 14 samples late,
         * the right 6 (before the second pulse at 40). */
        es_audio_info fi;
        float **x = app_load("five.wav", &fi);
        for (int k = 0; x && k < 20; k++)
            if (fabsf(c30[0][k + 14] - x[2][k]) < 1e-6f && fabsf(c30[1][k + 6] - x[2][k]) < 1e-6f)
                lead++;
        if (x)
            es_audiofile_free_channels(x, fi.channels);
    }
    const double db = diff == 0 ? -300 : 10 * log10(diff / fmax(ref, 1e-30));
    char what[300];
    snprintf(what, sizeof what, "the head turned 30 degrees: the centre alone is where the right "
             "loudspeaker was at yaw 0 (%.1f dB), its right ear leading by 8 samples (%d of 20 "
             "samples seen there)", db, lead);
    app_check(c30 && r0 && db <= -120 && lead == 20, what);
    if (c30)
        es_audiofile_free_channels(c30, a.channels);
    if (r0)
        es_audiofile_free_channels(r0, b.channels);
}

/* A 7.1.4 file played live (its noise 26 dB down: twelve channels of
 * full noise would be a loud room the safety turns down), the head turned
 * to 30 degrees after 2 s:
 * the windows after the switch against render --head 30 --layout 7.1.4. */
static void live(void)
{
    const int rc = app_sh("(sleep 2; echo 'head 30'; sleep 2; echo quit) | '%s' play --device "
                          "null --headless --commands --seconds 30 --room ./sp714.sofa --raw "
                          "--layout 7.1.4 --block 64 --input quiet.wav --limiter off --record "
                          "wet.wav --record-input dry.wav >/dev/null 2>said.txt && '%s' render "
                          "--ir sp714.sofa --head 30 --layout 7.1.4 dry.wav ref.wav "
                          ">/dev/null 2>&1", app_earshot, app_earshot);
    char said[1024] = "";
    app_line_with("said.txt", "SOFA", said, sizeof said);
    es_audio_info wi, ri;
    float **wet = rc == 0 ? app_load("wet.wav", &wi) : NULL;
    float **ref = wet ? app_load("ref.wav", &ri) : NULL;
    /* The last second: long after the turn. */
    double diff = 0, energy = 0;
    const long from = wet ? (long)wi.frames - RATE : 0;
    for (int ear = 0; ref && from > 0 && ear < 2; ear++)
        for (long t = from; t < (long)wi.frames; t++) {
            diff += (wet[ear][t] - ref[ear][t]) * (wet[ear][t] - ref[ear][t]);
            energy += (double)ref[ear][t] * ref[ear][t];
        }
    const double db = diff == 0 ? -300 : 10 * log10(diff / fmax(energy, 1e-30));
    char what[1400];
    snprintf(what, sizeof what, "a 7.1.4 file played through the 7.1.4 set (exit %d), the head "
             "turned to 30: its last second %.1f dB from render --head 30 --layout 7.1.4; said: "
             "%.900s", rc, db, said);
    app_check(ref && from > 0 && db <= -120 && strstr(said, "as 7.1.4 loudspeakers"), what);
    if (wet)
        es_audiofile_free_channels(wet, wi.channels);
    if (ref)
        es_audiofile_free_channels(ref, ri.channels);
}

/* Layouts that do not fit: one line each naming what is wrong. */
static void refusals(void)
{
    static const struct {
        const char *command, *says;
    } bad[] = {
        {"render --ir sp5.sofa --layout 5.1 five.wav o.wav", "5.1 takes 6 channels"},
        {"render --ir sp5.sofa --layout 7.1.4 twelve.wav o.wav", "Ltf"},
        {"render --ir room.wav --layout 5.1 six.wav o.wav", "MultiSpeakerBRIR"},
        {"render --ir sp5.sofa --layout 9.1 five.wav o.wav", "loudspeaker layout"},
        {"render --ir sp5.sofa six.wav o.wav", "--layout"},
        {"play --device null --headless --seconds 1 --room ./room.wav --layout 5.1 "
         "--input six.wav", "MultiSpeakerBRIR"},
    };
    const int count = (int)(sizeof bad / sizeof *bad);
    int good = 0;
    for (int k = 0; k < count; k++) {
        const int rc = app_sh("'%s' %s >/dev/null 2>bad.txt; test $? -ne 0 && grep -q -e '%s' "
                              "bad.txt && test ! -e o.wav", app_earshot, bad[k].command,
                              bad[k].says);
        good += rc == 0;
        if (rc != 0)
            (void)app_sh("echo '    %s said:'; cat bad.txt", bad[k].command);
    }
    char what[200];
    snprintf(what, sizeof what, "%d of %d layouts that do not fit refused in a line naming why",
             good, count);
    app_check(good == count, what);
}

int main(int argc, char **argv)
{
    app_test_start("speakers", argc, argv);
    const char *make_sofa = argv[3];
    if (app_sh("/usr/bin/python3 -c 'import netCDF4' 2>/dev/null") != 0) {
        printf("SKIP python3-netcdf4 is missing (scripts/setup --test installs it)\n");
        return 77;
    }
    if (app_sh("/usr/bin/python3 '%s' sp5.sofa MultiSpeakerBRIR 12 2 5 64 %d 0 0 speakers 5.0 && "
               "/usr/bin/python3 '%s' sp714.sofa MultiSpeakerBRIR 12 2 11 64 %d 0 0 speakers "
               "7.1.4 && '%s' five.wav noise %d 5 %d 3 && '%s' six.wav noise %d 6 %d 4 && "
               "'%s' twelve.wav noise %d 12 %d 5 && '%s' room.wav room %d 2 4800 && "
               "'%s' quiet.wav noise %d 12 %d 6 0.05",
               make_sofa, RATE, make_sofa, RATE, app_make_wav, RATE, FRAMES, app_make_wav, RATE,
               FRAMES, app_make_wav, RATE, FRAMES, app_make_wav, RATE, app_make_wav, RATE,
               FRAMES) != 0) {
        app_check(0, "the sets (make_sofa.py) and the files");
        return app_test_end();
    }
    char what[300];
    static const channel *five = five_one; /* 5.0: 5.1 without its LFE */
    const channel five_oh[5] = {five[0], five[1], five[2], five[4], five[5]};
    for (int y = 0; y <= 30; y += 30) {
        const double db = each_alone("sp5.sofa", "five.wav", five_oh, 5, y, "");
        snprintf(what, sizeof what, "a 5-channel file through the 5.0 set at yaw %d: each channel "
                 "alone its loudspeaker's BRIRs within %.1f dB", y, db);
        app_check(db <= -120, what);
    }
    turned_centre();
    double db = each_alone("sp5.sofa", "six.wav", five_one, 6, 0, "--layout 5.1");
    snprintf(what, sizeof what, "a 5.1 file (--layout 5.1): each channel alone its loudspeaker's, "
             "the LFE the front pair's at -3 dB, within %.1f dB", db);
    app_check(db <= -120, what);
    db = each_alone("sp714.sofa", "twelve.wav", seven_one_four, 12, 30, "--layout 7.1.4");
    snprintf(what, sizeof what, "a 7.1.4 file at yaw 30: each channel alone its loudspeaker's, "
             "the heights too, within %.1f dB", db);
    app_check(db <= -120, what);
    live();
    refusals();
    return app_test_end();
}
