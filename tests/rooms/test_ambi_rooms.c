/* Ambisonic rooms against the renderings beside them:
 *
 *   test_ambi_rooms renderers   one shoebox room made twice through
 *       Debian's KEMAR: at order 5 in spherical harmonics (rooms new
 *       --ambisonic), decoded by MagLS and turned by a field room engine,
 *       and as the binaural synthesis's filter sets (rooms new
 *       --binaural). Their direct sound's ITD and ILD at yaw 0 and 90 and
 *       their tails' interaural coherence per octave, in a table
 *       (docs/BINAURAL.md); turning the head 90 degrees left moves both
 *       the same way (the right ear leads and is louder), the direct
 *       sound within 60 us and 2 dB of each other, the tails' coherence
 *       within 0.25 in every octave.
 *   test_ambi_rooms speakers    AllRAD on 7.1.4, 5.0 and a file's
 *       14-loudspeaker sphere at order 3: a plane wave from each
 *       loudspeaker's place loudest at it; the energy of a wave going
 *       round the horizon within 4.5 dB (5.0's gap behind is 140 degrees); the LFE silent; and turned: a
 *       head at yaw 90 hears a source ahead from the loudspeaker on the
 *       right; an array in front of the listener alone is refused.
 * The KEMAR set missing: skipped (77). */
#define _DEFAULT_SOURCE /* M_PI, mkstemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ambi_decoder.h"
#include "binaural_figures.h"
#include "field_layout.h"
#include "reference.h"
#include "synth.h"
#include "synth_binaural.h"

#define KEMAR "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"
#define ORDER 5

static es_room_spec room_spec(void)
{
    es_room_spec s;
    es_room_spec_defaults(&s);
    const double size[3] = {8, 6, 3}, source[3] = {5.5, 3, 1.5}, listener[3] = {2.5, 3, 1.5};
    memcpy(s.size, size, sizeof size);
    memcpy(s.source, source, sizeof source);
    memcpy(s.listener, listener, sizeof listener);
    for (int w = 0; w < ES_WALLS; w++)
        for (int b = 0; b < ES_OCTAVE_BANDS; b++)
            s.absorption[w][b] = 0.2;
    s.seconds = 0.6;
    return s;
}

/* The field room heard at yaw: a Dirac through a field engine. out[2]
 * get `frames` each. */
static int decode_at(const es_ir *room, const es_ir *dec, float yaw, float **out, int frames)
{
    const es_format fmt = {.sample_rate = RATE, .max_block = 1024, .inputs = 1, .outputs = 2};
    const es_options opt = {.offline = 1};
    char err[400];
    es_engine *e = es_engine_create_field(es_engine_find("cpu-partitioned"), &fmt, room, &opt,
                                          dec, ORDER, err, sizeof err);
    if (!e) {
        printf("FAIL %s\n", err);
        return -1;
    }
    es_engine_orient(e, yaw, 0, 0);
    float *in = calloc(1024, sizeof(float)), *o[2];
    in[0] = 1;
    for (int at = 0; at < frames; at += 1024) {
        const float *src[1] = {in};
        o[0] = out[0] + at, o[1] = out[1] + at;
        es_engine_process(e, src, o, frames - at < 1024 ? frames - at : 1024);
        in[0] = 0;
    }
    free(in);
    es_engine_destroy(e);
    return 0;
}

/* The onset: where the louder ear first reaches a tenth of its peak. */
static int onset(const float *l, const float *r, int frames)
{
    float peak = 0;
    for (int t = 0; t < frames; t++)
        peak = fmaxf(peak, fmaxf(fabsf(l[t]), fabsf(r[t])));
    for (int t = 0; t < frames; t++)
        if (fabsf(l[t]) >= 0.1f * peak || fabsf(r[t]) >= 0.1f * peak)
            return t;
    return 0;
}

/* The interaural coherence (real, zero lag) per octave of the span
 * [from, to), by DFT bins. */
static void coherence(const float *l, const float *r, int from, int to, double *ic)
{
    static const double centres[6] = {125, 250, 500, 1000, 2000, 4000};
    const int n = to - from, bins = n / 2;
    for (int b = 0; b < 6; b++) {
        double ll = 0, rr = 0, lr = 0;
        for (int k = 1; k < bins; k++) {
            const double f = k * RATE / n;
            if (f < centres[b] / sqrt(2) || f >= centres[b] * sqrt(2))
                continue;
            double lre = 0, lim = 0, rre = 0, rim = 0;
            for (int t = 0; t < n; t++) {
                const double c = cos(2 * M_PI * k * t / n), s = -sin(2 * M_PI * k * t / n);
                lre += l[from + t] * c, lim += l[from + t] * s;
                rre += r[from + t] * c, rim += r[from + t] * s;
            }
            ll += lre * lre + lim * lim, rr += rre * rre + rim * rim;
            lr += lre * rre + lim * rim;
        }
        ic[b] = lr / sqrt(ll * rr);
    }
}

