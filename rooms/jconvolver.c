/* A jconvolver configuration read as jconvolver 1.1 reads it
 * (jconvolver.h lists the commands). One pass, a command a line, each a
 * row of a table: the paths' filters grow as entries land on them, cut at
 * MAXSIZE as jconvolver cuts them, and /impulse/copy makes a path share
 * another's filter (a link resolved on every write, so that later
 * additions to either reach both, then copied out at the end). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audiofile.h"
#include "core/files.h"
#include "core/lines.h"
#include "core/param.h"
#include "core/text.h"
#include "jconvolver.h"

#define MAX_FRAMES (60 * 192000)
#define MAX_LINE 2047 /* characters; a longer line is refused, not cut */
#define MAX_WORDS 12
#define MAX_BYTES ((size_t)2 << 30) /* the filters' memory, all paths */
#define DEFAULT_RATE 48000.0        /* for a room no file gives a rate to */
#define PI 3.14159265358979323846

typedef struct {
    const char *conf;
    int line;
    char dir[1024];
    es_jconvolver_room *room;
    int *link;   /* [in * out]: the path whose filter this one shares (itself: none) */
    int *cap;    /* frames each row holds */
    size_t bytes;
    int cut;     /* lines whose data MAXSIZE cut */
    /* The file the last /impulse/read took a channel of, kept: a matrix
     * reads each of its files' channels on lines that follow each other,
     * and loading the whole file for every line would read it once per
     * channel. */
    char held_path[2200];
    float **held;
    es_audio_info held_info;
} reader;

typedef struct {
    int inputs, outputs, part, maxsize;
    double density;
} convolver;

typedef struct {
    int in, out;
    double gain;
    int delay, offset, length, chan; /* /impulse/read; hilbert: length */
    int from_in, from_out;           /* /impulse/copy */
} entry;

/* The numbers of each command, range-checked as every number earshot reads
 * is: a NaN gain or a delay past any IR earshot takes is refused with its
 * name, before any arithmetic sees it. */
#define ES_SIDE ES_JCONVOLVER_SIDE
static const es_param new_fields[] = {
    {"INPUTS", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(convolver, inputs)},
    {"OUTPUTS", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(convolver, outputs)},
    {"PART", ES_PARAM_INT, 1, 1 << 20, .offset = offsetof(convolver, part)},
    {"MAXSIZE", ES_PARAM_INT, 1, MAX_FRAMES, .offset = offsetof(convolver, maxsize)},
    {"DENSITY", ES_PARAM_DOUBLE, 0, 1, .def = "1", .offset = offsetof(convolver, density)},
    {NULL}};
#define PATH_FIELDS                                                                         \
    {"IN", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(entry, in)},                        \
    {"OUT", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(entry, out)}
#define GAIN_DELAY                                                                          \
    {"GAIN", ES_PARAM_DOUBLE, -1000, 1000, .offset = offsetof(entry, gain)},                \
    {"DELAY", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(entry, delay)}
static const es_param read_fields[] = {
    PATH_FIELDS, GAIN_DELAY,
    {"OFFSET", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(entry, offset)},
    {"LENGTH", ES_PARAM_INT, 0, MAX_FRAMES, .offset = offsetof(entry, length)},
    {"CHAN", ES_PARAM_INT, 1, 1024, .offset = offsetof(entry, chan)},
    {NULL}};
static const es_param dirac_fields[] = {PATH_FIELDS, GAIN_DELAY, {NULL}};
static const es_param hilbert_fields[] = {
    PATH_FIELDS, GAIN_DELAY,
    {"LENGTH", ES_PARAM_INT, 64, 65536, .offset = offsetof(entry, length)},
    {NULL}};
static const es_param copy_fields[] = {
    PATH_FIELDS,
    {"FROMIN", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(entry, from_in)},
    {"FROMOUT", ES_PARAM_INT, 1, ES_SIDE, .offset = offsetof(entry, from_out)},
    {NULL}};

