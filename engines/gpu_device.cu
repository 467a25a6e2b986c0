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

extern "C" int es_gpu_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

extern "C" int es_gpu_describe(int device, char *buf, size_t n)
{
    cudaDeviceProp prop;
    size_t free_bytes = 0, total = 0;
    cudaError_t rc = cudaGetDeviceProperties(&prop, device);
    if (rc == cudaSuccess && (rc = cudaSetDevice(device)) == cudaSuccess)
        rc = cudaMemGetInfo(&free_bytes, &total);
    if (rc != cudaSuccess) {
        snprintf(buf, n, "cannot be asked: %s", cudaGetErrorString(rc));
        return 0;
    }
    const double gib = 1024.0 * 1024.0 * 1024.0;
    snprintf(buf, n, "%s, %.1f of %.1f GiB free", prop.name, (double)free_bytes / gib,
             (double)total / gib);
    return 1;
}

extern "C" es_gpu_pipeline *es_gpu_engine_pipeline(es_engine *e)
{
    return ((es_gpu_engine *)e)->pipe;
}

#ifdef ES_TESTING
extern "C" void es_gpu_engine_fault_off(es_engine *e)
{
    ((es_gpu_engine *)e)->fail_after = 0;
}
#endif

cudaError_t es_gpu_wait(cudaStream_t stream)
{
    cudaError_t rc;
    while ((rc = cudaStreamQuery(stream)) == cudaErrorNotReady)
        ;
    return rc;
}

cudaError_t es_gpu_stream_create(es_gpu_engine *g, int priority)
{
#ifdef ES_TESTING
    g->fail_after = es_gpu_fail_after();
#endif
    cudaError_t rc = cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, priority);
    if (rc == cudaSuccess)
        rc = cudaEventCreate(&g->began);
    if (rc == cudaSuccess)
        rc = cudaEventCreate(&g->ended);
    return rc;
}

int es_gpu_engine_fault(es_gpu_engine *g, const char *engine, char *err, size_t n)
{
#ifdef ES_TESTING
    if (g->fail_after && ++g->launches > g->fail_after) {
        snprintf(err, n, "%s: simulated device error after %ld launches (EARSHOT_GPU_FAIL_AFTER)",
                 engine, g->fail_after);
        return -1;
    }
#else
    (void)g, (void)engine, (void)err, (void)n;
#endif
    return 0;
}

cudaError_t es_gpu_launch_timed(es_gpu_engine *g)
{
    cudaError_t rc;
    float ms = 0;
    if ((rc = cudaEventRecord(g->began, g->stream)) != cudaSuccess ||
        (rc = cudaGraphLaunch(g->launch_alt && g->exec_alt ? g->exec_alt : g->exec,
                              g->stream)) != cudaSuccess ||
        (rc = cudaEventRecord(g->ended, g->stream)) != cudaSuccess ||
        (rc = es_gpu_wait(g->stream)) != cudaSuccess ||
        (rc = cudaEventElapsedTime(&ms, g->began, g->ended)) != cudaSuccess)
        return rc;
    g->job_gpu_us += 1e3 * (double)ms;
    return cudaSuccess;
}

void es_gpu_engine_release(es_gpu_engine *g)
{
    es_gpu_pipeline_destroy(g->pipe);
    g->pipe = NULL;
    cudaSetDevice(g->device);
    if (g->exec)
        cudaGraphExecDestroy(g->exec);
    if (g->exec_alt)
        cudaGraphExecDestroy(g->exec_alt);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    if (g->began)
        cudaEventDestroy(g->began);
    if (g->ended)
        cudaEventDestroy(g->ended);
    g->exec = g->exec_alt = NULL;
    g->stream = NULL;
    g->began = g->ended = NULL;
    es_gpu_paths_free(&g->pt);
    es_staging_free(&g->st);
}

int es_gpu_engine_start(es_gpu_engine *g, void *ctx, int (*run)(void *, int, char *, size_t),
                        int (*reset)(void *, char *, size_t),
                        int (*after)(void *, char *, size_t), const es_engine_class *klass,
                        const es_format *fmt, const es_options *opt, char *err, size_t n)
{
    es_gpu_backend b = {ctx, g->st.in, g->st.out, es_gpu_engine_thread_init, run, reset, after,
                        &g->job_gpu_us, NULL, NULL, 0, &g->job_word_next, &g->job_word};
    if (g->hands_over) {
        b.tag = &es_staging_header(&g->st)->tag;
        b.ready = g->st.host_ready;
        b.chunk_outputs = g->st.chunk_outputs;
    }
    if (!(g->pipe = es_gpu_pipeline_create(&b, g->st.inputs, g->st.outputs, g->st.max_block,
                                           fmt->sample_rate, opt, err, n)))
        return -1;
    g->base.klass = klass;
    return 0;
}

