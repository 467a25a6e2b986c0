/* earshot engine contract.
 *
 * An engine convolves blocks of audio with an impulse-response matrix.
 * Every engine is one file that ends with a const es_engine_class and is
 * listed in registry.c. engines/include/ holds what other folders may
 * include from engines/: this contract, engine_gpu.h (its GPU part) and fftw_planner.h (FFTW's planner
 * lock and wisdom, which every FFTW user in the program shares). The build
 * enforces it: nothing else in engines/ is on another library's include
 * path.
 *
 * Life cycle of an instance:
 *   create   may be slow, may allocate, plan FFTs, touch the GPU; may fail
 *            with a message. Never called on the audio thread.
 *   process  real-time safe: no allocation, no lock, no I/O, no unbounded
 *            wait. Accepts any frames in 1..max_block. Cannot fail; an engine
 *            in trouble outputs silence and says so through status().
 *   latency  exact algorithmic delay in frames: a Dirac in gives the IR out,
 *            delayed by exactly this many frames. Fixed for the instance.
 *   reset    silence the history (not real-time safe unless the engine says).
 *   destroy  NULL-safe; frees everything, also a half-built instance.
 *
 * An instance is bound to one IR for its whole life: a new room is a new
 * instance, built off the audio thread and crossfaded in by the host.
 */
#ifndef ES_ENGINE_H
#define ES_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/memory.h"
#include "core/rt.h"
#include "engine_gpu.h"

/* What a host may ask for: one set of limits for every interface (render,
 * play, bench, the workstation's keys), exported through the command
 * tables built on them. create() itself takes max_block 1..65536 (the
 * tests run blocks of 1); a person picks from ES_BLOCK_MIN..ES_BLOCK_MAX. */
#define ES_BLOCK_MIN 16
#define ES_BLOCK_MAX 8192
#define ES_BLOCK_DEFAULT 256
#define ES_PARTITION_MIN 16
#define ES_PARTITION_MAX 65536

/* What an engine class can do. Interfaces decide by these bits, never by
 * an engine's name. */
enum {
    ES_CAP_PARTITION = 1u << 0, /* takes es_options.partition */
    ES_CAP_PIPELINED = 1u << 1, /* has a pipelined mode (es_options.gpu_pipelined) */
    ES_CAP_GPU = 1u << 2,       /* runs on a GPU (es_options.gpu) */
    ES_CAP_HELPERS = 1u << 3,   /* starts helper threads (status() says their priority) */
    ES_CAP_SETS = 1u << 4,      /* holds several filter sets and switches within a block
                                 * (es_engine_create_sets) */
};

/* What the host promises. */
typedef struct {
    double sample_rate;    /* Hz */
    int max_block;         /* largest frames per process() call */
    int inputs, outputs;   /* channels in and out; must match the IR */
} es_format;

/* An impulse-response matrix, planar float.
 * taps[i * outputs + o] is the filter from input i to output o, `length`
 * samples long; a NULL row means no path between i and o (costs nothing). */
typedef struct {
    int inputs, outputs;
    int length;            /* frames, >= 1 */
    double sample_rate;    /* Hz */
    float **taps;          /* inputs * outputs rows, owned by the es_ir */
} es_ir;

/* Engine knobs. Zero means "engine default" for every field, so
 * `es_options o = {0};` is always valid. */
typedef struct {
    int partition;         /* partitioned engines: partition size in frames */
    int fft_measure;       /* 1: FFTW_MEASURE plans (slower create, faster run) */
    int gpu_pipelined;     /* 1: result one block later (+max_block latency) */
    int offline;           /* 1: process() may wait for a result as long as it
                            * takes (render, tests); 0: never past the
                            * block's budget, a late block is silence */
    int workers;           /* engines with helper threads (cpu-nonuniform's
                            * tail workers): how many; 0 = one per core
                            * but the audio thread's, at least one; -1
                            * with offline = none (the caller runs every
                            * tail job: least CPU time) */
    es_gpu_options gpu;    /* GPU engines: which GPUs (engine_gpu.h) */
} es_options;

