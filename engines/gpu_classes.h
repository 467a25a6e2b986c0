/* The GPU engines as users see them, written once: each class's name,
 * summary, capabilities and fallback, for its .cu file (which adds the
 * functions) and for cuda_unavailable.c (the same classes in a build
 * without CUDA, whose probe says why they cannot run). Internal to
 * engines/. Each _DESCRIPTOR is the class's first three members, in
 * order, so C's designated initializers and C++'s aggregate ones take it
 * alike. */
#ifndef ES_GPU_CLASSES_H
#define ES_GPU_CLASSES_H

#include "engine.h"

#define ES_GPU_CAPS (ES_CAP_PIPELINED | ES_CAP_GPU | ES_CAP_HELPERS)

#define ES_CUDA_CIRCULAR_DESCRIPTOR                                                         \
    "cuda-circular",                                                                        \
        "time-domain convolution on the GPU, device-side circular buffer, CUDA graph per "  \
        "block",                                                                            \
        ES_GPU_CAPS
#define ES_CUDA_CIRCULAR_FALLBACK "cpu-partitioned"

#define ES_CUDA_PARTITIONED_DESCRIPTOR                                                      \
    "cuda-partitioned",                                                                     \
        "uniformly partitioned overlap-save on the GPU with cuFFT, CUDA graph per block",   \
        ES_CAP_PARTITION | ES_CAP_SETS | ES_GPU_CAPS
#define ES_CUDA_PARTITIONED_FALLBACK "cpu-partitioned"

#define ES_CUDA_NONUNIFORM_DESCRIPTOR                                                       \
    "cuda-nonuniform",                                                                      \
        "non-uniformly partitioned on the GPU, zero latency: head in the callback's graph, " \
        "tail levels on low-priority streams",                                              \
        ES_CAP_PARTITION | ES_GPU_CAPS
#define ES_CUDA_NONUNIFORM_FALLBACK "cpu-nonuniform" /* zero latency too, on the CPU */

#endif