/* "CONF:LINE: " before a message. */
static int fail(const reader *r, char *err, size_t n, const char *why)
{
    snprintf(err, n, "%s:%d: %s", r->conf, r->line, why);
    return -1;
}

/* The words given (the first `given` of word[]) through the table into
 * base, the fields past them at their defaults; 0, or -1 said. */
static int parse(const reader *r, const es_param *fields, char **word, int given,
                 const char *command, void *base, char *err, size_t n)
{
    char label[64], why[256];
    if (es_params_defaults(fields, base, why, sizeof why) != 0)
        return fail(r, err, n, why);
    for (int k = 0; fields[k].name && k < given; k++) {
        snprintf(label, sizeof label, "%s %s", command, fields[k].name);
        if (es_param_parse(&fields[k], label, word[k], base, why, sizeof why) != 0)
            return fail(r, err, n, why);
    }
    return 0;
}

/* A note on what was cut or dropped, for the line being read. */
static void note(reader *r, const char *what)
{
    es_jconvolver_room *room = r->room;
    const size_t used = strlen(room->notes);
    if (used + 80 < sizeof room->notes)
        snprintf(room->notes + used, sizeof room->notes - used, "%sline %d: %s", used ? "; " : "",
                 r->line, what);
}

/* The row path in -> out (0-based) writes to: its own, or the one it shares. */
static int row_of(const reader *r, int in, int out)
{
    int p = in * r->room->outputs + out;
    while (r->link[p] != p)
        p = r->link[p];
    return p;
}

/* Adds gain * x[0..count) (x read with a stride) to path in -> out from
 * frame `at`, cut at MAXSIZE (counted, noted once a line). 0, or -1 said. */
static int add(reader *r, int in, int out, int at, const float *x, int stride, int count,
               double gain, char *err, size_t n)
{
    es_jconvolver_room *room = r->room;
    const int keep = at >= room->maxsize ? 0 : count < room->maxsize - at ? count
                                                                            : room->maxsize - at;
    if (keep < count) {
        r->cut++;
        note(r, "data truncated at MAXSIZE");
    }
    if (keep <= 0)
        return 0;
    const int p = row_of(r, in, out), need = at + keep;
    if (need > r->cap[p]) {
        const size_t more = (size_t)(need - r->cap[p]) * sizeof(float);
        float *grown = r->bytes + more <= MAX_BYTES
                           ? realloc(room->paths[p], (size_t)need * sizeof(float))
                           : NULL;
        if (!grown)
            return fail(r, err, n, "the filters need more memory than earshot gives a room");
        memset(grown + r->cap[p], 0, more);
        room->paths[p] = grown;
        r->bytes += more;
        r->cap[p] = need;
    }
    float *dst = room->paths[p] + at;
    for (int t = 0; t < keep; t++)
        dst[t] += (float)(gain * x[(size_t)t * (size_t)stride]);
    return 0;
}

/* ---- the commands ---- */

typedef int (*command_fn)(reader *r, char **word, int words, char *err, size_t n);

static int c_cd(reader *r, char **word, int words, char *err, size_t n)
{
    (void)words;
    if (strlen(word[1]) >= sizeof r->dir)
        return fail(r, err, n, "/cd: the folder's name is too long");
    snprintf(r->dir, sizeof r->dir, "%s", word[1]);
    return 0;
}

static int c_new(reader *r, char **word, int words, char *err, size_t n)
{
    es_jconvolver_room *room = r->room;
    /* One convolver: a second would change the matrix under what is read. */
    if (room->inputs)
        return fail(r, err, n, "a second /convolver/new (earshot imports one)");
    convolver c = {0};
    if (parse(r, new_fields, word + 1, words - 1, word[0], &c, err, n))
        return -1;
    const size_t paths = (size_t)c.inputs * (size_t)c.outputs;
    room->paths = calloc(paths, sizeof *room->paths);
    r->link = malloc(paths * sizeof *r->link);
    r->cap = calloc(paths, sizeof *r->cap);
    if (!room->paths || !r->link || !r->cap)
        return fail(r, err, n, "out of memory");
    for (size_t p = 0; p < paths; p++)
        r->link[p] = (int)p;
    room->inputs = c.inputs;
    room->outputs = c.outputs;
    room->part = c.part;
    room->maxsize = c.maxsize;
    room->density = c.density;
    return 0;
}

