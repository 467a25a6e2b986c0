/* Filter sets: an engine over several sets of one shape, as a head-tracked
 * room holds one per orientation: cpu-partitioned (engines/partitioned_sets.c)
 * and cuda-partitioned (every set on the device; skipped, exit 77, without a
 * GPU).
 *
 *   test_sets [ENGINE]      (cpu-partitioned)
 *
 * On fresh random input and filters (the seed is printed), with switches
 * asked at random moments, the output is checked against the float64
 * direct convolution: every block plays the set asked for last before it
 * began, except that a block where the set changes is the fade, frame by
 * frame, from the old set's convolution of the whole input to the new
 * one's (the gains a raised cosine over the block, summing to one). So:
 *
 *   - the switch is within one block of the request, never later;
 *   - after it the new set sounds exactly as if it had always played
 *     (no priming, no hole): checked to -110 dB, and the last blocks
 *     against an engine of that set alone;
 *   - in whole-block calls, and in calls of random sizes where a switch
 *     asked in the middle of a block waits for the next;
 *   - switches on consecutive blocks, to the set playing (no switch),
 *     and to a set out of range (ignored);
 *   - status says the set playing and how many switches there were;
 *   - a set asked for before the first block (a head-tracked room that
 *     starts on the head's set) plays from it, with no fade and no
 *     switch counted;
 *   - a matrix with a path missing (2 x 2 with 1 -> 0 absent) as well as
 *     a mono source to two ears;
 *   - filters long enough for time-blocked MAC passes, whose sums ahead,
 *     made with the old set, a switch drops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

#define SETS 5
#define FRAMES 12000

static const es_engine_class *engine;

typedef struct {
    int at;  /* frame of the request: before the call that starts there */
    int set;
} request;

static es_ir *random_set(const char *layout, int length, uint64_t *rng)
{
    es_ir *ir = es_test_ir(layout, length, rng);
    /* The 2 x 2 matrix without its 1 -> 0 path. */
    if (ir && ir->inputs == 2 && ir->taps[1 * ir->outputs + 0]) {
        es_free(ir->taps[1 * ir->outputs + 0]);
        ir->taps[1 * ir->outputs + 0] = NULL;
    }
    return ir;
}

/* The set block b plays: the last request at or before its first frame. */
static int set_of_block(const request *r, int count, int b, int part)
{
    int set = 0;
    for (int k = 0; k < count; k++)
        if (r[k].at <= b * part && r[k].set >= 0 && r[k].set < SETS)
            set = r[k].set;
    return set;
}

