/* One uniformly partitioned overlap-save convolution on the device
 * (internal; CUDA C++ only). cuda-partitioned is one of these; cuda-nonuniform
 * is one per level: the head, and each tail level with its own partition.
 *
 * P-frame partitions, 2P-point transforms, a frequency-domain delay line
 * (FDL) of each input's past block spectra:
 *
 *   segment [previous block | current block] -> R2C (batched over inputs)
 *     -> MAC over paths and partitions -> (reduce) -> C2R (batched over
 *     outputs) -> time: samples P.. are the output
 *
 * The MAC gives one thread to each (bin pair, path, split): `splits` cuts
 * the partitions into ranges on separate tiles, so a stereo room still
 * fills the GPU and no tile runs long. A tile is a thread block, or, on a
 * capped grid (cuda-nonuniform's tails), one turn of a thread block that
 * loops over tiles. How the paths and splits are summed per output:
 *   DIRECT   one path per output and one split: the MAC writes acc itself;
 *   PARTIAL  partial sums per (split, path) in double, a reduce kernel adds
 *            them per output (cuda-partitioned: few splits, few paths);
 *   ATOMIC   each (split, path) adds its double sum into the output's
 *            accumulator atomically, a convert kernel turns it into acc
 *            (cuda-nonuniform's tails: thousands of paths of 65536-point
 *            spectra, where a partial buffer per path would take
 *            gigabytes);
 *   OUTPUT   one thread block per (bins, output) sums every path into it
 *            and writes acc, no second kernel (cuda-nonuniform's head:
 *            its spectra are narrow, and one pass is the shortest job).
 * Products are summed in float over 16 partitions, in double beyond. */
#ifndef ES_GPU_UNIFORM_CUH
#define ES_GPU_UNIFORM_CUH

#include "gpu_common.cuh"

enum { ES_UPC_DIRECT, ES_UPC_PARTIAL, ES_UPC_ATOMIC, ES_UPC_OUTPUT };

struct es_upc {
    int inputs, outputs, paths;
    int part, parts, bins;      /* P, partitions, P + 1 */
    int stride;                 /* complex values per spectrum row: bins
                                   rounded up to 4, so rows start 32-byte
                                   aligned and warps load whole sectors */
    int splits, tile, lanes, bin_tiles; /* MAC layout (bin pairs) */
    long grid_cap;              /* MAC thread blocks at most, 0 none */
    int rtile, rlanes, rtiles;  /* reduce/convert layout (single bins) */
    int mode;                   /* ES_UPC_* */
    cufftHandle forward, inverse;
    int have_forward, have_inverse;
    cufftHandle spectra;        /* building the filter spectra: kept while */
    int spectra_batch;          /* batches of this size come (0: none) */
    float *segment;             /* [inputs][2P]: previous block | current block */
    cufftComplex *current;      /* [inputs][stride]: spectrum of the segment */
    cufftComplex *fdl;          /* [inputs][parts][stride] */
    cufftComplex *filter;       /* [sets][paths][parts][stride], scaled by 1/2P */
    int sets;                   /* filter sets, all resident (1: a room) */
    size_t set_stride;          /* complex values a set: 0 with one set */
    double2 *sums;              /* PARTIAL: [splits][paths][stride];
                                   ATOMIC: [outputs][stride] */
    cufftComplex *acc;          /* [outputs][stride] */
    float *time;                /* [outputs][2P] */
    float *time_old;            /* sets > 1: [outputs][2P], the old set's in
                                   a block that switches; else NULL */
    float *fade;                /* sets > 1: [P], the new set's gain over
                                   such a block (a raised cosine) */
    size_t bytes;               /* device memory held, cuFFT's work areas too */
    /* Worker-side, for a convolution run block by block (es_upc_run): how
     * much of the current block is in, and its FDL slot. */
    int fill, newest;
};

/* How the partitions are split over thread blocks. */
typedef struct {
    int by_output;       /* ES_UPC_OUTPUT: the fields below do not apply */
    int atomic;          /* sum paths atomically (ES_UPC_ATOMIC unless DIRECT) */
    long want_blocks;    /* thread blocks to aim for (several per SM) */
    int lane_parts;      /* PARTIAL: at least this many partitions per lane
                            (short reduce); ATOMIC: at most this many (short
                            thread blocks) */
    long grid_cap;       /* not ES_UPC_OUTPUT: thread blocks the MAC holds at
                            once, each looping over tiles (0: one a tile) */
    int sets;            /* filter sets held (0 or 1: one) */
} es_upc_layout;

/* Sizes, allocates and plans; filter and state start zeroed (memsets on
 * `stream`). 0, or -1 with "<engine>: ..." in err. */
int es_upc_create(es_upc *u, const es_gpu_paths *pt, int inputs, int outputs, int part,
                  int parts, const es_upc_layout *layout, cudaStream_t stream,
                  const char *engine, char *err, size_t n);
void es_upc_free(es_upc *u);

/* Filter spectra of paths [first, first + count) of set `set`: taps[k][0..length)
 * is the whole filter of path first + k on the device; partition j takes taps
 * from + jP ... `scratch` holds count * parts * 2P floats. Queued on
 * `stream`; the transform's plan is kept for the next call of the same
 * count until es_upc_spectra_done (after the stream has finished). */
int es_upc_spectra(es_upc *u, const float *taps, int length, int from, int set, int first,
                   int count, float *scratch, cudaStream_t stream, const char *engine,
                   char *err, size_t n);
void es_upc_spectra_done(es_upc *u);

