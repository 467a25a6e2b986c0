#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "bench.h"
#include "bench_run.h"
#include "core/rt_thread.h"

#define MAX_LIST 16

static const char usage[] =
    "usage: earshot bench [--engine NAME,...|all] [--ir-seconds S[,S...]] [--ir-taps N]\n"
    "                     [--channels C[,C...]] [--true-stereo] [--fan-out N]\n"
    "                     [--block N[,N...]] [--seconds T] [--rate HZ]\n"
    "                     [--partition P] [--measure|--estimate] [--pipelined]\n"
    "                     [--max-wall S] [--find-max] [--paced] [--realtime] [--json]\n"
    "\n"
    "Runs a synthetic room (decaying noise, T60 = IR length) through each engine,\n"
    "block after block with no pause, and times every block. Prints per-block time\n"
    "p50/p99/max against the block's budget (block / rate), deadline misses (blocks\n"
    "over budget), real-time factor (audio time / processing time), G multiply-adds\n"
    "per second (what direct convolution would need), and the time to build the\n"
    "instance a second time in the process (what a room swap costs; the first\n"
    "build, with FFT planning and GPU module loading, is in the JSON).\n"
    "\n"
    "  --engine NAME,...   engines to measure, or all (default: all usable here)\n"
    "  --ir-seconds S,...  IR lengths in seconds (default 2)\n"
    "  --ir-taps N         IR length in taps (instead of --ir-seconds)\n"
    "  --channels C,...    C inputs -> C outputs, one filter each (default 2)\n"
    "  --true-stereo       2 inputs -> 2 outputs through 4 filters\n"
    "  --fan-out N         1 input -> N outputs, one filter each (N paths)\n"
    "  --block N,...       frames per block (default 256)\n"
    "  --seconds T         audio per measurement after 16 warm-up blocks (default 5)\n"
    "  --rate HZ           sample rate (default 48000)\n"
    "  --partition P       partition size for partitioned engines (default: block)\n"
    "  --estimate          FFTW_ESTIMATE plans instead of FFTW_MEASURE\n"
    "  --pipelined         GPU engines: result one block later\n"
    "  --gpu N             GPU engines: CUDA device ordinal (default 0)\n"
    "  --max-wall S        stop a measurement after S seconds of wall time (default 30)\n"
    "  --find-max          search the longest IR each engine runs with zero misses\n"
    "  --paced             start each block one period after the previous one on an\n"
    "                      absolute clock, as an audio callback runs (a pipelined\n"
    "                      GPU engine then has a period to finish); default: back\n"
    "                      to back, which measures throughput\n"
    "  --realtime          run the measuring thread at SCHED_FIFO, as an audio\n"
    "                      thread would be (needs RLIMIT_RTPRIO or CAP_SYS_NICE)\n"
    "\n"
    "A GPU engine waits for its result at most 80%% of the block's budget and\n"
    "plays silence when it is late; such blocks count as misses too.\n"
    "  --json              one JSON object per line instead of the table\n";

typedef struct {
    const es_engine_class *engines[8];
    int engine_count;
    double ir_seconds[MAX_LIST];
    int ir_count;
    int blocks[MAX_LIST];
    int block_count;
    int channels[MAX_LIST];
    int channel_count;
    int find_max, json, ir_taps_given, realtime;
    es_bench_config base;
} bench_args;