/* Run-time condition of an instance, for meters and fallback. */
typedef struct {
    uint64_t late_results; /* blocks whose result was not ready in time */
    uint64_t late_levels;  /* non-uniform engines: tail-level results not
                            * ready when first needed (their frames were
                            * left out); also counted in late_results */
    int failed;            /* 1: instance is dead and outputs silence */
    char message[256];     /* why it failed, empty otherwise */
    int helpers_realtime;  /* engines with helper threads: 1 when they got
                            * real-time priority, 0 when not, -1 no helpers */
    char helpers[128];     /* the helpers' scheduling in words */
    /* CPU time the engine's helper threads have used since it was
     * created (cpu-nonuniform's tail workers, a GPU engine's worker), ns:
     * what a host adds to its own thread's time for what the engine
     * costs. 0 with no helpers. */
    long long helpers_cpu_ns;
    es_gpu_status gpu;     /* GPU engines: device memory and time (engine_gpu.h) */
    int set;               /* engines of filter sets: the set playing (0 otherwise) */
    uint64_t set_switches; /* switches from one set to another so far */
    /* A field room (ambisonic.h): its order (-1: not one), the orientation
     * its last block turned to, the blocks whose rotation changed, and
     * the time its rotation and decoding took a block (the last, and the
     * largest since it was made), us. */
    int field_order;
    float field_yaw, field_pitch, field_roll;
    uint64_t field_turns;
    double field_us, field_us_max;
} es_engine_status;

typedef struct es_engine_class es_engine_class;

/* Every engine's private struct starts with this. */
typedef struct es_engine {
    const es_engine_class *klass;
} es_engine;

struct es_engine_class {
    const char *name;      /* the name users type: "cpu-partitioned" */
    const char *summary;   /* one line for `earshot engines` */
    unsigned caps;         /* ES_CAP_* */
    /* 1 when usable here; else 0 and a reason in why. When usable, `why`
     * may still hold a note (e.g. the GPU's name). */
    int (*probe)(char *why, size_t n);
    es_engine *(*create)(const es_format *fmt, const es_ir *ir,
                         const es_options *opt, char *err, size_t n);
    ES_RT void (*process)(es_engine *e, const float *const *in,
                          float *const *out, int frames);
    int (*latency)(const es_engine *e);
    void (*reset)(es_engine *e);
    void (*destroy)(es_engine *e);
    /* Optional (NULL = nothing to report). Real-time safe. */
    ES_RT void (*status)(const es_engine *e, es_engine_status *st);
    /* Optional: the CPU engine a host switches to, with the same room, when
     * an instance fails (a GPU error); NULL: cpu-partitioned. */
    const char *fallback;
    /* Optional (NULL: the engine has none): the plan for rendering a file,
     * where latency does not matter. Returns the block to run at (within
     * ES_BLOCK_MIN..ES_BLOCK_MAX), may set opt->partition, and says what it
     * picked and why in one line in `plan`; *cost_ns (when not NULL) gets
     * the plan's cost by the engines' shared cost model, ns a frame, so a
     * host can compare two engines' plans. */
    int (*offline_block)(const es_format *fmt, const es_ir *ir, es_options *opt, char *plan,
                         size_t n, double *cost_ns);
    /* Optional: on 1, process() waits for every result as it does with
     * es_options.offline (the host freewheels: blocks come as fast as
     * they are made, with no deadline, so a result left out would be a
     * hole in an export); on 0, live again. Called on the audio thread
     * between two process() calls. NULL: the engine computes every result
     * inside process(), so nothing can come late. */
    ES_RT void (*freewheel)(es_engine *e, int on);
    /* Optional: process() that may leave the result where the engine made
     * it, instead of copying it into the caller's buffers. views[o] is set
     * to `frames` samples of output o: either the engine's own memory (a
     * GPU engine's mapped staging, where the GPU wrote the block) or own[o],
     * which the engine wrote as process() would. The caller may read and
     * write the views until its next call into the engine. NULL: the
     * engine has no memory to lend; es_engine_process_views calls process()
     * into own[]. */
    ES_RT void (*process_views)(es_engine *e, const float *const *in, float *const *own,
                                float **views, int frames);
    /* ES_CAP_SETS (NULL otherwise): an engine over `count` filter sets of
     * one shape, set 0 playing (es_engine_create_sets), and the switch to
     * another (es_engine_select_set). */
    es_engine *(*create_sets)(const es_format *fmt, const es_ir *const *sets, int count,
                              const es_options *opt, char *err, size_t n);
    ES_RT void (*select_set)(es_engine *e, int set);
    /* Optional, with ES_CAP_SETS (NULL: the sets are fixed): see
     * es_engine_load_set and es_engine_set_settled. */
    int (*load_set)(es_engine *e, int set, const es_ir *ir, char *err, size_t n);
    int (*set_settled)(const es_engine *e);
    /* Optional (NULL: nothing turns): a field room's orientation
     * (ambisonic.h, es_engine_orient). Real-time safe, any thread. */
    ES_RT void (*orient)(es_engine *e, float yaw, float pitch, float roll);
};

/* ---- registry (registry.c) ---- */

/* NULL-terminated, in the order users see them. */
extern const es_engine_class *const es_engines[];

