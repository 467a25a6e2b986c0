/* The CUDA engines' classes when earshot was built without the CUDA
 * toolkit: listed like every engine, and their probe says why they cannot
 * run, so `earshot engines` always shows all six. */
#include <stdio.h>

#include "classes.h"
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

const es_engine_class es_engine_cuda_circular = {
    .name = "cuda-circular",
    .summary = "time-domain convolution on the GPU, device-side circular buffer",
    .caps = ES_CAP_PIPELINED | ES_CAP_GPU | ES_CAP_HELPERS,
    .probe = not_built,
    .create = no_create,
};

const es_engine_class es_engine_cuda_nonuniform = {
    .name = "cuda-nonuniform",
    .summary = "non-uniformly partitioned on the GPU, zero latency: head in the callback's "
               "graph, tail levels on low-priority streams",
    .caps = ES_CAP_PARTITION | ES_CAP_PIPELINED | ES_CAP_GPU | ES_CAP_HELPERS,
    .probe = not_built,
    .create = no_create,
    .fallback = "cpu-nonuniform",
};

const es_engine_class es_engine_cuda_partitioned = {
    .name = "cuda-partitioned",
    .summary = "uniformly partitioned overlap-save on the GPU with cuFFT",
    .caps = ES_CAP_PARTITION | ES_CAP_PIPELINED | ES_CAP_GPU | ES_CAP_HELPERS,
    .probe = not_built,
    .create = no_create,
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
