/* CUDA device discovery for the GPU engines' probes (internal; C API, no
 * CUDA types). */
#ifndef ES_GPU_DEVICE_H
#define ES_GPU_DEVICE_H

#include <stddef.h>

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when `device` can run the CUDA engines; `why` then names the GPU.
 * 0 with the reason otherwise: no device, driver too old, ordinal out of
 * range. Creates the CUDA context on success, so the first engine build
 * does not pay for it. */
int es_gpu_probe(int device, char *why, size_t n);

/* The worker pipeline of a GPU engine instance (every CUDA engine's
 * struct starts with es_gpu_engine), for gpu_split.c, which runs several
 * in one block. */
struct es_gpu_pipeline;
struct es_gpu_pipeline *es_gpu_engine_pipeline(es_engine *e);

/* Test builds: no simulated fault in this instance (EARSHOT_GPU_FAIL_AFTER
 * then fails only the shards gpu_split.c leaves it in). Defined in the
 * testing library, and without CUDA in both. */
void es_gpu_engine_fault_off(es_engine *e);

#ifdef __cplusplus
}
#endif

#endif
