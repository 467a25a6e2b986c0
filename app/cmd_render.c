/* earshot render: a file through the same processor the live path runs,
 * block by block, tail included. */
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
#include "irfile.h"
#include "processor.h"
#include "core/param.h"
#include "engine_params.h"
#include "library.h"
#include "room_loader.h"
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
    "set a head at --head YAW[,PITCH] hears, as playing it would pick it.\n"
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
    const char *ir_path, *room, *rooms, *in_path, *out_path, *layout, *head;
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
     "or inputs x outputs channels for a full matrix", offsetof(render_args, ir_path), NULL,
     NULL},
    {"room", ES_PARAM_STRING, 0, 1023, NULL, "NAME",
     "a room of the library instead (earshot rooms lists them):\n"
     "prepared as for playing (trimmed, normalised)", offsetof(render_args, room),
     NULL, NULL},
    {"rooms", ES_PARAM_STRING, 0, 1023, NULL, "DIR", "another library folder with a rooms.txt",
     offsetof(render_args, rooms), NULL, NULL},
    {"head", ES_PARAM_STRING, 0, 63, NULL, "YAW[,PITCH]",
     "a SOFA room: the head's orientation, degrees (yaw: left\n"
     "+, pitch: up +; 0,0 when not given): the set playing\n"
     "would pick",
     offsetof(render_args, head), NULL, NULL},
    {"layout", ES_PARAM_STRING, 0, 15, NULL, "IxO",
     "--ir's channels as an I x O matrix (channel i*O + o: input\n"
     "i to output o), where the count alone is ambiguous (a\n"
     "4-channel 1x4 B-format room is not true stereo); a\n"
     "library room's layout is its manifest's", offsetof(render_args, layout), NULL, NULL},
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
    if (!a->ir_path == !a->room) {
        es_error("render: give --ir FILE or --room NAME (one of them)");
        return -1;
    }
    if (npos < 2) {
        es_error("render: needs IN and OUT files (see earshot render --help)");
        return -1;
    }
    if (a->layout && a->room) {
        es_error("render: --layout is for an --ir file; a room's layout is its manifest's");
        return -1;
    }
    a->in_path = positional[0];
    a->out_path = positional[1];
    if (!a->ir_path)
        a->ir_path = a->room;
    if (es_same_file(a->in_path, a->out_path) || es_same_file(a->ir_path, a->out_path) ||
        !strcmp(a->in_path, a->out_path) || !strcmp(a->ir_path, a->out_path)) {
        es_error("%s: the output would overwrite an input", a->out_path);
        return -1;
    }
    return 0;
}

/* --head YAW[,PITCH]: 0, or -1 with a message. */
static int parse_head(const char *text, float *yaw, float *pitch, char *err, size_t n)
{
    double v[2] = {0, 0};
    const char *at = text;
    for (int k = 0; k < 2; k++) {
        char *end;
        v[k] = strtod(at, &end);
        if (end == at || !isfinite(v[k]) || (*end && *end != ',') || (k == 1 && *end)) {
            snprintf(err, n, "--head '%s': give YAW or YAW,PITCH in degrees", text);
            return -1;
        }
        at = end + 1;
        if (!*end)
            break;
    }
    if (fabs(v[0]) > 360 || fabs(v[1]) > 90) {
        snprintf(err, n, "--head '%s': yaw -360 to 360, pitch -90 to 90", text);
        return -1;
    }
    *yaw = (float)v[0], *pitch = (float)v[1];
    return 0;
}

/* The SOFA file the room is, or "" (a WAV, a configuration, a room of
 * another kind). */
static void sofa_of(const render_args *a, char *path, size_t n)
{
    path[0] = 0;
    if (!a->room) {
        if (es_sofa_is_file(a->ir_path))
            snprintf(path, n, "%s", a->ir_path);
        return;
    }
    es_library lib;
    es_library_open(&lib, a->rooms);
    const es_room *room = es_library_find(&lib, a->room);
    const char *file = room ? room->path : a->room;
    if (es_sofa_is_file(file))
        snprintf(path, n, "%s", file);
    es_library_close(&lib);
}

