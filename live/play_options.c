/* play's option table: the flags of `earshot play` and the workstation,
 * and the session they start (commands.h says why one table). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "core/files.h"
#include "engine_params.h"
#include "field_layout.h"
#include "head.h"
#include "processor.h"
#include "sofa.h"

#define OPT(f) offsetof(es_play_options, f)

static int parse_outputs(const char *text, void *dst, char *why, size_t n);
static int parse_limiter_flag(const char *text, void *dst, char *why, size_t n);
static int parse_osc_bind(const char *text, void *dst, char *why, size_t n);
#define END {NULL, 0, 0, 0, NULL, NULL, NULL, 0, NULL, NULL}

const es_param es_play_params[] = {
    {"room", ES_PARAM_STRING, 0, 1023, NULL, "ROOM",
     "a room of the library (earshot rooms lists them; prepared:\n"
     "resampled, trimmed, levelled) or an IR file (levelled as\n"
     "the library's rooms are: --raw keeps its level); default:\n"
     "concert-hall", OPT(room), NULL, NULL},
    {"ir", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "an IR file (or a jconvolver .conf, a SOFA set), even where a\n"
     "library room has its name; levelled as --room FILE is",
     OPT(ir), NULL, NULL},
    {"raw", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "a room given by its file plays at the file's own level, not\n"
     "levelled (g in the workstation, `raw on|off`)", OPT(spec.raw), NULL, NULL},
    {"rooms", ES_PARAM_STRING, 0, 1023, NULL, "DIR", "another library folder with a rooms.txt",
     OPT(rooms), NULL, NULL},
    ES_PARAM_ENGINE(es_play_options, spec.engine),
    ES_PARAM_BLOCK(es_play_options, spec.block),
    ES_PARAM_PARTITION(es_play_options, spec.options.partition),
    ES_PARAM_PIPELINED(es_play_options, spec.options.gpu_pipelined),
    ES_PARAM_GPU(es_play_options, spec.options.gpu.list),
    {"outputs", ES_PARAM_CUSTOM, 0, 0, NULL, "A-B",
     "play only outputs A to B of the room (from 1), for one share of a\n"
     "big matrix split by outputs across hosts (docs/SCALING.md)",
     OPT(outputs), NULL, parse_outputs},
    {"rate", ES_PARAM_DOUBLE, 8000, 384000, "48000", "HZ", "stream sample rate", OPT(rate), NULL,
     NULL},
    /* The names are the device layer's (es_device_names_help). */
    {"device", ES_PARAM_STRING, 0, 255, "auto", "NAME",
     "where it plays: a name of Devices, below", OPT(device), NULL, NULL},
    {"input", ES_PARAM_STRING, 0, 1023, "signal", "IN",
     "'signal': the built-in test signal; 'mic':\n"
     "the device's input; or a sound file, looped, resampled", OPT(input), NULL, NULL},
    {"input-device", ES_PARAM_STRING, 0, 255, NULL, "NAME",
     "with --input mic: the input's own device", OPT(input_device), NULL, NULL},
    {"name", ES_PARAM_STRING, 1, 63, "earshot", "NAME", "--device jack: the JACK client's name",
     OPT(jack.client), NULL, NULL},
    {"connect-in", ES_PARAM_STRING, 1, 255, NULL, "PATTERN",
     "--device jack: wire the inputs, in order, to the ports\n"
     "this pattern (a regular expression, as jack_lsp's) lists\n"
     "(default: the physical capture ports)", OPT(jack.connect_in), NULL, NULL},
    {"connect-out", ES_PARAM_STRING, 1, 255, NULL, "PATTERN",
     "--device jack: the same for the outputs (default: the\n"
     "physical playback ports)", OPT(jack.connect_out), NULL, NULL},
    {"no-connect", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "--device jack: wire nothing (the patch bay's to do)", OPT(jack.no_connect), NULL,
     NULL},
    {"layout", ES_PARAM_STRING, 0, 15, NULL, "IxO|ambix3|5.1|...",
     "a file room's channels as an I x O matrix (channel i*O + o:\n"
     "input i to output o) where the count alone is ambiguous, or\n"
     "as an Ambisonic room: ambixN (ACN/SN3D), n3dN, fuma1, Ix...\n"
     "for I inputs; a library room's layout is its manifest's. A\n"
     "SOFA set of loudspeakers (MultiSpeakerBRIR): the input's\n"
     "loudspeaker layout (stereo, 5.0, 5.1, 7.1, 7.1.4)", OPT(layout), NULL, NULL},
    {"inputs", ES_PARAM_INT, 1, 64, NULL, "N",
     "with --input mic: open N input channels (default: as many as\n"
     "the room has inputs: N of an NxM or jconvolver room, 2 of a\n"
     "true-stereo one, else 1), in the device's order", OPT(inputs), NULL, NULL},
    {"crossfade-ms", ES_PARAM_DOUBLE, 1, 5000, "50", "MS",
     "the crossfade of a swap: equal power between rooms,\n"
     "linear between engines of one room", OPT(crossfade_ms), NULL, NULL},
    {"record", ES_PARAM_STRING, 0, 1023, NULL, "OUT",
     "record the output to a float WAV (finished on stop, on\n"
     "Ctrl-C, and after a write error, keeping what was written)", OPT(record), NULL, NULL},
    {"trim", ES_PARAM_DOUBLE, ES_TRIM_DB_MIN, ES_TRIM_DB_MAX, "0", "DB",
     "the input trim, before the room and the dry path", OPT(trim), NULL, NULL},
    /* On wherever a person listens: a ceiling unless asked for none. */
    {"limiter", ES_PARAM_CUSTOM, 0, 0, ES_PARAM_DEFAULT_OF(ES_LIMITER_DEFAULT_DB), "DB|off",
     "the safety limiter on the output, at DB dBFS; off for none", OPT(limiter), NULL,
     parse_limiter_flag},
    {"record-input", ES_PARAM_STRING, 0, 1023, NULL, "OUT",
     "record the dry input too, sample-aligned with --record", OPT(record_input), NULL, NULL},
    /* No default: how long depends on --headless. */
    {"seconds", ES_PARAM_DOUBLE, 0.1, 86400, NULL, "T",
     "stop after T seconds (headless: "
     ES_PARAM_DEFAULT_OF(ES_PLAY_HEADLESS_SECONDS) " when not given; the\n"
     "workstation: runs until q)", OPT(seconds), NULL, NULL},
    {"headphone", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "a headphone filter after every room: a WAV (1 or 2\n"
     "ears), or one designed from a SimpleHeadphoneIR SOFA set", OPT(headphone), NULL, NULL},
    {"split", ES_PARAM_CUSTOM, 0, 0, "auto", "MS|auto|none",
     "a SOFA room of head orientations: where the part that\n"
     "turns with the head ends and one tail for all begins (auto:\n"
     "the room's mixing time; none: whole sets, which only\n"
     "cpu-partitioned and cuda-partitioned hold)", OPT(split_ms), NULL, es_split_parse},
    {"interp", ES_PARAM_CHOICE, 0, 0, "nearest", "HOW",
     "a SOFA room: nearest (the measured filter nearest the\n"
     "head's direction) or linear (the three around it blended,\n"
     "their onsets apart, on a thread of their own as the head\n"
     "turns)", OPT(interp), "nearest|linear", NULL},
    {"hrir", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "an Ambisonic room: the head it is decoded through, a SOFA\n"
     "set of HRIRs (default: KEMAR, " ES_FIELD_HRIR_DEFAULT ")", OPT(hrir), NULL, NULL},
    {"decoder", ES_PARAM_CHOICE, 0, 0, "auto", "HOW",
     "an Ambisonic room's binaural decoder: ls, magls (magnitude\n"
     "least squares above 2 kHz), auto (ls at first order, magls\n"
     "above), none (its SH channels as they are, unturned)", OPT(decoder),
     "auto|ls|magls|none", NULL},
    {"speakers", ES_PARAM_STRING, 0, 1023, NULL, "LAYOUT|FILE",
     "an Ambisonic room on a loudspeaker array (AllRAD) in place\n"
     "of two ears: 5.1, 7.1.4, ... or a file of lines AZ EL [NAME]", OPT(speakers), NULL,
     NULL},
    {"osc", ES_PARAM_INT, 1, 65535, NULL, "PORT",
     "OSC on this UDP port: a head tracker's orientation, which\n"
     "a SOFA room follows, and every command as /earshot/NAME,\n"
     "answered at the sender's port (--osc-help lists them)", OPT(osc), NULL, NULL},
    {"osc-bind", ES_PARAM_CUSTOM, 0, 0, NULL, "ADDR",
     "with --osc: listen on this address only (default\n"
     "127.0.0.1: this machine's senders alone; 0.0.0.0 or ::\n"
     "every interface, anyone on the network)", OPT(osc_bind), NULL, parse_osc_bind},
    {"log", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "append every command (keys, --commands, OSC) to FILE, one\n"
     "JSON object a line: its time, its reply, the figures then", OPT(log), NULL, NULL},
    {"osc-help", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "print the OSC addresses (a table from the command table)", OPT(osc_help), NULL, NULL},
    {"fps", ES_PARAM_DOUBLE, 1, 1000, "30", "N", "the workstation's redraws a second", OPT(fps),
     NULL, NULL},
    {"report", ES_PARAM_STRING, 0, 1023, NULL, "FILE",
     "the workstation: on quit, the stats as one JSON object", OPT(report), NULL, NULL},
    {"restore", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "headless: play the workstation's remembered settings (the\n"
     "workstation restores them unless --no-restore)", OPT(restore), NULL, NULL},
    {"no-restore", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "the workstation: start clean, not from the remembered settings", OPT(no_restore),
     NULL, NULL},
    {"headless", ES_PARAM_FLAG, 0, 1, NULL, NULL, "no terminal screen", OPT(headless), NULL, NULL},
    {"json", ES_PARAM_FLAG, 0, 1, NULL, NULL, "headless: the stats as one JSON object", OPT(json),
     NULL, NULL},
    {"commands", ES_PARAM_FLAG, 0, 1, NULL, NULL,
     "headless: read commands from standard input while\n"
     "playing, one a line (below)", OPT(commands), NULL, NULL},
    END,
};