/* Checks a path's numbers against the convolver; 0 or -1 said. */
static int check_path(const reader *r, int in, int out, char *err, size_t n)
{
    if (!r->room->inputs)
        return fail(r, err, n, "a filter before /convolver/new");
    if (in > r->room->inputs || out > r->room->outputs) {
        char why[160];
        snprintf(why, sizeof why, "input %d or output %d is outside the %dx%d convolver", in,
                 out, r->room->inputs, r->room->outputs);
        return fail(r, err, n, why);
    }
    return 0;
}

static void release_held(reader *r)
{
    es_audiofile_free_channels(r->held, r->held_info.channels);
    r->held = NULL;
    r->held_path[0] = 0;
}

static int c_read(reader *r, char **word, int words, char *err, size_t n)
{
    entry e = {0};
    if (parse(r, read_fields, word + 1, words - 1, word[0], &e, err, n) ||
        check_path(r, e.in, e.out, err, n))
        return -1;
    const char *file = word[8];
    char path[2200], why[1600];
    if (strlen(file) >= 1024)
        return fail(r, err, n, "the file name is longer than 1023 characters");
    snprintf(path, sizeof path, "%s%s%s", file[0] == '/' ? "" : r->dir,
             file[0] == '/' ? "" : "/", file);
    if (!r->held || strcmp(path, r->held_path) != 0) {
        release_held(r);
        if (es_audiofile_load(path, &r->held, &r->held_info, why, sizeof why) != 0)
            return fail(r, err, n, why);
        snprintf(r->held_path, sizeof r->held_path, "%s", path);
    }
    float **ch = r->held;
    const es_audio_info info = r->held_info;
    int rc = -1;
    es_jconvolver_room *room = r->room;
    if (room->rate && info.sample_rate != room->rate) {
        snprintf(why, sizeof why, "%.1100s is %g Hz, the files before it %g Hz", path,
                 info.sample_rate, room->rate);
        fail(r, err, n, why);
    } else if (e.chan > info.channels) {
        snprintf(why, sizeof why, "%.1100s has %d channel%s, not channel %d", path,
                 info.channels, info.channels == 1 ? "" : "s", e.chan);
        fail(r, err, n, why);
    } else {
        room->rate = info.sample_rate;
        long count = (long)info.frames - e.offset;
        if (e.length > 0 && e.length < count)
            count = e.length;
        rc = count <= 0 ? 0
                        : add(r, e.in - 1, e.out - 1, e.delay, ch[e.chan - 1] + e.offset, 1,
                              (int)count, e.gain, err, n);
    }
    return rc;
}

static int c_dirac(reader *r, char **word, int words, char *err, size_t n)
{
    entry e = {0};
    if (parse(r, dirac_fields, word + 1, words - 1, word[0], &e, err, n) ||
        check_path(r, e.in, e.out, err, n))
        return -1;
    const float one = 1.0f;
    return add(r, e.in - 1, e.out - 1, e.delay, &one, 1, 1, e.gain, err, n);
}

/* A Hilbert transformer of `length` taps centred on `delay`: at the odd
 * offsets i from the centre, -+ (2 / pi) gain / i, tapered by
 * 0.43 + 0.57 cos(pi i / (length / 2)) (as jconvolver makes it, so that the
 * 90 degree relation to a Dirac at the same delay is exact). */