typedef struct {
    double itd, ild, ic[6];
} figures;

static figures measure(const float *l, const float *r, int frames)
{
    figures f;
    const int at = onset(l, r, frames), from = at - 48 > 0 ? at - 48 : 0;
    es_itd_ild(l + from, r + from, 168, &f.itd, &f.ild); /* 1 ms before, 2.5 ms after */
    const int tail = at + (int)(0.08 * RATE), end = at + (int)(0.5 * RATE);
    coherence(l, r, tail, end < frames ? end : frames, f.ic);
    return f;
}

static void row(const char *what, int yaw, const figures *f)
{
    printf("| %s | %d | %.0f | %.1f |", what, yaw, f->itd * 1e6, f->ild);
    for (int b = 0; b < 6; b++)
        printf(" %.2f", f->ic[b]);
    printf(" |\n");
}

static int renderers(const es_sofa *kemar)
{
    const es_room_spec spec = room_spec();
    char err[512], note[256];
    es_sofa *brir = es_room_synthesise_binaural(&spec, kemar, 4, err, sizeof err);
    float **sh;
    int frames;
    if (!brir || es_room_synthesise_ambisonic(&spec, ORDER, &sh, &frames, err, sizeof err)) {
        printf("FAIL %s\n", err);
        return 1;
    }
    es_ir *room = es_ir_create(1, ES_AMBI_CHANNELS(ORDER), frames, RATE);
    for (int k = 0; k < ES_AMBI_CHANNELS(ORDER); k++)
        memcpy(es_ir_path(room, 0, k), sh[k], sizeof(float) * (size_t)frames);
    es_ir *dec = es_ambi_binaural_decoder(kemar, ORDER, ES_DECODER_MAGLS, note, sizeof note, err,
                                          sizeof err);
    const int heard = frames + dec->length;
    float *out[2] = {calloc((size_t)heard, sizeof(float)), calloc((size_t)heard, sizeof(float))};
    printf("| renderer | yaw | direct ITD, us | direct ILD, dB | tail IC at 125, 250, 500, 1k, "
           "2k, 4k Hz |\n| --- | --- | --- | --- | --- |\n");
    figures f[2][2];
    for (int k = 0; k < 2; k++) {
        const int yaw = 90 * k;
        if (decode_at(room, dec, (float)yaw, out, heard) != 0)
            return 1;
        f[0][k] = measure(out[0], out[1], heard);
        f[1][k] = measure(brir->sets[k]->taps[0], brir->sets[k]->taps[1], brir->taps);
        row("order 5, MagLS", yaw, &f[0][k]);
        row("filter sets (--binaural)", yaw, &f[1][k]);
    }
    char what[300];
    snprintf(what, sizeof what, "yaw 90 moves both the same way: the right ear leads (ITD %.0f "
             "and %.0f us) and is louder (ILD %.1f and %.1f dB)", f[0][1].itd * 1e6,
             f[1][1].itd * 1e6, f[0][1].ild, f[1][1].ild);
    es_test_check(f[0][1].itd > 300e-6 && f[1][1].itd > 300e-6 && f[0][1].ild < -3 &&
                      f[1][1].ild < -3, what);
    double worst_ic = 0;
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 6; b++)
            worst_ic = fmax(worst_ic, fabs(f[0][k].ic[b] - f[1][k].ic[b]));
    for (int k = 0; k < 2; k++) {
        snprintf(what, sizeof what, "yaw %d: the direct sound within 60 us and 2 dB (%.0f us, "
                 "%.1f dB apart)", 90 * k, fabs(f[0][k].itd - f[1][k].itd) * 1e6,
                 fabs(f[0][k].ild - f[1][k].ild));
        es_test_check(fabs(f[0][k].itd - f[1][k].itd) < 60e-6 &&
                          fabs(f[0][k].ild - f[1][k].ild) < 2, what);
    }
    /* The two tails are noises of their own, shaped each its way (the
     * set's mean coherence; a diffuse SH field decoded): within 0.25. */
    snprintf(what, sizeof what, "the tails' coherence within 0.25 in every octave (%.2f apart "
             "at most)", worst_ic);
    es_test_check(worst_ic < 0.25, what);
    free(out[0]);
    free(out[1]);
    es_ir_destroy(room);
    es_ir_destroy(dec);
    for (int k = 0; k < ES_AMBI_CHANNELS(ORDER); k++)
        free(sh[k]);
    free(sh);
    es_sofa_free(brir);
    return 0;
}

