/* Room preparation: the silent tail trimmed changes the room by no more
 * than ES_TRIM_DB (-120 dB) of its largest output, the pre-delay is exact, the programme power (pink, K-weighted:
 * program_level.h) is normalised per output (1 for every layout, plus the
 * manifest's gain; a file room is levelled by the same rule), a recording's
 * noise floor is cut only where its energy allows, resampling happens when the
 * rates differ, and the cache hands back the same prepared room for the
 * same rate without reading the file again. */
#define _DEFAULT_SOURCE /* mkstemps */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audiofile.h"
#include "prepare.h"
#include "program_level.h"
#include "room_level.h"

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

/* A recording's tail: a decay, then a noise floor 100 dB under its peak
 * to the end, as a measured IR keeps (jconvolver's street2). Its sum of
 * |samples| is mostly the floor's, so a cut judged by that sum alone took
 * frames whose energy was only -103 dB under the room's: the energy bound
 * keeps the cut's energy -120 dB under it. */
static void noise_floor(void)
{
    char path[] = "/tmp/earshot-floor-XXXXXX.wav";
    int fd = mkstemps(path, 4);
    close(fd);
    enum { FRAMES = 96000 };
    float *h = calloc(FRAMES, sizeof *h);
    unsigned seed = 7;
    double whole = 0;
    for (int t = 0; t < FRAMES; t++) {
        seed = seed * 1103515245u + 12345u;
        const double noise = ((double)(seed >> 8) / (1u << 24) - 0.5) * 2e-5;
        h[t] = (float)(0.8 * exp(-t / 2400.0) * ((t * 7919 % 13) - 6) / 6.0 + noise);
        whole += (double)h[t] * h[t];
    }
    char err[256];
    es_audiofile *f = es_audiofile_create(path, &(es_write_spec){.sample_rate = 48000,
                                                                 .channels = 1},
                                          err, sizeof err);
    es_audiofile_write(f, (const float *const *)&h, FRAMES, err, sizeof err);
    es_audiofile_commit(f, err, sizeof err);
    es_audiofile_close(f);
    es_room room = {.name = "floor", .path = path, .description = "", .source = "",
                    .licence = ""};
    es_prepared_room p;
    double cut = 0;
    const int ok = es_room_prepare(&room, 48000, &p, err, sizeof err) == 0;
    for (int t = ok ? p.frames : FRAMES; t < FRAMES; t++)
        cut += (double)h[t] * h[t];
    char what[200];
    snprintf(what, sizeof what, "a noise floor at -100 dB: %d of %d frames kept, the cut's "
             "energy %.1f dB of the room's (at most -120)", ok ? p.frames : 0, FRAMES,
             cut > 0 ? 10 * log10(cut / whole) : -300.0);
    check(ok && cut <= 1e-12 * whole, what);
    if (ok)
        es_prepared_room_free(&p);
    unlink(path);
    free(h);
}

/* A file room levelled as a library room is (room_level.h): a hot IR of
 * noise, 0.25 rms, comes to a programme power of 1; one of zeros is
 * refused. */
static void file_level(void)
{
    es_ir *ir = es_ir_create(1, 2, 57600, 48000);
    unsigned seed = 3;
    for (int o = 0; o < 2; o++) {
        float *h = es_ir_path(ir, 0, o);
        for (int t = 0; t < ir->length; t++) {
            seed = seed * 1103515245u + 12345u;
            h[t] = (float)(((double)(seed >> 8) / (1u << 24) - 0.5) * 0.866 *
                           exp(-6.9 * t / ir->length));
        }
    }
    double db;
    char err[128], what[200];
    const int ok = es_ir_level_db(ir, &db, err, sizeof err) == 0;
    es_ir_scale_db(ir, db);
    const double power = (es_program_power(ir->taps[0], ir->length, 48000) +
                          es_program_power(ir->taps[1], ir->length, 48000)) / 2;
    snprintf(what, sizeof what, "a hot file room levelled by %+.1f dB: programme power %.5f "
             "per output (want 1)", db, power);
    check(ok && db < -20 && fabs(power - 1) < 1e-3, what);
    es_ir_destroy(ir);
    es_ir *silent = es_ir_create(1, 1, 100, 48000);
    es_ir_path(silent, 0, 0);
    check(es_ir_level_db(silent, &db, err, sizeof err) != 0 && strstr(err, "silent"),
          "a silent file room is refused, not levelled to infinity");
    es_ir_destroy(silent);
}

/* Faithful: beyond the one gain, the prepared room's largest possible
 * output differs from the file's by this at most (the worst-case input
 * meets every tap at once: the sums of |differences|), as a fraction; -1
 * if the file does not load. */
