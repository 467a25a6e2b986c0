/* Room layouts as a person meets them, through the earshot binary, each
 * output against the float64 convolution of the test's own filters: for
 * 1 x 4, 4 x 1, 2 x 3, true stereo and a dense 64 x 64 matrix (4,096
 * paths of 16 taps: a matrix room, imported from a jconvolver
 * configuration of 4,096 lines), two rooms A and B of fresh random
 * filters, put into a library folder as a user would (`rooms add
 * --layout`, `rooms import-jconvolver`), then
 *   - `render --room A`: every output of A;
 *   - `play --headless --commands` on the null device with A, `room B`
 *     sent once 1.5 s of A are recorded (a workstation's swap), the input and the output
 *     recorded: the first second is A's, the last second B's, of the
 *     whole recorded input (whether the swap was said primed is printed;
 *     app/primed judges priming).
 * A library room is normalised for programme material by one room-wide
 * gain, so the reference is scaled by the one gain that fits best over
 * every output at once (a path routed to the wrong output cannot be
 * fitted away); the error is each output's residual in dB of its
 * reference, the worst output reported, -100 dB or better.
 *
 * The sanitizer build (five times slower, and more for 4,096 paths) plays
 * the 64 x 64 rooms at no real-time pace it can keep: it renders them.
 *
 *   test_layouts_app EARSHOT MAKE_WAV [release|sanitized] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"

#define RATE 48000
#define INPUT_S 6
#define PLAY_S 4.5
#define WORST_DB -100.0

typedef struct {
    const char *name, *layout;
    int ins, outs, taps;
} shape;

static const shape shapes[] = {
    {"one-four", "1x4", 1, 4, 2400},
    {"four-one", "4x1", 4, 1, 2400},
    {"two-three", "2x3", 2, 3, 2400},
    {"stereo-pair", "true-stereo", 2, 2, 2400},
    {"matrix", "64x64", 64, 64, 16},
};

static uint64_t rng = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ull << 52) - 1.0;
}

/* A room's filters: paths[i * outs + o] of `taps`, decaying noise. */
static float **filters(const shape *s)
{
    float **h = malloc(sizeof *h * (size_t)(s->ins * s->outs));
    for (int p = 0; p < s->ins * s->outs; p++) {
        h[p] = malloc(sizeof(float) * (size_t)s->taps);
        for (int k = 0; k < s->taps; k++)
            h[p][k] = (float)(uniform() * exp(-6.0 * k / s->taps));
    }
    return h;
}

static int write_wav(const char *name, float *const *ch, int channels, int frames)
{
    char path[512], err[512];
    app_path(path, sizeof path, name);
    const es_write_spec spec = {.sample_rate = RATE, .channels = channels,
                                .format = ES_SAMPLE_FLOAT, .mode = ES_WRITE_REPLACE};
    es_audiofile *f = es_audiofile_create(path, &spec, err, sizeof err);
    const int rc = f && es_audiofile_write(f, (const float *const *)ch, frames, err,
                                           sizeof err) == 0 &&
                           es_audiofile_commit(f, err, sizeof err) == 0
                       ? 0 : -1;
    es_audiofile_close(f);
    if (rc)
        printf("FAIL writing %s: %s\n", name, err);
    return rc;
}

/* Puts the filters into the folder lib as room `name`: 0, or -1 said. */
static int add_room(const shape *s, const char *name, float **h)
{
    char file[128];
    if (s->ins * s->outs <= 1024) {
        snprintf(file, sizeof file, "%s.wav", name);
        if (write_wav(file, h, s->ins * s->outs, s->taps) != 0)
            return -1;
        return app_sh("'%s' rooms add %s --name %s --layout %s --to lib >add.txt 2>&1",
                      app_earshot, file, name, s->layout) == 0 ? 0 : -1;
    }
    /* A matrix no WAV holds: a jconvolver configuration reading a WAV per
     * input, imported. */
    char conf[128], path[512];
    snprintf(conf, sizeof conf, "%s.conf", name);
    app_path(path, sizeof path, conf);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "/convolver/new %d %d 256 %d\n", s->ins, s->outs, s->taps);
    for (int i = 0; i < s->ins; i++) {
        snprintf(file, sizeof file, "%s-in%d.wav", name, i + 1);
        if (write_wav(file, h + (size_t)i * s->outs, s->outs, s->taps) != 0) {
            fclose(f);
            return -1;
        }
        for (int o = 0; o < s->outs; o++)
            fprintf(f, "/impulse/read %d %d 1 0 0 0 %d %s\n", i + 1, o + 1, o + 1, file);
    }
    fclose(f);
    return app_sh("'%s' rooms import-jconvolver %s --name %s --to lib >add.txt 2>&1",
                  app_earshot, conf, name) == 0 ? 0 : -1;
}