int es_staging_hands_over(const es_gpu_staging *s)
{
    const char *set = getenv("EARSHOT_GPU_HAND_OVER");
    return s->chunks > 1 && !(set && strcmp(set, "0") == 0);
}

int es_gpu_engine_probe(char *why, size_t n)
{
    /* cuFFT comes with the first GPU engine asked for (cufft_loaded.h). */
    return es_gpu_probe(0, why, n) && es_cufft_load(why, n);
}

void es_gpu_engine_process(es_engine *e, const float *const *in, float *const *out, int frames)
{
    es_gpu_pipeline_process(((es_gpu_engine *)e)->pipe, in, out, frames);
}

void es_gpu_engine_process_views(es_engine *e, const float *const *in, float *const *own,
                                 float **views, int frames)
{
    es_gpu_pipeline_process_views(((es_gpu_engine *)e)->pipe, in, own, views, frames);
}

int es_gpu_engine_latency(const es_engine *e)
{
    return es_gpu_pipeline_latency(((const es_gpu_engine *)e)->pipe);
}

void es_gpu_engine_reset(es_engine *e)
{
    es_gpu_pipeline_reset(((es_gpu_engine *)e)->pipe);
}

void es_gpu_engine_freewheel(es_engine *e, int on)
{
    es_gpu_pipeline_freewheel(((es_gpu_engine *)e)->pipe, on);
}

void es_gpu_engine_status(const es_engine *e, es_engine_status *st)
{
    const es_gpu_engine *g = (const es_gpu_engine *)e;
    es_gpu_pipeline_status(g->pipe, st);
    /* The staging is pinned host memory; only its header copy is the
     * device's. */
    st->gpu.bytes = g->held + sizeof(es_gpu_header) + sizeof(unsigned) * (size_t)g->st.chunks +
                       sizeof(int) * (3 * (size_t)g->pt.count + g->pt.outputs + 1);
}

int es_gpu_engine_thread_init(void *ctx, char *err, size_t n)
{
    cudaError_t rc = cudaSetDevice(((es_gpu_engine *)ctx)->device);
    if (rc != cudaSuccess) {
        snprintf(err, n, "GPU worker: cudaSetDevice: %s", cudaGetErrorString(rc));
        return -1;
    }
    return 0;
}

int es_gpu_paths_make(es_gpu_paths *p, const es_ir *ir, cudaStream_t stream,
                      const char *engine, char *err, size_t n)
{
    memset(p, 0, sizeof *p);
    p->count = es_ir_path_count(ir);
    p->outputs = ir->outputs;
    const size_t paths = sizeof(int) * p->count, outs = sizeof(int) * (ir->outputs + 1);
    p->row = (int *)malloc(paths);
    p->input = (int *)malloc(paths);
    p->output = (int *)malloc(paths);
    p->out_paths = (int *)malloc(paths);
    p->out_first = (int *)malloc(outs);
    if (!p->row || !p->input || !p->output || !p->out_paths || !p->out_first) {
        snprintf(err, n, "%s: out of memory", engine);
        return -1;
    }
    for (int r = 0, k = 0; r < ir->inputs * ir->outputs; r++)
        if (ir->taps[r]) {
            p->row[k] = r;
            p->input[k] = r / ir->outputs;
            p->output[k++] = r % ir->outputs;
        }
    for (int o = 0, k = 0; o < ir->outputs; o++) {
        p->out_first[o] = k;
        for (int q = 0; q < p->count; q++)
            if (p->output[q] == o)
                p->out_paths[k++] = q;
        p->out_first[o + 1] = k;
    }
    cudaError_t rc;
    if ((rc = cudaMalloc(&p->dev_input, paths)) != cudaSuccess ||
        (rc = cudaMalloc(&p->dev_output, paths)) != cudaSuccess ||
        (rc = cudaMalloc(&p->dev_out_paths, paths)) != cudaSuccess ||
        (rc = cudaMalloc(&p->dev_out_first, outs)) != cudaSuccess ||
        (rc = cudaMemcpyAsync(p->dev_input, p->input, paths, cudaMemcpyHostToDevice, stream)) ||
        (rc = cudaMemcpyAsync(p->dev_output, p->output, paths, cudaMemcpyHostToDevice, stream)) ||
        (rc = cudaMemcpyAsync(p->dev_out_paths, p->out_paths, paths, cudaMemcpyHostToDevice,
                              stream)) ||
        (rc = cudaMemcpyAsync(p->dev_out_first, p->out_first, outs, cudaMemcpyHostToDevice,
                              stream)) ||
        (rc = cudaStreamSynchronize(stream))) {
        snprintf(err, n, "%s: uploading the path tables: %s", engine, cudaGetErrorString(rc));
        return -1;
    }
    return 0;
}

