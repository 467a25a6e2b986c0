/* earshot wisdom: the CPU engines' transforms planned ahead, at FFTW's
 * patient rigor by default, into the wisdom file every later command
 * reads (engines/fftw_ahead.c says why that is faster). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "core/args.h"
#include "core/json.h"
#include "core/param.h"
#include "core/text.h"
#include "fftw_planner.h"

/* Transform sizes: 2 x partition, the engines' partitions 16..65536. */
#define POINTS_MIN 32
#define POINTS_MAX 131072

typedef struct {
    int from, to; /* points, powers of two */
} size_range;

typedef struct {
    int level, json;
    size_range sizes;
} wisdom_options;

static int is_power_of_two(int v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

static int parse_sizes(const char *text, void *dst, char *why, size_t n)
{
    int a, b;
    if (!es_param_int_pair(text, '-', &a, &b)) {
        snprintf(why, n, "not a size or a range of sizes (FROM-TO)");
        return -1;
    }
    if (!is_power_of_two(a) || !is_power_of_two(b) || a < POINTS_MIN || b > POINTS_MAX ||
        a > b) {
        snprintf(why, n, "sizes are powers of two from %d to %d points, the smaller first",
                 POINTS_MIN, POINTS_MAX);
        return -1;
    }
    *(size_range *)dst = (size_range){a, b};
    return 0;
}

#define OPT(f) offsetof(wisdom_options, f)
static const es_param params[] = {
    {"level", ES_PARAM_CHOICE, 0, 0, "patient", "RIGOR",
     "how hard FFTW searches: measure (what an engine does by\n"
     "itself), patient or exhaustive", OPT(level), "measure|patient|exhaustive", NULL},
    {"sizes", ES_PARAM_CUSTOM, 0, 0, "64-16384", "FROM-TO",
     "transform sizes in points, powers of two (2 x partition:\n"
     "64-16384 is partitions 32 to 8192)", OPT(sizes), NULL, parse_sizes},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, NULL, "the result as one JSON object", OPT(json), NULL,
     NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

static const char usage[] =
    "usage: earshot wisdom [--level measure|patient|exhaustive] [--sizes FROM-TO] [--json]\n"
    "\n"
    "Plans the transforms the CPU engines use (cpu-partitioned, cpu-nonuniform:\n"
    "real, 2 x partition points) into FFTW's wisdom file, where every later\n"
    "command finds them. An engine plans by itself at FFTW's measure rigor, one\n"
    "quick timing of a few algorithms, which a busy or virtual machine makes a\n"
    "coin toss; patient tries many more, once per machine (seconds a size), and\n"
    "engines then take its plans at once. Prints, for each size, the time of a\n"
    "forward and inverse pair with the plan the wisdom held before (- for none)\n"
    "and with the new one, and the planning time. The file: $EARSHOT_WISDOM,\n"
    "else $XDG_CACHE_HOME/earshot/fftwf.wisdom (~/.cache/earshot/fftwf.wisdom).\n"
    "Exit 0 when the wisdom was planned and kept, 1 when it could not be, 2 for\n"
    "bad arguments.\n"
    "\nOptions:\n";

static const char *const level_names[] = {"measure", "patient", "exhaustive"};

int es_cmd_wisdom(int argc, char **argv)
{
    wisdom_options o = {0};
    char err[4400];
    int help;
    if (es_params_defaults(params, &o, err, sizeof err) != 0 ||
        es_params_parse_argv(params, argc, argv, &o, NULL, 0, NULL, &help, err, sizeof err)) {
        es_error("wisdom: %s (see earshot wisdom --help)", err);
        return 2;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        return 0;
    }
    char buf[4096];
    const char *path = es_fftw_wisdom_default_path(buf, sizeof buf);
    if (!path) {
        es_error("wisdom: no wisdom file (EARSHOT_WISDOM is off, or neither XDG_CACHE_HOME "
                 "nor HOME is set): what it plans would not be kept");
        return 2;
    }
    /* What it holds is kept, and planned again only where the rigor asked
     * is more than it had. A damaged file is planned over and rewritten;
     * one that cannot be read (a folder, a device) is the one line. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        es_error("wisdom: %s: not a regular file (a folder, a device or a FIFO): nothing is "
                 "written over it", path);
        return 1;
    }
    const int loaded = es_fftw_wisdom_load(path, err, sizeof err);
    if (loaded == -2) {
        es_error("wisdom: %s", err);
        return 1;
    }
    if (loaded == -1)
        fprintf(stderr, "earshot: note: %s\n", err);
    if (o.json) {
        printf("{\"file\":");
        es_json_string(stdout, path);
        printf(",\"level\":\"%s\",\"sizes\":[", level_names[o.level]);
    } else {
        char shown[4096 * 4];
        printf("FFTW wisdom %s, planned at %s rigor\n"
               "%8s %10s %12s %12s %10s\n",
               es_text_escape(shown, sizeof shown, path), level_names[o.level], "points",
               "partition", "held (us)", "now (us)", "planned");
    }
    int planned = 0;
    for (int points = o.sizes.from; points <= o.sizes.to; points *= 2) {
        es_fftw_ahead r;
        if (es_fftw_plan_ahead(points, (es_fftw_rigor)o.level, &r, err, sizeof err) != 0) {
            if (o.json)
                printf("]}\n");
            es_error("wisdom: %s", err);
            return 1;
        }
        planned++;
        char held[32];
        snprintf(held, sizeof held, r.held ? "%.2f" : "-", r.held_us);
        if (o.json)
            printf("%s{\"points\":%d,\"held\":%s,\"now_us\":%.3f,\"planned_s\":%.3f}",
                   planned > 1 ? "," : "", points, r.held ? held : "null", r.now_us, r.plan_s);
        else
            printf("%8d %10d %12s %12.2f %8.1f s\n", points, points / 2, held, r.now_us,
                   r.plan_s);
        fflush(stdout);
    }
    const int saved = es_fftw_wisdom_save(path, err, sizeof err);
    if (o.json)
        printf("],\"written\":%s}\n", saved >= 0 ? "true" : "false");
    if (saved < 0) {
        es_error("wisdom: %s", err);
        return 1;
    }
    if (!o.json) {
        char shown[4096 * 4];
        printf("%d sizes kept in %s: engines of these sizes plan from them at once\n", planned,
               es_text_escape(shown, sizeof shown, path));
    }
    return 0;
}
