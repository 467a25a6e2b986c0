/* Switches and safety as a person meets them, through the earshot binary
 * on the null device, with the output (and the dry input) recorded:
 *   - a mono IR swapped in while a stereo room plays: it plays, both
 *     output channels equal, sample for sample;
 *   - a 4-channel IR file with --layout 1x4: four outputs, not true stereo;
 *   - a room of three outputs swapped in on a stereo stream: the stream
 *     reopens with them (said), the stereo take ends there;
 *   - an input file holding a NaN, an infinity and a burst of 1e30, played
 *     and rendered: no sample that is not finite in the recording or the
 *     render, the bad samples counted in the JSON, said in one line each;
 *     the render equals the render of the same file with those samples
 *     silenced (to FFT rounding: each process plans its own FFTs).
 *
 *   test_switches EARSHOT MAKE_WAV */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"

#define RATE 48000

static long non_finite(float **ch, const es_audio_info *info)
{
    long bad = 0;
    for (int c = 0; c < info->channels; c++)
        for (long t = 0; t < (long)info->frames; t++)
            bad += !isfinite(ch[c][t]);
    return bad;
}

static void mono_room(void)
{
    app_sh("'%s' mono.wav decay %d 1 4800 >/dev/null", app_make_wav, RATE);
    const int rc = app_sh("(sleep 1; echo 'room ./mono.wav'; sleep 2) | '%s' play --device null "
                      "--headless --commands --seconds 3 --record out.wav >/dev/null 2>err.txt",
                      app_earshot);
    es_audio_info info;
    float **ch = app_load("out.wav", &info);
    if (!ch)
        return;
    /* The last second: the mono room alone, on both channels. */
    long differ = 0;
    double energy = 0;
    for (long t = (long)info.frames - RATE; t < (long)info.frames; t++) {
        differ += ch[0][t] != ch[1][t];
        energy += (double)ch[0][t] * ch[0][t];
    }
    char line[300];
    snprintf(line, sizeof line, "a mono IR on a stereo stream: exit %d, played (%d line), both "
             "channels equal over its last second (%ld differ), not silent", rc,
             app_lines_with("err.txt", "room ./mono.wav"), differ);
    app_check(rc == 0 && app_lines_with("err.txt", "room ./mono.wav") >= 1 && info.channels == 2 &&
              differ == 0 && energy > 0, line);
    es_audiofile_free_channels(ch, info.channels);
}

/* A 4-channel IR file is true stereo by its count; --layout 1x4 plays it
 * as one input to four outputs: the recording has 4 channels. */
static void layout_option(void)
{
    app_sh("'%s' amb.wav decay %d 4 4800 >/dev/null", app_make_wav, RATE);
    const int rc = app_sh("'%s' play --device null --headless --seconds 1 --room ./amb.wav "
                          "--layout 1x4 --record amb-out.wav >/dev/null 2>err.txt", app_earshot);
    es_audio_info info;
    float **ch = app_load("amb-out.wav", &info);
    char line[300];
    snprintf(line, sizeof line, "--layout 1x4 on a 4-channel file: exit %d, %d channels played "
             "(said: %d)", rc, ch ? info.channels : 0,
             app_lines_with("err.txt", "1 x 4 matrix (--layout)"));
    app_check(rc == 0 && ch && info.channels == 4 &&
                  app_lines_with("err.txt", "1 x 4 matrix (--layout)") == 1,
              line);
    if (ch)
        es_audiofile_free_channels(ch, info.channels);
}

static void three_outputs(void)
{
    /* Three channels with one input: a 1 x 3 matrix (four would be true
     * stereo: two outputs). */
    app_sh("'%s' tri.wav decay %d 3 4800 >/dev/null", app_make_wav, RATE);
    const int rc = app_sh("(sleep 1; echo 'room ./tri.wav'; sleep 2) | '%s' play --device null "
                      "--headless --commands --seconds 3 --record out4.wav --json >out.json "
                      "2>err.txt", app_earshot);
    es_audio_info info;
    float **ch = app_load("out4.wav", &info);
    char line[300];
    snprintf(line, sizeof line, "a three-output room on a stereo stream: exit %d, the stream "
             "reopened (said: %d), the stereo take ended there (%.2f s, 2 channels)", rc,
             app_lines_with("err.txt", "the stream reopened"), ch ? info.frames / (double)RATE : 0);
    app_check(rc == 0 && app_lines_with("err.txt", "room ./tri.wav: the stream reopened") == 1 && ch &&
              info.channels == 2 && info.frames < 2.0 * RATE && info.frames > 0.5 * RATE,
          line);
    if (ch)
        es_audiofile_free_channels(ch, info.channels);
}

