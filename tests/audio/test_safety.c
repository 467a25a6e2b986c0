/* The sound is always safe (audio/safety.h), block by block through the
 * processor:
 *   - an input with a NaN, an infinity and a burst of 1e30: no output
 *     sample that is not finite, every bad sample counted; the output is
 *     the render of the input with those samples silenced, bit for bit,
 *     and again the true convolution of the input one IR length after the
 *     burst;
 *   - the limiter with NaN in: NaN leaves as 0, and the gain is back at 1
 *     half a second later;
 *   - an engine whose output turns to NaN: silenced from then on, counted,
 *     and flagged for the control side to build it again;
 *   - the runaway detector trips on a feedback-like swell (+3 dB every
 *     50 ms) within 0.5 s of it reaching full scale, and on a tone held
 *     above full scale after 0.25 s: the output is muted with a ramp (no
 *     step) and stays silent until unmuted; it does not trip on a
 *     crescendo (8 dB/s to -3 dBFS), on drum hits just under full scale,
 *     or on one 50 ms overload;
 *   - a panic mutes at once and clears the dry path; unmute plays again;
 *   - the output's one-pass scan (finite, and the samples past full
 *     scale) agrees with the two checks it replaces on every length and
 *     every kind of sample;
 *   - with no latency the dry path is the input itself: an impulse room
 *     at wet 0.25, dry 0.75, then bypass ramping in and out, gives the
 *     input back within float rounding. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limiter.h"
#include "processor.h"
#include "reference.h"
#include "safety.h"
#include "stats.h"

#define RATE 48000.0
#define BLOCK 256
#define TAPS 4800 /* 0.1 s room */

static const es_format mono = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                               .outputs = 1};

/* A processor over cpu-partitioned: taps 0 an impulse (wet = input), else
 * a decaying noise room of TAPS. */
static es_processor *processor(int room, es_mix mix)
{
    const int taps = room ? TAPS : 1;
    es_ir *ir = es_ir_create(1, 1, taps, RATE);
    uint64_t rng = 3;
    float *h = es_ir_path(ir, 0, 0);
    for (int t = 0; t < taps; t++)
        h[t] = room ? (float)(0.02 * es_test_uniform(&rng) * exp(-5.0 * t / taps)) : 1.0f;
    char err[256];
    es_options opt = {0};
    es_engine *e = es_engine_create(es_engine_find("cpu-partitioned"), &mono, ir, &opt, err,
                                    sizeof err);
    es_ir_destroy(ir);
    es_processor_config cfg = {.mix = mix, .crossfade_ms = 10};
    es_processor *p = e ? es_processor_create(&mono, e, &cfg, err, sizeof err) : NULL;
    if (!p) {
        printf("FAIL processor: %s\n", err);
        exit(1);
    }
    return p;
}

/* Runs x[0..n) through p into y, block by block. */
static void run(es_processor *p, const float *x, float *y, long n)
{
    for (long at = 0; at < n; at += BLOCK) {
        const int frames = n - at < BLOCK ? (int)(n - at) : BLOCK;
        const float *in[1] = {x + at};
        float *out[1] = {y + at};
        es_processor_process(p, in, out, frames);
    }
}

static long count_bad(const float *y, long n)
{
    long bad = 0;
    for (long t = 0; t < n; t++)
        bad += !isfinite(y[t]);
    return bad;
}

