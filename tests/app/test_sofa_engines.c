/* A SOFA room of head orientations on every CPU engine, through the
 * earshot binary on the null device (the GPU engines' split rooms are
 * engines/split-cuda-*, on a GPU): a room synthesised through Debian's
 * MIT KEMAR set (rooms new --binaural, 12 orientations), split at its
 * mixing time (play's and render's --split auto), the heads on
 * cpu-partitioned and the tail on the engine asked for.
 *   - each of cpu-direct, cpu-partitioned and cpu-nonuniform plays it at
 *     block 64 and turns with `head 30`: every 0.5 s window before the turn
 *     nulls against `render --head 0` of the recorded input, every window
 *     after the switch block against `render --head 30` of the whole
 *     input, within -120 dB; the start says where it split and which
 *     engine holds the heads;
 *   - the split: a Dirac rendered at yaw 0 (the tail's own orientation)
 *     is the whole set within -130 dB; at yaw 30 it is yaw 30's set to the
 *     split, within -130 dB, and yaw 0's after it (a synthesised room's
 *     tail is one for every orientation, so its own too: rooms/binaural
 *     splits a set whose tails differ);
 *   - --split none on cpu-nonuniform: whole sets, on cpu-partitioned as
 *     the start says, nulling against `render --split none`;
 *   - --interp linear on cpu-nonuniform: the head turned from 0 to 15
 *     degrees in steps of half a degree every 20 ms (between the sets
 *     measured at 0 and 30), then held: every window once it is held nulls
 *     against `render --head 15 --interp linear` within -120 dB (the blend
 *     made while the room played is the one render makes); the start says
 *     it blends, the last line the blend (sets 1 and 2, 0.50 each), the
 *     report a blend made for nearly every step and no switch missed;
 *   - --split values that are no split: one line naming --split, exit 2.
 *
 *   test_sofa_engines EARSHOT MAKE_WAV */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_test.h"

#define RATE 48000
#define WINDOW (RATE / 2)
/* On fresh noise (a tonal input leaves float's error in few bins: two
 * renders of a plucked note by partitions of 64 and 4096 differ by
 * -121 dB, of noise by -130). */
#define NULL_DB -120.0
#define KEMAR "/usr/share/libmysofa/MIT_KEMAR_normal_pinna.sofa"

static double residual_db(float **got, float **want, int channels, long from, long n)
{
    return app_residual_db(got, want, channels, from, n, -80);
}

/* wet.wav against `render --ir turn.sofa OPTIONS dry.wav`: the 0.5 s
 * windows' residuals into db[], their count (0 on failure). */
static int windows(const char *options, double *db, int most)
{
    char args[300];
    snprintf(args, sizeof args, "--ir turn.sofa %s", options);
    return app_render_windows(args, WINDOW, -80, db, most);
}

static void print_windows(const char *what, const double *db, int count)
{
    app_print_windows(what, 0.5, db, count);
}

/* Plays the room on `engine` (with `options`), the head turned to 30
 * degrees after 3 s; wet.wav, dry.wav, said.txt. */
static int play(const char *engine, const char *options)
{
    return app_sh("(sleep 3; echo 'head 30'; sleep 2.5; echo quit) | '%s' play --device null "
                  "--headless --commands --seconds 60 --room ./turn.sofa --raw --engine %s "
                  "--block 64 %s --input noise.wav --limiter off --record wet.wav "
                  "--record-input dry.wav >/dev/null 2>said.txt",
                  app_earshot, engine, options);
}

/* The windows before the turn against render at yaw 0 (`render0`), those
 * after the switch block against yaw 30 (`render30`): the worst of each
 * into worst[2]; 0 when the turn is where it should be. */
static int turn_nulls(const char *render0, const char *render30, double worst[2])
{
    double a[64], b[64];
    const int count = windows(render0, a, 64), count_b = windows(render30, b, 64);
    print_windows("against yaw 0", a, count);
    print_windows("against yaw 30", b, count_b);
    int at = 0;
    worst[0] = worst[1] = -300;
    while (at < count && a[at] <= NULL_DB)
        worst[0] = fmax(worst[0], a[at++]);
    /* The switch block is in window `at`, and in the next too where it
     * straddles their boundary. */
    const int from = at + 1 < count_b && b[at + 1] > NULL_DB ? at + 2 : at + 1;
    for (int k = from; k < count_b; k++)
        worst[1] = fmax(worst[1], b[k]);
    printf("    windows 0-%d at yaw 0, %d-%d at yaw 30\n", at - 1, from, count_b - 1);
    return count == count_b && at >= 2 && from + 2 <= count_b ? 0 : -1;
}