/* The set a head at --head hears, read at the input's rate; NULL and why. */
static es_ir *sofa_set(const render_args *a, const char *path, double rate, int channels,
                       char *err, size_t n)
{
    float yaw = 0, pitch = 0;
    if (a->head && parse_head(a->head, &yaw, &pitch, err, n) != 0)
        return NULL;
    es_sofa *set = es_sofa_load(path, rate, err, n);
    if (!set)
        return NULL;
    es_ir *ir = NULL;
    const int k = es_sofa_for_head(set, yaw, pitch);
    if (k < 0)
        snprintf(err, n, "%s: no measurement in the set", path);
    else if (set->inputs != channels)
        snprintf(err, n, "%s: its sets have %d source%s; the input has %d channel%s", path,
                 set->inputs, set->inputs == 1 ? "" : "s", channels, channels == 1 ? "" : "s");
    else {
        ir = set->sets[k];
        set->sets[k] = NULL;
        if (set->file_rate != set->rate)
            es_error("note: %s is %g Hz, resampled to %g Hz to match the input", path,
                     set->file_rate, set->rate);
        es_error("note: %s: SOFA %s, set %d of %d (azimuth %.1f, elevation %.1f) for yaw "
                 "%g, pitch %g", path, set->convention, k + 1, set->count, set->pose[k].azimuth,
                 set->pose[k].elevation, yaw, pitch);
    }
    es_sofa_free(set);
    return ir;
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

static void note_peak(output_peak *p, const float *const *out, int channels, int frames,
                      int64_t first_frame)
{
    for (int c = 0; c < channels; c++)
        for (int t = 0; t < frames; t++)
            if (fabsf(out[c][t]) > p->value)
                *p = (output_peak){fabsf(out[c][t]), first_frame + t, c};
}

int es_cmd_render(int argc, char **argv)
{
    render_args a;
    char err[512];
    int status = 1;
    es_audiofile *in = NULL, *out = NULL;
    es_processor *proc = NULL;
    es_ir *ir = NULL;
    float **inbuf = NULL, **outbuf = NULL;
    int inputs = 0, outputs = 0;
    es_audio_info info;

    if (parse(argc, argv, &a) != 0)
        return 2;
    /* No audio thread here: a buffer's pages come as they are used, and
     * the ones a render never uses (a second slot's, a delay line's past
     * the input) cost nothing. */
    es_alloc_lazy(1);
    const int to_stdout = !strcmp(a.out_path, "-");
    /* OUT may be a pipe or FIFO: a reader that goes away is a write that
     * fails (EPIPE, said in one line), not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    if (!(in = es_audiofile_open_read(a.in_path, &info, err, sizeof err)))
        goto fail;
    if (info.frames < 1) {
        snprintf(err, sizeof err, "%s: no audio in the file (0 frames)", a.in_path);
        goto fail;
    }
    es_ir_load_info irinfo = {0};
    char sofa[1100];
    sofa_of(&a, sofa, sizeof sofa);
    if (a.head && !sofa[0]) {
        snprintf(err, sizeof err, "--head is for a SOFA room; %s is not one", a.ir_path);
        goto fail;
    }
    if (a.layout && sofa[0]) {
        snprintf(err, sizeof err, "--layout is for a WAV's channels; %s is a SOFA set, its "
                 "layout its own", a.ir_path);
        goto fail;
    }
    if (sofa[0]) {
        if (!(ir = sofa_set(&a, sofa, info.sample_rate, info.channels, err, sizeof err)))
            goto fail;
    } else if (a.room) {
        es_room_loader rooms;
        char note[300];
        es_room_loader_open(&rooms, a.rooms);
        double loud_db;
        ir = es_room_loader_get(&rooms, a.room, info.sample_rate, info.channels, ES_FILE_RAW,
                                &loud_db, note, sizeof note, err, sizeof err);
        es_room_loader_close(&rooms);
        if (!ir)
            goto fail;
        if (note[0])
            es_error("%s", note);
    } else if (a.layout) {
        int ins, outs;
        if (!es_layout_matrix(a.layout, &ins, &outs)) {
            snprintf(err, sizeof err, "--layout '%s': give inputs x outputs, as 1x4", a.layout);
            goto fail;
        }
        if (ins != info.channels) {
            snprintf(err, sizeof err, "--layout %s takes %d input channel%s; %s has %d", a.layout,
                     ins, ins == 1 ? "" : "s", a.in_path, info.channels);
            goto fail;
        }
        if (!(ir = es_ir_load_matrix(a.ir_path, info.sample_rate, ins, outs, &irinfo, err,
                                     sizeof err)))
            goto fail;
    } else if (!(ir = es_ir_load(a.ir_path, info.sample_rate, info.channels, &irinfo, err,
                                 sizeof err))) {
        goto fail;
    }
    if (irinfo.resampled)
        es_error("note: %s is %g Hz, resampled to %g Hz to match %s (%d -> %d frames)",
                 a.ir_path, irinfo.file_rate, info.sample_rate, a.in_path, irinfo.file_frames,
                 ir->length);
    char layout[160];
    if (!a.room && !sofa[0] && !a.layout && !es_ir_file_is_config(a.ir_path) &&
        es_ir_layout_note(irinfo.file_channels, info.channels, layout, sizeof layout))
        es_error("note: %s: %s", a.ir_path, layout);
    if (ir->outputs > ES_MAX_RENDER_CHANNELS || ir->inputs > ES_MAX_RENDER_CHANNELS) {
        snprintf(err, sizeof err, "%s: %d x %d channels; at most %d each way", a.ir_path,
                 ir->inputs, ir->outputs, ES_MAX_RENDER_CHANNELS);
        goto fail;
    }
    inputs = ir->inputs;
    outputs = ir->outputs;
    give_back_freed();
    es_format fmt = {.sample_rate = info.sample_rate, .max_block = a.block,
                     .inputs = inputs, .outputs = outputs};
    choose_block(&a, &fmt, ir);
    char why[256];
    if (es_gpu_list_for(a.engine, &a.options.gpu.list, err, sizeof err) != 0)
        goto fail;
    es_engine *engine = es_engine_create(a.engine, &fmt, ir, &a.options, why, sizeof why);
    if (!engine) {
        snprintf(err, sizeof err, "%s: %s", a.ir_path, why);
        goto fail;
    }
    es_processor_config pc = {.mix = {.wet = (float)a.wet, .dry = (float)(1.0 - a.wet),
                                      .gain = 1.0f},
                              .offline = 1};
    if (!(proc = es_processor_create(&fmt, engine, &pc, err, sizeof err)))
        goto fail;
    /* The file side moves CHUNK frames a call, the processor sees the
     * block asked for: in[] is read a chunk at a time and walked block by
     * block; out[] gathers blocks until a chunk's worth is written. */
    const long fits = RENDER_CHUNK_BYTES / ((long)sizeof(float) * (fmt.inputs + fmt.outputs));
    const int most = fits < RENDER_CHUNK ? (int)fits : RENDER_CHUNK;
    const int chunk = most > a.block ? most / a.block * a.block : a.block;
    /* out[] is written when another block would not fit: a chunk holds
     * whole blocks, and the blocks shortened by the latency skipped only
     * write sooner. */
    const int out_room = chunk;
    inbuf = es_alloc_channels(fmt.inputs, (size_t)chunk);
    outbuf = es_alloc_channels(fmt.outputs, (size_t)out_room);
    if (!inbuf || !outbuf) {
        snprintf(err, sizeof err, "out of memory for %d-frame buffers", chunk);
        goto fail;
    }
    /* The engine holds what it needs of the room: the taps go now (a 64 x
     * 64 room of 4096-tap filters is 1 MB of them), and their memory back
     * to the system. */
    const int ir_length = ir->length;
    es_ir_destroy(ir);
    ir = NULL;
    give_back_freed();
    /* Input, then zeros until the tail has left: IN + IR - 1 frames come out
     * after the processor's latency, which is dropped from the front. */
    const int64_t total = info.frames + ir_length - 1;
    const es_write_spec spec = {.sample_rate = info.sample_rate, .channels = fmt.outputs,
                                .format = a.format, .mode = ES_WRITE_REPLACE,
                                .frames = total};
    if (!(out = es_audiofile_create(a.out_path, &spec, err, sizeof err)))
        goto fail;

    const int latency = es_processor_latency(proc);
    int64_t fed = 0, written = 0, clipped;
    output_peak peak = {0};
    int input_done = 0, in_pos = chunk, out_fill = 0;
    const float *in_at[ES_MAX_RENDER_CHANNELS];
    float *out_at[ES_MAX_RENDER_CHANNELS];
    const clock_t started = clock();
    while (written < total) {
        if (in_pos == chunk) {
            long got = 0;
            if (!input_done) {
                got = es_audiofile_read(in, inbuf, chunk, err, sizeof err);
                if (got < 0)
                    goto fail;
                input_done = got < chunk;
            }
            for (int c = 0; got < chunk && c < fmt.inputs; c++)
                memset(inbuf[c] + got, 0, (size_t)(chunk - got) * sizeof(float));
            in_pos = 0;
        }
        for (int c = 0; c < fmt.inputs; c++)
            in_at[c] = inbuf[c] + in_pos;
        for (int c = 0; c < fmt.outputs; c++)
            out_at[c] = outbuf[c] + out_fill;
        es_processor_process(proc, in_at, out_at, a.block);
        in_pos += a.block;
        const int64_t skip = latency > fed ? latency - fed : 0;
        fed += a.block;
        if (skip >= a.block)
            continue;
        int64_t count = a.block - skip;
        if (count > total - written)
            count = total - written;
        for (int c = 0; skip && c < fmt.outputs; c++)
            memmove(out_at[c], out_at[c] + skip, (size_t)count * sizeof(float));
        out_fill += (int)count;
        written += count;
        if (out_fill + a.block > out_room || written == total) {
            note_peak(&peak, (const float *const *)outbuf, fmt.outputs, out_fill,
                      written - out_fill);
            if (es_audiofile_write(out, (const float *const *)outbuf, out_fill, err,
                                   sizeof err))
                goto fail;
            out_fill = 0;
        }
    }
    if (es_audiofile_commit(out, err, sizeof err) != 0)
        goto fail;
    /* The processor counts every sample past full scale it put out; past
     * the written frames (the latency skipped, the last block's end) the
     * output is the IR's silent tail, so its count is the file's. */
    es_stats stats;
    es_processor_stats(proc, &stats);
    clipped = (int64_t)stats.clipped;
    /* The summary goes where the audio does not: stderr when OUT is "-". */
    char shown[1100];
    fprintf(to_stdout ? stderr : stdout,
            "%s: %lld frames, %d in -> %d out, %s, block %d, %.2f s of CPU\n",
            es_text_escape(shown, sizeof shown, a.out_path),
           (long long)written, fmt.inputs, fmt.outputs, a.engine->name, a.block,
           (double)(clock() - started) / CLOCKS_PER_SEC);
    if (peak.value > 0)
        fprintf(to_stdout ? stderr : stdout, "peak %+.1f dBFS at %.3f s, output %d\n",
                20 * log10(peak.value), (double)peak.frame / info.sample_rate, peak.channel + 1);
    /* Samples that were not numbers never reach the file: said, counted. */
    if (stats.bad_input)
        es_error("note: %s: %llu samples were not numbers (NaN, infinity) or beyond +60 dBFS: "
                 "rendered as silence", es_text_escape(shown, sizeof shown, a.in_path),
                 (unsigned long long)stats.bad_input);
    if (stats.bad_output || stats.engine_bad)
        es_error("note: %llu output samples were not numbers (%llu engine blocks): written as "
                 "silence", (unsigned long long)stats.bad_output,
                 (unsigned long long)stats.engine_bad);
    if (clipped && a.format == ES_SAMPLE_FLOAT)
        es_error("note: %lld samples are above full scale (peak %+.1f dBFS): the float file "
                 "keeps them, but they would clip as PCM or on a sound card (--wet lowers the "
                 "room)", (long long)clipped, 20 * log10(peak.value));
    if (clipped && a.format != ES_SAMPLE_FLOAT)
        es_error("note: %lld samples were above full scale and were clipped in the %s output "
                 "(use --format float to keep them)",
                 (long long)clipped, a.format == ES_SAMPLE_PCM16 ? "pcm16" : "pcm24");
    status = 0;
    goto done;
fail:
    es_error("%s", err);
done:
    es_audiofile_close(out);
    es_audiofile_close(in);
    es_processor_destroy(proc);
    es_ir_destroy(ir);
    es_free_channels(inbuf, inputs);
    es_free_channels(outbuf, outputs);
    return status;
}
