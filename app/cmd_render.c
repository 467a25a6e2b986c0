/* earshot render: a file through the same processor the live path runs,
 * block by block, tail included. The room it convolves with is read by
 * cmd_render_room.c. */
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__ /* malloc_trim */
#include <malloc.h>
#endif

#include "core/args.h"
#include "core/files.h"
#include "core/memory.h"
#include "core/text.h"
#include "audiofile.h"
#include "app.h"
#include "engine.h"
#include "processor.h"
#include "core/param.h"
#include "engine_params.h"
#include "render_room.h"
#include "sofa.h"

static const char usage[] =
    "usage: earshot render --ir FILE|--room NAME [options] IN OUT\n"
    "\n"
    "Convolves IN with the impulse response and writes OUT (WAV), through the\n"
    "same block-by-block processor as live playback. OUT holds the whole result:\n"
    "IN's length + the IR's length - 1 frames. The IR is used as it is (no\n"
    "normalisation); if its sample rate differs from IN's it is resampled first.\n"
    "OUT may be \"-\" (standard output) or a FIFO or device node, which get the\n"
    "WAV as a stream; a link is followed and its target replaced.\n"
    "A SOFA room (a file, or a room of the library kept as one) renders the\n"
    "filter a head at --head YAW[,PITCH[,ROLL]] hears: the nearest measurement,\n"
    "as playing picks it, or with --interp linear the measurements around\n"
    "that direction blended, their onsets (the ITD) apart. An Ambisonic room\n"
    "(--layout ambixN, a library room laid out so, a jconvolver room of W X Y Z\n"
    "outputs) renders decoded through --hrir or to --speakers, turned to --head.\n"
    "\n"
    "Options:\n";

/* Frames read or written per file call (the processor still sees --block),
 * at most RENDER_CHUNK and at most RENDER_CHUNK_BYTES of samples in and
 * out together, and at least a block: 64 channels each way would
 * otherwise hold 32 MB of buffers, and pass through the caches in pieces
 * too big to stay. Larger chunks measured no faster, and a small room's
 * render is a few MB in all, of which these buffers were a tenth. */
#define RENDER_CHUNK 65536
#define RENDER_CHUNK_BYTES (64L << 10)
#define ES_MAX_RENDER_CHANNELS 64

typedef struct {
    es_render_room room; /* --ir, --room, --rooms, --layout, --head */
    const char *in_path, *out_path;
    const es_engine_class *engine;
    int block, format, verbose;
    double wet;
    es_options options;
} render_args;

/* render's options: the engine knobs are the entries every command shares
 * (engine_params.h). */
