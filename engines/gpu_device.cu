/* CUDA device discovery and the staging buffers both GPU engines use. */
#include <cstdlib>
#include <cstring>

#include "gpu_common.cuh"
#include "gpu_device.h"

#define ES_ENGINE_NAME "gpu"

extern "C" int es_gpu_probe(int device, char *why, size_t n)
{
    int count = 0, driver = 0, runtime = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0) {
        snprintf(why, n, "no NVIDIA driver is loaded (no GPU on this machine?)");
        return 0;
    }
    if (rc == cudaErrorInsufficientDriver || driver < runtime) {
        snprintf(why, n, "the NVIDIA driver is too old: it supports CUDA %d.%d, "
                 "earshot was built with %d.%d", driver / 1000, driver % 1000 / 10,
                 runtime / 1000, runtime % 1000 / 10);
        return 0;
    }
    if (rc == cudaErrorNoDevice || (rc == cudaSuccess && count == 0)) {
        snprintf(why, n, "no CUDA device on this machine");
        return 0;
    }
    if (rc != cudaSuccess) {
        snprintf(why, n, "no usable CUDA device: %s", cudaGetErrorString(rc));
        return 0;
    }
    if (device < 0 || device >= count) {
        snprintf(why, n, "GPU %d does not exist (this machine has %d)", device, count);
        return 0;
    }
    cudaDeviceProp prop;
    if ((rc = cudaGetDeviceProperties(&prop, device)) != cudaSuccess ||
        (rc = cudaSetDevice(device)) != cudaSuccess || (rc = cudaFree(0)) != cudaSuccess) {
        snprintf(why, n, "GPU %d cannot be used: %s", device, cudaGetErrorString(rc));
        return 0;
    }
    snprintf(why, n, "GPU %d: %s, compute %d.%d, %d SMs, driver CUDA %d.%d", device,
             prop.name, prop.major, prop.minor, prop.multiProcessorCount, driver / 1000,
             driver % 1000 / 10);
    return 1;
}

cudaError_t es_gpu_wait(cudaStream_t stream)
{
    cudaError_t rc;
    while ((rc = cudaStreamQuery(stream)) == cudaErrorNotReady)
        ;
    return rc;
}

int es_gpu_multiprocessors(void)
{
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms > 0 ? sms : 1;
}

long es_gpu_fail_after(void)
{
    const char *v = getenv("ES_GPU_FAIL_AFTER");
    return v ? strtol(v, NULL, 10) : 0;
}

int es_staging_alloc(es_gpu_staging *s, int inputs, int outputs, int max_block,
                     const char *engine, char *err, size_t n)
{
    const size_t up = sizeof(es_gpu_header) + sizeof(float) * (size_t)inputs * max_block;
    const size_t down = sizeof(float) * (size_t)outputs * max_block;
    memset(s, 0, sizeof *s);
    s->inputs = inputs;
    s->outputs = outputs;
    s->max_block = max_block;
    s->in = (float **)calloc((size_t)inputs, sizeof *s->in);
    s->out = (float **)calloc((size_t)outputs, sizeof *s->out);
    cudaError_t rc = cudaSuccess;
    if (!s->in || !s->out ||
        (rc = cudaHostAlloc((void **)&s->host_up, up, cudaHostAllocDefault)) != cudaSuccess ||
        (rc = cudaHostAlloc((void **)&s->host_down, down, cudaHostAllocDefault)) != cudaSuccess ||
        (rc = cudaMalloc((void **)&s->dev_up, up)) != cudaSuccess ||
        (rc = cudaMalloc((void **)&s->dev_down, down)) != cudaSuccess) {
        snprintf(err, n, "%s: cannot allocate staging buffers: %s", engine,
                 rc == cudaSuccess ? "out of memory" : cudaGetErrorString(rc));
        return -1;
    }
    memset(s->host_up, 0, up);
    memset(s->host_down, 0, down);
    for (int i = 0; i < inputs; i++)
        s->in[i] = (float *)(s->host_up + sizeof(es_gpu_header)) + (size_t)i * max_block;
    for (int o = 0; o < outputs; o++)
        s->out[o] = s->host_down + (size_t)o * max_block;
    return 0;
}

void es_staging_free(es_gpu_staging *s)
{
    cudaFreeHost(s->host_up);
    cudaFreeHost(s->host_down);
    cudaFree(s->dev_up);
    cudaFree(s->dev_down);
    free(s->in);
    free(s->out);
    memset(s, 0, sizeof *s);
}

cudaError_t es_staging_upload(const es_gpu_staging *s, cudaStream_t stream)
{
    const size_t up = sizeof(es_gpu_header) + sizeof(float) * (size_t)s->inputs * s->max_block;
    return cudaMemcpyAsync(s->dev_up, s->host_up, up, cudaMemcpyHostToDevice, stream);
}

cudaError_t es_staging_download(const es_gpu_staging *s, cudaStream_t stream)
{
    const size_t down = sizeof(float) * (size_t)s->outputs * s->max_block;
    return cudaMemcpyAsync(s->host_down, s->dev_down, down, cudaMemcpyDeviceToHost, stream);
}