static void engine_turns(const char *engine)
{
    const int rc = play(engine, "");
    char said[2048] = "";
    app_line_with("said.txt", "SOFA", said, sizeof said);
    if (rc != 0)
        (void)app_sh("echo '    play said:'; sed 's/^/    | /' said.txt | head -20");
    printf("    said: %s", said);
    const int heads_elsewhere = strcmp(engine, "cpu-partitioned") != 0;
    const int says = strstr(said, "split at") &&
                     (!heads_elsewhere || strstr(said, "the heads on cpu-partitioned"));
    double worst[2];
    const int turned = turn_nulls("--head 0", "--head 30", worst);
    char what[400];
    snprintf(what, sizeof what, "%s turns the split room (exit %d)%s: before the turn yaw 0's "
             "render within %.1f dB, after it yaw 30's within %.1f dB (want %.0f)", engine, rc,
             says ? ", saying where it split and what holds the heads" : ", NOT SAYING the split",
             worst[0], worst[1], NULL_DB);
    app_check(rc == 0 && says && turned == 0 && worst[0] <= NULL_DB && worst[1] <= NULL_DB,
              what);
}

/* render of a Dirac (the filter itself) at `yaw` with `split` into
 * `out`. */
static float **filter_of(const char *yaw, const char *split, const char *out, es_audio_info *i)
{
    if (app_sh("'%s' render --ir turn.sofa --head %s --split %s --engine cpu-direct dirac.wav "
               "%s >/dev/null 2>&1", app_earshot, yaw, split, out) != 0)
        return NULL;
    return app_load(out, i);
}

/* The split itself, on the filters render makes. */
static void split_filters(void)
{
    char said[2048] = "";
    app_sh("'%s' render --ir turn.sofa --head 30 dirac.wav f.wav 2>said.txt >/dev/null",
           app_earshot);
    app_line_with("said.txt", "split at", said, sizeof said);
    const char *at_text = strstr(said, "split at ");
    const long at = at_text ? lround(atof(at_text + 9) * RATE / 1000) : 0;
    es_audio_info i0, w0, i30, w30;
    float **split0 = filter_of("0", "auto", "s0.wav", &i0);
    float **whole0 = filter_of("0", "none", "w0.wav", &w0);
    float **split30 = filter_of("30", "auto", "s30.wav", &i30);
    float **whole30 = filter_of("30", "none", "w30.wav", &w30);
    char what[400];
    if (!split0 || !whole0 || !split30 || !whole30 || at <= 0 || i0.frames != w0.frames ||
        i30.frames != w30.frames || at >= (long)i30.frames) {
        snprintf(what, sizeof what, "the split's filters rendered (split at %ld)", at);
        app_check(0, what);
    } else {
        const long n = (long)i0.frames;
        const double yaw0 = residual_db(split0, whole0, 2, 0, n);
        const double head30 = residual_db(split30, whole30, 2, 0, at);
        const double tail_vs_0 = residual_db(split30, whole0, 2, at + RATE / 100, n - at - RATE / 100);
        snprintf(what, sizeof what, "split at %ld samples: yaw 0 the whole set within %.1f dB; "
                 "yaw 30 its own set to the split within %.1f dB, yaw 0's after it (10 ms past "
                 "the fade) within %.1f dB", at, yaw0, head30, tail_vs_0);
        app_check(yaw0 <= -130 && head30 <= -130 && tail_vs_0 <= -130, what);
    }
    float **all[4] = {split0, whole0, split30, whole30};
    for (int k = 0; k < 4; k++)
        if (all[k])
            es_audiofile_free_channels(all[k], 2);
}

/* --split none: whole sets, which cpu-nonuniform cannot hold. */
static void whole_sets(void)
{
    const int rc = play("cpu-nonuniform", "--split none");
    char said[2048] = "";
    app_line_with("said.txt", "SOFA", said, sizeof said);
    printf("    said: %s", said);
    double worst[2];
    const int turned = turn_nulls("--head 0 --split none", "--head 30 --split none", worst);
    char what[400];
    snprintf(what, sizeof what, "--split none on cpu-nonuniform (exit %d): whole sets, said on "
             "cpu-partitioned: %s; the windows null against render --split none within %.1f "
             "and %.1f dB", rc, strstr(said, "the sets on cpu-partitioned") ? "yes" : "NO",
             worst[0], worst[1]);
    app_check(rc == 0 && !strstr(said, "split at") && strstr(said, "the sets on cpu-partitioned") &&
                  turned == 0 && worst[0] <= NULL_DB && worst[1] <= NULL_DB,
              what);
}

