/* The engines users can pick, by name. The name is also the config key. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "classes.h"
#include "core/suggest.h"
#include "partition.h"
#include "engine_params.h"
#include "gpu_split.h"

/* The CUDA classes always exist: without the toolkit they come from
 * cuda_unavailable.c and their probe says why. */
/* Relaxed: counts, read once a program is done with its engines. */
static atomic_ullong engines_created, engines_destroyed;

const es_engine_class *const es_engines[] = {
    &es_engine_cpu_direct,
    &es_engine_cpu_partitioned,
    &es_engine_cpu_nonuniform,
    &es_engine_cuda_circular,
    &es_engine_cuda_partitioned,
    &es_engine_cuda_nonuniform,
    NULL,
};

const es_engine_class *es_engine_find(const char *name)
{
    for (int k = 0; name && es_engines[k]; k++)
        if (strcmp(es_engines[k]->name, name) == 0)
            return es_engines[k];
    return NULL;
}

const es_engine_class *es_engine_fallback(const char *failed)
{
    const es_engine_class *k = es_engine_find(failed);
    return es_engine_find(k && k->fallback ? k->fallback : "cpu-partitioned");
}

const es_engine_class *es_engine_heads_class(const es_engine_class *k)
{
    if (k->caps & ES_CAP_SETS)
        return k;
    return (k->caps & ES_CAP_GPU) ? &es_engine_cuda_partitioned : &es_engine_cpu_partitioned;
}

const char *es_engine_names(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; es_engines[k] && at < n; k++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", k ? ", " : "", es_engines[k]->name);
    return buf;
}

/* Largest block any engine is asked to take. 64 Ki frames is over a second
 * at 48 kHz; anything larger is a mistake, not a latency setting. */
#define ES_MAX_BLOCK 65536

/* The list a host asked for, against this machine: `all` becomes every
 * GPU; an ordinal past the last is refused, naming it. */
static int resolve_gpus(const es_gpu_list *asked, es_gpu_list *gpus, char *err, size_t n)
{
    const int have = es_gpu_count();
    if (asked->count == ES_GPUS_ALL) {
        gpus->count = have < ES_GPUS_MAX ? have : ES_GPUS_MAX;
        for (int k = 0; k < gpus->count; k++)
            gpus->device[k] = k;
        if (gpus->count == 0) {
            snprintf(err, n, "--gpu all: this machine has no GPU");
            return -1;
        }
        return 0;
    }
    *gpus = *asked;
    for (int k = 0; k < gpus->count; k++)
        if (gpus->device[k] >= have) {
            snprintf(err, n, "--gpu: entry %d, GPU %d, is past the last GPU (this machine has %d%s)",
                     k + 1, gpus->device[k], have,
                     have == 0 ? "" : have == 1 ? ": GPU 0" : ": GPU 0 and up");
            return -1;
        }
    return 0;
}

/* What every engine needs of its stream and IR before create. */
static int check_for(const es_engine_class *k, const es_format *fmt, const es_ir *ir, char *err,
                     size_t n)
{
    if (!k || !fmt || !ir) {
        snprintf(err, n, "no engine, format or impulse response given");
        return -1;
    }
    if (fmt->max_block < 1 || fmt->max_block > ES_MAX_BLOCK) {
        snprintf(err, n, "block size %d is out of range (1..%d)", fmt->max_block,
                 ES_MAX_BLOCK);
        return -1;
    }
    if (!(fmt->sample_rate >= 1000 && fmt->sample_rate <= 1536000)) {
        snprintf(err, n, "sample rate %g Hz is out of range (1000..1536000)",
                 fmt->sample_rate);
        return -1;
    }
    if (fmt->inputs != ir->inputs || fmt->outputs != ir->outputs) {
        snprintf(err, n, "the impulse response is %d in x %d out but the stream "
                 "is %d in x %d out", ir->inputs, ir->outputs, fmt->inputs,
                 fmt->outputs);
        return -1;
    }
    if (es_ir_check(ir, err, n) != 0)
        return -1;
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        snprintf(err, n, "%s is not available here: %s", k->name, why);
        return -1;
    }
    return 0;
}

