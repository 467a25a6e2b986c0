#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "core/param.h"
#include "engine_params.h"
#include "bench.h"
#include "bench_plot.h"
#include "ambisonic.h"
#include "bench_run.h"
#include "bench_search.h"
#include "core/rt_thread.h"

static const char usage[] =
    "usage: earshot bench [--engine NAME,...|all] [--ir-seconds S[,S...]] [--ir-taps N]\n"
    "                     [--channels C[,C...]] [--true-stereo] [--fan-out N] [--matrix N|IxO]\n"
    "                     [--block N[,N...]] [--seconds T] [--rate HZ]\n"
    "                     [--partition P] [--measure|--estimate] [--pipelined] [--gpu LIST]\n"
    "                     [--max-wall S] [--find-max|--find-max-paths [--search-runs N]\n"
    "                     [--search-wall S]] [--paced|--back-to-back]\n"
    "                     [--realtime] [--copy-out] [--json]\n"
    "       earshot bench --plot FILE.svg [--plot-points FILE] [--engine ...] [--ir-seconds ...]\n"
    "                     [--channels ...] [--block N] [--seconds T] ...\n"
    "\n"
    "Runs a synthetic room (decaying noise, T60 = IR length) through each engine and\n"
    "times every block: CPU engines block after block with no pause, GPU engines\n"
    "paced, one block a period, as an audio callback calls them. Prints per-block\n"
    "time p50/p99/p99.9/max against the block's budget (block / rate), engine\n"
    "misses (late blocks the engine's own work made late), machine stalls (late\n"
    "blocks whose own work took its usual time: a late wake-up, a descheduled\n"
    "thread), real-time factor (audio time / processing time), G multiply-adds\n"
    "per second (what direct convolution would need), and the time to build the\n"
    "instance a second time in the process (what a room swap costs; the first\n"
    "build, with FFT planning and GPU module loading, is in the JSON).\n"
    "Each block is asked for as the live processor asks: a GPU engine leaves its\n"
    "outputs where the GPU wrote them (the processor's mix reads them there);\n"
    "--copy-out times the copy into one buffer per output too.\n"
    "\n"
    "\n"
    "Options:\n";

static const char usage_tail[] =
    "A GPU engine waits for its result at most 80% of the block's budget and\n"
    "plays silence when it is late; such blocks are late too. A late block is a\n"
    "stall when the engine's own work for it fit in 80% of the budget (the\n"
    "measuring thread's CPU time; for a GPU engine the GPU time of the job it\n"
    "waited for, also under a quarter of the budget or twice the median), or the\n"
    "measuring thread spent over a fifth of the budget off the CPU; every other\n"
    "late block is a miss. --find-max looks for zero misses.\n";

typedef struct {
    const char *engine;        /* NAME,... or all */
    const es_engine_class *engines[8];
    int engine_count;
    es_double_list ir_seconds;
    es_int_list blocks, channels;
    int find_max, find_max_paths, json, realtime, estimate, back_to_back;
    int search_runs;           /* --find-max-paths: searches */
    double search_wall;        /* --find-max-paths: seconds a search may take, 0 any */
    const char *plot, *plot_points;
    es_bench_config base;
} bench_args;

/* --matrix N or IxO into es_bench_config's matrix and matrix_outputs,
 * which follow each other. */
static int parse_matrix(const char *text, void *dst, char *why, size_t n)
{
    int *m = dst, ins = 0, outs = 0;
    if (!es_param_int_pair(text, 'x', &ins, &outs)) {
        snprintf(why, n, "not N or IxO (64, 128x64)");
        return -1;
    }
    if (ins < 1 || ins > 256 || outs < 1 || outs > 256) {
        snprintf(why, n, "inputs and outputs are 1..256 each");
        return -1;
    }
    m[0] = ins;
    m[1] = outs;
    return 0;
}

/* The sweeps --plot draws where --ir-seconds or --channels gives no list
 * of its own, parsed by those options' entries. */
#define PLOT_IR_SECONDS "0.1,0.25,0.5,1,2,5,10"
#define PLOT_CHANNELS "1,2,4,8,16,32,64"

/* bench's options: the engine knobs are the entries every command shares
 * (engine_params.h), so their limits and words are render's and play's. */