/* --outputs A-B (or A, one output): from 1, as a person counts them. */
static int parse_outputs(const char *text, void *dst, char *why, size_t n)
{
    int *range = dst, a = 0, b = 0;
    if (!es_param_int_pair(text, '-', &a, &b)) {
        snprintf(why, n, "not a range of outputs (A-B, from 1, or one output A)");
        return -1;
    }
    if (a < 1 || b < a) {
        snprintf(why, n, "outputs count from 1 and the range must not run backwards");
        return -1;
    }
    range[0] = a - 1;
    range[1] = b - a + 1;
    return 0;
}

int es_play_options_default(es_play_options *o, char *err, size_t n)
{
    /* FFTW_MEASURE plans: no flag asks for less. */
    *o = (es_play_options){.spec = {.options = {.fft_measure = 1}}};
    return es_params_defaults(es_play_params, o, err, n);
}

unsigned es_play_options_given(int argc, char **argv, unsigned *levels)
{
    static const struct {
        const char *flag;
        unsigned spec, mix;
    } flags[] = {
        {"room", ES_SPEC_ROOM, 0}, {"ir", ES_SPEC_ROOM, 0}, {"engine", ES_SPEC_ENGINE, 0},
        {"partition", ES_SPEC_PARTITION, 0}, {"pipelined", ES_SPEC_PIPELINED, 0},
        {"gpu", ES_SPEC_GPUS, 0}, {"block", ES_SPEC_BLOCK, 0}, {"input", ES_SPEC_SOURCE, 0},
        {"raw", ES_SPEC_RAW, 0},
        {"trim", 0, ES_MIX_TRIM}, {"limiter", 0, ES_MIX_LIMITER},
    };
    unsigned spec = 0;
    *levels = 0;
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (es_params_given(es_play_params, argc, argv, flags[k].flag)) {
            spec |= flags[k].spec;
            *levels |= flags[k].mix;
        }
    return spec;
}