/* ---- loudspeakers ---- */

#define SPEAKER_ORDER 3
#define K3 ES_AMBI_CHANNELS(SPEAKER_ORDER)

/* The feeds of a plane wave from (az, el). */
static void feeds(const es_ir *dec, double az, double el, double *g)
{
    double y[K3];
    es_sh_encode(SPEAKER_ORDER, ES_AMBI_SN3D, az, el, y);
    for (int s = 0; s < dec->outputs; s++) {
        g[s] = 0;
        for (int k = 0; k < K3; k++)
            g[s] += y[k] * (dec->taps[k * dec->outputs + s] ? dec->taps[k * dec->outputs + s][0]
                                                              : 0);
    }
}

static int loudest(const double *g, int count)
{
    int best = 0;
    for (int s = 1; s < count; s++)
        best = fabs(g[s]) > fabs(g[best]) ? s : best;
    return best;
}

/* One array: each loudspeaker's own wave loudest at it, the horizon's
 * energy within 3 dB, the LFE silent. */
static es_ir *array_checks(const char *what)
{
    es_sofa_pose places[ES_ARRAY_MAX];
    int lfe[ES_ARRAY_MAX];
    char err[400], line[300];
    const int count = es_array_read(what, places, lfe, err, sizeof err);
    es_ir *dec = count ? es_ambi_allrad_decoder(places, lfe, count, SPEAKER_ORDER, RATE, err,
                                                sizeof err)
                       : NULL;
    if (!dec) {
        printf("FAIL %s: %s\n", what, err);
        es_test_failures++;
        return NULL;
    }
    double g[ES_ARRAY_MAX];
    int own = 1, silent = 1;
    for (int s = 0; s < count; s++) {
        feeds(dec, places[s].azimuth, places[s].elevation, g);
        own &= lfe[s] || loudest(g, count) == s;
        for (int k = 0; k < K3 && lfe[s]; k++)
            silent &= !dec->taps[k * count + s] || dec->taps[k * count + s][0] == 0;
    }
    double low = INFINITY, high = 0;
    for (int az = 0; az < 360; az += 5) {
        feeds(dec, az, 0, g);
        double e = 0;
        for (int s = 0; s < count; s++)
            e += g[s] * g[s];
        low = fmin(low, e), high = fmax(high, e);
    }
    const char *base = strrchr(what, '/');
    snprintf(line, sizeof line, "%s, %d loudspeakers: each one's own wave loudest at it, the LFE "
             "silent, the horizon's energy within %.1f dB (at most 4.5)", base ? base + 1 : what,
             count, 10 * log10(high / low));
    es_test_check(own && silent && 10 * log10(high / low) < 4.5, line);
    return dec;
}

/* Layout words: what is one, and what is not. */
static void layout_words(void)
{
    static const char *const good[] = {"ambix1", "ambix7", "n3d3", "fuma1", "5xfuma1",
                                       "64xambix1"};
    static const char *const bad[] = {"", "ambix", "ambix0", "ambix8", "ambix12", "fuma2",
                                      "65xambix1", "0xambix1", "-1xambix1", "ambix3x",
                                      "ambix1\n", "AMBIX1", "1x4", "stereo", "ambix\0331",
                                      "99999999999xambix1"};
    int ok = 1;
    es_field_layout f;
    char word[32];
    for (size_t k = 0; k < sizeof good / sizeof *good; k++)
        ok &= es_field_layout_parse(good[k], &f) &&
              !strcmp(es_field_layout_word(&f, word, sizeof word), good[k]);
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ok &= !es_field_layout_parse(bad[k], &f);
    es_test_check(ok, "layout words: ambixN, n3dN, fuma1, IxambixN taken and written back; 16 "
                      "others (order 0 or 8, FuMa past 1, 0 or 65 inputs, trailing bytes, "
                      "upper case, a control character, a huge count) refused");
}

static void bad_arrays(const char *file)
{
    FILE *f;
    /* Files that are no array, each refused in one line naming the line:
     * not numbers, NaN, beyond any angle, a control character, a line
     * too long, nothing at all. */
    static const char *const bad[] = {"30 0\nnan 0\n", "30 0\n1e400 0\n", "30 0\n0 91\n",
                                      "30 0\n-30 \x1b[2J\n", "", "# only a comment\n"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad + 1; k++) {
        f = fopen(file, "w");
        if (!f)
            break;
        if (k < sizeof bad / sizeof *bad)
            fputs(bad[k], f);
        else
            for (int c = 0; c < 2000; c++) /* one line of 2,000 characters */
                fputc(c < 4 ? "30 0"[c] : ' ', f);
        fclose(f);
        es_sofa_pose p[ES_ARRAY_MAX];
        int l[ES_ARRAY_MAX];
        char why[600] = "", line[700];
        const int got = es_array_read(file, p, l, why, sizeof why);
        snprintf(line, sizeof line, "a bad array file (%zu) refused in one line: %.500s", k, why);
        es_test_check(got == 0 && why[0] && !strchr(why, '\n') && strstr(why, "--speakers"),
                      line);
    }
}

