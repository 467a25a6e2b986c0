/* The default levels against real material: speech (espeak-ng's voice,
 * as a microphone would give it) and a music-like signal (plucked notes,
 * es_make_wav's pluck), each at -6 dBFS peak, rendered through every
 * shipped room at the default levels:
 *   - no clipped sample (no |x| > 1 in the float output);
 *   - the speech's loudness kept: its RMS through every room within 3 dB
 *     of the dry speech's (the library normalises rooms by their gain for
 *     programme material, so that a room changes the sound, not the
 *     level).
 *
 *   test_room_levels EARSHOT MAKE_WAV */
#define _DEFAULT_SOURCE /* popen */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"

/* Reads `in`, scales it to -6 dBFS peak, writes `out` (float); its RMS in
 * dBFS, or NAN on failure. */
static double to_minus_6(const char *in, const char *out)
{
    es_audio_info info;
    float **ch = app_load(in, &info);
    if (!ch)
        return NAN;
    float peak = 0;
    double sum = 0;
    for (int c = 0; c < info.channels; c++)
        for (long t = 0; t < (long)info.frames; t++)
            peak = fabsf(ch[c][t]) > peak ? fabsf(ch[c][t]) : peak;
    const float gain = 0.5011872f / peak;
    for (int c = 0; c < info.channels; c++)
        for (long t = 0; t < (long)info.frames; t++) {
            ch[c][t] *= gain;
            sum += (double)ch[c][t] * ch[c][t];
        }
    char p[512], err[256];
    snprintf(p, sizeof p, "%s/%s", app_dir, out);
    es_audiofile *f = es_audiofile_create(
        p, &(es_write_spec){.sample_rate = info.sample_rate, .channels = info.channels}, err,
        sizeof err);
    const int ok = f && !es_audiofile_write(f, (const float *const *)ch, (int)info.frames, err,
                                            sizeof err) &&
                   !es_audiofile_commit(f, err, sizeof err);
    es_audiofile_close(f);
    const double rms = 10 * log10(sum / ((double)info.frames * info.channels));
    es_audiofile_free_channels(ch, info.channels);
    if (!ok) {
        printf("FAIL writing %s: %s\n", out, err);
        app_failures++;
        return NAN;
    }
    return rms;
}

/* Renders `in` through `room`: its clipped samples, peak and RMS (dBFS). */
static long render(const char *room, const char *in, double *peak_db, double *rms_db)
{
    if (app_sh("'%s' render --room %s %s out.wav >/dev/null 2>&1", app_earshot, room, in) != 0) {
        printf("FAIL render --room %s %s\n", room, in);
        app_failures++;
        return -1;
    }
    es_audio_info info;
    float **ch = app_load("out.wav", &info);
    if (!ch)
        return -1;
    long clipped = 0;
    float peak = 0;
    double sum = 0;
    for (int c = 0; c < info.channels; c++)
        for (long t = 0; t < (long)info.frames; t++) {
            clipped += fabsf(ch[c][t]) > 1.0f;
            peak = fabsf(ch[c][t]) > peak ? fabsf(ch[c][t]) : peak;
            sum += (double)ch[c][t] * ch[c][t];
        }
    *peak_db = 20 * log10(peak);
    *rms_db = 10 * log10(sum / ((double)info.frames * info.channels));
    es_audiofile_free_channels(ch, info.channels);
    return clipped;
}

int main(int argc, char **argv)
{
    app_test_start("room-levels", argc, argv);
    if (app_sh("espeak-ng -w speech-raw.wav 'Please call Stella. Ask her to bring these things "
           "with her from the store: six spoons of fresh snow peas, five thick slabs of blue "
           "cheese, and maybe a snack for her brother Bob.' 2>/dev/null") != 0) {
        printf("FAIL espeak-ng (package espeak-ng; scripts/setup --test installs it)\n");
        app_failures++;
        return app_test_end();
    }
    app_sh("'%s' pluck-raw.wav pluck 48000 1 480000 1 0.5 >/dev/null", app_make_wav);
    const double speech_rms = to_minus_6("speech-raw.wav", "speech.wav");
    to_minus_6("pluck-raw.wav", "pluck.wav");
    /* Every shipped room, as `earshot rooms` lists them. */
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' rooms 2>/dev/null | awk 'NR > 1 { print $1 }'", app_earshot);
    FILE *list = popen(cmd, "r");
    char room[128];
    int rooms = 0;
    while (list && fgets(room, sizeof room, list)) {
        room[strcspn(room, "\n")] = 0;
        double sp, sr, pp, pr;
        const long sc = render(room, "speech.wav", &sp, &sr);
        const long pc = render(room, "pluck.wav", &pp, &pr);
        char line[300];
        snprintf(line, sizeof line, "%-13s speech: peak %+5.1f dBFS, RMS %+5.1f dB against the "
                 "dry (%ld clipped); plucks: peak %+5.1f dBFS (%ld clipped)", room, sp,
                 sr - speech_rms, sc, pp, pc);
        const int ok = sc == 0 && pc == 0 && fabs(sr - speech_rms) <= 3;
        printf("%s %s\n", ok ? "ok  " : "FAIL", line);
        app_failures += !ok;
        rooms++;
    }
    if (list)
        pclose(list);
    if (rooms < 6) {
        printf("FAIL %d shipped rooms listed (6 expected)\n", rooms);
        app_failures++;
    }
    return app_test_end();
}