const es_engine_class *es_engine_find(const char *name);
/* What replaces a failed instance of the engine named `failed`: its
 * class's fallback, else cpu-partitioned. */
const es_engine_class *es_engine_fallback(const char *failed);
/* "cpu-direct, cpu-partitioned, ..." into buf, for error messages; returns buf. */
const char *es_engine_names(char *buf, size_t n);
/* The partition size an engine with ES_CAP_PARTITION uses at this block
 * when es_options.partition is 0. */
int es_engine_default_partition(int max_block);

/* ---- convenience wrappers ---- */

/* Validates fmt and ir against each other (channel counts, sizes, finite
 * samples), then calls the class's create. */
es_engine *es_engine_create(const es_engine_class *k, const es_format *fmt,
                            const es_ir *ir, const es_options *opt,
                            char *err, size_t n);

static inline ES_RT void es_engine_process(es_engine *e,
                                           const float *const *in,
                                           float *const *out, int frames)
{
    e->klass->process(e, in, out, frames);
}

/* The block into views[] (see process_views): lent by the engine where it
 * can, else written into own[]. A host that reads the outputs once (a mix)
 * saves the copy of every output this way: 512 KB a block for a GPU
 * engine's 1024 outputs at block 128. */
static inline ES_RT void es_engine_process_views(es_engine *e, const float *const *in,
                                                 float *const *own, float **views,
                                                 int outputs, int frames)
{
    if (e->klass->process_views) {
        e->klass->process_views(e, in, own, views, frames);
        return;
    }
    e->klass->process(e, in, own, frames);
    for (int o = 0; o < outputs; o++)
        views[o] = own[o];
}

static inline int es_engine_latency(const es_engine *e)
{
    return e->klass->latency(e);
}

static inline void es_engine_reset(es_engine *e)
{
    e->klass->reset(e);
}

/* The class's freewheel, where it has one. Real-time safe. */
static inline ES_RT void es_engine_freewheel(es_engine *e, int on)
{
    if (e->klass->freewheel)
        e->klass->freewheel(e, on);
}

/* An engine over `count` filter sets (a head-tracked room: a set per head
 * orientation), all resident, set 0 playing; for classes with
 * ES_CAP_SETS. Every set has the stream's inputs, outputs and rate; the
 * longest set's length counts for all. */
es_engine *es_engine_create_sets(const es_engine_class *k, const es_format *fmt,
                                 const es_ir *const *sets, int count, const es_options *opt,
                                 char *err, size_t n);

/* A room of filter sets split in time (split_room.c): `heads` (the part
 * that switches with a listener's head) on `head_k`, which holds sets,
 * and `tail` (NULL: none), one filter for every set that starts
 * `tail_at` samples into the room, on `tail_k`. The instance sums the
 * two, as one engine over each head with the tail added at `tail_at`;
 * it switches sets as an engine of sets does, and its class is tail_k's
 * (its name, its caps with ES_CAP_SETS) over the composition's calls. Its
 * latency is the larger of the two engines'. */
es_engine *es_engine_create_split(const es_engine_class *head_k, const es_engine_class *tail_k,
                                  const es_format *fmt, const es_ir *const *heads, int count,
                                  const es_options *head_opt, const es_ir *tail, int tail_at,
                                  const es_options *tail_opt, char *err, size_t n);
/* Whoever holds a split room's pointer beside its owner (a head
 * tracker's blender, which loads sets into it) lets go in `gone`, which
 * the room calls first when it is destroyed, on the thread destroying
 * it. One watcher a room; gone NULL clears it. Set it while the room
 * cannot be destroyed (the caller's own ordering), and clear it the same
 * way. Ignored for an engine that is no split room. */
void es_engine_watch(es_engine *e, void (*gone)(void *ctx, es_engine *e), void *ctx);

/* The engine that holds a split room's heads for `k`: k itself when it
 * holds sets, else the one of its kind that does (cuda-partitioned for a
 * GPU's, cpu-partitioned for the CPU's). */
const es_engine_class *es_engine_heads_class(const es_engine_class *k);

/* Set `set` plays from the start of the next block: that block fades,
 * frame by frame over the block (a raised cosine), from the old set's
 * output to the new one's, both computed from the same input history, so
 * the new set sounds at once as if it had always played. An engine that
 * has played nothing since it was made or reset starts on the set with no
 * fade (and counts no switch), as if made with it. Called on the audio
 * thread between two process() calls, or before the first by whichever
 * thread holds the engine then; a set out of range, or an engine without
 * sets, is ignored. */