static void bad_input(void)
{
    const long n = (long)RATE * 2;
    float *x = malloc(sizeof(float) * (size_t)n), *clean = malloc(sizeof(float) * (size_t)n);
    float *y = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n);
    float *plain = malloc(sizeof(float) * (size_t)n);
    uint64_t rng = 11;
    for (long t = 0; t < n; t++)
        x[t] = clean[t] = (float)(0.3 * es_test_uniform(&rng));
    memcpy(plain, x, sizeof(float) * (size_t)n);
    const long burst = 30000, burst_len = 500;
    x[10000] = NAN;
    x[20000] = INFINITY;
    for (long t = burst; t < burst + burst_len; t++)
        x[t] = 1e30f;
    clean[10000] = clean[20000] = 0;
    for (long t = burst; t < burst + burst_len; t++)
        clean[t] = 0;
    const es_mix mix = {.wet = 1, .gain = 1};
    es_processor *p = processor(1, mix), *q = processor(1, mix), *r = processor(1, mix);
    run(p, x, y, n);
    run(q, clean, want, n);
    float *truth = malloc(sizeof(float) * (size_t)n);
    run(r, plain, truth, n); /* the input without the faults, rendered */
    memcpy(plain, truth, sizeof(float) * (size_t)n);
    free(truth);
    es_stats st;
    es_processor_stats(p, &st);
    const long bad = count_bad(y, n);
    long differ = 0;
    for (long t = 0; t < n; t++)
        differ += y[t] != want[t];
    /* One IR length after the burst, the output is the true convolution
     * of the input as it was meant (the faults are gone from the room). */
    double err = 0, ref = 0;
    for (long t = burst + burst_len + TAPS; t < n; t++) {
        err += (double)(y[t] - plain[t]) * (y[t] - plain[t]);
        ref += (double)plain[t] * plain[t];
    }
    const double db = 10 * log10(err / ref + 1e-30);
    char line[300];
    snprintf(line, sizeof line, "NaN, infinity and a 1e30 burst in: %ld non-finite out, %llu "
             "input samples counted (want %ld), the sanitised render bit for bit (%ld differ), "
             "the true convolution one IR after the burst at %.1f dB", bad,
             (unsigned long long)st.bad_input, 2 + burst_len, differ, db);
    es_test_check(bad == 0 && st.bad_input == (uint64_t)(2 + burst_len) && differ == 0 &&
                      db < -120 && st.bad_output == 0,
                  line);
    es_processor_destroy(p);
    es_processor_destroy(q);
    es_processor_destroy(r);
    free(x), free(clean), free(y), free(want), free(plain);
}

/* The limiter itself (no NaN reaches it through the processor, whose
 * input and engines are checked before it): NaN in, among a tone. */
static void limiter_nan(void)
{
    es_limiter l;
    es_limiter_init(&l, RATE);
    l.ceiling = (float)es_db_to_gain(-1.0);
    const long n = (long)RATE;
    float *y = malloc(sizeof(float) * (size_t)n);
    for (long t = 0; t < n; t++)
        y[t] = (float)(0.25 * sin(2 * 3.14159265358979 * 440.0 * t / RATE));
    y[1000] = NAN;
    y[1001] = -INFINITY;
    for (long at = 0; at < n; at += BLOCK) {
        float *out[1] = {y + at};
        es_limiter_run(&l, 1, out, 1, n - at < BLOCK ? (int)(n - at) : BLOCK);
    }
    double top = 0;
    for (long t = n / 2; t < n; t++)
        top = fabs(y[t]) > top ? fabs(y[t]) : top;
    char line[240];
    snprintf(line, sizeof line, "the limiter with NaN and -inf in: %ld non-finite out (they "
             "leave as 0: %g, %g); half a second later the tone is back at its level (peak "
             "%.3f of 0.250)", count_bad(y, n), y[1000], y[1001], top);
    es_test_check(count_bad(y, n) == 0 && y[1000] == 0 && y[1001] == 0 &&
                      fabs(top - 0.25) < 0.002, line);
    free(y);
}

/* ---- an engine that breaks: NaN from its 20th block on ---- */

typedef struct {
    es_engine base;
    int calls;
} breaking;

static void breaking_process(es_engine *e, const float *const *in, float *const *out,
                             int frames)
{
    breaking *b = (breaking *)e;
    for (int t = 0; t < frames; t++)
        out[0][t] = b->calls >= 20 ? NAN : in[0][t];
    b->calls++;
}

static int zero_latency(const es_engine *e)
{
    (void)e;
    return 0;
}

static void breaking_destroy(es_engine *e)
{
    (void)e;
}