void es_gpu_paths_free(es_gpu_paths *p)
{
    free(p->row);
    free(p->input);
    free(p->output);
    free(p->out_first);
    free(p->out_paths);
    cudaFree(p->dev_input);
    cudaFree(p->dev_output);
    cudaFree(p->dev_out_first);
    cudaFree(p->dev_out_paths);
    memset(p, 0, sizeof *p);
}

cudaError_t es_gpu_capture_finish(cudaStream_t stream, cudaGraphExec_t *exec)
{
    cudaGraph_t graph = NULL;
    cudaError_t rc = cudaStreamEndCapture(stream, &graph);
    if (rc == cudaSuccess)
        rc = cudaGraphInstantiate(exec, graph, 0);
    if (graph)
        cudaGraphDestroy(graph);
    return rc;
}

void es_gpu_capture_abandon(cudaStream_t stream)
{
    cudaGraph_t broken = NULL;
    cudaStreamEndCapture(stream, &broken);
    if (broken)
        cudaGraphDestroy(broken);
    cudaGetLastError(); /* clear the capture's error for the next call */
}

void es_gpu_priorities(int *least, int *greatest)
{
    *least = *greatest = 0;
    if (cudaDeviceGetStreamPriorityRange(least, greatest) != cudaSuccess) {
        cudaGetLastError();
        *least = *greatest = 0;
    }
}

int es_gpu_multiprocessors(void)
{
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms > 0 ? sms : 1;
}

#ifdef ES_TESTING
long es_gpu_fail_after(void)
{
    const char *v = getenv("EARSHOT_GPU_FAIL_AFTER");
    return v ? strtol(v, NULL, 10) : 0;
}
#endif

int es_staging_alloc(es_gpu_staging *s, int inputs, int outputs, int max_block,
                     const char *engine, char *err, size_t n)
{
    const size_t up = sizeof(es_gpu_header) + sizeof(float) * (size_t)inputs * max_block;
    const size_t down = sizeof(float) * (size_t)outputs * max_block;
    memset(s, 0, sizeof *s);
    s->inputs = inputs;
    s->outputs = outputs;
    s->max_block = max_block;
    /* Chunks of about 16 KB: small enough that the host copies the first
     * while most of the block is still on its way, few enough to poll. */
    s->chunk_outputs = (int)(16384 / (sizeof(float) * (size_t)max_block));
    s->chunk_outputs = s->chunk_outputs < 1 ? 1 : s->chunk_outputs;
    s->chunks = (outputs + s->chunk_outputs - 1) / s->chunk_outputs;
    const size_t flags = sizeof(unsigned) * (size_t)s->chunks;
    s->in = (float **)calloc((size_t)inputs, sizeof *s->in);
    s->out = (float **)calloc((size_t)outputs, sizeof *s->out);
    cudaError_t rc = cudaSuccess;
    if (!s->in || !s->out ||
        (rc = cudaHostAlloc((void **)&s->host_up, up, cudaHostAllocMapped)) != cudaSuccess ||
        (rc = cudaHostAlloc((void **)&s->host_down, down, cudaHostAllocMapped)) != cudaSuccess ||
        (rc = cudaHostGetDevicePointer((void **)&s->map_up, s->host_up, 0)) != cudaSuccess ||
        (rc = cudaHostGetDevicePointer((void **)&s->map_down, s->host_down, 0)) != cudaSuccess ||
        (rc = cudaMalloc((void **)&s->dev_header, sizeof(es_gpu_header))) != cudaSuccess ||
        (rc = cudaHostAlloc((void **)&s->host_ready, flags, cudaHostAllocMapped)) != cudaSuccess ||
        (rc = cudaHostGetDevicePointer((void **)&s->map_ready, s->host_ready, 0)) != cudaSuccess ||
        (rc = cudaMalloc((void **)&s->dev_count, flags)) != cudaSuccess ||
        (rc = cudaMemset(s->dev_count, 0, flags)) != cudaSuccess) {
        snprintf(err, n, "%s: cannot allocate staging buffers: %s", engine,
                 rc == cudaSuccess ? "out of memory" : cudaGetErrorString(rc));
        return -1;
    }
    memset(s->host_up, 0, up);
    memset(s->host_down, 0, down);
    memset(s->host_ready, 0, flags); /* tag 0 is never a job's */
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
    cudaFree(s->dev_header);
    cudaFreeHost(s->host_ready);
    cudaFree(s->dev_count);
    free(s->in);
    free(s->out);
    memset(s, 0, sizeof *s);
}
