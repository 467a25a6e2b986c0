/* Filter-set requests through the processor (processor_sets.c), as a head
 * tracker makes them, and the filter-exchange latency it measures:
 *
 *   - a request stamped 5 ms ago is heard in the next block: set, one
 *     switch, one request, and a latency of 5 ms plus the block's own
 *     time (under 5 ms + 100 ms: a loaded machine's margin);
 *   - a request for the set that plays is taken, switches nothing and
 *     measures nothing;
 *   - a flood (1000 requests between two blocks) is one request taken and
 *     999 replaced, and the set is the last one asked for;
 *   - a request that must wait for the engine's partition (256 frames at
 *     blocks of 64) counts from its arrival to the block that carries it,
 *     and the blocks between play the old set;
 *   - p50 and p99 come from the histogram, never above the worst;
 *   - the output after the switch is the new set's, sample for sample,
 *     against an engine of that set alone (-120 dB);
 *   - an engine of one matrix takes a request and switches nothing;
 *   - in a crossfade from an engine of one matrix to one of sets (a SOFA
 *     room swapped in), a request reaches the engine coming in. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "processor.h"
#include "reference.h"

#define RATE 48000.0
#define BLOCK 64
#define SETS 4

static float x[BLOCK], y0[BLOCK], y1[BLOCK];

static void run(es_processor *p, int blocks, uint64_t *rng, float **record, int *at)
{
    const float *in[1] = {x};
    float *out[2] = {y0, y1};
    for (int b = 0; b < blocks; b++) {
        for (int k = 0; k < BLOCK; k++)
            x[k] = (float)es_test_uniform(rng) * 0.5f;
        if (record)
            memcpy(record[2] + *at, x, sizeof x);
        es_processor_process(p, in, out, BLOCK);
        if (record) {
            memcpy(record[0] + *at, y0, sizeof y0);
            memcpy(record[1] + *at, y1, sizeof y1);
            *at += BLOCK;
        }
    }
}

static es_processor *make(es_ir **sets, int partition)
{
    char err[256];
    const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 2};
    const es_options opt = {.partition = partition};
    es_engine *e = es_engine_create_sets(es_engine_find("cpu-partitioned"), &fmt,
                                         (const es_ir *const *)sets, SETS, &opt, err,
                                         sizeof err);
    es_processor_config pc = {.mix = {.wet = 1, .dry = 0, .gain = 1}};
    es_processor *p = e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
    if (!p)
        printf("FAIL making the stream: %s\n", err);
    return p;
}

static const es_format stream = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                                 .outputs = 2};

/* Quiet rooms: the output stays well under full scale, where the
 * processor's runaway guard would mute it. */
static void quiet_sets(es_ir **sets, uint64_t *rng)
{
    for (int s = 0; s < SETS; s++) {
        sets[s] = es_test_ir("mono-stereo", 1500, rng);
        for (int r = 0; r < 2; r++)
            for (int t = 0; t < 1500; t++)
                sets[s]->taps[r][t] *= 0.01f;
    }
}

static void request_heard_next_block(es_processor *p, uint64_t *rng)
{
    char line[400];
    es_stats st;
    const long long t0 = es_now_ns();
    es_processor_select_set(p, 2, t0 - 5000000);
    run(p, 1, rng, NULL, NULL);
    es_processor_stats(p, &st);
    snprintf(line, sizeof line, "a request 5 ms old: set %d, %llu switch, %llu request, "
             "latency %.0f us", st.set, (unsigned long long)st.set_switches,
             (unsigned long long)st.set_requests, st.exchange_last_us);
    es_test_check(st.set == 2 && st.set_switches == 1 && st.set_requests == 1 &&
                      st.exchange_last_us >= 5000 && st.exchange_last_us < 105000,
                  line);
}

static void request_for_set_playing(es_processor *p, uint64_t *rng)
{
    char line[400];
    es_stats st;
    es_processor_select_set(p, 2, es_now_ns());
    run(p, 2, rng, NULL, NULL);
    es_processor_stats(p, &st);
    snprintf(line, sizeof line, "a request for the set playing: %llu requests, %llu switches",
             (unsigned long long)st.set_requests, (unsigned long long)st.set_switches);
    es_test_check(st.set_requests == 2 && st.set_switches == 1, line);
}