static int c_hilbert(reader *r, char **word, int words, char *err, size_t n)
{
    entry e = {0};
    if (parse(r, hilbert_fields, word + 1, words - 1, word[0], &e, err, n) ||
        check_path(r, e.in, e.out, err, n))
        return -1;
    const int half = e.length / 2;
    if (e.delay < half) {
        note(r, "Hilbert impulse dropped: delay < length / 2");
        return 0;
    }
    float *taps = calloc((size_t)e.length, sizeof *taps);
    if (!taps)
        return fail(r, err, n, "out of memory");
    const float scale = (float)(e.gain * 2 / PI);
    for (int i = 1; i < half; i += 2) {
        const float w = 0.43f + 0.57f * cosf((float)(i * PI / half));
        const float v = scale / (float)i * w;
        taps[half + i] = -v;
        taps[half - i] = v;
    }
    const int rc = add(r, e.in - 1, e.out - 1, e.delay - half, taps, 1, e.length, 1.0, err, n);
    free(taps);
    return rc;
}

static int c_copy(reader *r, char **word, int words, char *err, size_t n)
{
    entry e = {0};
    if (parse(r, copy_fields, word + 1, words - 1, word[0], &e, err, n) ||
        check_path(r, e.in, e.out, err, n) || check_path(r, e.from_in, e.from_out, err, n))
        return -1;
    if (e.in == e.from_in && e.out == e.from_out)
        return fail(r, err, n, "/impulse/copy copies a path onto itself");
    const int to = (e.in - 1) * r->room->outputs + (e.out - 1);
    const int from = row_of(r, e.from_in - 1, e.from_out - 1);
    if (r->link[to] != to || r->room->paths[to] || from == to)
        return fail(r, err, n, "/impulse/copy onto a path that has a filter already");
    r->link[to] = from;
    return 0;
}

/* /input/name N NAME [PORT...] and /output/name: the name kept. One
 * without a port number in the convolver is left out, with a note, as
 * fconvolver (which names no ports) leaves every one. */
static int name_port(reader *r, char **word, int words, int side,
                     char (*names)[ES_JCONVOLVER_NAME], char *err, size_t n)
{
    if (!r->room->inputs)
        return fail(r, err, n, "a port name before /convolver/new");
    char *end;
    const long k = strtol(word[1], &end, 10);
    if (*end || k < 1 || k > side || words < 3) {
        note(r, "a port name without a port number of the convolver, left out");
        return 0;
    }
    snprintf(names[k - 1], ES_JCONVOLVER_NAME, "%s", word[2]);
    return 0;
}

static int c_input_name(reader *r, char **word, int words, char *err, size_t n)
{
    return name_port(r, word, words, r->room->inputs, r->room->input_name, err, n);
}

static int c_output_name(reader *r, char **word, int words, char *err, size_t n)
{
    return name_port(r, word, words, r->room->outputs, r->room->output_name, err, n);
}

static int c_client(reader *r, char **word, int words, char *err, size_t n)
{
    (void)words, (void)err, (void)n;
    snprintf(r->room->client, sizeof r->room->client, "%s", word[1]);
    return 0;
}

static int c_server(reader *r, char **word, int words, char *err, size_t n)
{
    (void)r, (void)word, (void)words, (void)err, (void)n;
    return 0; /* the server is the one earshot is started on */
}

static const struct {
    const char *name;
    int least, most; /* words, the command's included */
    command_fn run;
    const char *usage;
} commands[] = {
    {"/cd", 2, 2, c_cd, "DIR"},
    {"/convolver/new", 5, 6, c_new, "INPUTS OUTPUTS PART MAXSIZE [DENSITY]"},
    {"/impulse/read", 9, 9, c_read, "IN OUT GAIN DELAY OFFSET LENGTH CHAN FILE"},
    {"/impulse/dirac", 5, 5, c_dirac, "IN OUT GAIN DELAY"},
    {"/impulse/hilbert", 6, 6, c_hilbert, "IN OUT GAIN DELAY LENGTH"},
    {"/impulse/copy", 5, 5, c_copy, "IN OUT FROMIN FROMOUT"},
    {"/input/name", 2, MAX_WORDS, c_input_name, "N NAME [PORT...]"},
    {"/output/name", 2, MAX_WORDS, c_output_name, "N NAME [PORT...]"},
    {"/jack/client", 2, 2, c_client, "NAME"},
    {"/jack/server", 2, 2, c_server, "NAME"},
};

