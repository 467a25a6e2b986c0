/* The CUDA engines' classes when earshot was built without the CUDA
 * toolkit: listed like every engine, and their probe says why they cannot
 * run, so `earshot engines` always shows all six. */
#include <stdio.h>

#include "classes.h"
#include "gpu_classes.h"
#include "gpu_device.h"

static int not_built(char *why, size_t n)
{
    snprintf(why, n, "not built: this earshot was configured without the CUDA "
             "toolkit (EARSHOT_CUDA=OFF or nvcc not found)");
    return 0;
}

/* es_engine_create() probes first, so create is never reached; it still
 * answers properly for anyone calling the class directly. */
static es_engine *no_create(const es_format *fmt, const es_ir *ir,
                            const es_options *opt, char *err, size_t n)
{
    (void)fmt, (void)ir, (void)opt;
    not_built(err, n);
    return NULL;
}

/* Name, summary, caps and fallback from gpu_classes.h, as the CUDA
 * build's. */
const es_engine_class es_engine_cuda_circular = {
    ES_CUDA_CIRCULAR_DESCRIPTOR,
    .probe = not_built,
    .create = no_create,
    .fallback = ES_CUDA_CIRCULAR_FALLBACK,
};

const es_engine_class es_engine_cuda_nonuniform = {
    ES_CUDA_NONUNIFORM_DESCRIPTOR,
    .probe = not_built,
    .create = no_create,
    .fallback = ES_CUDA_NONUNIFORM_FALLBACK,
};

const es_engine_class es_engine_cuda_partitioned = {
    ES_CUDA_PARTITIONED_DESCRIPTOR,
    .probe = not_built,
    .create = no_create,
    .fallback = ES_CUDA_PARTITIONED_FALLBACK,
};

int es_gpu_count(void)
{
    return 0;
}

int es_gpu_describe(int device, char *buf, size_t n)
{
    (void)device;
    return not_built(buf, n);
}

/* Never reached: a split is only made of instances that were created. */
struct es_gpu_pipeline *es_gpu_engine_pipeline(es_engine *e)
{
    (void)e;
    return NULL;
}

/* Built once for both libraries (this file has no test hooks): the
 * testing one's gpu_split.c calls it. */
void es_gpu_engine_fault_off(es_engine *e)
{
    (void)e;
}