int es_play_options_session(const es_play_options *o, es_session_config *sc, char *err,
                            size_t n)
{
    if (o->room && o->ir) {
        snprintf(err, n, "--room and --ir both name the room: give one");
        return -1;
    }
    if (!o->headless && (o->json || o->commands)) {
        snprintf(err, n, "--json and --commands go with --headless");
        return -1;
    }
    if (o->osc_bind && !o->osc) {
        snprintf(err, n, "--osc-bind goes with --osc PORT");
        return -1;
    }
    int layout_in = 0, layout_out = 0;
    const int speakers = o->layout && es_speaker_layout_channels(o->layout);
    if (o->layout && !speakers && !es_layout_matrix(o->layout, &layout_in, &layout_out)) {
        snprintf(err, n, "--layout '%.20s': give inputs x outputs, as 1x4, an Ambisonic "
                 "layout (ambix3, fuma1, 2xambix1), or a loudspeaker layout (%s)", o->layout,
                 es_speaker_layout_names());
        return -1;
    }
    es_field_layout field_layout;
    const es_field_options field = {.hrir = o->hrir, .kind = (es_decoder_kind)o->decoder,
                                    .speakers = o->speakers};
    if (o->speakers && es_field_outputs(&field, err, n) == 0)
        return -1;
    struct stat hrir;
    if (o->hrir && (stat(o->hrir, &hrir) != 0 || !S_ISREG(hrir.st_mode))) {
        snprintf(err, n, "--hrir %.600s: no such file (a SOFA set of HRIRs)", o->hrir);
        return -1;
    }
    struct stat st;
    if (o->ir && stat(o->ir, &st) != 0) {
        snprintf(err, n, "--ir %s: no such file (a library room goes with --room)", o->ir);
        return -1;
    }
    if (o->ir && !S_ISREG(st.st_mode)) {
        snprintf(err, n, "--ir %s: %s, not a regular file", o->ir, es_file_kind(st.st_mode));
        return -1;
    }
    es_source_kind kind = ES_SOURCE_SIGNAL;
    if (!strcmp(o->input, "mic"))
        kind = ES_SOURCE_MIC;
    else if (strcmp(o->input, "signal") != 0)
        kind = ES_SOURCE_FILE;
    /* --ir is a file even where a library room has the same name: the
     * loader tries the library first, and no room's name holds a slash. */
    const char *room = o->ir ? o->ir : o->room;
    static char as_file[1100];
    if (o->ir && !strchr(o->ir, '/')) {
        snprintf(as_file, sizeof as_file, "./%s", o->ir);
        room = as_file;
    }
    *sc = (es_session_config){.device = o->device, .input_device = o->input_device,
                              .jack = o->jack,
                              .mic_inputs = o->inputs, .layout_inputs = layout_in,
                              .layout_outputs = layout_out,
                              .rooms_dir = o->rooms,
                              .file = kind == ES_SOURCE_FILE ? o->input : NULL,
                              .rate = o->rate, .crossfade_ms = o->crossfade_ms,
                              .first_output = o->outputs[0], .outputs = o->outputs[1],
                              .record = o->record, .record_input = o->record_input,
                              .playing = ES_SLOT_A, .osc_port = o->osc,
                              .osc_bind = o->osc_bind, .log_path = o->log,
                              .headphone = o->headphone, .split_ms = o->split_ms, .interp = o->interp,
                              .speakers = speakers ? o->layout : NULL,
                              .field = field,
                              .field_layout = o->layout && es_field_layout_parse(o->layout,
                                                                                  &field_layout)
                                                  ? o->layout
                                                  : NULL,
                              .mix = {.wet = 1, .dry = 0, .gain = 1, .trim_db = (float)o->trim,
                                      .limiter = !isnan(o->limiter),
                                      .ceiling_db = isnan(o->limiter) ? 0 : (float)o->limiter}};
    sc->slot[ES_SLOT_A] = o->spec;
    sc->slot[ES_SLOT_A].source = kind;
    es_play_spec_set_room(&sc->slot[ES_SLOT_A], room ? room : "");
    return 0;
}

/* --limiter DB|off: the ceiling, or NAN for off. */
static int parse_limiter_flag(const char *text, void *dst, char *why, size_t n)
{
    double db;
    if (es_parse_db(text, &db, ES_CEILING_DB_MIN, ES_CEILING_DB_MAX, 1, why, n) != 0)
        return -1;
    *(double *)dst = db == -INFINITY ? NAN : db;
    return 0;
}

/* --osc-bind ADDR: an IPv4 or IPv6 literal, bound when the session opens. */
static int parse_osc_bind(const char *text, void *dst, char *why, size_t n)
{
    if (!es_head_osc_address_valid(text, why, n))
        return -1;
    *(const char **)dst = text;
    return 0;
}
