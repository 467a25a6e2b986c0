/* Misses that say whose fault they are.
 *
 * The processor sorts a block over its budget into an engine miss (the
 * audio thread was busy in it: the engine's own work) or a machine stall
 * (the thread was off the CPU for most of it). A test double delays chosen
 * blocks by 1.5 budgets, spinning in some (an engine too slow) and asleep
 * in others (a thread the machine descheduled): exactly the spinning ones
 * are misses, and the sleeping ones are stalls.
 *
 * The same with a stall probe watching (es_processor_watch): on a machine
 * that does not hold it up, it turns no miss into a stall (one that held
 * it up while the blocks ran is run again, up to three times).
 *
 * The stall probe wakes once a period, counts its wakes and starts from
 * zero when reset. */
#include <stdio.h>
#include <time.h>

#include "processor.h"
#include "reference.h"
#include "stall_probe.h"
#include "wrap_engine.h"

#define RATE 48000.0
#define BLOCK 256

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* watch: a running stall probe beside the processor (es_processor_watch);
 * on a quiet machine it is not held up, and changes nothing. A machine
 * that held the probe up meanwhile makes the blocks late then its own, as
 * it should: such a run says so and returns 1 without judging (the caller
 * runs it again), unless `last`. */
static int sorted_late_blocks(int watch, int last)
{
    static const uint64_t spin[] = {10, 30}, sleep_in[] = {20, 40};
    uint64_t rng = 11;
    es_ir *ir = es_test_ir("mono", 500, &rng);
    es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1, .outputs = 1};
    es_options opt = {0};
    char err[256], what[160];
    const double budget_us = 1e6 * BLOCK / RATE;
    const es_engine_class *k = es_engine_find("cpu-partitioned");
    /* Two wrappers in a chain: the outer spins at 10 and 30, the inner
     * sleeps at 20 and 40. */
    es_engine *inner = es_test_wrap(es_engine_create(k, &fmt, ir, &opt, err, sizeof err),
                                    sleep_in, 2, 1.5 * budget_us);
    es_test_wrap_off_cpu(inner);
    es_engine *e = es_test_wrap(inner, spin, 2, 1.5 * budget_us);
    es_ir_destroy(ir);
    es_processor_config pc = {.mix = {.wet = 1, .gain = 1}};
    es_processor *p = e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
    if (!p) {
        check(0, err);
        return 0;
    }
    es_stall_probe *sp = watch ? es_stall_probe_start(BLOCK / RATE) : NULL;
    es_processor_watch(p, sp);
    if (watch)
        printf("     with a stall probe watching:\n");
    float buf_in[BLOCK] = {0}, buf_out[BLOCK];
    const float *in[1] = {buf_in};
    float *out[1] = {buf_out};
    for (int b = 0; b < 60; b++)
        es_processor_process(p, in, out, BLOCK);
    es_stats s;
    es_processor_stats(p, &s);
    es_stall_stats held = {0};
    if (sp)
        es_stall_probe_read(sp, &held);
    const int sorted = s.misses == 2 && s.recent_misses[0] == 10 && s.recent_misses[1] == 30 &&
                       s.stalls == 2 && s.ab[0].misses == 2 && s.ab[0].stalls == 2;
    const int again = !sorted && held.late > 0 && !last;
    if (again) {
        printf("     the machine held the probe up (%llu periods late, the worst %.1f ms) "
               "while blocks were late: %llu misses, %llu stalls; again\n",
               (unsigned long long)held.late, 1e-3 * held.worst_us,
               (unsigned long long)s.misses, (unsigned long long)s.stalls);
    } else {
        snprintf(what, sizeof what, "spinning blocks are engine misses: %llu at %llu %llu "
                 "(want 2 at 10 30)", (unsigned long long)s.misses,
                 (unsigned long long)s.recent_misses[0], (unsigned long long)s.recent_misses[1]);
        check(s.misses == 2 && s.recent_misses[0] == 10 && s.recent_misses[1] == 30, what);
        snprintf(what, sizeof what, "sleeping blocks are machine stalls: %llu (want 2)",
                 (unsigned long long)s.stalls);
        check(s.stalls == 2, what);
        snprintf(what, sizeof what, "slot A counts them the same: %llu misses, %llu stalls",
                 (unsigned long long)s.ab[0].misses, (unsigned long long)s.ab[0].stalls);
        check(s.ab[0].misses == 2 && s.ab[0].stalls == 2, what);
    }
    es_processor_watch(p, NULL);
    es_stall_probe_stop(sp);
    es_processor_destroy(p);
    check(es_test_wrap_all_gone("processor"), "every engine destroyed once");
    es_test_wrap_forget();
    return again;
}

static void probe(void)
{
    const double period = 0.002;
    es_stall_probe *sp = es_stall_probe_start(period);
    if (!sp) {
        check(0, "the stall probe starts");
        return;
    }
    const struct timespec nap = {0, 400000000};
    nanosleep(&nap, NULL);
    es_stall_stats st;
    es_stall_probe_read(sp, &st);
    char what[200];
    const double want = st.seconds / period;
    snprintf(what, sizeof what, "the probe woke %llu times in %.3f s at %.1f ms (%.0f "
             "periods), worst %.3f ms late, %llu periods late, %s",
             (unsigned long long)st.wakes, st.seconds, 1e-3 * st.period_us, want,
             1e-3 * st.worst_us, (unsigned long long)st.late,
             st.realtime ? "SCHED_FIFO" : "normal priority");
    /* Each late period resynchronises the probe, so a stalled machine
     * has fewer wakes; never more. */
    check(st.wakes <= want + 2 && st.wakes + 3 * st.late + 3 >= 0.9 * want && st.worst_us >= 0,
          what);
    es_stall_probe_reset(sp);
    const struct timespec short_nap = {0, 20000000};
    nanosleep(&short_nap, NULL);
    es_stall_probe_read(sp, &st);
    snprintf(what, sizeof what, "reset: %llu wakes in the %.3f s since", 
             (unsigned long long)st.wakes, st.seconds);
    check(st.seconds < 0.1 && st.wakes <= st.seconds / period + 2, what);
    es_stall_probe_stop(sp);
}

int main(void)
{
    sorted_late_blocks(0, 1);
    for (int run = 1; run <= 3 && sorted_late_blocks(1, run == 3); run++)
        ;
    probe();
    printf("stalls: %s\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
