/* Room preparation: the silent tail trimmed changes the room by no more
 * than ES_TRIM_DB (-120 dB) of its largest output, the pre-delay is exact, the programme power (pink, K-weighted:
 * program_level.h) is normalised per output (1 for every layout, plus the
 * manifest's gain), resampling happens when the
 * rates differ, and the cache hands back the same prepared room for the
 * same rate without reading the file again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audiofile.h"
#include "prepare.h"
#include "program_level.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static void write_ir(const char *path, int channels, int frames, int audible, double rate)
{
    float **ch = calloc((size_t)channels, sizeof *ch);
    for (int c = 0; c < channels; c++) {
        ch[c] = calloc((size_t)frames, sizeof(float));
        for (int t = 0; t < audible; t++)
            ch[c][t] = (float)((c + 1) * 0.5 * exp(-t / 400.0) * ((t * 7919 % 13) - 6) / 6.0);
    }
    char err[256];
    es_audiofile *f = es_audiofile_create(path, &(es_write_spec){.sample_rate = rate, .channels = channels}, err, sizeof err);
    es_audiofile_write(f, (const float *const *)ch, frames, err, sizeof err);
    es_audiofile_commit(f, err, sizeof err);
    es_audiofile_close(f);
    for (int c = 0; c < channels; c++)
        free(ch[c]);
    free(ch);
}

static double energy(const es_prepared_room *p, int outputs)
{
    double e = 0;
    for (int c = 0; c < p->channels; c++)
        e += es_program_power(p->ch[c], p->frames, p->rate);
    return e / outputs;
}

/* A filter ringing at `hz` for a second: its programme power over its
 * energy. */
static double ring(double hz)
{
    static float h[48000];
    double e = 0;
    for (int t = 0; t < 48000; t++) {
        h[t] = (float)(exp(-t / 4800.0) * sin(2 * 3.14159265358979 * hz * t / 48000));
        e += (double)h[t] * h[t];
    }
    return es_program_power(h, 48000, 48000) / e;
}

/* The weighting: a unit impulse has a programme power of 1 and twice it
 * 4; programme material (pink) holds more of its power low than white
 * noise does: a ring at 60 Hz counts for more than its energy, one at
 * 12 kHz for less. */
static void weighting(void)
{
    static float h[48000];
    h[0] = 1;
    const double unit = es_program_power(h, 48000, 48000);
    h[0] = 2;
    const double twice = es_program_power(h, 48000, 48000);
    const double low = ring(60), high = ring(12000);
    char what[200];
    snprintf(what, sizeof what, "programme power: a unit impulse %.4f, twice it %.4f; a 60 Hz "
             "ring %+.1f dB against its energy, a 12 kHz ring %+.1f dB", unit, twice,
             10 * log10(low), 10 * log10(high));
    check(fabs(unit - 1) < 1e-3 && fabs(twice - 4) < 4e-3 && low > 1 && high < 1, what);
}

int main(void)
{
    weighting();
    char path[] = "/tmp/earshot-prepare-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char wav[64];
    snprintf(wav, sizeof wav, "%s.wav", path);
    /* 4800 audible frames (an exponential decay, 104 dB down at the end), then
     * 43200 zeros: the trim keeps all but a tail within -120 dB of the whole. */
    write_ir(wav, 2, 48000, 4800, 48000);
    es_room room = {.name = "test", .path = wav, .description = "", .source = "",
                    .licence = ""};
    es_prepared_room p;
    char err[512], what[200];
    check(es_room_prepare(&room, 48000, &p, err, sizeof err) == 0, "stereo room prepared");
    snprintf(what, sizeof what, "silent tail trimmed: %d frames kept of 48000 (audible 4800), "
             "%.3f s cut", p.frames, p.trimmed_s);
    check(p.frames <= 4800 && p.frames > 4000, what);
    /* Faithful: beyond the one gain, the prepared room's largest possible
     * output differs from the file's by -120 dB at most (the worst-case
     * input meets every tap at once: the sums of |differences|). */
    float **orig = NULL;
    es_audio_info oi;
    double worst = 0;
    if (es_audiofile_load(wav, &orig, &oi, err, sizeof err) == 0) {
        const double g = pow(10, p.gain_db / 20);
        for (int c = 0; c < 2; c++) {
            double whole = 0, off = 0;
            for (long t = 0; t < (long)oi.frames; t++) {
                whole += fabs(orig[c][t]);
                off += fabs(orig[c][t] - (t < p.frames ? p.ch[c][t] / g : 0.0));
            }
            worst = fmax(worst, off / whole);
        }
        es_audiofile_free_channels(orig, oi.channels);
    }
    snprintf(what, sizeof what, "the prepared room is the file's to %.1f dB (at most -120), "
             "beyond its gain", worst > 0 ? 20 * log10(worst) : -300.0);
    check(orig != NULL && worst <= 1e-6, what);
    snprintf(what, sizeof what, "programme power per output %.6f (want 1)", energy(&p, 2));
    check(fabs(energy(&p, 2) - 1) < 1e-4, what);
    es_prepared_room_free(&p);

    room.predelay_ms = 10;
    room.gain_db = -6;
    check(es_room_prepare(&room, 48000, &p, err, sizeof err) == 0, "with pre-delay and gain");
    int zeros = 0;
    while (zeros < p.frames && p.ch[0][zeros] == 0 && p.ch[1][zeros] == 0)
        zeros++;
    snprintf(what, sizeof what, "10 ms pre-delay: %d leading zero frames (want 480)", zeros);
    check(zeros == 480, what);
    snprintf(what, sizeof what, "gain -6 dB: programme power %.4f (want %.4f)", energy(&p, 2),
             pow(10, -0.6));
    check(fabs(energy(&p, 2) - pow(10, -0.6)) < 1e-4, what);
    es_prepared_room_free(&p);

    snprintf(room.layout, sizeof room.layout, "true-stereo");
    check(es_room_prepare(&room, 48000, &p, err, sizeof err) != 0 &&
              strstr(err, "room 'test'") && strstr(err, "needs 4 channels"),
          "a 2-channel file with layout true-stereo is refused, naming the room");
    printf("     %s\n", err);
    room.layout[0] = 0;
    room.gain_db = 0;
    room.predelay_ms = 0;

    check(es_room_prepare(&room, 44100, &p, err, sizeof err) == 0 && p.rate == 44100 &&
              p.file_rate == 48000,
          "prepared at 44.1 kHz from a 48 kHz file (resampled)");
    es_prepared_room_free(&p);

    es_room_cache cache = {0};
    const es_prepared_room *a = es_room_cache_get(&cache, &room, 48000, err, sizeof err);
    const es_prepared_room *b = es_room_cache_get(&cache, &room, 44100, err, sizeof err);
    unlink(wav); /* a cached room must not need its file again */
    const es_prepared_room *c = es_room_cache_get(&cache, &room, 48000, err, sizeof err);
    check(a && b && a != b && c == a, "cache: one entry per rate, the same one back without "
                                      "the file");
    es_room_cache_free(&cache);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