/* An input with a NaN at 0.5 s, an infinity at 1 s and 0.01 s of 1e30 at
 * 1.5 s (bad.wav), and the same with those samples 0 (clean.wav). */
static void write_bad_input(void)
{
    const long n = 3 * RATE;
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    uint64_t s = 7;
    for (long t = 0; t < n; t++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[t] = y[t] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5) * 0.5f;
    }
    x[RATE / 2] = NAN;
    x[RATE] = INFINITY;
    y[RATE / 2] = y[RATE] = 0;
    for (long t = 3 * RATE / 2; t < 3 * RATE / 2 + RATE / 100; t++) {
        x[t] = 1e30f;
        y[t] = 0;
    }
    const char *names[2] = {"bad.wav", "clean.wav"};
    float *data[2] = {x, y};
    for (int k = 0; k < 2; k++) {
        char p[512], err[256];
        app_path(p, sizeof p, names[k]);
        float *chans[1] = {data[k]};
        es_audiofile *f = es_audiofile_create(
            p, &(es_write_spec){.sample_rate = RATE, .channels = 1}, err, sizeof err);
        if (!f || es_audiofile_write(f, (const float *const *)chans, (int)n, err, sizeof err) ||
            es_audiofile_commit(f, err, sizeof err)) {
            printf("FAIL writing %s: %s\n", names[k], err);
            exit(1);
        }
        es_audiofile_close(f);
    }
    free(x), free(y);
}

static void bad_input(void)
{
    write_bad_input();
    int rc = app_sh("'%s' play --device null --headless --seconds 2.5 --input bad.wav --room "
                "cathedral --record played.wav --json >played.json 2>err.txt", app_earshot);
    es_audio_info info;
    float **ch = app_load("played.wav", &info);
    char line[400], count[64] = "";
    char p[512];
    app_path(p, sizeof p, "played.json");
    FILE *f = fopen(p, "r");
    char json[65536] = "";
    if (f) {
        json[fread(json, 1, sizeof json - 1, f)] = 0;
        fclose(f);
    }
    const char *k = strstr(json, "\"bad_input\":");
    if (k)
        snprintf(count, sizeof count, "%.20s", k + 12);
    const long played_bad = ch ? non_finite(ch, &info) : -1;
    snprintf(line, sizeof line, "played: exit %d, %ld samples not finite in the recording, "
             "bad_input %s in the JSON (want 482), said in %d lines", rc, played_bad,
             strtok(count, ","), app_lines_with("err.txt", "input:"));
    app_check(rc == 0 && played_bad == 0 && atol(count) == 2 + RATE / 100 &&
              app_lines_with("err.txt", "input:") >= 1 && app_lines_with("err.txt", "input:") <= 3,
          line);
    if (ch)
        es_audiofile_free_channels(ch, info.channels);

    rc = app_sh("'%s' render --room cathedral bad.wav bad-out.wav >/dev/null 2>err.txt && '%s' "
            "render --room cathedral clean.wav clean-out.wav >/dev/null 2>/dev/null", app_earshot,
            app_earshot);
    es_audio_info a, b;
    float **ra = app_load("bad-out.wav", &a), **rb = app_load("clean-out.wav", &b);
    /* Two processes may plan their FFTs differently (FFTW_MEASURE): the
     * same to FFT rounding, not bit for bit. */
    double err = 0, ref = 0;
    if (ra && rb && a.frames == b.frames)
        for (int c = 0; c < a.channels; c++)
            for (long t = 0; t < (long)a.frames; t++) {
                err += ((double)ra[c][t] - rb[c][t]) * ((double)ra[c][t] - rb[c][t]);
                ref += (double)rb[c][t] * rb[c][t];
            }
    const double db = ref > 0 ? 10 * log10(err / ref + 1e-30) : 0;
    snprintf(line, sizeof line, "rendered: exit %d, %ld samples not finite, said in %d line, "
             "the render of the file with those samples silenced to %.1f dB", rc,
             ra ? non_finite(ra, &a) : -1, app_lines_with("err.txt", "not numbers"), db);
    app_check(rc == 0 && ra && non_finite(ra, &a) == 0 && app_lines_with("err.txt", "not numbers") == 1 &&
              ref > 0 && db < -120, line);
    if (ra)
        es_audiofile_free_channels(ra, a.channels);
    if (rb)
        es_audiofile_free_channels(rb, b.channels);
}

int main(int argc, char **argv)
{
    app_test_start("switches", argc, argv);
    mono_room();
    layout_option();
    three_outputs();
    bad_input();
    return app_test_end();
}
