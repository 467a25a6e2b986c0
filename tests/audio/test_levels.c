/* The processor's gain staging and level meters, driven block by block:
 *   - meters: a burst, then a decay, then silence: the held peak never
 *     reads below the RMS (the old 20 dB/s fall did, against an RMS that
 *     falls about 14.5 dB/s), and falls about 20 dB in 1.7 s;
 *   - limiter: white noise and a full-scale sine 12 dB too loud, limiter
 *     at -1 dBFS: no output sample above the ceiling (exactly), the
 *     reductions counted, nothing clipped, the channels turned down
 *     together; off by default: the same passes above 0 dBFS and counts
 *     as clipped; after the burst, at a normal level, the limiter lets go:
 *     no sample counts as limited 1 s later, whether it stays on or was
 *     switched off (its gain once stalled just under 1 and counted every
 *     sample for good: LIM lit for minutes);
 *   - bypass: after the crossfade the output is the input delayed by the
 *     processor's latency, bit for bit, though the room and dry levels are
 *     on; the crossfade in and out moves no faster than the signals it
 *     joins (a switch would jump);
 *   - a level change ramps: no step when the output drops by 20 dB. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "processor.h"
#include "reference.h"

#define RATE 48000.0
#define BLOCK 64
#define LATENCY 128

static const es_format stream = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                                 .outputs = 2};

/* decay 0: a unit impulse to the left, half to the right (the wet signal
 * is the input); else a decaying noise room of that many taps. */
/* 1: the processor renders (no runaway detector): the limiter's checks
 * drive it to +12 dBFS on purpose, which live output never leaves
 * (audio/safety.h mutes beyond +6 dBFS). */
static int rendering;

static es_processor *processor(es_mix mix, int taps)
{
    es_ir *ir = es_ir_create(1, 2, taps ? taps : 1, RATE);
    uint64_t rng = 5;
    for (int o = 0; o < 2; o++) {
        float *h = es_ir_path(ir, 0, o);
        for (int t = 0; t < (taps ? taps : 1); t++)
            h[t] = taps ? (float)(0.3 * es_test_uniform(&rng) * exp(-4.0 * t / taps))
                        : (o ? 0.5f : 1.0f);
    }
    char err[256];
    es_options opt = {0};
    es_engine *e = es_engine_create(es_engine_find("cpu-direct"), &stream, ir, &opt, err,
                                    sizeof err);
    es_ir_destroy(ir);
    es_processor_config cfg = {.mix = mix, .crossfade_ms = 10, .max_latency = LATENCY,
                               .offline = rendering};
    es_processor *p = e ? es_processor_create(&stream, e, &cfg, err, sizeof err) : NULL;
    if (!p) {
        printf("FAIL processor: %s\n", err);
        es_test_failures++;
    }
    return p;
}

static void run(es_processor *p, const float *x, float *y0, float *y1)
{
    const float *in[1] = {x};
    float *out[2] = {y0, y1};
    es_processor_process(p, in, out, BLOCK);
}

static void meters(void)
{
    es_processor *p = processor((es_mix){.wet = 1, .gain = 1}, 0);
    if (!p)
        return;
    uint64_t rng = 7;
    float x[BLOCK], y0[BLOCK], y1[BLOCK];
    es_stats st;
    int below = 0, blocks = 0;
    float worst = 0, hold_top = 0, hold_later = 0;
    const int burst = (int)(0.5 * RATE / BLOCK), decay = (int)(1.0 * RATE / BLOCK);
    const int quiet = (int)(1.7 * RATE / BLOCK);
    for (int b = 0; b < burst + decay + quiet; b++, blocks++) {
        for (int t = 0; t < BLOCK; t++) {
            const double at = (double)(b - burst) * BLOCK + t;
            const double level = b < burst ? 0.5 : b < burst + decay ? 0.5 * exp(-at / 2400.0)
                                                                     : 0;
            x[t] = (float)(level * es_test_uniform(&rng));
        }
        run(p, x, y0, y1);
        es_processor_stats(p, &st);
        for (int c = 0; c < 2; c++) {
            const float in_gap = st.in_rms[0] - st.in_hold[0];
            const float out_gap = st.out_rms[c] - st.out_hold[c];
            below += in_gap > 0 || out_gap > 0;
            worst = in_gap > worst ? in_gap : out_gap > worst ? out_gap : worst;
        }
        if (b == burst - 1)
            hold_top = st.in_hold[0];
    }
    hold_later = st.in_hold[0];
    char line[200];
    snprintf(line, sizeof line, "the held peak never reads below the RMS, through a burst, a "
             "decay and silence (%d of %d blocks below)", below, blocks);
    es_test_check(below == 0, line);
    /* After the decay: silence for 1.7 s, the decay's 1 s at the hold's
     * 11.8 dB/s too, from the burst's top: about 31.8 dB down, unless the
     * RMS held it up. */
    const double fell = 20 * log10(hold_top / hold_later);
    snprintf(line, sizeof line, "the held peak fell %.1f dB in 2.7 s (a PPM's 20 dB in 1.7 s "
             "gives 31.8)", fell);
    es_test_check(fabs(fell - 31.8) < 1.5, line);
    es_processor_destroy(p);
}