static void flood_is_one_request(es_processor *p, uint64_t *rng)
{
    char line[400];
    es_stats st;
    for (int k = 0; k < 1000; k++)
        es_processor_select_set(p, k % SETS, es_now_ns());
    run(p, 2, rng, NULL, NULL);
    es_processor_stats(p, &st);
    snprintf(line, sizeof line, "a flood of 1000: %llu requests taken, %llu replaced, set %d "
             "(the last asked: %d)", (unsigned long long)st.set_requests,
             (unsigned long long)st.set_superseded, st.set, 999 % SETS);
    es_test_check(st.set_requests == 3 && st.set_superseded == 999 && st.set == 999 % SETS, line);
}

/* Leaves the stream's statistics in *st. */
static void out_of_range_is_no_request(es_processor *p, uint64_t *rng, es_stats *st)
{
    char line[400];
    es_processor_select_set(p, 70000, es_now_ns());
    es_processor_select_set(p, -1, es_now_ns());
    run(p, 1, rng, NULL, NULL);
    es_processor_stats(p, st);
    snprintf(line, sizeof line, "sets out of range (70000, -1) are not requests: %llu taken",
             (unsigned long long)st->set_requests);
    es_test_check(st->set_requests == 3, line);
}

static void quantiles_under_worst(const es_stats *st)
{
    char line[400];
    const double p50 = es_stats_exchange_quantile(st, 0.5), p99 =
                                                              es_stats_exchange_quantile(st, 0.99);
    snprintf(line, sizeof line, "p50 %.0f us, p99 %.0f us, worst %.0f us over %llu switches", p50,
             p99, st->exchange_max_us, (unsigned long long)st->set_switches);
    es_test_check(st->set_switches == 2 && p50 > 0 && p50 <= p99 && p99 <= st->exchange_max_us,
                  line);
}

/* At partition = block, requests at the processor's pace. */
static int requests_at_block_pace(es_ir **sets, uint64_t *rng)
{
    es_processor *p = make(sets, BLOCK);
    if (!p)
        return -1;
    es_stats st;
    run(p, 10, rng, NULL, NULL);
    request_heard_next_block(p, rng);
    request_for_set_playing(p, rng);
    flood_is_one_request(p, rng);
    out_of_range_is_no_request(p, rng, &st);
    quantiles_under_worst(&st);
    es_processor_destroy(p);
    return 0;
}

enum { RECORDED = 64 * 40 }; /* frames */

/* Partition 256 at blocks of 64: the switch waits for the partition. The
 * stream's input and output go to rec (outputs 0 and 1, input 2). */
static void switch_waits_for_partition(es_processor *p, uint64_t *rng, float **rec)
{
    char line[400];
    es_stats st;
    int at = 0;
    run(p, 9, rng, rec, &at); /* 576 frames: a quarter into the third partition */
    es_processor_select_set(p, 3, es_now_ns());
    run(p, 1, rng, rec, &at);
    es_processor_stats(p, &st);
    const uint64_t after_one = st.set_switches;
    run(p, 2, rng, rec, &at); /* 704 */
    es_processor_stats(p, &st);
    const uint64_t before_end = st.set_switches;
    run(p, 1, rng, rec, &at); /* the partition ended at 768: this block fades */
    es_processor_stats(p, &st);
    snprintf(line, sizeof line, "partition 256, block 64: no switch in the request's block or "
             "the rest of its partition (%llu, %llu), one in the next (%llu, set %d), latency "
             "%.0f us", (unsigned long long)after_one, (unsigned long long)before_end,
             (unsigned long long)st.set_switches, st.set, st.exchange_last_us);
    es_test_check(after_one == 0 && before_end == 0 && st.set_switches == 1 && st.set == 3 &&
                      st.exchange_last_us > 0, line);
    run(p, 40 - 13, rng, rec, &at);
}

/* From the partition after the switch's (768 + 256) to the end, the
 * output is set 3's, as an engine of set 3 alone plays it. */
