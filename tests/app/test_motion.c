/* Motion-to-sound latency, measured by earshot and checked against its
 * own output. A SOFA set of the test's own (make_sofa.py flip) whose ITD
 * flips between its two orientations (yaw 0: the left ear's pulse 0.5 ms
 * before the right's; yaw 180: the other way round) plays fresh noise at
 * block 64 on the null device while a sender turns the head between them
 * 100 times a second for 60 s over OSC, noting when it sent each packet
 * (CLOCK_MONOTONIC, the clock earshot stamps with).
 *
 * In the recording (wet, and the dry input sample-aligned) each block is
 * one orientation exactly (its ears the input delayed by 3 and 27 samples,
 * or 27 and 3) or the crossfade of a switch; the block a switch is first
 * heard in left earshot first_block_ns (the report) + k periods after the
 * first. So each flip's motion-to-sound is measured outside earshot: that
 * time less the packet's send time (the grid is the device's clock; a
 * block really leaves a little after its grid time, by its wake-up and
 * computation less the first block's, so a flip sent up to 0.5 ms after
 * a switch block's grid time is still the one it answers; and what the
 * device's clock skipped after an overrun at the start, the report's
 * skipped_seconds, moves every later block that much). Judged:
 *   - earshot's figures (head.motion_to_sound_ms) for nearly every flip
 *     (5,700 of 6,000 switches or more), p99 within one block plus 1 ms;
 *   - the output's own: as many flips found, each into the set asked (but
 *     for 1 in 1,000 whose block woke over 0.5 ms late, which the grid
 *     then places before the flip it answers), and their p50 and p99
 *     within 0.5 ms of earshot's;
 *   - the filter exchange no larger than the motion-to-sound.
 * The release build judges the times; the sanitizers' slow the audio
 * thread, and there the times are printed, not judged.
 *
 *   test_motion EARSHOT MAKE_WAV MAKE_SOFA OSC_SENDER release|sanitized */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_test.h"

#define RATE 48000
#define BLOCK 64
/* The release build's minute; the sanitizers' build checks the same in
 * 20 s (its times are not judged). */
#define SECONDS 60
#define SECONDS_SANITIZED 20
static int seconds = SECONDS;
#define FLIPS_A_SECOND 100
/* How far the blocks' grid (first_block_ns + k periods) may be from when
 * a block really left: its own wake-up and computation against the first
 * block's (a switch block computes two sets). */
#define GRID_SLACK_NS 500000.0
#define EARLY 3 /* the leading ear's pulse, samples */
#define LATE 27 /* the other's */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, int n, double q)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(q * n) - 1;
    return n ? v[k < 0 ? 0 : k] : NAN;
}

/* A number after `key` in `json`, within the object named `within`
 * (NULL: anywhere): NAN when absent. */
static double json_number(const char *json, const char *within, const char *key)
{
    const char *at = within ? strstr(json, within) : json;
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\":", key);
    at = at ? strstr(at, quoted) : NULL;
    return at ? atof(at + strlen(quoted)) : NAN;
}

/* Which orientation block b of the recording is: 0 (yaw 0), 1 (yaw 180)
 * or -1 (the crossfade of a switch, or neither). */
static int orientation(float **wet, const float *dry, long b)
{
    double e[2] = {0, 0}, energy = 0;
    for (long t = b * BLOCK; t < (b + 1) * BLOCK; t++) {
        const double early = t >= EARLY ? dry[t - EARLY] : 0, late = t >= LATE ? dry[t - LATE] : 0;
        e[0] += (wet[0][t] - early) * (wet[0][t] - early) + (wet[1][t] - late) * (wet[1][t] - late);
        e[1] += (wet[0][t] - late) * (wet[0][t] - late) + (wet[1][t] - early) * (wet[1][t] - early);
        energy += (double)wet[0][t] * wet[0][t] + (double)wet[1][t] * wet[1][t];
    }
    return e[0] < 1e-8 * energy ? 0 : e[1] < 1e-8 * energy ? 1 : -1;
}

