#include <stdio.h>

#include "fallback.h"

int es_fallback_poll(es_processor *p, const es_ir *ir, char *what, size_t n)
{
    es_stats s;
    es_processor_stats(p, &s);
    /* A swap already queued is the fallback under way. */
    if (!s.engine_failed || es_processor_swap_pending(p))
        return 0;
    const es_engine_class *k = es_engine_fallback(s.engine);
    es_options opt = {.fft_measure = 1};
    char why[256];
    es_engine *e = es_engine_create(k, es_processor_format(p), ir, &opt, why, sizeof why);
    if (!e) {
        snprintf(what, n, "%s failed (%s) and %s could not take over: %s", s.engine,
                 s.engine_error, k->name, why);
        return -1;
    }
    if (es_processor_swap(p, e, es_processor_format(p), why, sizeof why) != 0) {
        es_engine_destroy(e);
        snprintf(what, n, "%s failed (%s) and the switch to %s was refused: %s", s.engine,
                 s.engine_error, k->name, why);
        return -1;
    }
    snprintf(what, n, "%s failed (%s); switched to %s, same room", s.engine, s.engine_error,
             k->name);
    return 1;
}