static const es_engine_class breaking_class = {
    .name = "test-breaking", .process = breaking_process, .latency = zero_latency,
    .destroy = breaking_destroy,
};

/* Live, and as a render (offline: the engine writes the outputs itself,
 * and its check rides on the outputs' last scan). */
static void broken_engine(int offline)
{
    breaking b = {.base = {&breaking_class}};
    char err[256];
    es_processor_config cfg = {.mix = {.wet = 1, .gain = 1}, .crossfade_ms = 10,
                               .offline = offline};
    es_processor *p = es_processor_create(&mono, &b.base, &cfg, err, sizeof err);
    const long n = BLOCK * 40;
    float *x = calloc((size_t)n, sizeof(float)), *y = calloc((size_t)n, sizeof(float));
    for (long t = 0; t < n; t++)
        x[t] = 0.5f;
    run(p, x, y, n);
    es_stats st;
    es_processor_stats(p, &st);
    long silent_after = 0;
    for (long t = BLOCK * 20; t < n; t++)
        silent_after += y[t] == 0.0f;
    char line[240];
    snprintf(line, sizeof line, "an engine that turns to NaN%s: %ld non-finite out, silent from "
             "then on (%ld of %ld), %llu blocks counted, flagged broken (%d)",
             offline ? " in a render" : "", count_bad(y, n), silent_after, n - BLOCK * 20,
             (unsigned long long)st.engine_bad, st.engine_broken);
    es_test_check(count_bad(y, n) == 0 && silent_after == n - BLOCK * 20 &&
                      st.engine_bad == 20 && st.engine_broken && y[BLOCK * 19] == 0.5f,
                  line);
    es_processor_destroy(p);
    free(x), free(y);
}

/* ---- the runaway detector ---- */

/* A tone whose level is `level(t)` (linear), through the wet-only impulse
 * path: the time (s) the detector tripped, or -1; the largest step the
 * output took after it tripped, and whether it stayed silent after the
 * ramp. */
typedef double (*level_fn)(double t);

static double out_peak; /* the last run's loudest output sample */

static double runaway_run(level_fn level, double seconds, double *step, int *silent)
{
    es_processor *p = processor(0, (es_mix){.wet = 1, .gain = 1});
    const long n = ((long)(RATE * seconds) + BLOCK - 1) / BLOCK * BLOCK; /* whole blocks */
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    for (long t = 0; t < n; t++)
        x[t] = (float)(level((double)t / RATE) * sin(2 * 3.14159265358979 * 220.0 * t / RATE));
    double tripped = -1;
    for (long at = 0; at < n; at += BLOCK) {
        const float *in[1] = {x + at};
        float *out[1] = {y + at};
        es_processor_process(p, in, out, BLOCK);
        es_stats st;
        es_processor_stats(p, &st);
        if (tripped < 0 && st.muted == 1)
            tripped = (double)at / RATE;
    }
    *step = 0;
    *silent = 1;
    out_peak = 0;
    for (long t = 0; t < n; t++)
        out_peak = fabs(y[t]) > out_peak ? fabs(y[t]) : out_peak;
    const long from = tripped < 0 ? n : (long)(tripped * RATE);
    for (long t = from + 1; t < n; t++) {
        const double d = fabs(y[t] - y[t - 1]);
        *step = d > *step ? d : *step;
        if (t > from + (long)(0.02 * RATE) + BLOCK && y[t] != 0.0f)
            *silent = 0;
    }
    es_processor_destroy(p);
    free(x), free(y);
    return tripped;
}