static int parse(int argc, char **argv, bench_args *a)
{
    const char *engine = "all", *v;
    a->base = (es_bench_config){.rate = 48000, .channels = 2, .seconds = 5,
                                .max_wall = 30, .options = {.fft_measure = 1}};
    a->ir_seconds[0] = 2;
    a->ir_count = 1;
    a->blocks[0] = 256;
    a->block_count = 1;
    a->channels[0] = 2;
    a->channel_count = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(o, "--engine")) {
            if (!(engine = es_arg_value(argc, argv, &i)))
                return -1;
        } else if (!strcmp(o, "--ir-seconds")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                (a->ir_count = es_arg_double_list(o, v, 1e-4, 600, a->ir_seconds, MAX_LIST)) < 0)
                return -1;
        } else if (!strcmp(o, "--block")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                (a->block_count = es_arg_int_list(o, v, 1, 65536, a->blocks, MAX_LIST)) < 0)
                return -1;
        } else if (!strcmp(o, "--channels")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                (a->channel_count = es_arg_int_list(o, v, 1, 64, a->channels, MAX_LIST)) < 0)
                return -1;
        } else if (!strcmp(o, "--fan-out")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_int(o, v, 1, 4096, &a->base.fan_out) < 0)
                return -1;
        } else if (!strcmp(o, "--ir-taps")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_int(o, v, 1, 100000000, &a->base.ir_taps) < 0)
                return -1;
        } else if (!strcmp(o, "--gpu")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_int(o, v, 0, 64, &a->base.options.gpu_device) < 0)
                return -1;
        } else if (!strcmp(o, "--seconds")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 0.01, 3600, &a->base.seconds) < 0)
                return -1;
        } else if (!strcmp(o, "--max-wall")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 0.1, 36000, &a->base.max_wall) < 0)
                return -1;
        } else if (!strcmp(o, "--rate")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_double(o, v, 8000, 384000, &a->base.rate) < 0)
                return -1;
        } else if (!strcmp(o, "--partition")) {
            if (!(v = es_arg_value(argc, argv, &i)) ||
                es_arg_int(o, v, 1, 65536, &a->base.options.partition) < 0)
                return -1;
        } else if (!strcmp(o, "--true-stereo")) {
            a->base.true_stereo = 1;
        } else if (!strcmp(o, "--estimate")) {
            a->base.options.fft_measure = 0;
        } else if (!strcmp(o, "--measure")) {
            a->base.options.fft_measure = 1;
        } else if (!strcmp(o, "--pipelined")) {
            a->base.options.gpu_pipelined = 1;
        } else if (!strcmp(o, "--paced")) {
            a->base.paced = 1;
        } else if (!strcmp(o, "--realtime")) {
            a->realtime = 1;
        } else if (!strcmp(o, "--find-max")) {
            a->find_max = 1;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else {
            es_error("bench: unknown option '%s' (see earshot bench --help)", o);
            return -1;
        }
    }
    a->ir_taps_given = a->base.ir_taps > 0;
    if (strcmp(engine, "all") == 0) {
        char why[256];
        for (int k = 0; es_engines[k] && a->engine_count < 8; k++)
            if (es_engines[k]->probe(why, sizeof why))
                a->engines[a->engine_count++] = es_engines[k];
    } else {
        char list[256];
        snprintf(list, sizeof list, "%s", engine);
        for (char *name = strtok(list, ","); name && a->engine_count < 8;
             name = strtok(NULL, ",")) {
            if (es_arg_engine("--engine", name, &a->engines[a->engine_count++]))
                return -1;
        }
    }
    return 0;
}

static void print_header(void)
{
    printf("%-17s %7s %8s %5s %6s %9s %9s %9s %9s %7s %8s %8s %9s\n", "engine", "ir s",
           "taps", "paths", "block", "budget us", "p50 us", "p99 us", "max us", "misses",
           "x rt", "GMAC/s", "create ms");
}

static void print_row(const es_bench_config *c, const es_bench_result *r, int json)
{
    if (json) {
        printf("{\"engine\":\"%s\",\"ir_seconds\":%g,\"taps\":%d,\"paths\":%d,"
               "\"block\":%d,\"rate\":%g,\"budget_us\":%.3f,\"p50_us\":%.3f,"
               "\"p99_us\":%.3f,\"max_us\":%.3f,\"mean_us\":%.3f,\"blocks\":%ld,"
               "\"misses\":%ld,\"late_results\":%llu,\"device_max_us\":%.3f,"
               "\"helpers_realtime\":%d,\"realtime_factor\":%.3f,"
               "\"gmacs\":%.3f,\"create_ms\":%.3f,\"create_first_ms\":%.3f,\"latency\":%d,"
               "\"cut_short\":%s}\n",
               c->engine->name, c->ir_seconds, r->taps, r->paths, c->block, c->rate,
               r->budget_us, r->p50_us, r->p99_us, r->max_us, r->mean_us, r->blocks,
               r->misses, (unsigned long long)r->late_results, r->device_max_us,
               r->helpers_realtime, r->realtime_factor,
               r->gmacs, r->create_ms, r->create_first_ms, r->latency,
               r->cut_short ? "true" : "false");
    } else {
        printf("%-17s %7.3g %8d %5d %6d %9.1f %9.2f %9.2f %9.2f %7ld %8.1f %8.2f %9.2f%s\n",
               c->engine->name, c->ir_seconds, r->taps, r->paths, c->block, r->budget_us,
               r->p50_us, r->p99_us, r->max_us, r->misses, r->realtime_factor, r->gmacs,
               r->create_ms, r->cut_short ? "  (cut short)" : "");
    }
    /* Once per run: whether the engine's helper threads got real-time
     * priority changes what its misses mean. */
    static int told;
    if (r->helpers_realtime >= 0 && !told++)
        fprintf(stderr, "bench: %s helper thread: %s\n", c->engine->name, r->helpers);
    fflush(stdout);
}