static int speakers(void)
{
    layout_words();
    char file[] = "/tmp/earshot-array-XXXXXX";
    const int fd = mkstemp(file);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        printf("FAIL cannot write %s\n", file);
        return 1;
    }
    /* An octahedron and a cube: 14 loudspeakers round the listener. */
    fprintf(f, "# a sphere of 14\n0 0 front\n90 0\n180 0\n-90 0\n0 90 top\n0 -90 bottom\n");
    for (int c = 0; c < 8; c++)
        fprintf(f, "%d %.4f\n", 45 + 90 * (c % 4), c < 4 ? 35.2644 : -35.2644);
    fclose(f);
    es_ir_destroy(array_checks("5.0"));
    es_ir_destroy(array_checks(file));
    bad_arrays(file);
    /* An array in front of the listener alone surrounds nothing: refused. */
    f = fopen(file, "w");
    if (f) {
        fprintf(f, "30 0\n-30 0\n0 40\n30 -20\n-30 -20\n");
        fclose(f);
    }
    es_sofa_pose places[ES_ARRAY_MAX];
    int lfe[ES_ARRAY_MAX];
    char why[300] = "";
    const int front = es_array_read(file, places, lfe, why, sizeof why);
    es_ir *none = front ? es_ambi_allrad_decoder(places, lfe, front, SPEAKER_ORDER, RATE, why,
                                                 sizeof why)
                        : NULL;
    char line[400];
    snprintf(line, sizeof line, "an array in front alone refused: %s", why);
    es_test_check(front == 5 && !none && strstr(why, "surround"), line);
    es_ir_destroy(none);
    es_ir *dec = array_checks("7.1.4");
    unlink(file);
    if (!dec)
        return 1;
    /* Turned: a source ahead heard by a head at yaw 90 comes from the
     * right (Rss, channel 8 of 7.1.4, at -90). */
    es_ir *room = es_ir_create(1, K3, 1, RATE);
    double y[K3];
    es_sh_encode(SPEAKER_ORDER, ES_AMBI_SN3D, 0, 0, y);
    for (int k = 0; k < K3; k++)
        es_ir_path(room, 0, k)[0] = (float)y[k];
    const es_format fmt = {.sample_rate = RATE, .max_block = 64, .inputs = 1, .outputs = 12};
    char err[300];
    es_engine *e = es_engine_create_field(es_engine_find("cpu-partitioned"), &fmt, room,
                                          &(es_options){.offline = 1}, dec, SPEAKER_ORDER, err,
                                          sizeof err);
    float in[64] = {1}, *out[12], buf[12][64];
    for (int s = 0; s < 12; s++)
        out[s] = buf[s];
    int heard = -1;
    if (e) {
        es_engine_orient(e, 90, 0, 0);
        const float *src[1] = {in};
        es_engine_process(e, src, out, 64);
        double g[12];
        for (int s = 0; s < 12; s++)
            g[s] = buf[s][es_engine_latency(e)];
        heard = loudest(g, 12);
    }
    char what[200];
    snprintf(what, sizeof what, "7.1.4 turned: a source ahead, the head at yaw 90, loudest at "
             "channel %d (want 8, Rss at -90)", heard + 1);
    es_test_check(heard == 7, what);
    es_engine_destroy(e);
    es_ir_destroy(room);
    es_ir_destroy(dec);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "renderers") && strcmp(argv[1], "speakers"))) {
        fprintf(stderr, "usage: test_ambi_rooms renderers|speakers\n");
        return 2;
    }
    if (!strcmp(argv[1], "speakers"))
        return speakers() || es_test_failures ? 1 : 0;
    if (access(KEMAR, R_OK) != 0) {
        printf("skip: no HRIR set at %s\n", KEMAR);
        return 77;
    }
    char err[400];
    es_sofa *kemar = es_sofa_load(KEMAR, RATE, err, sizeof err);
    if (!kemar) {
        printf("FAIL %s\n", err);
        return 1;
    }
    const int rc = renderers(kemar);
    es_sofa_free(kemar);
    return rc || es_test_failures ? 1 : 0;
}