static const es_param params[] = {
    {"ir", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "impulse response: 1 channel (every input through it),\n"
     "as many channels as IN (one each), 4 for true stereo,\n"
     "or inputs x outputs channels for a full matrix", offsetof(render_args, room.ir_path), NULL,
     NULL},
    {"room", ES_PARAM_STRING, 0, 1023, NULL, "NAME",
     "a room of the library instead (earshot rooms lists them):\n"
     "prepared as for playing (trimmed, normalised)", offsetof(render_args, room.name),
     NULL, NULL},
    {"rooms", ES_PARAM_STRING, 0, 1023, NULL, "DIR", "another library folder with a rooms.txt",
     offsetof(render_args, room.rooms_dir), NULL, NULL},
    {"head", ES_PARAM_STRING, 0, 63, NULL, "YAW[,PITCH[,ROLL]]",
     "a SOFA or Ambisonic room: the head's orientation, degrees (yaw: left\n"
     "+, pitch: up +, roll: right ear down +; 0 when not\n"
     "given)",
     offsetof(render_args, room.head), NULL, NULL},
    {"interp", ES_PARAM_CHOICE, 0, 0, "nearest", "HOW",
     "a SOFA room: nearest (the measured filter nearest the\n"
     "direction) or linear (the three around it blended, their\n"
     "onsets apart)",
     offsetof(render_args, room.interp), "nearest|linear", NULL},
    {"split", ES_PARAM_CUSTOM, 0, 0, "auto", "MS|auto|none",
     "a SOFA room of head orientations: its filter as playing\n"
     "makes it, the head's part of the set to the split (auto:\n"
     "the room's mixing time) and the tail of the set ahead\n"
     "after it; none: the set whole",
     offsetof(render_args, room.split_ms), NULL, es_split_parse},
    {"layout", ES_PARAM_STRING, 0, 15, NULL, "IxO|ambix3|5.1|...",
     "--ir's channels as an I x O matrix (channel i*O + o: input\n"
     "i to output o), where the count alone is ambiguous (a\n"
     "4-channel 1x4 B-format room is not true stereo), or as an\n"
     "Ambisonic room (ambixN, n3dN, fuma1; Ix... for I inputs),\n"
     "decoded and turned with --head; a library room's layout\n"
     "is its manifest's. A SOFA set of loudspeakers\n"
     "(MultiSpeakerBRIR): IN's loudspeaker layout (stereo, 5.0,\n"
     "5.1, 7.1, 7.1.4), each channel through the loudspeaker at\n"
     "its place", offsetof(render_args, room.layout), NULL, NULL},
    {"hrir", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "an Ambisonic room: the head it is decoded through, a SOFA\n"
     "set of HRIRs (default: KEMAR, " ES_FIELD_HRIR_DEFAULT ")",
     offsetof(render_args, room.hrir), NULL, NULL},
    {"decoder", ES_PARAM_CHOICE, 0, 0, "auto", "HOW",
     "an Ambisonic room's binaural decoder: ls, magls, auto (ls at\n"
     "first order, magls above), none (its SH channels as they\n"
     "are: what jconvolver plays)", offsetof(render_args, room.decoder),
     "auto|ls|magls|none", NULL},
    {"speakers", ES_PARAM_STRING, 0, 1023, NULL, "LAYOUT|FILE",
     "an Ambisonic room on a loudspeaker array (AllRAD): 5.1,\n"
     "7.1.4, ... or a file of lines AZ EL [NAME]", offsetof(render_args, room.speakers), NULL,
     NULL},
    {"engine", ES_PARAM_CUSTOM, 0, 0, NULL, "NAME",
     "convolution engine (default: the cheaper offline plan of\n"
     "cpu-partitioned and cpu-nonuniform; earshot engines lists them)",
     offsetof(render_args, engine), NULL, es_engine_param_parse},
    {"block", ES_PARAM_INT, ES_BLOCK_MIN, ES_BLOCK_MAX, NULL, "N",
     "frames per block, as live playback runs it (default: the\n"
     "engine's offline plan, the cheapest block for this IR;\n"
     ES_PARAM_DEFAULT_OF(ES_BLOCK_DEFAULT) " for an engine without one)",
     offsetof(render_args, block), NULL, NULL},
    ES_PARAM_PARTITION(render_args, options.partition),
    ES_PARAM_GPU(render_args, options.gpu.list),
    {"wet", ES_PARAM_DOUBLE, 0, 1, "1", "X", "mix: X of the convolved signal, 1-X of IN",
     offsetof(render_args, wet), NULL, NULL},
    {"format", ES_PARAM_CHOICE, 0, 0, "float", "F", "float (exact), pcm16 or pcm24",
     offsetof(render_args, format), "float|pcm16|pcm24", NULL},
    {"verbose", ES_PARAM_FLAG, 0, 1, NULL, NULL, "(or -v) say the block and plan picked",
     offsetof(render_args, verbose), NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL},
};

/* The heap's freed memory back to the system: what loading the room
 * freed (a jconvolver configuration's copies) and then its taps. Left in
 * the heap it stays resident beside the engine's delay lines as they
 * fill: stress4 (64 x 204800 taps) peaked 34 MB higher (184 -> 150 MB
 * when this came in). */