static const es_param params[] = {
    {"engine", ES_PARAM_STRING, 0, 256, "all", "NAME,...",
     "engines to measure, or all: those usable here", offsetof(bench_args, engine), NULL,
     NULL},
    {"ir-seconds", ES_PARAM_DOUBLE_LIST, 1e-4, 600, "2", "S,...", "IR lengths in seconds",
     offsetof(bench_args, ir_seconds), NULL, NULL},
    {"ir-taps", ES_PARAM_INT, 1, 100000000, NULL, "N",
     "IR length in taps (instead of --ir-seconds)", offsetof(bench_args, base.ir_taps), NULL,
     NULL},
    {"channels", ES_PARAM_INT_LIST, 1, 1024, "2", "C,...",
     "C inputs -> C outputs, one filter each", offsetof(bench_args, channels), NULL, NULL},
    {"true-stereo", ES_PARAM_FLAG, 0, 1, NULL, NULL, "2 inputs -> 2 outputs through 4 filters",
     offsetof(bench_args, base.true_stereo), NULL, NULL},
    {"fan-out", ES_PARAM_INT, 1, 4096, NULL, "N",
     "1 input -> N outputs, one filter each (N paths)", offsetof(bench_args, base.fan_out),
     NULL, NULL},
    {"matrix", ES_PARAM_CUSTOM, 0, 0, NULL, "N|IxO",
     "N inputs -> N outputs, or I -> O, every path a filter (N x N\n"
     "or I x O paths; up to 256 each way)", offsetof(bench_args, base.matrix), NULL,
     parse_matrix},
    {"block", ES_PARAM_INT_LIST, ES_BLOCK_MIN, ES_BLOCK_MAX,
     ES_PARAM_DEFAULT_OF(ES_BLOCK_DEFAULT), "N,...", "frames per block",
     offsetof(bench_args, blocks), NULL, NULL},
    {"seconds", ES_PARAM_DOUBLE, 0.01, 3600, "5", "T",
     "audio per measurement after 16 warm-up blocks", offsetof(bench_args, base.seconds),
     NULL, NULL},
    {"rate", ES_PARAM_DOUBLE, 8000, 384000, "48000", "HZ", "sample rate",
     offsetof(bench_args, base.rate), NULL, NULL},
    ES_PARAM_PARTITION(bench_args, base.options.partition),
    {"estimate", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "FFTW_ESTIMATE plans instead of FFTW_MEASURE", offsetof(bench_args, estimate), NULL,
     NULL},
    {"measure", ES_PARAM_FLAG, 0, 0, NULL, NULL, "FFTW_MEASURE plans (the default)",
     offsetof(bench_args, estimate), NULL, NULL},
    ES_PARAM_PIPELINED(bench_args, base.options.gpu_pipelined),
    ES_PARAM_GPU(bench_args, base.options.gpu.list),
    {"max-wall", ES_PARAM_DOUBLE, 0.1, 36000, "30", "S",
     "stop a measurement after S seconds of wall time",
     offsetof(bench_args, base.max_wall), NULL, NULL},
    {"find-max", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "search the longest IR each engine runs with zero misses", offsetof(bench_args, find_max),
     NULL, NULL},
    {"find-max-paths", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "search the most outputs of --matrix IxO (I x O paths) each\n"
     "engine runs with zero misses over --seconds at the first IR\n"
     "length: from O, steps up (by what O's p99.9 leaves of the\n"
     "budget) or 15 % down until the outcome turns, then a\n"
     "bisection to 2 %; the trials share one room",
     offsetof(bench_args, find_max_paths), NULL, NULL},
    {"search-runs", ES_PARAM_INT, 1, 64, "1", "N",
     "--find-max-paths: N searches, then their spread",
     offsetof(bench_args, search_runs), NULL, NULL},
    {"search-wall", ES_PARAM_DOUBLE, 0, 36000, "0", "S",
     "--find-max-paths: a search ends before a trial that would\n"
     "take it past S seconds, with the bracket it reached (0: none)",
     offsetof(bench_args, search_wall), NULL, NULL},
    {"paced", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "start each block one period after the previous one on an\n"
     "absolute clock, as an audio callback runs (a pipelined\n"
     "GPU engine then has a period to finish); default: back\n"
     "to back, which measures throughput (the default for\n"
     "the GPU engines)", offsetof(bench_args, base.paced), NULL, NULL},
    {"back-to-back", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "block after block with no pause, for the GPU engines too\n"
     "(the default for the CPU engines)", offsetof(bench_args, back_to_back), NULL, NULL},
    {"realtime", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "run the measuring thread at SCHED_FIFO, as an audio\n"
     "thread would be (needs RLIMIT_RTPRIO or CAP_SYS_NICE)", offsetof(bench_args, realtime),
     NULL, NULL},
    {"sets", ES_PARAM_INT, 2, 4096, NULL, "N",
     "the room in N filter sets (a head-tracked room's\n"
     "orientations), one engine over all, a switch to another\n"
     "set every --switch-every blocks (the engines that switch\n"
     "sets: cpu-partitioned, cuda-partitioned; with --split,\n"
     "every engine)", offsetof(bench_args, base.sets), NULL, NULL},
    {"split", ES_PARAM_DOUBLE, 1, 10000, NULL, "MS",
     "with --sets: each set a head of MS and one tail for all,\n"
     "as play splits a SOFA room of head orientations (the\n"
     "heads on the engine's kind that holds sets, the tail on\n"
     "the engine: every engine)", offsetof(bench_args, base.split_ms), NULL, NULL},
    {"ambisonic", ES_PARAM_INT, 1, ES_AMBI_ORDER_MAX, NULL, "N",
     "a field room of order N: the room 1 x (N+1)^2 SH channels\n"
     "on the engine, turned every block at 360 degrees a second\n"
     "and decoded to two ears (1,024-tap filters on\n"
     "cpu-partitioned); the rotation and decoding timed apart",
     offsetof(bench_args, base.ambisonic), NULL, NULL},
    {"switch-every", ES_PARAM_INT, 1, 1000000, "1", "K",
     "with --sets: a switch every K blocks (1: every block,\n"
     "each one paying for two sets)", offsetof(bench_args, base.switch_every), NULL, NULL},
    {"copy-out", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "process() into one buffer per output, for every engine\n"
     "(default: a GPU engine lends its mapped outputs, as the\n"
     "processor takes them)", offsetof(bench_args, base.copy_out), NULL, NULL},
    {"plot", ES_PARAM_STRING, 0, 4096, NULL, "FILE.svg",
     "draw each engine's load against the IR's length and\n"
     "against paths (C x C, one filter each), the real-time\n"
     "line marked: --ir-seconds (default " PLOT_IR_SECONDS ")\n"
     "at 2 x 2, and --channels (default " PLOT_CHANNELS ") at a\n"
     "2 s IR (a single value of either is the other sweep's)",
     offsetof(bench_args, plot), NULL, NULL},
    {"plot-points", ES_PARAM_STRING, 0, 4096, NULL, "FILE",
     "other programs' points for --plot, a line each:\n"
     "'ir|paths X LOAD_PERCENT LABEL' (bench/peer-points\n"
     "writes fconvolver's and FFmpeg's)", offsetof(bench_args, plot_points), NULL, NULL},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, NULL, "one JSON object per line instead of the table",
     offsetof(bench_args, json), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

static int parse(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){0};
    char err[512];
    int help;
    if (es_params_defaults(params, a, err, sizeof err) != 0 ||
        es_params_parse_argv(params, argc, argv, a, NULL, 0, NULL, &help, err, sizeof err) != 0) {
        es_error("bench: %s (see earshot bench --help)", err);
        return -1;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        /* From the registry, so a new engine is listed the day it exists. */
        fputs("\nEngines:\n", stdout);
        for (int i = 0; es_engines[i]; i++)
            printf("  %-17s %s\n", es_engines[i]->name, es_engines[i]->summary);
        fputs("\n", stdout);
        fputs(usage_tail, stdout);
        exit(0);
    }
    if (a->base.paced && a->back_to_back) {
        es_error("bench: --paced and --back-to-back: pick one");
        return -1;
    }
    if (a->plot_points && !a->plot) {
        es_error("bench: --plot-points draws into --plot FILE.svg: give one");
        return -1;
    }
    if (a->plot && (a->find_max || a->find_max_paths || a->json || a->blocks.count > 1 ||
                    a->base.ir_taps > 0 || a->base.matrix || a->base.fan_out ||
                    a->base.true_stereo)) {
        es_error("bench: --plot sweeps the IR's length and C x C paths at one --block; "
                 "leave out --find-max, --find-max-paths, --json, --ir-taps, --matrix, "
                 "--fan-out, --true-stereo and a list of blocks");
        return -1;
    }
    a->base.options.fft_measure = !a->estimate;
    if (strcmp(a->engine, "all") == 0) {
        char why[256];
        for (int k = 0; es_engines[k] && a->engine_count < 8; k++)
            if (es_engines[k]->probe(why, sizeof why))
                a->engines[a->engine_count++] = es_engines[k];
        return 0;
    }
    char list[257];
    snprintf(list, sizeof list, "%s", a->engine);
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
        char why[300];
        if (a->engine_count == 8) {
            es_error("bench: --engine: at most 8 engines");
            return -1;
        }
        if (es_engine_param_parse(name, &a->engines[a->engine_count++], why, sizeof why)) {
            es_error("bench: --engine '%s': %s", name, why);
            return -1;
        }
        if (es_gpu_list_for(a->engines[a->engine_count - 1], &a->base.options.gpu.list, why,
                            sizeof why)) {
            es_error("bench: %s", why);
            return -1;
        }
    }
    return 0;
}