static void plays_as_set_alone(const es_ir *set3, float **rec, uint64_t *rng)
{
    char line[400], err[256];
    const es_options opt = {.partition = 256};
    es_engine *alone = es_engine_create(es_engine_find("cpu-partitioned"), &stream, set3, &opt,
                                        err, sizeof err);
    float **y = es_test_run(alone, set3, rec + 2, RECORDED, RECORDED,
                            (es_call_pattern){BLOCK, 0, rng});
    double peak = 0, diff = 0;
    for (int o = 0; o < 2; o++)
        for (int t = 1024; t < RECORDED; t++) {
            peak = fmax(peak, fabs(y[o][t]));
            diff = fmax(diff, fabs((double)y[o][t] - rec[o][t]));
        }
    const double db = diff > 0 ? 20 * log10(diff / peak) : -INFINITY;
    snprintf(line, sizeof line, "after the switch the stream plays set 3 as an engine of set 3 "
             "alone: %.1f dB", db);
    es_test_check(db < -120 && peak > 0.01, line);
    es_engine_destroy(alone);
    es_test_free_planar(y, 2);
}

static void switch_at_partition_end(es_ir **sets, uint64_t *rng)
{
    es_processor *p = make(sets, 256);
    float **rec = es_test_planar(3, RECORDED);
    switch_waits_for_partition(p, rng, rec);
    plays_as_set_alone(sets[3], rec, rng);
    es_test_free_planar(rec, 3);
    es_processor_destroy(p);
}

/* An engine of one matrix: a request is taken and switches nothing. */
static void one_matrix_switches_nothing(es_processor *p, uint64_t *rng)
{
    char line[400];
    es_stats st;
    es_processor_select_set(p, 2, es_now_ns());
    run(p, 3, rng, NULL, NULL);
    es_processor_stats(p, &st);
    snprintf(line, sizeof line, "cpu-direct (one matrix): the request taken (%llu), no "
             "switch (%llu), set %d", (unsigned long long)st.set_requests,
             (unsigned long long)st.set_switches, st.set);
    es_test_check(st.set_requests == 1 && st.set_switches == 0 && st.set == 0, line);
}

/* A SOFA room swapped in over it: the head turns mid-crossfade. */
static void request_reaches_engine_fading_in(es_processor *p, es_ir **sets, uint64_t *rng)
{
    char line[400], err[256] = "";
    const es_options part = {.partition = BLOCK};
    es_engine *e = es_engine_create_sets(es_engine_find("cpu-partitioned"), &stream,
                                         (const es_ir *const *)sets, SETS, &part, err,
                                         sizeof err);
    int swapped = e && es_processor_swap(p, e, &stream, err, sizeof err) == 0;
    es_engine_status es = {0};
    if (swapped) {
        run(p, 2, rng, NULL, NULL);
        es_processor_select_set(p, 3, es_now_ns());
        run(p, 80, rng, NULL, NULL); /* past the 50 ms crossfade */
        es_engine_get_status(e, &es);
    } else if (e) {
        es_engine_destroy(e);
    }
    snprintf(line, sizeof line, "a request in the crossfade into an engine of sets reaches "
             "it: set %d (want 3)%s%s", es.set, swapped ? "" : ", not swapped: ",
             swapped ? "" : err);
    es_test_check(swapped && es.set == 3, line);
}

static void one_matrix_then_sets(es_ir **sets, uint64_t *rng)
{
    char err[256];
    es_processor_config plain = {.mix = {.wet = 1, .dry = 0, .gain = 1}};
    es_engine *direct = es_engine_create(es_engine_find("cpu-direct"), &stream, sets[0], NULL, err,
                                         sizeof err);
    es_processor *p = direct ? es_processor_create(&stream, direct, &plain, err, sizeof err) : NULL;
    if (!p) {
        es_test_check(0, err);
        return;
    }
    one_matrix_switches_nothing(p, rng);
    request_reaches_engine_fading_in(p, sets, rng);
    es_processor_destroy(p);
}

int main(void)
{
    uint64_t rng = es_test_seed();
    es_ir *sets[SETS];
    quiet_sets(sets, &rng);
    if (requests_at_block_pace(sets, &rng) != 0)
        return 1;
    switch_at_partition_end(sets, &rng);
    one_matrix_then_sets(sets, &rng);
    for (int s = 0; s < SETS; s++)
        es_ir_destroy(sets[s]);
    return es_test_failures ? 1 : 0;
}