/* The blocks where a switch was first heard and the set switched to. */
static int switches(float **wet, const float *dry, long blocks, long *at, int *to, int most)
{
    int count = 0, was = orientation(wet, dry, 1);
    for (long b = 2; b < blocks && count < most; b++) {
        const int now = orientation(wet, dry, b);
        if (now == -1 && b + 1 < blocks) { /* a crossfade: where it goes */
            const int next = orientation(wet, dry, b + 1);
            if (next >= 0 && next != was) {
                at[count] = b, to[count++] = next;
                was = next;
                b++;
            }
        } else if (now >= 0 && now != was) { /* a switch with no fade heard */
            at[count] = b, to[count++] = now;
            was = now;
        }
    }
    return count;
}

/* earshot's own figures, from its report. */
typedef struct {
    double p50, p99, max, measured, exchange_p99, first_ns, misses;
    double skipped_ns; /* what the device's clock skipped after overruns */
} figures;

static figures read_report(void)
{
    static char json[1 << 17];
    app_read("report.json", json, sizeof json);
    const char *motion = "\"motion_to_sound_ms\"";
    return (figures){.p50 = json_number(json, motion, "p50"),
                     .p99 = json_number(json, motion, "p99"),
                     .max = json_number(json, motion, "max"),
                     .measured = json_number(json, motion, "switches"),
                     .exchange_p99 = json_number(json, "\"exchange_ms\"", "p99"),
                     .first_ns = json_number(json, NULL, "first_block_ns"),
                     .misses = json_number(json, NULL, "misses"),
                     .skipped_ns = 1e9 * json_number(json, NULL, "skipped_seconds")};
}

/* The sender's lines: each packet's send time and yaw; their count. */
static int read_sent(long long *sent, int *yaws, int most)
{
    char path[512];
    app_path(path, sizeof path, "sent.txt");
    FILE *f = fopen(path, "r");
    int count = 0;
    while (f && count < most && fscanf(f, "%lld %d", &sent[count], &yaws[count]) == 2)
        count++;
    if (f)
        fclose(f);
    return count;
}

/* The switches in the recording, each matched to the newest flip sent
 * before its block left earshot (on the grid, within its slack): their
 * motion-to-sound into ms[], their count; the ones into the other set
 * than the flip asked in *wrong. */
static int measure_output(float **wet, const float *dry, long frames, const figures *f,
                          double *ms, int *found, int *wrong)
{
    enum { MOST = SECONDS * FLIPS_A_SECOND };
    static long long sent[MOST];
    static int yaws[MOST], to[MOST + 100];
    static long at[MOST + 100];
    const int count = read_sent(sent, yaws, MOST);
    *found = switches(wet, dry, frames / BLOCK, at, to, MOST + 100);
    printf("    %d packets sent, %d switches in %ld blocks of the recording\n", count, *found,
           frames / BLOCK);
    const double period_ns = 1e9 * BLOCK / RATE;
    int matched = 0, k = 0;
    *wrong = 0;
    /* What the device's clock skipped after an overrun (a start that
     * overran its first period: the null device then starts late rather
     * than rushing) comes before the flips: every block after it left that
     * much later. */
    const double skipped = f->skipped_ns > 0 ? f->skipped_ns : 0;
    printf("    the device's clock skipped %.2f ms\n", skipped / 1e6);
    for (int s = 0; s < *found && count; s++) {
        const double left = f->first_ns + (double)at[s] * period_ns + skipped;
        while (k + 1 < count && sent[k + 1] < left + GRID_SLACK_NS)
            k++;
        if (sent[k] >= left + GRID_SLACK_NS)
            continue; /* no flip sent before it: the start */
        *wrong += (yaws[k] == 180) != to[s];
        ms[matched++] = (left - (double)sent[k]) / 1e6;
    }
    return count ? matched : -1;
}