static inline ES_RT void es_engine_select_set(es_engine *e, int set)
{
    if (e->klass->select_set)
        e->klass->select_set(e, set);
}

/* Set `set`'s filters replaced by ir's (the sets' shape, no longer than
 * they were made), while the engine plays: a blend between measured sets
 * made for where a head is, into a set kept for it. Off the audio thread,
 * which must neither play nor fade from that set, nor have a request for
 * it outstanding, until this returns; the request for it that follows
 * (es_set_request: a release store) brings the new filters with it. Slow
 * (allocates, transforms). 0, or -1 and why (an engine whose sets are
 * fixed, a set that does not fit, or plays now). */
int es_engine_load_set(es_engine *e, int set, const es_ir *ir, char *err, size_t n);
/* Any thread: the set playing once its switch is over, as the engine's
 * last call left it; -1 while a switch fades, or for an engine whose sets
 * cannot be loaded. A set asked for (by index) has been taken and its
 * fade is over once this returns it. */
int es_engine_set_settled(const es_engine *e);

/* NULL-safe. Counted, with es_engine_create, in es_engine_counts. */
void es_engine_destroy(es_engine *e);
/* How many engines es_engine_create made and es_engine_destroy destroyed
 * in this process: a program that stops with every engine destroyed shows
 * the two equal (play's report prints them). */
void es_engine_counts(uint64_t *created, uint64_t *destroyed);

void es_engine_get_status(const es_engine *e, es_engine_status *st);

/* ---- GPUs: engine_gpu.h has the rest ---- */

/* -1 and "--gpu 0,1: cpu-direct runs on the CPU ..." when a list was given
 * for a class without ES_CAP_GPU; 0 otherwise. */
int es_gpu_list_for(const es_engine_class *k, const es_gpu_list *l, char *why, size_t n);

/* ---- impulse-response matrices (ir.c) ---- */

/* A matrix with every row NULL; add paths with es_ir_path(). */
es_ir *es_ir_create(int inputs, int outputs, int length, double sample_rate);
/* The row for input i -> output o, allocated (zeroed) on first use. */
float *es_ir_path(es_ir *ir, int i, int o);
void es_ir_destroy(es_ir *ir);
int es_ir_path_count(const es_ir *ir);
/* For each row r, the first row whose taps are the same, bit for bit (r
 * itself when none is; -1 where there is no path): an engine transforms a
 * filter once and its paths share the spectra, as zita-convolver shares a
 * jconvolver /impulse/copy (a mono room to every output, dual mono). 0,
 * or -1 when out of memory. */
int es_ir_first_alike(const es_ir *ir, int *like);

/* Build the matrix a file with `file_channels` channels means for a host
 * with `inputs` input channels (see ir.c for the layouts: mono, stereo,
 * true stereo, per-channel, full N x M). `chan[c]` is file channel c,
 * `length` frames each. Returns NULL and a message when the layout makes
 * no sense for that input count. */
es_ir *es_ir_from_channels(const float *const *chan, int file_channels,
                           int length, double sample_rate, int inputs,
                           char *err, size_t n);

/* A matrix laid out as the channels say: channel i * outputs + o is input
 * i -> output o (a room's NxM layout, a jconvolver matrix); a NULL
 * channel or one of zeros is no path. NULL and a message when the count
 * is not inputs x outputs. */
es_ir *es_ir_from_matrix(const float *const *chan, int channels, int length, double sample_rate,
                         int inputs, int outputs, char *err, size_t n);

/* One line when es_ir_from_channels lays these counts out as anything but
 * the plain cases (one filter for all, one per input, mono to stereo, true
 * stereo), since that drops or invents channels a person may not expect:
 * "32-channel IR with 2 inputs: played as a 2 x 16 matrix". 1 with the
 * line in `out`, 0 (and "") when there is nothing to say. */
int es_ir_layout_note(int file_channels, int inputs, char *out, size_t n);

/* The outputs first..first+count-1 (from 0) of `ir`, which it takes: a
 * host that plays a share of a big matrix (one earshot per host, each its
 * outputs). NULL with one line when the range is past the matrix's
 * outputs or no path reaches it (ir is freed either way). */
es_ir *es_ir_outputs(es_ir *ir, int first, int count, char *err, size_t n);

/* A matrix of one output (which it takes) repeated to `outputs`: each
 * input's filter feeds every output, as a mono room plays on a stereo
 * stream (dual mono). NULL when out of memory (ir is freed either way). */
es_ir *es_ir_repeat_output(es_ir *ir, int outputs);

/* 0, or -1 with a message: empty, no path, NaN/Inf at a place. */
int es_ir_check(const es_ir *ir, char *err, size_t n);

#endif
