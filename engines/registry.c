/* The engines users can pick, by name. The name is also the config key. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "classes.h"
#include "partition.h"
#include "engine_params.h"

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

es_engine *es_engine_create(const es_engine_class *k, const es_format *fmt,
                            const es_ir *ir, const es_options *opt,
                            char *err, size_t n)
{
    static const es_options defaults;
    if (!k || !fmt || !ir) {
        snprintf(err, n, "no engine, format or impulse response given");
        return NULL;
    }
    if (fmt->max_block < 1 || fmt->max_block > ES_MAX_BLOCK) {
        snprintf(err, n, "block size %d is out of range (1..%d)", fmt->max_block,
                 ES_MAX_BLOCK);
        return NULL;
    }
    if (!(fmt->sample_rate >= 1000 && fmt->sample_rate <= 1536000)) {
        snprintf(err, n, "sample rate %g Hz is out of range (1000..1536000)",
                 fmt->sample_rate);
        return NULL;
    }
    if (fmt->inputs != ir->inputs || fmt->outputs != ir->outputs) {
        snprintf(err, n, "the impulse response is %d in x %d out but the stream "
                 "is %d in x %d out", ir->inputs, ir->outputs, fmt->inputs,
                 fmt->outputs);
        return NULL;
    }
    if (es_ir_check(ir, err, n) != ES_OK)
        return NULL;
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        snprintf(err, n, "%s is not available here: %s", k->name, why);
        return NULL;
    }
    es_engine *e = k->create(fmt, ir, opt ? opt : &defaults, err, n);
    if (e)
        atomic_fetch_add_explicit(&engines_created, 1, memory_order_relaxed);
    return e;
}

void es_engine_get_status(const es_engine *e, es_engine_status *st)
{
    memset(st, 0, sizeof *st);
    st->helpers_realtime = -1;
    if (e && e->klass->status)
        e->klass->status(e, st);
}

int es_engine_param_parse(const char *text, void *dst, char *why, size_t n)
{
    const es_engine_class *k = es_engine_find(text);
    if (!k) {
        char names[256];
        snprintf(why, n, "unknown engine (choose from %s)", es_engine_names(names, sizeof names));
        return -1;
    }
    *(const es_engine_class **)dst = k;
    return 0;
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

void es_engine_counts(uint64_t *created, uint64_t *destroyed)
{
    *created = atomic_load_explicit(&engines_created, memory_order_relaxed);
    *destroyed = atomic_load_explicit(&engines_destroyed, memory_order_relaxed);
}