static void check_output(const figures *f, int release)
{
    es_audio_info wi, di;
    float **wet = app_load("wet.wav", &wi), **dry = app_load("dry.wav", &di);
    static double ms[SECONDS * FLIPS_A_SECOND + 100];
    int found = 0, wrong = 0;
    const int matched = wet && dry && wi.channels == 2 && di.frames >= wi.frames
                            ? measure_output(wet, dry[0], (long)wi.frames, f, ms, &found, &wrong)
                            : -1;
    if (wet && dry)
        printf("    the recording: %ld frames of %d channels, the input %ld frames\n",
               (long)wi.frames, wi.channels, (long)di.frames);
    const int flips = seconds * FLIPS_A_SECOND;
    const double o50 = quantile(ms, matched, 0.5), o99 = quantile(ms, matched, 0.99);
    /* A clock that skipped more than the grid's slack (a stall of the
     * machine) moved the blocks after the skip by an amount the recording
     * does not say where: their times cannot be placed, and are said, not
     * judged. */
    const int placed = f->skipped_ns <= GRID_SLACK_NS;
    if (!placed)
        printf("    the device's clock skipped %.2f ms (the machine stalled): the blocks after "
               "that cannot be placed on the grid, so the output's times are not judged\n",
               f->skipped_ns / 1e6);
    char what[600];
    snprintf(what, sizeof what, "in the output: %d switches found, %d matched to the %d flips "
             "sent, %d placed before the flip they answer (at most 1 in 1,000: a block that "
             "woke over 0.5 ms late); motion-to-sound p50 %.2f ms, p99 %.2f ms, max %.2f "
             "ms against earshot's %.2f and %.2f (within 0.5 ms)%s", found, matched, flips,
             wrong, o50, o99, matched > 0 ? ms[matched - 1] : NAN, f->p50, f->p99,
             release ? "" : " (times not judged: sanitizers)");
    app_check(matched >= 0.95 * flips &&
                  (!placed || (wrong <= flips / 1000 &&
                               (!release || (fabs(o50 - f->p50) <= 0.5 &&
                                             fabs(o99 - f->p99) <= 0.5)))),
              what);
    if (wet)
        es_audiofile_free_channels(wet, wi.channels);
    if (dry)
        es_audiofile_free_channels(dry, di.channels);
}

int main(int argc, char **argv)
{
    app_test_start("motion", argc, argv);
    const char *make_sofa = argv[3], *sender = argv[4];
    const int release = argc > 5 && !strcmp(argv[5], "release");
    seconds = release ? SECONDS : SECONDS_SANITIZED;
    const int port = 20000 + getpid() % 20000;
    if (app_sh("/usr/bin/python3 '%s' flip.sofa SingleRoomSRIR 2 2 1 64 %d 0 0 flip && '%s' noise.wav "
               "noise %d 1 %d 7", make_sofa, RATE, app_make_wav, RATE, (seconds + 8) * RATE) != 0) {
        app_check(0, "the flipping set (python3-netcdf4) and the noise");
        return app_test_end();
    }
    const int rc = app_sh(
        "('%s' play --device null --headless --seconds %d --room ./flip.sofa --raw "
        "--engine cpu-partitioned --block %d --osc %d --input noise.wav --limiter off "
        "--record wet.wav --record-input dry.wav --json >report.json 2>said.txt & "
        "for k in $(seq 50); do grep -q 'SOFA' said.txt 2>/dev/null && break; sleep 0.1; done; "
        "sleep 0.5; /usr/bin/python3 '%s' flips 127.0.0.1 %d %d %d sent.txt; wait $!)",
        app_earshot, seconds + 3, BLOCK, port, sender, port, seconds, FLIPS_A_SECOND);
    const figures f = read_report();
    const int flips = seconds * FLIPS_A_SECOND;
    const double budget_ms = 1000.0 * BLOCK / RATE + 1;
    char what[600];
    snprintf(what, sizeof what, "earshot's motion-to-sound (exit %d): %.0f switches measured of "
             "%d flips, p50 %.2f ms, p99 %.2f ms (want at most %.2f), max %.2f ms; filter "
             "exchange p99 %.2f ms; %.0f engine misses%s", rc, f.measured, flips, f.p50, f.p99,
             budget_ms, f.max, f.exchange_p99, f.misses,
             release ? "" : " (times not judged: sanitizers)");
    app_check(rc == 0 && f.measured >= 0.95 * flips && (!release || f.p99 <= budget_ms) &&
                  f.exchange_p99 <= f.p99 + 0.05,
              what);
    check_output(&f, release);
    return app_test_end();
}