/* The float64 convolution of x (ins channels, n frames) through h. */
static double **convolve(const shape *s, float **h, float **x, long n)
{
    double **y = malloc(sizeof *y * (size_t)s->outs);
    for (int o = 0; o < s->outs; o++) {
        y[o] = calloc((size_t)n, sizeof(double));
        for (int i = 0; i < s->ins; i++) {
            const float *f = h[i * s->outs + o];
            for (long t = 0; t < n; t++) {
                const double v = x[i][t];
                for (int k = 0; k < s->taps && t + k < n; k++)
                    y[o][t + k] += v * f[k];
            }
        }
    }
    return y;
}

/* The worst output's residual over [from, to) in dB, after the one gain
 * that fits every output at once. */
static double worst_db(const shape *s, float **got, double **want, long from, long to)
{
    double gw = 0, ww = 0;
    for (int o = 0; o < s->outs; o++)
        for (long t = from; t < to; t++) {
            gw += got[o][t] * want[o][t];
            ww += want[o][t] * want[o][t];
        }
    const double g = ww > 0 ? gw / ww : 0;
    double worst = -300;
    for (int o = 0; o < s->outs; o++) {
        double d = 0, r = 0;
        for (long t = from; t < to; t++) {
            const double e = got[o][t] - g * want[o][t];
            d += e * e;
            r += g * want[o][t] * g * want[o][t];
        }
        const double db = r > 0 ? (d > 0 ? 10 * log10(d / r) : -300) : 0;
        worst = db > worst ? db : worst;
    }
    return worst;
}

static void free_planar(void *p, int channels)
{
    for (int c = 0; c < channels; c++)
        free(((void **)p)[c]);
    free(p);
}

static int sanitized;

/* One shape's two rooms, and the input played through them. */
typedef struct {
    const shape *s;
    char a[64], b[64]; /* the rooms' names */
    float **ha, **hb;  /* their filters */
    float **x;         /* the input: s->ins channels */
    long frames;
} trial;

/* Fresh filters and input, the rooms put into the library and the input
 * written: 0, or -1 said. */
static int trial_create(trial *t, const shape *s)
{
    *t = (trial){.s = s, .frames = (long)INPUT_S * RATE};
    snprintf(t->a, sizeof t->a, "%s-a", s->name);
    snprintf(t->b, sizeof t->b, "%s-b", s->name);
    t->ha = filters(s);
    t->hb = filters(s);
    t->x = malloc(sizeof *t->x * (size_t)s->ins);
    for (int i = 0; i < s->ins; i++) {
        t->x[i] = malloc(sizeof(float) * (size_t)t->frames);
        for (long f = 0; f < t->frames; f++)
            t->x[i][f] = (float)(0.25 * uniform());
    }
    if (add_room(s, t->a, t->ha) != 0 || add_room(s, t->b, t->hb) != 0 ||
        write_wav("in.wav", t->x, s->ins, (int)t->frames) != 0) {
        app_sh("sed 's/^/    /' add.txt");
        app_check(0, "the rooms put into the library");
        return -1;
    }
    return 0;
}

static void trial_free(trial *t)
{
    free_planar(t->ha, t->s->ins * t->s->outs);
    free_planar(t->hb, t->s->ins * t->s->outs);
    free_planar(t->x, t->s->ins);
}