static double swell(double t) { return 0.1 * pow(10, 3.0 / 20 * (t / 0.05)); } /* +3 dB / 50 ms */
static double held(double t) { return t < 0.5 ? 0.5 : 1.4; }
static double blast(double t) { return t < 0.5 ? 0.5 : 4.0; }
static double crescendo(double t) { return pow(10, (-40 + 8 * t) / 20) > 0.7 ? 0.7 : pow(10, (-40 + 8 * t) / 20); }
static double drums(double t) { return fmod(t, 0.5) < 0.1 ? 0.95 : 0.0; }
static double one_overload(double t) { return t > 1 && t < 1.05 ? 1.5 : 0.3; }
/* The built-in test signal's sweep (-18 dBFS, 50 Hz to 10 kHz in 2 s from
 * 4 s) through a room whose response rises 12 dB an octave from -30 dB at
 * 50 Hz to a +12 dB resonance (a binaural room's thin low end, KEMAR's):
 * 2.3 dB every 50 ms for 0.9 s, to -9 dBFS RMS, then it holds. */
static double swept_room(double t)
{
    if (t < 4 || t >= 6)
        return 0.0;
    const double f = 50 * pow(200, (t - 4) / 2), gain_db = fmin(12, -30 + 12 * log2(f / 50));
    return 0.125 * pow(10, gain_db / 20);
}

static void runaway(void)
{
    double step;
    int silent;
    /* The swell reaches full scale (1.0) at t = 0.05 * 20 / 3 = 0.333 s. */
    const double full_at = 0.05 * 20.0 / 3.0;
    double at = runaway_run(swell, 2, &step, &silent);
    char line[240];
    snprintf(line, sizeof line, "a feedback-like swell (+3 dB every 50 ms): muted at %.2f s, "
             "%.2f s after full scale (at most 0.5), silent after the ramp, no step bigger "
             "than the signal's (%.3f)", at, at - full_at, step);
    es_test_check(at > 0 && at - full_at < 0.5 && silent, line);
    at = runaway_run(held, 2, &step, &silent);
    snprintf(line, sizeof line, "a tone held at +3 dBFS from 0.5 s: muted at %.2f s (0.25 s to "
             "0.5 s after), silent after", at);
    es_test_check(at >= 0.74 && at <= 1.0 && silent, line);
    at = runaway_run(blast, 2, &step, &silent);
    snprintf(line, sizeof line, "a tone at +12 dBFS from 0.5 s: muted at %.3f s, in its first "
             "block, nothing beyond +6 dBFS out (the loudest %.2f), silent after", at, out_peak);
    es_test_check(at >= 0.5 - (double)BLOCK / RATE && at < 0.5 + (double)BLOCK / RATE && out_peak <= 2.0 /* +6 dBFS */ &&
                      silent,
                  line);
    static const struct {
        const char *name;
        level_fn level;
    } innocent[] = {{"a crescendo of 8 dB/s to -3 dBFS", crescendo},
                    {"drum hits at -0.4 dBFS", drums},
                    {"one 50 ms overload", one_overload},
                    {"the test signal's sweep through a room's steep low end to a +12 dB "
                     "resonance",
                     swept_room}};
    for (size_t k = 0; k < sizeof innocent / sizeof *innocent; k++) {
        at = runaway_run(innocent[k].level, 7, &step, &silent);
        snprintf(line, sizeof line, "%s: not taken for a runaway", innocent[k].name);
        es_test_check(at < 0, line);
    }
}

static void panic(void)
{
    es_processor *p = processor(1, (es_mix){.wet = 1, .dry = 0.5f, .gain = 1});
    const long n = (long)RATE;
    float *x = malloc(sizeof(float) * (size_t)n), *y = malloc(sizeof(float) * (size_t)n);
    uint64_t rng = 5;
    for (long t = 0; t < n; t++)
        x[t] = (float)(0.3 * es_test_uniform(&rng));
    run(p, x, y, n / 2);
    es_processor_mute(p, 1);
    run(p, x + n / 2, y + n / 2, n / 4);
    es_stats st;
    es_processor_stats(p, &st);
    long sounding = 0;
    for (long t = n / 2 + (long)(0.011 * RATE) + BLOCK; t < n / 2 + n / 4; t++)
        sounding += y[t] != 0.0f;
    es_processor_unmute(p);
    run(p, x + 3 * n / 4, y + 3 * n / 4, n / 4);
    double late = 0;
    for (long t = n - BLOCK; t < n; t++)
        late += fabs(y[t]);
    char line[200];
    snprintf(line, sizeof line, "panic: muted within 10 ms (%ld samples sounded after), said "
             "as a panic (%d); unmute: it plays again", sounding, st.muted);
    es_test_check(sounding == 0 && st.muted == 2 && late > 0, line);
    es_processor_destroy(p);
    free(x), free(y);
}