static void print_header(void)
{
    printf("%-17s %7s %8s %5s %6s %9s %9s %9s %9s %9s %7s %6s %8s %8s %9s\n", "engine",
           "ir s", "taps", "paths", "block", "budget us", "p50 us", "p99 us", "p99.9 us",
           "max us", "misses", "stalls", "x rt", "GMAC/s", "create ms");
}

static void print_row(const es_bench_config *c, const es_bench_result *r, int json)
{
    char gpus[96];
    if (json) {
        printf("{\"engine\":\"%s\",\"ir_seconds\":%g,\"taps\":%d,\"paths\":%d,"
               "\"block\":%d,\"rate\":%g,\"budget_us\":%.3f,\"p50_us\":%.3f,"
               "\"p99_us\":%.3f,\"p999_us\":%.3f,\"max_us\":%.3f,\"mean_us\":%.3f,"
               "\"blocks\":%ld,\"paced\":%s,\"misses\":%ld,\"stalls\":%ld,\"late_wakes\":%ld,"
               "\"late_results\":%llu,\"late_levels\":%llu,\"device_bytes\":%llu,"
               "\"device_max_us\":%.3f,\"device_p50_us\":%.3f,\"device_p99_us\":%.3f,"
               "\"helpers_realtime\":%d,\"realtime_factor\":%.3f,"
               "\"gmacs\":%.3f,\"create_ms\":%.3f,\"create_first_ms\":%.3f,\"latency\":%d,"
               "\"cut_short\":%s,\"copy_out\":%s,\"sets\":%d,\"split_ms\":%g,\"set_switches\":%llu,"
               "\"switch_p50_us\":%.3f,\"switch_p99_us\":%.3f,\"ambisonic\":%d,"
               "\"field_p50_us\":%.3f,\"field_p99_us\":%.3f,"
               "\"gpus\":\"%s\",\"shards\":[",
               c->engine->name, c->ir_seconds, r->taps, r->paths, c->block, c->rate,
               r->budget_us, r->p50_us, r->p99_us, r->p999_us, r->max_us, r->mean_us,
               r->blocks, c->paced ? "true" : "false", r->misses, r->stalls, r->late_wakes,
               (unsigned long long)r->late_results, (unsigned long long)r->late_levels,
               (unsigned long long)r->device_bytes, r->device_max_us, r->device_p50_us,
               r->device_p99_us,
               r->helpers_realtime, r->realtime_factor,
               r->gmacs, r->create_ms, r->create_first_ms, r->latency,
               r->cut_short ? "true" : "false", c->copy_out ? "true" : "false",
               c->sets > 1 ? c->sets : 1, c->sets > 1 ? c->split_ms : 0,
               (unsigned long long)r->set_switches, r->switch_p50_us, r->switch_p99_us,
               c->ambisonic, r->field_p50_us, r->field_p99_us,
               es_gpu_list_text(&c->options.gpu.list, gpus, sizeof gpus));
        for (int k = 0; k < r->shards; k++)
            printf("%s{\"gpu\":%d,\"first_output\":%d,\"outputs\":%d,\"late\":%llu,"
                   "\"device_max_us\":%.3f,\"device_bytes\":%llu}", k ? "," : "",
                   r->shard[k].device, r->shard[k].first_output + 1,
                   r->shard[k].outputs, (unsigned long long)r->shard[k].late,
                   r->shard[k].device_max_us,
                   (unsigned long long)r->shard[k].device_bytes);
        printf("]}\n");
    } else {
        printf("%-17s %7.3g %8d %5d %6d %9.1f %9.2f %9.2f %9.2f %9.2f %7ld %6ld %8.1f %8.2f "
               "%9.2f%s%s", c->engine->name, c->ir_seconds, r->taps, r->paths, c->block,
               r->budget_us, r->p50_us, r->p99_us, r->p999_us, r->max_us, r->misses, r->stalls,
               r->realtime_factor, r->gmacs, r->create_ms, c->paced ? "  paced" : "",
               r->cut_short ? "  (cut short)" : "");
        if (r->late_levels)
            printf("  %llu late tail levels", (unsigned long long)r->late_levels);
        if (c->sets > 1)
            printf("  %d sets%s, %llu switches (their blocks p50/p99 %.1f/%.1f us)", c->sets,
                   c->split_ms > 0 ? " split" : "", (unsigned long long)r->set_switches,
                   r->switch_p50_us, r->switch_p99_us);
        if (c->ambisonic > 0)
            printf("  order %d turning: rotation and decoding p50/p99 %.1f/%.1f us",
                   c->ambisonic, r->field_p50_us, r->field_p99_us);
        if (r->device_bytes)
            printf("  GPU %.1f MB held", r->device_bytes / 1e6);
        if (r->device_p50_us >= 0)
            printf("  device p50/p99 %.1f/%.1f us", r->device_p50_us, r->device_p99_us);
        for (int k = 0; k < r->shards; k++)
            printf("%s GPU %d: %d out, %llu late, device max %.1f us, %.1f MB",
                   k ? ";" : "  shards:", r->shard[k].device, r->shard[k].outputs,
                   (unsigned long long)r->shard[k].late, r->shard[k].device_max_us,
                   r->shard[k].device_bytes / 1e6);
        printf("\n");
    }
    /* Once per run: whether the engine's helper threads got real-time
     * priority changes what its misses mean. */
    fflush(stdout);
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


/* --plot: the two sweeps, from the lists given or the plot's own. */
static int plot(const bench_args *a)
{
    bench_args own = {0};
    char err[256];
    if (es_param_parse(es_param_find(params, "ir-seconds"), "--plot", PLOT_IR_SECONDS, &own,
                       err, sizeof err) != 0 ||
        es_param_parse(es_param_find(params, "channels"), "--plot", PLOT_CHANNELS, &own, err,
                       sizeof err) != 0) {
        es_error("bench: %s", err);
        return 2;
    }
    es_bench_config base = a->base;
    base.block = a->blocks.v[0];
    /* A single value of one list is where the other sweep is taken. */
    const int one_ir = a->ir_seconds.count == 1, one_c = a->channels.count == 1;
    const es_plot_request rq = {
        .base = &base, .engines = a->engines, .engine_count = a->engine_count,
        .back_to_back = a->back_to_back, .points_path = a->plot_points, .out_path = a->plot,
        .ir_seconds = a->ir_seconds.count > 1 ? a->ir_seconds : own.ir_seconds,
        .ir_channels = one_c ? a->channels.v[0] : 2,
        .channels = a->channels.count > 1 ? a->channels : own.channels,
        .paths_ir_seconds = one_ir ? a->ir_seconds.v[0] : 2};
    return es_bench_plot(&rq);
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
    if (a.plot)
        return plot(&a);
    int failures = 0;
    if (!a.json && !a.find_max && !a.find_max_paths)
        print_header();
    for (int k = 0; k < a.engine_count; k++)
        for (int ch = 0; ch < a.channels.count; ch++)
            for (int b = 0; b < a.blocks.count; b++) {
                es_bench_config c = a.base;
                c.engine = a.engines[k];
                /* A GPU engine is judged as a callback calls it: one block a
                 * period. */
                if ((c.engine->caps & ES_CAP_GPU) && !a.back_to_back)
                    c.paced = 1;
                c.block = a.blocks.v[b];
                c.channels = a.channels.v[ch];
                if (a.find_max) {
                    es_bench_find_max(&c, a.json);
                    continue;
                }
                if (a.find_max_paths) {
                    if (c.matrix == 0) {
                        es_error("bench: --find-max-paths searches the outputs of --matrix I "
                                 "or IxO: give one");
                        return 2;
                    }
                    c.ir_seconds = a.ir_seconds.v[0];
                    es_bench_find_max_paths(&c, a.json, a.search_runs, a.search_wall);
                    continue;
                }
                const int ir_taps_given = a.base.ir_taps > 0;
                for (int s = 0; s < a.ir_seconds.count; s++) {
                    es_bench_result r;
                    c.ir_seconds = ir_taps_given ? c.ir_taps / c.rate : a.ir_seconds.v[s];
                    if (es_bench_run(&c, &r) == 0) {
                        print_row(&c, &r, a.json);
                    } else {
                        print_failure(&c, r.error, a.json);
                        failures++;
                    }
                    if (ir_taps_given)
                        break;
                }
            }
    return failures ? 1 : 0;
}