static void give_back_freed(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static int parse(int argc, char **argv, render_args *a)
{
    const char *positional[2];
    int npos = 0, help;
    char err[512];
    /* No engine and no block: the cheaper plan (choose_block). Offline: a
     * GPU engine waits for every result instead of dropping a late block
     * to silence. */
    *a = (render_args){.options = {.fft_measure = 1, .offline = 1}};
    if (es_params_defaults(params, a, err, sizeof err) != 0 ||
        es_params_parse_argv(params, argc, argv, a, positional, 2, &npos, &help, err,
                             sizeof err) != 0) {
        es_error("render: %s (see earshot render --help)", err);
        return -1;
    }
    if (help) {
        fputs(usage, stdout);
        es_params_help(params, stdout);
        es_engines_help(stdout);
        exit(0);
    }
    static const char *const formats[] = {"float", "pcm16", "pcm24"};
    a->format = es_sample_format_parse(formats[a->format]);
    es_render_room *r = &a->room;
    if (!r->ir_path == !r->name) {
        es_error("render: give --ir FILE or --room NAME (one of them)");
        return -1;
    }
    if (npos < 2) {
        es_error("render: needs IN and OUT files (see earshot render --help)");
        return -1;
    }
    if (r->layout && r->name) {
        es_error("render: --layout is for an --ir file; a room's layout is its manifest's");
        return -1;
    }
    a->in_path = positional[0];
    a->out_path = positional[1];
    if (!r->ir_path)
        r->ir_path = r->name;
    if (es_same_file(a->in_path, a->out_path) || es_same_file(r->ir_path, a->out_path) ||
        !strcmp(a->in_path, a->out_path) || !strcmp(r->ir_path, a->out_path)) {
        es_error("%s: the output would overwrite an input", a->out_path);
        return -1;
    }
    return 0;
}

/* Without --engine: the CPU engine whose offline plan the shared cost
 * model finds cheaper for this room (a tie: the first), cpu-partitioned's
 * one partition size (short filters, many paths) or cpu-nonuniform's
 * levels (long rooms); with --block or --partition, cpu-partitioned. */
static const char *const offline_candidates[] = {"cpu-partitioned", "cpu-nonuniform"};

static void choose_engine(render_args *a, const es_format *fmt, const es_ir *ir)
{
    a->engine = es_engine_find(offline_candidates[0]);
    if (a->block > 0 || a->options.partition > 0)
        return;
    double best = 0;
    for (size_t k = 0; k < sizeof offline_candidates / sizeof *offline_candidates; k++) {
        const es_engine_class *e = es_engine_find(offline_candidates[k]);
        es_options scratch = a->options;
        char plan[300];
        double cost = 0;
        (void)e->offline_block(fmt, ir, &scratch, plan, sizeof plan, &cost);
        if (k == 0 || cost < best) {
            best = cost;
            a->engine = e;
        }
    }
}

/* Without --block: the engine's offline plan, or the live default for an
 * engine that has none. With it: that block, exactly as live play runs. */
static void choose_block(render_args *a, es_format *fmt, const es_ir *ir)
{
    char plan[300];
    if (!a->engine)
        choose_engine(a, fmt, ir);
    if (a->block > 0) {
        snprintf(plan, sizeof plan, "block %d (--block), as live playback runs it", a->block);
    } else if (a->engine->offline_block && a->options.partition == 0) {
        a->block = a->engine->offline_block(fmt, ir, &a->options, plan, sizeof plan, NULL);
    } else {
        a->block = ES_BLOCK_DEFAULT;
        snprintf(plan, sizeof plan, "block %d: %s", a->block,
                 a->engine->offline_block ? "--partition given, so the live plan at that "
                                            "partition"
                                          : "this engine has no offline plan");
    }
    fmt->max_block = a->block;
    if (a->verbose)
        es_error("render plan: %s, %s", a->engine->name, plan);
}

/* Where the output peaks: the largest |sample| written, its frame and
 * output. */
typedef struct {
    float value;
    int64_t frame;
    int channel;
} output_peak;

/* 1 when some |x[t]| is above `value`: one pass of compares, which the
 * compiler vectorises (a running maximum with its position is not). */
static int beats(const float *x, int frames, float value)
{
    int above = 0;
    for (int t = 0; t < frames; t++)
        above |= fabsf(x[t]) > value;
    return above;
}

/* Each channel is asked first whether it beats the peak, and only one
 * that does is searched for where: a 64-channel render's scan took a
 * fifth of its own code's time when every sample kept its position. */
static void note_peak(output_peak *p, const float *const *out, int channels, int frames,
                      int64_t first_frame)
{
    for (int c = 0; c < channels; c++) {
        if (!beats(out[c], frames, p->value))
            continue;
        for (int t = 0; t < frames; t++)
            if (fabsf(out[c][t]) > p->value)
                *p = (output_peak){fabsf(out[c][t]), first_frame + t, c};
    }
}

/* A render as it runs: the files, the processor, the buffers between
 * them, and what came out. */
typedef struct {
    es_audio_info info;           /* IN's */
    es_audiofile *in, *out;
    es_ir *ir;                    /* until the engine holds what it needs of it */
    es_render_field field;        /* an Ambisonic room's decoder and head */
    es_format fmt;
    es_processor *proc;
    float **inbuf, **outbuf;      /* chunk frames each, fmt's channels */
    int chunk;                    /* frames a file call moves */
    int64_t total, written;       /* frames of OUT: IN + IR - 1, and so far */
    output_peak peak;
    clock_t started;              /* the CPU clock when the first block went in */
} render_run;

/* IN, opened: 0, or -1 and why. */
static int open_input(const render_args *a, render_run *r, char *err, size_t n)
{
    if (!(r->in = es_audiofile_open_read(a->in_path, &r->info, err, n)))
        return -1;
    if (r->info.frames < 1) {
        snprintf(err, n, "%s: no audio in the file (0 frames)", a->in_path);
        return -1;
    }
    return 0;
}

/* The room at IN's rate, and the stream's shape from it: 0, or -1 and
 * why. */
static int load_room(const render_args *a, render_run *r, char *err, size_t n)
{
    es_field_layout sofa_field;
    if (!(r->ir = es_render_room_load(&a->room, a->in_path, &r->info, &sofa_field, err, n)) ||
        es_render_room_field(&a->room, r->ir, &sofa_field, &r->field, err, n) < 0)
        return -1;
    if (r->ir->outputs > ES_MAX_RENDER_CHANNELS || r->ir->inputs > ES_MAX_RENDER_CHANNELS) {
        snprintf(err, n, "%s: %d x %d channels; at most %d each way", a->room.ir_path,
                 r->ir->inputs, r->ir->outputs, ES_MAX_RENDER_CHANNELS);
        return -1;
    }
    give_back_freed();
    r->fmt = (es_format){.sample_rate = r->info.sample_rate, .max_block = a->block,
                         .inputs = r->ir->inputs,
                         .outputs = r->field.order ? r->field.decoder->outputs : r->ir->outputs};
    return 0;
}

/* The engine, at the block choose_block picks, in the processor live
 * playback runs: 0, or -1 and why. */
static int make_processor(render_args *a, render_run *r, char *err, size_t n)
{
    choose_block(a, &r->fmt, r->ir);
    if (es_gpu_list_for(a->engine, &a->options.gpu.list, err, n) != 0)
        return -1;
    char why[256];
    es_engine *engine = r->field.order
                            ? es_engine_create_field(a->engine, &r->fmt, r->ir, &a->options,
                                                     r->field.decoder, r->field.order, why,
                                                     sizeof why)
                            : es_engine_create(a->engine, &r->fmt, r->ir, &a->options, why,
                                               sizeof why);
    if (engine && r->field.order)
        es_engine_orient(engine, r->field.head[0], r->field.head[1], r->field.head[2]);
    if (!engine) {
        snprintf(err, n, "%s: %s", a->room.ir_path, why);
        return -1;
    }
    es_processor_config pc = {.mix = {.wet = (float)a->wet, .dry = (float)(1.0 - a->wet),
                                      .gain = 1.0f},
                              .offline = 1};
    r->proc = es_processor_create(&r->fmt, engine, &pc, err, n);
    return r->proc ? 0 : -1;
}

/* The file side moves a chunk of frames a call, the processor sees the
 * block asked for: inbuf is read a chunk at a time and walked block by
 * block; outbuf gathers blocks until a chunk's worth is written. 0, or -1
 * and why. */
static int make_buffers(render_run *r, int block, char *err, size_t n)
{
    const long fits =
        RENDER_CHUNK_BYTES / ((long)sizeof(float) * (r->fmt.inputs + r->fmt.outputs));
    const int most = fits < RENDER_CHUNK ? (int)fits : RENDER_CHUNK;
    r->chunk = most > block ? most / block * block : block;
    r->inbuf = es_alloc_channels(r->fmt.inputs, (size_t)r->chunk);
    r->outbuf = es_alloc_channels(r->fmt.outputs, (size_t)r->chunk);
    if (!r->inbuf || !r->outbuf) {
        snprintf(err, n, "out of memory for %d-frame buffers", r->chunk);
        return -1;
    }
    return 0;
}

/* OUT, made for the whole result: IN + IR - 1 frames. 0, or -1 and why. */
static int open_output(const render_args *a, render_run *r, char *err, size_t n)
{
    /* The engine holds what it needs of the room: the taps go now (a 64 x
     * 64 room of 4096-tap filters is 1 MB of them), and their memory back
     * to the system. */
    const int ir_length = r->ir->length + (r->field.order ? r->field.decoder->length - 1 : 0);
    es_ir_destroy(r->ir);
    r->ir = NULL;
    give_back_freed();
    r->total = r->info.frames + ir_length - 1;
    const es_write_spec spec = {.sample_rate = r->info.sample_rate, .channels = r->fmt.outputs,
                                .format = a->format, .mode = ES_WRITE_REPLACE,
                                .frames = r->total};
    r->out = es_audiofile_create(a->out_path, &spec, err, n);
    return r->out ? 0 : -1;
}

/* The next chunk of IN into inbuf, zeros past its end: 0, or -1 and why. */
static int read_chunk(render_run *r, int *input_done, char *err, size_t n)
{
    long got = 0;
    if (!*input_done) {
        got = es_audiofile_read(r->in, r->inbuf, r->chunk, err, n);
        if (got < 0)
            return -1;
        *input_done = got < r->chunk;
    }
    for (int c = 0; got < r->chunk && c < r->fmt.inputs; c++)
        memset(r->inbuf[c] + got, 0, (size_t)(r->chunk - got) * sizeof(float));
    return 0;
}

/* outbuf's first `frames` frames, the last written, into OUT, their peak
 * noted: 0, or -1 and why. */
static int write_chunk(render_run *r, int frames, char *err, size_t n)
{
    note_peak(&r->peak, (const float *const *)r->outbuf, r->fmt.outputs, frames,
              r->written - frames);
    return es_audiofile_write(r->out, (const float *const *)r->outbuf, frames, err, n) ? -1
                                                                                        : 0;
}

/* Input, then zeros until the tail has left, block by block through the
 * processor: IN + IR - 1 frames come out after the processor's latency,
 * which is dropped from the front. 0, or -1 and why. */
static int render_blocks(const render_args *a, render_run *r, char *err, size_t n)
{
    const int latency = es_processor_latency(r->proc), block = a->block;
    int64_t fed = 0;
    int input_done = 0, in_pos = r->chunk, out_fill = 0;
    const float *in_at[ES_MAX_RENDER_CHANNELS];
    float *out_at[ES_MAX_RENDER_CHANNELS];
    r->started = clock();
    while (r->written < r->total) {
        if (in_pos == r->chunk) {
            if (read_chunk(r, &input_done, err, n) != 0)
                return -1;
            in_pos = 0;
        }
        for (int c = 0; c < r->fmt.inputs; c++)
            in_at[c] = r->inbuf[c] + in_pos;
        for (int c = 0; c < r->fmt.outputs; c++)
            out_at[c] = r->outbuf[c] + out_fill;
        es_processor_process(r->proc, in_at, out_at, block);
        in_pos += block;
        const int64_t skip = latency > fed ? latency - fed : 0;
        fed += block;
        if (skip >= block)
            continue;
        int64_t count = block - skip;
        if (count > r->total - r->written)
            count = r->total - r->written;
        for (int c = 0; skip && c < r->fmt.outputs; c++)
            memmove(out_at[c], out_at[c] + skip, (size_t)count * sizeof(float));
        out_fill += (int)count;
        r->written += count;
        /* outbuf is written when another block would not fit: a chunk
         * holds whole blocks, and the blocks shortened by the latency
         * skipped only write sooner. */
        if (out_fill + block > r->chunk || r->written == r->total) {
            if (write_chunk(r, out_fill, err, n) != 0)
                return -1;
            out_fill = 0;
        }
    }
    return es_audiofile_commit(r->out, err, n) != 0 ? -1 : 0;
}

/* Samples that were not numbers never reach the file, and samples past
 * full scale are kept or clipped by the format: each said, counted. */
static void say_sample_notes(const render_args *a, const es_stats *stats, float peak)
{
    char shown[1100];
    /* The processor counts every sample past full scale it put out; past
     * the written frames (the latency skipped, the last block's end) the
     * output is the IR's silent tail, so its count is the file's. */
    const int64_t clipped = (int64_t)stats->clipped;
    if (stats->bad_input)
        es_error("note: %s: %llu samples were not numbers (NaN, infinity) or beyond +60 dBFS: "
                 "rendered as silence", es_text_escape(shown, sizeof shown, a->in_path),
                 (unsigned long long)stats->bad_input);
    if (stats->bad_output || stats->engine_bad)
        es_error("note: %llu output samples were not numbers (%llu engine blocks): written as "
                 "silence", (unsigned long long)stats->bad_output,
                 (unsigned long long)stats->engine_bad);
    if (clipped && a->format == ES_SAMPLE_FLOAT)
        es_error("note: %lld samples are above full scale (peak %+.1f dBFS): the float file "
                 "keeps them, but they would clip as PCM or on a sound card (--wet lowers the "
                 "room)", (long long)clipped, 20 * log10(peak));
    if (clipped && a->format != ES_SAMPLE_FLOAT)
        es_error("note: %lld samples were above full scale and were clipped in the %s output "
                 "(use --format float to keep them)",
                 (long long)clipped, a->format == ES_SAMPLE_PCM16 ? "pcm16" : "pcm24");
}

/* What the render made: a line for the file, its peak, then the notes.
 * The summary goes where the audio does not: stderr when OUT is "-". */
static void report(const render_args *a, const render_run *r)
{
    FILE *to = !strcmp(a->out_path, "-") ? stderr : stdout;
    es_stats stats;
    es_processor_stats(r->proc, &stats);
    char shown[1100];
    fprintf(to, "%s: %lld frames, %d in -> %d out, %s, block %d, %.2f s of CPU\n",
            es_text_escape(shown, sizeof shown, a->out_path), (long long)r->written,
            r->fmt.inputs, r->fmt.outputs, a->engine->name, a->block,
            (double)(clock() - r->started) / CLOCKS_PER_SEC);
    if (r->peak.value > 0)
        fprintf(to, "peak %+.1f dBFS at %.3f s, output %d\n", 20 * log10(r->peak.value),
                (double)r->peak.frame / r->info.sample_rate, r->peak.channel + 1);
    say_sample_notes(a, &stats, r->peak.value);
}

static void close_run(render_run *r)
{
    es_ir_destroy(r->field.decoder);
    es_audiofile_close(r->out);
    es_audiofile_close(r->in);
    es_processor_destroy(r->proc);
    es_ir_destroy(r->ir);
    es_free_channels(r->inbuf, r->fmt.inputs);
    es_free_channels(r->outbuf, r->fmt.outputs);
}

int es_cmd_render(int argc, char **argv)
{
    render_args a;
    if (parse(argc, argv, &a) != 0)
        return 2;
    /* No audio thread here: a buffer's pages come as they are used, and
     * the ones a render never uses (a second slot's, a delay line's past
     * the input) cost nothing. */
    es_alloc_lazy(1);
    /* OUT may be a pipe or FIFO: a reader that goes away is a write that
     * fails (EPIPE, said in one line), not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    render_run r = {0};
    char err[512];
    const int done = open_input(&a, &r, err, sizeof err) == 0 &&
                     load_room(&a, &r, err, sizeof err) == 0 &&
                     make_processor(&a, &r, err, sizeof err) == 0 &&
                     make_buffers(&r, a.block, err, sizeof err) == 0 &&
                     open_output(&a, &r, err, sizeof err) == 0 &&
                     render_blocks(&a, &r, err, sizeof err) == 0;
    if (done)
        report(&a, &r);
    else
        es_error("%s", err);
    close_run(&r);
    return done ? 0 : 1;
}