/* Plays `blocks` of signal (kind 0 noise, 1 sine) at amplitude `amp`
 * through mix m; returns the largest |output|, and the stats. */
static float loud(es_mix m, int kind, es_stats *st, int *linked, unsigned long long *over)
{
    es_processor *p = processor(m, 0);
    if (!p)
        return 0;
    uint64_t rng = 9;
    float x[BLOCK], y0[BLOCK], y1[BLOCK], top = 0;
    long n = 0;
    *linked = 1;
    *over = 0;
    for (int b = 0; b < (int)(RATE / BLOCK); b++) {
        for (int t = 0; t < BLOCK; t++, n++)
            x[t] = kind ? (float)sin(2 * 3.14159265358979 * 997.0 * n / RATE)
                        : (float)es_test_uniform(&rng);
        run(p, x, y0, y1);
        for (int t = 0; t < BLOCK; t++) {
            top = fabsf(y0[t]) > top ? fabsf(y0[t]) : top;
            top = fabsf(y1[t]) > top ? fabsf(y1[t]) : top;
            *over += (fabsf(y0[t]) > 1.0f) + (fabsf(y1[t]) > 1.0f);
            /* The right is half the left, before and after limiting. */
            if (fabsf(y0[t]) > 1e-3f && fabsf(y1[t] / y0[t] - 0.5f) > 1e-4f)
                *linked = 0;
        }
    }
    es_processor_stats(p, st);
    es_processor_destroy(p);
    return top;
}

static void limiter(void)
{
    rendering = 1;
    const float ceiling = (float)es_db_to_gain(-1.0);
    const float plus12 = (float)es_db_to_gain(12.0);
    static const char *const kinds[2] = {"white noise", "a full-scale sine"};
    for (int kind = 0; kind < 2; kind++) {
        es_stats st;
        int linked;
        unsigned long long over;
        es_mix m = {.wet = 1, .gain = plus12, .limiter = 1, .ceiling_db = -1};
        float top = loud(m, kind, &st, &linked, &over);
        char line[240];
        snprintf(line, sizeof line, "%s +12 dB, limiter at -1 dBFS: top %.6f <= ceiling %.6f, "
                 "%llu samples turned down, %llu clipped, channels linked", kinds[kind],
                 (double)top, (double)ceiling, (unsigned long long)st.limited,
                 (unsigned long long)st.clipped);
        es_test_check(top <= ceiling && st.limited > 0 && st.clipped == 0 && linked, line);
        m.limiter = 0;
        top = loud(m, kind, &st, &linked, &over);
        snprintf(line, sizeof line, "%s +12 dB, limiter off: top %.2f dBFS passes, %llu "
                 "clipped (the output has %llu samples beyond full scale), none limited",
                 kinds[kind], 20 * log10(top), (unsigned long long)st.clipped, over);
        es_test_check(top > 1 && st.clipped == over && st.limited == 0, line);
    }
    rendering = 0;
}

/* A burst 12 dB too loud through the limiter, then a quiet sine for 2 s,
 * the limiter left on (off 0) or switched off at the burst's end: the
 * samples counted as limited in the second half of the quiet part. */