/* es_scan_output and es_scan_within (at 1e9, and past it) against
 * es_all_within + es_count_clipped: lengths 0 to
 * 67 (the vector loop's tails), samples drawn from zeros, signal, exactly
 * +-1, past full scale, the largest float, infinities and NaN. */
static void output_scan(void)
{
    const float kinds[] = {0.0f, -0.0f, 0.5f, -0.99f, 1.0f, -1.0f, 1.0000001f, -3.0f,
                           FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, 1e-40f,
                           1e9f, -1e9f, 1.0000001e9f, -2e9f};
    const int nk = (int)(sizeof kinds / sizeof *kinds);
    uint64_t rng = 11;
    int disagree = 0, tried = 0, bad_seen = 0;
    float x[67];
    for (int len = 0; len <= 67; len++)
        for (int trial = 0; trial < 40; trial++) {
            const double odd = trial < 20 ? 0.02 : 0.3; /* rare, then common specials */
            for (int t = 0; t < len; t++) {
                const double u = 0.5 * (es_test_uniform(&rng) + 1.0);
                x[t] = u < odd ? kinds[(int)(0.5 * (es_test_uniform(&rng) + 1.0) * nk) % nk]
                               : (float)(0.9 * es_test_uniform(&rng));
            }
            uint32_t over;
            const int finite = es_scan_output(x, len, &over);
            const int want_finite = es_all_within(x, len, FLT_MAX);
            bad_seen += !want_finite;
            disagree += finite != want_finite || (want_finite && over != es_count_clipped(x, len));
            /* within an engine's limit (1e9), as es_slot_check asks */
            const int within = es_scan_within(x, len, 1e9f, &over);
            const int want_within = es_all_within(x, len, 1e9f);
            disagree += within != want_within || (want_within && over != es_count_clipped(x, len));
            tried++;
        }
    char line[160];
    snprintf(line, sizeof line, "output scan: %d of %d blocks disagree with the two checks "
             "(%d held a non-finite sample)", disagree, tried, bad_seen);
    es_test_check(disagree == 0 && bad_seen > 100, line);
}

/* Latency 0: the dry path reads the input itself. An impulse room (wet =
 * input) at wet 0.25 and dry 0.75 is the input; so is every step of a
 * bypass ramp between the two (both sides carry the input). */
static void dry_without_latency(void)
{
    const long n = (long)RATE / 2;
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    uint64_t rng = 5;
    for (long t = 0; t < n; t++)
        x[t] = (float)(0.5 * es_test_uniform(&rng));
    es_processor *p = processor(0, (es_mix){.wet = 0.25f, .dry = 0.75f, .gain = 1.0f});
    es_test_check(es_processor_latency(p) == 0, "cpu-partitioned: no latency");
    run(p, x, y, n / 2);
    es_mix by = {.wet = 0.25f, .dry = 0.75f, .gain = 1.0f, .bypass = 1};
    es_processor_set_mix(p, &by);
    run(p, x + n / 2, y + n / 2, n / 2);
    double worst = 0;
    for (long t = 0; t < n; t++)
        worst = fmax(worst, fabs((double)y[t] - x[t]));
    char line[160];
    snprintf(line, sizeof line, "wet 0.25 + dry 0.75 of an impulse room, then a bypass ramp: "
             "the input within %.2g", worst);
    es_test_check(worst < 1e-6, line);
    es_processor_destroy(p);
    free(x), free(y);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    output_scan();
    dry_without_latency();
    bad_input();
    limiter_nan();
    broken_engine(0);
    broken_engine(1);
    runaway();
    panic();
    printf("safety: %s\n", es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