/* One line's command through the table. */
static int run_line(reader *r, char *text, char *err, size_t n)
{
    char *word[MAX_WORDS];
    int count = 0;
    for (char *at = strtok(text, " \t\r\n"); at && count < MAX_WORDS; at = strtok(NULL, " \t\r\n"))
        word[count++] = at;
    if (count == 0 || word[0][0] == '#')
        return 0;
    for (size_t k = 0; k < sizeof commands / sizeof *commands; k++) {
        if (strcmp(word[0], commands[k].name))
            continue;
        if (count < commands[k].least || count > commands[k].most) {
            char why[160];
            snprintf(why, sizeof why, "%s needs %s", commands[k].name, commands[k].usage);
            return fail(r, err, n, why);
        }
        return commands[k].run(r, word, count, err, n);
    }
    char why[120];
    snprintf(why, sizeof why, "'%.64s' is not a jconvolver command earshot knows", word[0]);
    return fail(r, err, n, why);
}

/* The rows at their final length, the shared ones copied out. */
static int finish(reader *r, char *err, size_t n)
{
    es_jconvolver_room *room = r->room;
    const int paths = room->inputs * room->outputs;
    int longest = 0;
    for (int p = 0; p < paths; p++)
        longest = r->cap[p] > longest ? r->cap[p] : longest;
    if (longest < 1) {
        snprintf(err, n, "%s: no filter with any samples", r->conf);
        return -1;
    }
    room->frames = longest;
    for (int p = 0; p < paths; p++) {
        if (!room->paths[p])
            continue;
        float *whole = realloc(room->paths[p], (size_t)longest * sizeof(float));
        if (!whole)
            return fail(r, err, n, "out of memory");
        memset(whole + r->cap[p], 0, (size_t)(longest - r->cap[p]) * sizeof(float));
        room->paths[p] = whole;
    }
    for (int p = 0; p < paths; p++) {
        const int from = row_of(r, p / room->outputs, p % room->outputs);
        if (from == p || !room->paths[from])
            continue;
        if (!(room->paths[p] = malloc((size_t)longest * sizeof(float))))
            return fail(r, err, n, "out of memory");
        memcpy(room->paths[p], room->paths[from], (size_t)longest * sizeof(float));
    }
    if (r->cut) {
        char line[120];
        snprintf(line, sizeof line, " (%d line%s cut at MAXSIZE %d, as jconvolver cuts them)",
                 r->cut, r->cut == 1 ? "" : "s", room->maxsize);
        strncat(room->notes, line, sizeof room->notes - strlen(room->notes) - 1);
    }
    return 0;
}

int es_jconvolver_load(const char *conf, es_jconvolver_room *room, char *err, size_t n)
{
    memset(room, 0, sizeof *room);
    /* A regular file only, read a bounded line at a time: a FIFO or
     * /dev/zero is one line, never a hang or all the memory there is. */
    char why_open[1200];
    FILE *f = es_fopen_regular(conf, why_open, sizeof why_open);
    if (!f) {
        snprintf(err, n, "%s (a jconvolver configuration)", why_open);
        return -1;
    }
    reader r = {.conf = conf, .room = room};
    snprintf(r.dir, sizeof r.dir, ".");
    const char *slash = strrchr(conf, '/');
    if (slash)
        snprintf(r.dir, sizeof r.dir, "%.*s", (int)(slash - conf), conf);
    char text[MAX_LINE + 2];
    size_t len;
    int got, rc = 0;
    while (!rc && (got = es_line_read(f, text, sizeof text, &len)) != ES_LINE_END) {
        r.line++;
        /* Whole lines: a long one is refused, never read as several. */
        if (got == ES_LINE_LONG || (got == ES_LINE_OK && len > MAX_LINE))
            rc = fail(&r, err, n, "a line longer than 2047 characters");
        else if (got == ES_LINE_NUL)
            rc = fail(&r, err, n, "a NUL byte in the line");
        else if (got == ES_LINE_ERROR)
            rc = fail(&r, err, n, "read error");
        else
            rc = run_line(&r, text, err, n);
    }
    fclose(f);
    if (!rc && !room->inputs) {
        snprintf(err, n, "%s: no /convolver/new", conf);
        rc = -1;
    }
    if (!rc)
        rc = finish(&r, err, n);
    release_held(&r);
    free(r.link);
    free(r.cap);
    if (rc)
        es_jconvolver_free(room);
    return rc;
}