static uint64_t limited_after(int off)
{
    es_mix m = {.wet = 1, .gain = (float)es_db_to_gain(12.0), .limiter = 1, .ceiling_db = -1};
    es_processor *p = processor(m, 0);
    if (!p)
        return UINT64_MAX;
    float x[BLOCK], y0[BLOCK], y1[BLOCK];
    long n = 0;
    es_stats st;
    uint64_t at_1s = 0;
    const int burst = (int)(0.5 * RATE / BLOCK), quiet = (int)(2.0 * RATE / BLOCK);
    for (int b = 0; b < burst + quiet; b++) {
        if (b == burst) { /* back to unity, -20 dBFS: nothing for a limiter to do */
            m.gain = 1;
            m.limiter = !off;
            es_processor_set_mix(p, &m);
        }
        const double amp = b < burst ? 1.0 : 0.1;
        for (int t = 0; t < BLOCK; t++, n++)
            x[t] = (float)(amp * sin(2 * 3.14159265358979 * 997.0 * n / RATE));
        run(p, x, y0, y1);
        es_processor_stats(p, &st);
        if (b == burst + quiet / 2)
            at_1s = st.limited;
    }
    es_processor_destroy(p);
    return st.limited - at_1s;
}

static void limiter_lets_go(void)
{
    for (int off = 0; off < 2; off++) {
        const uint64_t late = limited_after(off);
        char line[200];
        snprintf(line, sizeof line, "after a burst the limiter lets go (%s): %llu samples "
                 "limited from 1 s to 2 s after it", off ? "switched off" : "left on",
                 (unsigned long long)late);
        es_test_check(late == 0, line);
    }
}

/* The largest sample-to-sample move of y over [from, to). */
static float steepest(const float *y, long from, long to)
{
    float s = 0;
    for (long t = from + 1; t < to; t++)
        s = fabsf(y[t] - y[t - 1]) > s ? fabsf(y[t] - y[t - 1]) : s;
    return s;
}

static void bypass(void)
{
    es_mix m = {.wet = 1, .dry = 0.5f, .gain = 1};
    es_processor *p = processor(m, 256);
    if (!p)
        return;
    enum { BLOCKS = 120, TOTAL = BLOCKS * BLOCK };
    static float x[TOTAL], y[TOTAL], r[TOTAL];
    float y1[BLOCK];
    for (long t = 0; t < TOTAL; t++)
        x[t] = (float)(0.5 * sin(2 * 3.14159265358979 * 440.0 * t / RATE));
    const int on_at = 30, off_at = 80; /* blocks; the crossfade is 480 frames */
    for (int b = 0; b < BLOCKS; b++) {
        if (b == on_at || b == off_at) {
            m.bypass = b == on_at;
            es_processor_set_mix(p, &m);
        }
        run(p, x + (long)b * BLOCK, y + (long)b * BLOCK, y1);
    }
    const long on = (long)on_at * BLOCK, off = (long)off_at * BLOCK, fade = 480;
    int exact = 1;
    for (long t = on + fade; t < off; t++)
        exact &= y[t] == x[t - LATENCY];
    es_test_check(exact, "bypassed: the output is the input delayed by the latency, bit for bit");
    const float dry_step = steepest(x, 0, TOTAL), wet_step = steepest(y, LATENCY + 512, on);
    const float allowed = 1.05f * (dry_step > wet_step ? dry_step : wet_step);
    const float in_step = steepest(y, on - 1, on + fade + 1);
    const float out_step = steepest(y, off - 1, off + fade + 1);
    char line[240];
    snprintf(line, sizeof line, "the crossfades have no step: largest move %.4f in, %.4f out, "
             "the signals' own up to %.4f", (double)in_step, (double)out_step,
             (double)allowed / 1.05);
    es_test_check(in_step <= allowed && out_step <= allowed, line);
    /* A level change ramps: the output drops 20 dB with no jump. */
    for (long t = 0; t < TOTAL; t++) /* the sine goes on where it was */
        x[t] = (float)(0.5 * sin(2 * 3.14159265358979 * 440.0 * (t + TOTAL) / RATE));
    m.bypass = 0;
    m.gain = 0.1f;
    es_processor_set_mix(p, &m);
    for (int b = 0; b < 40; b++)
        run(p, x + (long)b * BLOCK, r + (long)b * BLOCK, y1);
    const float drop = steepest(r, 0, 40 * BLOCK);
    snprintf(line, sizeof line, "a 20 dB drop of the output ramps: largest move %.4f",
             (double)drop);
    es_test_check(drop <= allowed, line);
    es_processor_destroy(p);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    meters();
    limiter();
    limiter_lets_go();
    bypass();
    printf("levels: %s\n", es_test_failures ? "FAIL" : "ok");
    return es_test_failures ? 1 : 0;
}