static double worst_difference(const char *wav, const es_prepared_room *p)
{
    float **orig = NULL;
    es_audio_info oi;
    char err[512];
    if (es_audiofile_load(wav, &orig, &oi, err, sizeof err) != 0)
        return -1;
    double worst = 0;
    const double g = pow(10, p->gain_db / 20);
    for (int c = 0; c < 2; c++) {
        double whole = 0, off = 0;
        for (long t = 0; t < (long)oi.frames; t++) {
            whole += fabs(orig[c][t]);
            off += fabs(orig[c][t] - (t < p->frames ? p->ch[c][t] / g : 0.0));
        }
        worst = fmax(worst, off / whole);
    }
    es_audiofile_free_channels(orig, oi.channels);
    return worst;
}

/* 4800 audible frames (an exponential decay, 104 dB down at the end), then
 * 43200 zeros: the trim keeps all but a tail within -120 dB of the whole. */
static void trimmed_faithful_levelled(const es_room *room)
{
    es_prepared_room p;
    char err[512], what[200];
    check(es_room_prepare(room, 48000, &p, err, sizeof err) == 0, "stereo room prepared");
    snprintf(what, sizeof what, "silent tail trimmed: %d frames kept of 48000 (audible 4800), "
             "%.3f s cut", p.frames, p.trimmed_s);
    check(p.frames <= 4800 && p.frames > 4000, what);
    const double worst = worst_difference(room->path, &p);
    snprintf(what, sizeof what, "the prepared room is the file's to %.1f dB (at most -120), "
             "beyond its gain", worst > 0 ? 20 * log10(worst) : -300.0);
    check(worst >= 0 && worst <= 1e-6, what);
    snprintf(what, sizeof what, "programme power per output %.6f (want 1)", energy(&p, 2));
    check(fabs(energy(&p, 2) - 1) < 1e-4, what);
    es_prepared_room_free(&p);
}

static void predelay_and_gain(const es_room *plain)
{
    es_room room = *plain;
    room.predelay_ms = 10;
    room.gain_db = -6;
    es_prepared_room p;
    char err[512], what[200];
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
}

/* The room with pre-delay and gain, now with a layout its file cannot fill. */
static void layout_needs_channels(const es_room *plain)
{
    es_room room = *plain;
    room.predelay_ms = 10;
    room.gain_db = -6;
    snprintf(room.layout, sizeof room.layout, "true-stereo");
    es_prepared_room p;
    char err[512];
    check(es_room_prepare(&room, 48000, &p, err, sizeof err) != 0 &&
              strstr(err, "room 'test'") && strstr(err, "needs 4 channels"),
          "a 2-channel file with layout true-stereo is refused, naming the room");
    printf("     %s\n", err);
}

static void resampled(const es_room *room)
{
    es_prepared_room p;
    char err[512];
    check(es_room_prepare(room, 44100, &p, err, sizeof err) == 0 && p.rate == 44100 &&
              p.file_rate == 48000,
          "prepared at 44.1 kHz from a 48 kHz file (resampled)");
    es_prepared_room_free(&p);
}

/* Removes the room's file on the way: a cached room must not need it again. */
static void cache_keeps_rooms(const es_room *room)
{
    char err[512];
    es_room_cache cache = {0};
    const es_prepared_room *a = es_room_cache_get(&cache, room, 48000, err, sizeof err);
    const es_prepared_room *b = es_room_cache_get(&cache, room, 44100, err, sizeof err);
    unlink(room->path);
    const es_prepared_room *c = es_room_cache_get(&cache, room, 48000, err, sizeof err);
    check(a && b && a != b && c == a, "cache: one entry per rate, the same one back without "
                                      "the file");
    es_room_cache_free(&cache);
}

/* A room over the cache's size for keeping (here 1 KB) is prepared for
 * each use and freed on release; one under it stays. */
static void cache_lets_large_go(const es_room *room)
{
    char err[512];
    es_room_cache cache = {.keep_max = 1024};
    const es_prepared_room *a = es_room_cache_get(&cache, room, 48000, err, sizeof err);
    const int passing = a && cache.passing == a && cache.count == 0;
    es_room_cache_release(&cache, a);
    check(passing && !cache.passing, "cache: a room over its size is not kept, and freed on "
                                     "release");
    cache.keep_max = 0; /* the default, 16 MB: this room is kept */
    const es_prepared_room *b = es_room_cache_get(&cache, room, 48000, err, sizeof err);
    es_room_cache_release(&cache, b);
    check(b && cache.count == 1 && cache.items[0] == b && !cache.passing,
          "cache: one under its size is kept, a release leaves it");
    es_room_cache_free(&cache);
}

int main(void)
{
    weighting();
    noise_floor();
    file_level();
    char path[] = "/tmp/earshot-prepare-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char wav[64];
    snprintf(wav, sizeof wav, "%s.wav", path);
    write_ir(wav, 2, 48000, 4800, 48000);
    const es_room room = {.name = "test", .path = wav, .description = "", .source = "",
                          .licence = ""};
    trimmed_faithful_levelled(&room);
    predelay_and_gain(&room);
    layout_needs_channels(&room);
    resampled(&room);
    cache_lets_large_go(&room);
    cache_keeps_rooms(&room);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