/* render --room A */
static void render_plays_a(const trial *t)
{
    const shape *s = t->s;
    char what[400];
    es_audio_info info;
    float **got = NULL;
    if (app_sh("'%s' render --rooms lib --room %s in.wav r.wav >/dev/null 2>err.txt",
               app_earshot, t->a) == 0 &&
        (got = app_load("r.wav", &info)) && info.channels == s->outs) {
        double **want = convolve(s, t->ha, t->x, t->frames);
        const double db = worst_db(s, got, want, 0, t->frames);
        snprintf(what, sizeof what, "%s (%s): render --room: %d outputs, the worst %.1f dB "
                 "against float64", s->name, s->layout, info.channels, db);
        app_check(db <= WORST_DB, what);
        free_planar(want, s->outs);
    } else {
        snprintf(what, sizeof what, "%s (%s): render --room gave %d outputs (want %d)",
                 s->name, s->layout, got ? info.channels : -1, s->outs);
        app_check(0, what);
        app_sh("sed 's/^/    /' err.txt");
    }
    if (got)
        free_planar(got, info.channels);
}

/* play A, then `room B` once 1.5 s of A are recorded (not 1.5 s after the
 * start: on a loaded machine the stream took that long to start, and B
 * played from the first second), the input and output recorded (dry.wav,
 * wet.wav); the exit status. */
static int play_with_swap(const trial *t)
{
    const long a_bytes = (long)(1.5 * RATE) * t->s->outs * (long)sizeof(float) + 65536;
    return app_sh("rm -f wet.wav dry.wav; (for i in $(seq 400); do [ \"$(stat -c %%s wet.wav 2>/dev/null "
                  "|| echo 0)\" -gt %ld ] && break; sleep 0.05; done; echo 'room %s'; "
                  "sleep %g; echo quit) | '%s' play --device null --headless --commands "
                  "--seconds 20 --rooms lib --room %s --input in.wav --limiter off "
                  "--record wet.wav --record-input dry.wav >/dev/null 2>said.txt",
                  a_bytes, t->b, PLAY_S - 1.5, app_earshot, t->a);
}

/* The recorded input through each room: the first second A's, the last B's. */
static void first_a_last_b(const trial *t, float **wet, float **dry, long n)
{
    const shape *s = t->s;
    char what[400];
    double **wa = convolve(s, t->ha, dry, n), **wb = convolve(s, t->hb, dry, n);
    const double before = worst_db(s, wet, wa, 0, RATE);
    const double after = worst_db(s, wet, wb, n - RATE, n);
    const int primed = app_lines_with("said.txt", "(primed on") > 0;
    snprintf(what, sizeof what, "%s (%s): played, swapped to B (%s): the first second "
             "A's at %.1f dB, the last second B's at %.1f dB, the worst output against "
             "float64", s->name, s->layout, primed ? "said primed" : "not said primed", before,
             after);
    app_check(before <= WORST_DB && after <= WORST_DB, what);
    if (before > WORST_DB || after > WORST_DB)
        app_sh("sed 's/^/    said: /' said.txt");
    free_planar(wa, s->outs);
    free_planar(wb, s->outs);
}

static void swap_plays_a_then_b(const trial *t)
{
    const shape *s = t->s;
    char what[400];
    const int rc = play_with_swap(t);
    es_audio_info wi, di;
    float **wet = rc == 0 ? app_load("wet.wav", &wi) : NULL;
    float **dry = wet ? app_load("dry.wav", &di) : NULL;
    const long n = wet && dry ? (long)(wi.frames < di.frames ? wi.frames : di.frames) : 0;
    if (!dry || wi.channels != s->outs || di.channels != s->ins || n < 3 * RATE) {
        snprintf(what, sizeof what, "%s (%s): play with a swap: exit %d, %d outputs, %ld "
                 "frames", s->name, s->layout, rc, wet ? wi.channels : -1, n);
        app_check(0, what);
        app_sh("sed 's/^/    said: /' said.txt");
    } else {
        first_a_last_b(t, wet, dry, n);
    }
    if (wet)
        free_planar(wet, wi.channels);
    if (dry)
        free_planar(dry, di.channels);
}

static void one_shape(const shape *s)
{
    trial t;
    if (trial_create(&t, s) == 0) {
        render_plays_a(&t);
        if (sanitized && s->ins * s->outs > 1024)
            printf("skip %s (%s): played with a swap (the sanitizer build renders it only)\n",
                   s->name, s->layout);
        else
            swap_plays_a_then_b(&t);
    }
    trial_free(&t);
}

int main(int argc, char **argv)
{
    app_test_start("layouts", argc, argv);
    sanitized = argc > 3 && !strcmp(argv[3], "sanitized");
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        one_shape(&shapes[k]);
    return app_test_end();
}
