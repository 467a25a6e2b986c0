/* earshot-gpu-floor: what one block costs on this GPU and host before any
 * convolution, the same way the GPU engines move a block (pinned staging
 * mapped into the device, a CUDA graph launched and polled from one thread):
 *
 *   - the graph floor: a one-kernel graph that reads the inputs from the
 *     staging and writes the outputs into it, from cudaGraphLaunch to the
 *     poll that sees it done;
 *   - the outputs' way home: a kernel writes OUTPUTS x BLOCK floats into the
 *     staging, then the host copies them into OUTPUTS separate buffers, as
 *     process() does into the caller's.
 *
 * Runs are paced a block period apart at 48 kHz (an absolute sleep, as
 * `earshot-bench --paced` paces a callback), and the whole block (launch to
 * the last output in the caller's buffers) is reported beside its parts:
 * no engine that moves a block this way can have a lower p99 on the same
 * machine. The GPU engines lend the staging to the processor's mix
 * (es_engine_process_views), so a block costs them the first part only;
 * `earshot-bench --copy-out`, the way they worked before, pays both.
 *   earshot-gpu-floor [OUTPUTS [BLOCK [RUNS]]]     default 1024 128 3000 */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    printf("%-52s p50 %8.2f us  p99 %8.2f us  p99.9 %8.2f us\n", what, v[n / 2],
           v[(int)((n - 1) * 0.99)], v[(int)((n - 1) * 0.999)]);
}

/* Every output sample from the one input block, so the writes are real. */
__global__ void floor_kernel(const float *in, float *out, int outputs, int block)
{
    const int o = blockIdx.y;
    for (int t = threadIdx.x; t < block; t += blockDim.x)
        if (o < outputs)
            out[(size_t)o * block + t] = in[t] * (float)(o + 1);
}

#define TRY(call)                                                                    \
    do {                                                                             \
        const cudaError_t rc_ = (call);                                              \
        if (rc_ != cudaSuccess) {                                                    \
            fprintf(stderr, "earshot-gpu-floor: %s: %s\n", #call, cudaGetErrorString(rc_)); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(int argc, char **argv)
{
    const int outputs = argc > 1 ? atoi(argv[1]) : 1024;
    const int block = argc > 2 ? atoi(argv[2]) : 128;
    const int runs = argc > 3 ? atoi(argv[3]) : 3000;
    if (outputs < 1 || outputs > 65535 || block < 1 || block > 65536 || runs < 10) {
        fprintf(stderr, "earshot-gpu-floor: usage: earshot-gpu-floor [OUTPUTS 1..65535 "
                        "[BLOCK 1..65536 [RUNS >= 10]]]\n");
        return 2;
    }
    const size_t out_bytes = sizeof(float) * (size_t)outputs * block;
    float *host_in, *host_out, *dev_in, *dev_out;
    TRY(cudaHostAlloc((void **)&host_in, sizeof(float) * block, cudaHostAllocMapped));
    TRY(cudaHostAlloc((void **)&host_out, out_bytes, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&dev_in, host_in, 0));
    TRY(cudaHostGetDevicePointer((void **)&dev_out, host_out, 0));
    for (int t = 0; t < block; t++)
        host_in[t] = (float)t;
    float **caller = (float **)malloc(sizeof *caller * (size_t)outputs);
    double *launch = (double *)malloc(sizeof(double) * runs);
    double *copy = (double *)malloc(sizeof(double) * runs);
    double *whole = (double *)malloc(sizeof(double) * runs);
    if (!caller || !launch || !copy || !whole)
        return 1;
    for (int o = 0; o < outputs; o++)
        if (!(caller[o] = (float *)calloc((size_t)block, sizeof(float))))
            return 1;
    int least, greatest;
    TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t stream;
    TRY(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    floor_kernel<<<dim3(1, outputs), 128, 0, stream>>>(dev_in, dev_out, outputs, block);
    TRY(cudaStreamEndCapture(stream, &graph));
    TRY(cudaGraphInstantiate(&exec, graph, 0));
    cudaDeviceProp prop;
    TRY(cudaGetDeviceProperties(&prop, 0));
    printf("earshot-gpu-floor: %s, %d outputs x %d frames (%.0f KB a block), %d runs a block apart\n",
           prop.name, outputs, block, out_bytes / 1024.0, runs);
    const long period_ns = (long)(1e9 * block / 48000.0);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int r = 0; r < runs; r++) {
        next.tv_nsec += period_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        const double t0 = now_us();
        TRY(cudaGraphLaunch(exec, stream));
        cudaError_t rc;
        while ((rc = cudaStreamQuery(stream)) == cudaErrorNotReady)
            ;
        TRY(rc);
        const double t1 = now_us();
        for (int o = 0; o < outputs; o++)
            memcpy(caller[o], host_out + (size_t)o * block, sizeof(float) * block);
        const double t2 = now_us();
        launch[r] = t1 - t0;
        copy[r] = t2 - t1;
        whole[r] = t2 - t0;
    }
    if (caller[outputs - 1][block - 1] != (float)(block - 1) * (float)outputs) {
        fprintf(stderr, "earshot-gpu-floor: the outputs did not arrive\n");
        return 1;
    }
    report("graph launch to done (kernel writes the outputs)", launch, runs);
    report("host copy of the outputs into separate buffers", copy, runs);
    report("the whole block (launch to the last output copied)", whole, runs);
    return 0;
}