es_engine *es_engine_create_sets(const es_engine_class *k, const es_format *fmt,
                                 const es_ir *const *sets, int count, const es_options *opt,
                                 char *err, size_t n)
{
    static const es_options defaults;
    if (k && !(k->caps & ES_CAP_SETS)) {
        char names[256];
        size_t at = 0;
        names[0] = 0;
        for (int c = 0; es_engines[c] && at < sizeof names; c++)
            if (es_engines[c]->caps & ES_CAP_SETS)
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                                       es_engines[c]->name);
        snprintf(err, n, "%s does not switch filter sets (engines that do: %s)", k->name, names);
        return NULL;
    }
    if (!sets || count < 1) {
        snprintf(err, n, "no filter sets given");
        return NULL;
    }
    for (int s = 0; s < count; s++) {
        char why[256];
        if (check_for(k, fmt, sets[s], why, sizeof why) != 0) {
            snprintf(err, n, "set %d of %d: %s", s + 1, count, why);
            return NULL;
        }
        if (sets[s]->sample_rate != sets[0]->sample_rate) {
            snprintf(err, n, "set %d of %d is at %g Hz, set 1 at %g Hz", s + 1, count,
                     sets[s]->sample_rate, sets[0]->sample_rate);
            return NULL;
        }
    }
    if (!k->create_sets) { /* a class this build has without its code (cuda_unavailable.c) */
        snprintf(err, n, "%s is not available here", k->name);
        return NULL;
    }
    opt = opt ? opt : &defaults;
    es_options one = *opt;
    if ((k->caps & ES_CAP_GPU) && opt->gpu.list.count != 0) {
        /* One GPU: a split matrix (gpu_split.c) has no sets to switch. */
        es_gpu_list gpus = {0, {0}};
        if (resolve_gpus(&opt->gpu.list, &gpus, err, n) != 0)
            return NULL;
        if (gpus.count > 1) {
            snprintf(err, n, "%s holds filter sets on one GPU; give one in --gpu", k->name);
            return NULL;
        }
        one.gpu.device = gpus.device[0];
        one.gpu.list.count = 0;
    }
    es_engine *e = k->create_sets(fmt, sets, count, &one, err, n);
    if (e)
        atomic_fetch_add_explicit(&engines_created, 1, memory_order_relaxed);
    return e;
}

es_engine *es_engine_create(const es_engine_class *k, const es_format *fmt,
                            const es_ir *ir, const es_options *opt,
                            char *err, size_t n)
{
    static const es_options defaults;
    if (check_for(k, fmt, ir, err, n) != 0)
        return NULL;
    opt = opt ? opt : &defaults;
    es_options one = *opt;
    es_gpu_list gpus = {0, {0}};
    if ((k->caps & ES_CAP_GPU) && opt->gpu.list.count != 0) {
        if (resolve_gpus(&opt->gpu.list, &gpus, err, n) != 0)
            return NULL;
        /* One entry only picks the device; several split the matrix. */
        one.gpu.device = gpus.device[0];
        one.gpu.list.count = 0;
    }
    es_engine *e = gpus.count > 1 ? es_gpu_split_create(k, fmt, ir, opt, &gpus, err, n)
                                  : k->create(fmt, ir, &one, err, n);
    if (e)
        atomic_fetch_add_explicit(&engines_created, 1, memory_order_relaxed);
    return e;
}

void es_engine_get_status(const es_engine *e, es_engine_status *st)
{
    memset(st, 0, sizeof *st);
    st->helpers_realtime = -1;
    st->field_order = -1;
    if (e && e->klass->status)
        e->klass->status(e, st);
}

int es_engine_param_parse(const char *text, void *dst, char *why, size_t n)
{
    const es_engine_class *k = es_engine_find(text);
    if (!k) {
        char names[256], mean[96];
        es_suggestion near = {0};
        for (const es_engine_class *const *c = es_engines; *c; c++)
            es_suggest_consider(&near, text, (*c)->name);
        snprintf(why, n, "unknown engine%s (choose from %s)",
                 es_suggest_text(&near, "", mean, sizeof mean),
                 es_engine_names(names, sizeof names));
        return -1;
    }
    *(const es_engine_class **)dst = k;
    return 0;
}