static void print_failure(const es_bench_config *c, const char *why, int json)
{
    if (json)
        printf("{\"engine\":\"%s\",\"ir_seconds\":%g,\"block\":%d,\"error\":\"%s\"}\n",
               c->engine->name, c->ir_seconds, c->block, why);
    else
        printf("%-17s %7.3g %8s %5s %6d  failed: %s\n", c->engine->name, c->ir_seconds,
               "-", "-", c->block, why);
    fflush(stdout);
}

static int paths(const es_bench_config *c)
{
    return c->fan_out > 0 ? c->fan_out : c->true_stereo ? 4 : c->channels;
}

/* A trial passes when every block of `seconds` of audio met its budget. */
static int sustains(es_bench_config *c, double ir_seconds, es_bench_result *r)
{
    c->ir_seconds = ir_seconds;
    c->ir_taps = 0;
    c->stop_on_miss = 1;
    return es_bench_run(c, r) == 0 && r->misses == 0;
}

/* Doubles the IR until a trial misses, then bisects to 2 % resolution. */
static void find_max(es_bench_config *c, int json)
{
    es_bench_result r;
    double good = 0, bad = 0, s = 0.125;
    for (; s <= 600; s *= 2) {
        if (!sustains(c, s, &r))
            break;
        good = s;
    }
    bad = s;
    while (good > 0 && bad - good > 0.02 * good) {
        double mid = 0.5 * (good + bad);
        if (sustains(c, mid, &r))
            good = mid;
        else
            bad = mid;
    }
    if (json)
        printf("{\"engine\":\"%s\",\"block\":%d,\"paths\":%d,\"max_ir_seconds\":%.4g,"
               "\"max_taps\":%.0f}\n", c->engine->name, c->block, paths(c), good,
               good * c->rate);
    else
        printf("%-17s block %5d  %d path%s: longest IR with zero misses %.3g s "
               "(%.0f taps)\n", c->engine->name, c->block, paths(c),
               paths(c) > 1 ? "s" : "", good, good * c->rate);
    fflush(stdout);
}

int es_bench_main(int argc, char **argv)
{
    bench_args a = {0};
    if (parse(argc, argv, &a) != 0)
        return 2;
    if (a.engine_count == 0) {
        es_error("bench: no engine is usable on this machine (see earshot engines)");
        return 1;
    }
    if (a.realtime) {
        char why[128];
        es_rt_thread_promote(sched_get_priority_max(SCHED_FIFO) / 2, why, sizeof why);
        fprintf(stderr, "bench: measuring thread: %s\n", why);
    }
    int failures = 0;
    if (!a.json && !a.find_max)
        print_header();
    for (int k = 0; k < a.engine_count; k++)
        for (int ch = 0; ch < a.channel_count; ch++)
            for (int b = 0; b < a.block_count; b++) {
                es_bench_config c = a.base;
                c.engine = a.engines[k];
                c.block = a.blocks[b];
                c.channels = a.channels[ch];
                if (a.find_max) {
                    find_max(&c, a.json);
                    continue;
                }
                for (int s = 0; s < a.ir_count; s++) {
                    es_bench_result r;
                    c.ir_seconds = a.ir_taps_given ? c.ir_taps / c.rate : a.ir_seconds[s];
                    if (es_bench_run(&c, &r) == 0) {
                        print_row(&c, &r, a.json);
                    } else {
                        print_failure(&c, r.error, a.json);
                        failures++;
                    }
                    if (a.ir_taps_given)
                        break;
                }
            }
    return failures ? 1 : 0;
}
