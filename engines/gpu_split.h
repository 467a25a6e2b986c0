/* A GPU engine's matrix split by outputs over several GPUs (internal to
 * engines/; es_engine_create makes one when es_options.gpu.list lists more
 * than one entry). */
#ifndef ES_GPU_SPLIT_H
#define ES_GPU_SPLIT_H

#include <stddef.h>

#include "engine.h"

/* One instance of class k per entry of gpus (resolved: no ES_GPUS_ALL),
 * each on that device with its share of the outputs; an instance whose
 * class is k in name and in everything but the functions that run the
 * shards together. NULL with one line in err. */
es_engine *es_gpu_split_create(const es_engine_class *k, const es_format *fmt, const es_ir *ir,
                               const es_options *opt, const es_gpu_list *gpus, char *err,
                               size_t n);

#endif
