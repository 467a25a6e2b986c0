/* CUDA device discovery for the GPU engines' probes (internal; C API, no
 * CUDA types). */
#ifndef ES_GPU_DEVICE_H
#define ES_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when `device` can run the CUDA engines; `why` then names the GPU.
 * 0 with the reason otherwise: no device, driver too old, ordinal out of
 * range. Creates the CUDA context on success, so the first engine build
 * does not pay for it. */
int es_gpu_probe(int device, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