/* Every filter spectrum of several convolutions of one IR (cuda-nonuniform's
 * levels; cuda-partitioned has one), into filter set `set` of each: the
 * taps of a group of paths go up once, in `pt`'s row order, and
 * convolution k takes its span from from[k]; a path `ir` lacks (a set
 * without one of the matrix's paths) is silence. Scratch of up to
 * `scratch_bytes` for the taps and for the padded partitions; returns when
 * the spectra are on the device. */
int es_upc_build_spectra(es_upc *const *u, const int *from, int count, const es_ir *ir, int set,
                         const es_gpu_paths *pt, size_t scratch_bytes, cudaStream_t stream,
                         const char *engine, char *err, size_t n);
/* Paths whose padded partitions fit in `bytes` of scratch (at least 1). */
int es_upc_spectra_paths(const es_upc *u, size_t bytes);

/* Records, into the capture on `stream`: R2C of the segment, the MAC with
 * age 0 from `current` and age a from FDL slot (*newest + a) % parts, the
 * sums, and C2R into time. */
int es_upc_record(es_upc *u, const es_gpu_paths *pt, const int *newest, cudaStream_t stream,
                  const char *engine, char *err, size_t n);
/* es_upc_record after the R2C: the MAC over filter set *set (set NULL: set
 * 0), the sums, and C2R into `time` ([outputs][2P]). */
int es_upc_record_sum(es_upc *u, const es_gpu_paths *pt, const int *newest, const int *set,
                      float *time, cudaStream_t stream, const char *engine, char *err, size_t n);

/* The worker's job for `frames` frames of a convolution that is the
 * engine's block graph (es_upc_capture_block on g): one launch per piece
 * of a partition, the header filled, `before` (NULL: none) called to add
 * the engine's own fields, fault injection checked. 0, or -1 with a
 * message. */
typedef int (*es_upc_before_launch)(void *ctx, es_gpu_header *h, char *err, size_t n);
int es_upc_run(es_upc *u, es_gpu_engine *g, int frames, es_upc_before_launch before, void *ctx,
               const char *engine, char *err, size_t n);

/* Zeroes the segments and the delay lines (not the filters), and the
 * block position. */
cudaError_t es_upc_clear(es_upc *u, cudaStream_t stream);

/* Tail levels that add into a head's output (cuda-nonuniform). Level k's
 * output for the stream's frame t sits at ring[k][o * (mask + 1) +
 * ((at[k] + t - first frame) & mask[k])]; the head adds frames [lo, hi)
 * of the launch, which the header carries. */
#define ES_UPC_MAX_RINGS 8
struct es_upc_rings {
    int count;
    float *ring[ES_UPC_MAX_RINGS];  /* [outputs][mask + 1] */
    int mask[ES_UPC_MAX_RINGS];
};

/* A batched 1-D cuFFT plan on `stream`, its work area added to *bytes
 * (NULL: not counted). 0, or -1 with a message (gpu_uniform_create.cu). */
int es_upc_plan_1d(cufftHandle *plan, int size, int in_dist, int out_dist, cufftType type,
                   int batch, cudaStream_t stream, size_t *bytes, const char *engine,
                   char *err, size_t n);

/* The head's per-launch kernels around es_upc_record, for a launch of
 * h->frames frames at h->position in the current block:
 *   insert: the staging's input into the segment, and (history != NULL)
 *           into the input history at h->history; the header h into kept
 *           for the kernels after it (es_staging_keep_header);
 *   finish: the output into the staging, plus the tail rings' frames
 *           [h->level_lo, h->level_hi); when h->complete, the block's
 *           spectrum into FDL slot h->newest and the segment moves on;
 *           on the job's last launch (h->last), each chunk of outputs is
 *           handed over as it lands (ready != NULL: es_staging_hand_over). */
int es_upc_record_insert(es_upc *u, const es_gpu_header *h, es_gpu_header *kept, const float *in,
                         int max_block, float *history, int history_mask, cudaStream_t stream,
                         const char *engine, char *err, size_t n);
int es_upc_record_finish(es_upc *u, const es_gpu_header *h, float *out, int max_block,
                         const es_upc_rings *rings, const es_gpu_ready *ready,
                         cudaStream_t stream, const char *engine, char *err, size_t n);

/* The whole per-block graph of an engine whose block is this convolution
 * (insert, es_upc_record, finish: the staging read and written where it
 * lies), captured on g->stream into g->exec; the outputs are handed over in
 * chunks (g->hands_over). history and rings: as for insert and finish
 * (NULL: none). */
int es_upc_capture_block(es_upc *u, es_gpu_engine *g, int max_block, float *history,
                         int history_mask, const es_upc_rings *rings, const char *engine,
                         char *err, size_t n);

/* With filter sets: the graph of a block that switches, into g->exec_alt
 * (the worker launches it for each launch of such a block). The segment's
 * spectrum summed twice, over the old set (the header's set_old) into
 * time_old and over the new one (set) into time; finish fades from the
 * first to the second over the block. The plain graph (es_upc_capture_block)
 * plays h->set alone. */
int es_upc_capture_switch_block(es_upc *u, es_gpu_engine *g, int max_block, const char *engine,
                                char *err, size_t n);

/* The spectrum of input row i's finished block into its FDL slot, and the
 * segment moves on; for threads k = 0, step, ... of one row. */
static __device__ __forceinline__ void es_upc_commit(const es_upc &u, int i, int slot, int k0,
                                                     int step)
{
    for (int k = k0; k < u.bins; k += step) {
        u.fdl[((size_t)i * u.parts + slot) * u.stride + k] = u.current[(size_t)i * u.stride + k];
        if (k < u.part) {
            float *s = u.segment + (size_t)i * 2 * u.part;
            s[k] = s[u.part + k];
            s[u.part + k] = 0.0f;
        }
    }
}

#endif