/* --interp linear: a slow turn between two measurements, then held. */
static void blended_turn(void)
{
    const int rc = app_sh(
        "(sleep 2.5; for y in $(seq 0.5 0.5 15); do echo \"head $y\"; sleep 0.02; done; "
        "sleep 3; echo quit) | '%s' play --device null --headless --commands "
        "--seconds 60 --room ./turn.sofa --raw --engine cpu-nonuniform --interp linear --block 64 "
        "--input noise.wav --limiter off --record wet.wav --record-input dry.wav --json "
        ">blend.json 2>said.txt",
        app_earshot);
    char said[2048] = "", last[2048] = "", json[65536] = "";
    app_line_with("said.txt", "SOFA", said, sizeof said);
    app_line_with("said.txt", "head: yaw 15.0", last, sizeof last);
    app_read("blend.json", json, sizeof json);
    printf("    said: %s    and: %s", said, last);
    const char *blends = strstr(json, "\"blends\":");
    const long made = blends ? atol(blends + 9) : -1;
    const char *m = strstr(json, "\"misses\":");
    const long misses = m ? atol(m + 9) : -1;
    double db[64];
    const int count = windows("--head 15 --interp linear", db, 64);
    print_windows("against render --head 15 --interp linear", db, count);
    /* Held from about 3.3 s of the commands (the stream starts after
     * them): the windows from 4 s on are yaw 15's blend. */
    double worst = -300;
    int held = 0;
    for (int k = 8; k < count; k++, held++)
        worst = fmax(worst, db[k]);
    char what[600];
    snprintf(what, sizeof what, "--interp linear (exit %d): %s; 30 half-degree steps made %ld "
             "blends; held at yaw 15, windows 8-%d within %.1f dB of render's blend; %ld "
             "engine misses", rc, strstr(said, "blended between measurements") ? "said blending"
             : "NOT SAID", made, count - 1, worst, misses);
    app_check(rc == 0 && strstr(said, "blended between measurements") &&
                  strstr(last, "blend of set 1 x 0.50 and set 2 x 0.50 of 12") && made >= 25 &&
                  held >= 2 && worst <= NULL_DB,
              what);
}

static void bad_splits(void)
{
    static const char *const bad[] = {"0", "-5", "abc", "''", "20000", "nan", "10ms"};
    const int count = (int)(sizeof bad / sizeof *bad);
    int good = 0;
    for (int k = 0; k < count; k++) {
        const int rc = app_sh("'%s' render --ir turn.sofa --split %s dirac.wav bad.wav "
                              ">/dev/null 2>bad.txt; test $? -eq 2 && test $(wc -l <bad.txt) -eq 1 && "
                              "grep -q -e '--split' bad.txt && test ! -e bad.wav",
                              app_earshot, bad[k]);
        good += rc == 0;
        if (rc != 0)
            (void)app_sh("echo '    --split %s said:'; cat bad.txt", bad[k]);
    }
    char what[200];
    snprintf(what, sizeof what, "render refuses %d of %d --split values that are no split, in "
             "one line naming --split", good, count);
    app_check(good == count, what);
}

int main(int argc, char **argv)
{
    app_test_start("sofa-engines", argc, argv);
    if (app_sh("test -r " KEMAR) != 0) {
        printf("SKIP: %s is missing (package libmysofa1)\n", KEMAR);
        return 77;
    }
    if (app_sh("'%s' rooms new turn --size 8x6x3 --absorption 0.3 --source 5,3,1.5 "
               "--listener 3,3,1.5 --seconds 0.6 --binaural " KEMAR " --orientations 12 --to . "
               ">/dev/null 2>&1 && '%s' noise.wav noise %d 1 %d 1 && "
               "'%s' dirac.wav dirac %d 1 %d 0 1",
               app_earshot, app_make_wav, RATE, 6 * RATE, app_make_wav, RATE, RATE) != 0) {
        app_check(0, "rooms new --binaural, and the inputs");
        return app_test_end();
    }
    static const char *const engines[] = {"cpu-direct", "cpu-partitioned", "cpu-nonuniform"};
    for (int k = 0; k < 3; k++)
        engine_turns(engines[k]);
    split_filters();
    whole_sets();
    blended_turn();
    bad_splits();
    return app_test_end();
}
