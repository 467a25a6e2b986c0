/* The GPU part of the engine contract: what a host may ask of a GPU engine
 * (which GPUs, and the plan of a shard of a split matrix) and what a GPU
 * engine reports (its device memory and time, and each shard's). engine.h
 * carries these as one member each (es_options.gpu, es_engine_status.gpu);
 * a CPU engine never reads them and an engine author who does not write
 * for a GPU need not read further than this comment. */
#ifndef ES_ENGINE_GPU_H
#define ES_ENGINE_GPU_H

#include <stddef.h>
#include <stdint.h>

/* The GPUs a GPU engine runs on (--gpu 0,1 or all). One entry: that
 * device. Several: the matrix is split by outputs into one shard per entry
 * (gpu_split.c), and an entry may repeat (--gpu 0,0 puts two shards on one
 * GPU). count 0: none given (es_gpu_options.device); ES_GPUS_ALL: every
 * GPU the machine has, resolved when an instance is created. */
#define ES_GPUS_MAX 16
#define ES_GPUS_ALL (-1)
typedef struct {
    int count;
    int device[ES_GPUS_MAX];
} es_gpu_list;

/* GPU knobs (es_options.gpu). Zero is every default. */
typedef struct {
    int device;            /* CUDA device ordinal (a single instance's) */
    es_gpu_list list;      /* the GPUs a host asked for (--gpu); when given,
                            * es_engine_create sets `device` from it or
                            * splits the matrix over them */
    int plan_outputs, plan_paths; /* a shard of a split (gpu_split.c): an
                            * engine that chooses its plan by the matrix's
                            * size chooses it for these, the whole matrix's
                            * outputs and paths, so that each shard computes
                            * its outputs exactly as the whole would (0: by
                            * its own IR) */
} es_gpu_options;

#define ES_DEVICE_RECENT 4

/* One shard of a matrix split over GPUs (gpu_split.c): its CUDA device,
 * its first output and how many, the blocks it was late (or dropped), the
 * device memory it holds and its largest GPU time per job. */
typedef struct {
    int device, first_output, outputs;
    uint64_t late, device_bytes;
    double device_max_us;
} es_shard_status;

/* A GPU engine's condition (es_engine_status.gpu); all zero for the CPU's. */
typedef struct {
    uint64_t bytes;        /* device memory the instance holds (its buffers,
                            * and cuFFT's work areas) */
    double us;             /* the last job's time on the GPU (CUDA events
                            * around its launches), us */
    double max_us;         /* the largest of those so far */
    uint64_t seq;          /* the GPU job `us` belongs to (jobs count from
                            * 1; 0: none yet) */
    /* The last ES_DEVICE_RECENT jobs the GPU finished: job numbers (0: none)
     * and their GPU times, so a late block's own job can be looked up once
     * it has finished, also when later jobs finished since. */
    uint64_t recent_seq[ES_DEVICE_RECENT];
    double recent_us[ES_DEVICE_RECENT];
    uint64_t result_seq;   /* the job whose result the last process() call
                            * played or found late (0: none) */
    int shards;            /* a matrix split over GPUs: its shards (0: not split) */
    es_shard_status shard[ES_GPUS_MAX];
} es_gpu_status;

/* ---- GPUs (gpu_device.cu; without CUDA, cuda_unavailable.c) ---- */

/* CUDA devices on this machine: 0 with no driver, no device or no CUDA in
 * this build. */
int es_gpu_count(void);
/* "NVIDIA H100 80GB HBM3, 78.9 of 79.2 GiB free" into buf: 1; 0 and why
 * in buf when the device cannot be asked. */
int es_gpu_describe(int device, char *buf, size_t n);
/* "0,1" or "all" (or "" for none) into buf; returns buf. */
const char *es_gpu_list_text(const es_gpu_list *l, char *buf, size_t n);
/* Parses --gpu's text (N, N,M,..., all) into *l: 0, or -1 with one line
 * naming the entry that is wrong. Whether the GPUs exist is checked when
 * an instance is created (es_engine_create), where the machine is known. */
int es_gpu_list_parse(const char *text, es_gpu_list *l, char *why, size_t n);

#endif