/* length 0: random, 3 to 40 partitions. */
static void check(const char *layout, int part, int random_calls, int length, uint64_t *rng)
{
    char err[256], what[200];
    length = length > 0 ? length : es_test_int(rng, 3 * part, 40 * part);
    es_ir *sets[SETS];
    for (int s = 0; s < SETS; s++)
        sets[s] = random_set(layout, length - es_test_int(rng, 0, part), rng);
    const int ins = sets[0]->inputs, outs = sets[0]->outputs;
    es_format fmt = {.sample_rate = 48000, .max_block = part, .inputs = ins, .outputs = outs};
    /* offline: a GPU engine's result is waited for, never dropped late. */
    es_options opt = {.partition = part, .offline = 1};
    const es_engine_class *k = engine;
    es_engine *e = es_engine_create_sets(k, &fmt, (const es_ir *const *)sets, SETS, &opt, err,
                                         sizeof err);
    snprintf(what, sizeof what, "%s: %s, %d sets of %d taps, partition %d, %s calls", k->name,
             layout, SETS, length, part, random_calls ? "random" : "whole-block");
    if (!e) {
        printf("FAIL %s: %s\n", what, err);
        es_test_failures++;
        return;
    }
    /* Requests: random moments, some on consecutive blocks, one to the
     * set playing, one out of range. */
    request req[41];
    int nreq = 0;
    const int first = es_test_int(rng, 0, SETS - 1); /* 0: none before the first block */
    if (first)
        req[nreq++] = (request){0, first};
    for (int at = part; at < FRAMES - 6 * part && nreq < 37;) {
        req[nreq].at = random_calls ? at + es_test_int(rng, 0, part - 1) : at;
        req[nreq].set = es_test_int(rng, 0, SETS - 1);
        nreq++;
        at += part * (es_test_int(rng, 0, 3) == 0 ? 1 : es_test_int(rng, 2, 12));
    }
    req[nreq] = (request){req[nreq - 1].at + part, SETS + 3}; /* ignored */
    nreq++;
    float **in = es_test_planar(ins, FRAMES), **out = es_test_planar(outs, FRAMES);
    for (int i = 0; i < ins; i++)
        for (int t = 0; t < FRAMES; t++)
            in[i][t] = (float)es_test_uniform(rng);
    const float **ip = calloc((size_t)ins, sizeof *ip);
    float **op = calloc((size_t)outs, sizeof *op);
    int at = 0, next = 0;
    while (at < FRAMES) {
        while (next < nreq && req[next].at <= at)
            es_engine_select_set(e, req[next++].set);
        int n = random_calls ? es_test_int(rng, 1, part) : part;
        if (next < nreq && at + n > req[next].at)
            n = req[next].at - at; /* the request comes between two calls */
        n = at + n > FRAMES ? FRAMES - at : n;
        for (int i = 0; i < ins; i++)
            ip[i] = in[i] + at;
        for (int o = 0; o < outs; o++)
            op[o] = out[o] + at;
        es_engine_process(e, ip, op, n);
        at += n;
    }
    /* The expected output, block by block. */
    double **ref[SETS];
    for (int s = 0; s < SETS; s++)
        ref[s] = es_ref_convolve(sets[s], in, FRAMES, FRAMES);
    double **want = malloc((size_t)outs * sizeof *want);
    for (int o = 0; o < outs; o++)
        want[o] = calloc(FRAMES, sizeof(double));
    int switches = 0, last = 0;
    for (int b = 0; b * part < FRAMES; b++) {
        const int now = set_of_block(req, nreq, b, part);
        /* Block 0 plays what was asked before it, unfaded. */
        const int was = b > 0 ? set_of_block(req, nreq, b - 1, part) : now;
        switches += now != was;
        last = now;
        for (int t = 0; t < part && b * part + t < FRAMES; t++) {
            const double s = sin(1.5707963267948966 * (t + 0.5) / part);
            const double w = now != was ? s * s : 1.0;
            const int n = b * part + t;
            for (int o = 0; o < outs; o++)
                want[o][n] = (1 - w) * ref[was][o][n] + w * ref[now][o][n];
        }
    }
    const double db = es_test_error_db(sets[0], out, want, FRAMES);
    char line[400];
    snprintf(line, sizeof line, "%s: %d requests (set %d before the first block), %d switches, "
             "error %.1f dB against the float64 convolutions faded per block", what, nreq, first,
             switches, db);
    es_test_check(db < -110, line);
    es_engine_status st;
    es_engine_get_status(e, &st);
    snprintf(line, sizeof line, "%s: status says set %d after %llu switches (want %d after %d)",
             what, st.set, (unsigned long long)st.set_switches, last, switches);
    es_test_check(st.set == last && st.set_switches == (uint64_t)switches, line);
    /* Seamless: the tail end equals an engine of the last set alone. */
    es_engine *alone = es_engine_create(k, &fmt, sets[last], &opt, err, sizeof err);
    float **y = es_test_run(alone, sets[last], in, FRAMES, FRAMES,
                            (es_call_pattern){part, 0, rng});
    const int from = FRAMES - 4 * part;
    double peak = 0, diff = 0;
    for (int o = 0; o < outs; o++)
        for (int t = from; t < FRAMES; t++) {
            peak = fmax(peak, fabs(y[o][t]));
            diff = fmax(diff, fabs((double)y[o][t] - out[o][t]));
        }
    const double seam = diff > 0 ? 20 * log10(diff / peak) : -INFINITY;
    snprintf(line, sizeof line, "%s: the last 4 blocks, set %d, against an engine of that set "
             "alone: %.1f dB", what, last, seam);
    es_test_check(seam < -110, line);
    es_engine_destroy(alone);
    es_test_free_planar(y, outs);
    for (int s = 0; s < SETS; s++) {
        for (int o = 0; o < outs; o++)
            free(ref[s][o]);
        free(ref[s]);
        es_ir_destroy(sets[s]);
    }
    for (int o = 0; o < outs; o++)
        free(want[o]);
    free(want);
    free(ip);
    free(op);
    es_test_free_planar(in, ins);
    es_test_free_planar(out, outs);
    es_engine_destroy(e);
}

/* What es_engine_create_sets refuses, in one line each. */
static void refusals(uint64_t *rng)
{
    char err[256];
    es_ir *a = es_test_ir("mono-stereo", 500, rng), *b = es_test_ir("stereo", 500, rng);
    es_format fmt = {.sample_rate = 48000, .max_block = 64, .inputs = 1, .outputs = 2};
    const es_ir *mixed[2] = {a, b};
    es_engine *e = es_engine_create_sets(engine, &fmt, mixed, 2,
                                         NULL, err, sizeof err);
    char line[400];
    snprintf(line, sizeof line, "sets of two shapes refused: %s", e ? "(made)" : err);
    es_test_check(!e && strstr(err, "set 2 of 2"), line);
    es_engine_destroy(e);
    const es_ir *one[1] = {a};
    e = es_engine_create_sets(es_engine_find("cpu-direct"), &fmt, one, 1, NULL, err, sizeof err);
    snprintf(line, sizeof line, "an engine without sets refused: %s", e ? "(made)" : err);
    es_test_check(!e && strstr(err, "does not switch filter sets"), line);
    es_engine_destroy(e);
    es_ir_destroy(a);
    es_ir_destroy(b);
}

int main(int argc, char **argv)
{
    engine = es_engine_find(argc > 1 ? argv[1] : "cpu-partitioned");
    if (!engine) {
        fprintf(stderr, "usage: test_sets [ENGINE]\n");
        return 2;
    }
    char why[256];
    if (!engine->probe(why, sizeof why)) {
        printf("SKIP %s: %s\n", engine->name, why);
        return 77;
    }
    uint64_t rng = es_test_seed();
    check("mono-stereo", 64, 0, 0, &rng);
    check("mono-stereo", 64, 1, 0, &rng);
    check("true-stereo", 128, 0, 0, &rng);
    check("true-stereo", 32, 1, 0, &rng);
    /* Over 1 MB of spectra a set: time-blocked passes, whose sums ahead
     * a switch drops (the output is longer than the input's frames). */
    check("mono-stereo", 256, 0, 48000, &rng);
    refusals(&rng);
    return es_test_failures ? 1 : 0;
}