int es_gpu_list_parse(const char *text, es_gpu_list *l, char *why, size_t n)
{
    memset(l, 0, sizeof *l);
    if (strcmp(text, "all") == 0) {
        l->count = ES_GPUS_ALL;
        return 0;
    }
    const char *at = text;
    for (int entry = 1;; entry++) {
        const char *end = at + strcspn(at, ",");
        if (end == at) {
            snprintf(why, n, "entry %d is empty (a list is N,M,... of GPU ordinals, or all)",
                     entry);
            return -1;
        }
        if (*at == '-') {
            snprintf(why, n, "entry %d, '%.*s', is negative: GPU ordinals count from 0", entry,
                     (int)(end - at) > 20 ? 20 : (int)(end - at), at);
            return -1;
        }
        long v = 0;
        for (const char *c = at; c < end; c++) {
            if (*c < '0' || *c > '9') {
                snprintf(why, n, "entry %d, '%.*s', is not a GPU ordinal (0, 1, ...)", entry,
                         (int)(end - at) > 20 ? 20 : (int)(end - at), at);
                return -1;
            }
            v = v * 10 + (*c - '0');
            if (v > 1000) {
                snprintf(why, n, "entry %d is past any GPU ordinal", entry);
                return -1;
            }
        }
        if (l->count == ES_GPUS_MAX) {
            snprintf(why, n, "more than %d entries (one shard each)", ES_GPUS_MAX);
            return -1;
        }
        l->device[l->count++] = (int)v;
        if (!*end)
            return 0;
        at = end + 1;
    }
}

const char *es_gpu_list_text(const es_gpu_list *l, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    if (l->count == ES_GPUS_ALL)
        snprintf(buf, n, "all");
    for (int k = 0; k < l->count && at < n; k++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d", k ? "," : "", l->device[k]);
    return buf;
}

int es_gpu_list_for(const es_engine_class *k, const es_gpu_list *l, char *why, size_t n)
{
    if (l->count == 0 || (k->caps & ES_CAP_GPU))
        return 0;
    char text[80];
    snprintf(why, n, "--gpu %s: %s runs on the CPU; --gpu is for the GPU engines (earshot engines)",
             es_gpu_list_text(l, text, sizeof text), k->name);
    return -1;
}

int es_gpu_list_param_parse(const char *text, void *dst, char *why, size_t n)
{
    return es_gpu_list_parse(text, (es_gpu_list *)dst, why, n);
}

int es_engine_default_partition(int max_block)
{
    return es_default_partition(max_block);
}

void es_engine_destroy(es_engine *e)
{
    if (!e)
        return;
    atomic_fetch_add_explicit(&engines_destroyed, 1, memory_order_relaxed);
    e->klass->destroy(e);
}

int es_engine_load_set(es_engine *e, int set, const es_ir *ir, char *err, size_t n)
{
    if (!e->klass->load_set) {
        snprintf(err, n, "%s holds fixed filter sets", e->klass->name);
        return -1;
    }
    return e->klass->load_set(e, set, ir, err, n);
}

int es_engine_set_settled(const es_engine *e)
{
    return e->klass->set_settled ? e->klass->set_settled(e) : -1;
}

es_engine_class es_engine_class_over(const es_engine_class *of, const es_engine_class *calls)
{
    es_engine_class k = *calls;
    k.name = of->name;
    k.summary = of->summary;
    k.caps = of->caps;
    k.probe = of->probe;
    k.fallback = of->fallback;
    return k;
}

void es_engine_count_created(void)
{
    atomic_fetch_add_explicit(&engines_created, 1, memory_order_relaxed);
}

void es_engine_counts(uint64_t *created, uint64_t *destroyed)
{
    *created = atomic_load_explicit(&engines_created, memory_order_relaxed);
    *destroyed = atomic_load_explicit(&engines_destroyed, memory_order_relaxed);
}