int es_jconvolver_sides(const char *conf, int *inputs, int *outputs)
{
    char why[1200], text[MAX_LINE + 2];
    FILE *f = es_fopen_regular(conf, why, sizeof why);
    size_t len;
    int got, found = 0;
    while (f && !found && (got = es_line_read(f, text, sizeof text, &len)) != ES_LINE_END)
        found = got == ES_LINE_OK && sscanf(text, " /convolver/new %d %d", inputs, outputs) == 2 &&
                *inputs >= 1 && *inputs <= ES_SIDE && *outputs >= 1 && *outputs <= ES_SIDE;
    if (f)
        fclose(f);
    return found ? 0 : -1;
}

int es_jconvolver_port_name_ok(const char *name)
{
    char why[8];
    return name[0] && !strchr(name, ':') && es_text_check(name, why, sizeof why) == 0;
}

int es_jconvolver_names(const char *conf, es_jconvolver_room *room)
{
    memset(room, 0, sizeof *room);
    char why[1200], text[MAX_LINE + 2], name[ES_JCONVOLVER_NAME];
    FILE *f = es_fopen_regular(conf, why, sizeof why);
    size_t len;
    int got, k, ins, outs;
    while (f && (got = es_line_read(f, text, sizeof text, &len)) != ES_LINE_END) {
        if (got != ES_LINE_OK)
            continue;
        /* The sides are taken only whole and in range: a line that gives
         * one number, or one out of range, leaves none (the names index
         * by them). */
        if (!room->inputs && sscanf(text, " /convolver/new %d %d", &ins, &outs) == 2 &&
            ins >= 1 && ins <= ES_SIDE && outs >= 1 && outs <= ES_SIDE) {
            room->inputs = ins;
            room->outputs = outs;
        }
        if (sscanf(text, " /input/name %d %63s", &k, name) == 2 && k >= 1 &&
            k <= room->inputs && es_jconvolver_port_name_ok(name))
            snprintf(room->input_name[k - 1], ES_JCONVOLVER_NAME, "%s", name);
        if (sscanf(text, " /output/name %d %63s", &k, name) == 2 && k >= 1 &&
            k <= room->outputs && es_jconvolver_port_name_ok(name))
            snprintf(room->output_name[k - 1], ES_JCONVOLVER_NAME, "%s", name);
    }
    if (f)
        fclose(f);
    return room->inputs ? 0 : -1;
}

void es_jconvolver_free(es_jconvolver_room *room)
{
    for (int p = 0; room->paths && p < room->inputs * room->outputs; p++)
        free(room->paths[p]);
    free(room->paths);
    room->paths = NULL;
}

int es_jconvolver_read(const char *conf, float ***channels, int *inputs, int *outputs,
                       int *frames, double *rate, char *err, size_t n)
{
    es_jconvolver_room room;
    if (es_jconvolver_load(conf, &room, err, n) != 0)
        return -1;
    const int paths = room.inputs * room.outputs;
    for (int p = 0; p < paths; p++) /* a path without a filter is silent */
        if (!room.paths[p] && !(room.paths[p] = calloc((size_t)room.frames, sizeof(float)))) {
            es_jconvolver_free(&room);
            snprintf(err, n, "%s: out of memory", conf);
            return -1;
        }
    *channels = room.paths;
    *inputs = room.inputs;
    *outputs = room.outputs;
    *frames = room.frames;
    *rate = room.rate > 0 ? room.rate : DEFAULT_RATE;
    return 0;
}
