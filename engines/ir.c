/* Impulse-response matrices: ownership, validation, and the channel layouts
 * that turn an IR file's channels into an inputs x outputs matrix. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

es_ir *es_ir_create(int inputs, int outputs, int length, double sample_rate)
{
    if (inputs < 1 || outputs < 1 || length < 0)
        return NULL;
    es_ir *ir = calloc(1, sizeof *ir);
    if (!ir)
        return NULL;
    ir->inputs = inputs;
    ir->outputs = outputs;
    ir->length = length;
    ir->sample_rate = sample_rate;
    ir->taps = calloc((size_t)inputs * (size_t)outputs, sizeof *ir->taps);
    if (!ir->taps) {
        free(ir);
        return NULL;
    }
    return ir;
}

float *es_ir_path(es_ir *ir, int i, int o)
{
    float **row = &ir->taps[i * ir->outputs + o];
    if (!*row)
        *row = es_alloc((size_t)(ir->length > 0 ? ir->length : 1) * sizeof(float));
    return *row;
}

void es_ir_destroy(es_ir *ir)
{
    if (!ir)
        return;
    if (ir->taps)
        for (int r = 0; r < ir->inputs * ir->outputs; r++)
            es_free(ir->taps[r]);
    free(ir->taps);
    free(ir);
}

int es_ir_path_count(const es_ir *ir)
{
    int paths = 0;
    for (int r = 0; r < ir->inputs * ir->outputs; r++)
        paths += ir->taps[r] != NULL;
    return paths;
}

/* A row's taps as 64-bit words, mixed: equal rows hash alike, and rows
 * that differ almost never do (memcmp settles it). */
static uint64_t row_hash(const float *h, int length)
{
    const size_t bytes = (size_t)length * sizeof(float);
    const unsigned char *b = (const unsigned char *)h;
    uint64_t x = 0x9E3779B97F4A7C15u ^ bytes;
    size_t k = 0;
    for (; k + 8 <= bytes; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, sizeof w);
        x = (x ^ w) * 0xBF58476D1CE4E5B9u;
        x ^= x >> 31;
    }
    for (; k < bytes; k++)
        x = (x ^ b[k]) * 0x94D049BB133111EBu;
    return x;
}

typedef struct {
    uint64_t hash;
    int row;
} hashed_row;

static int by_hash_then_row(const void *a, const void *b)
{
    const hashed_row *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int es_ir_first_alike(const es_ir *ir, int *like)
{
    const int rows = ir->inputs * ir->outputs;
    hashed_row *h = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *h);
    if (!h)
        return -1;
    int n = 0;
    for (int r = 0; r < rows; r++) {
        like[r] = ir->taps[r] ? r : -1;
        if (ir->taps[r])
            h[n++] = (hashed_row){row_hash(ir->taps[r], ir->length), r};
    }
    qsort(h, (size_t)n, sizeof *h, by_hash_then_row);
    const size_t bytes = (size_t)ir->length * sizeof(float);
    /* Within a run of one hash, rows in order: each takes the first
     * earlier one it equals. */
    for (int a = 0; a < n;) {
        int end = a + 1;
        while (end < n && h[end].hash == h[a].hash)
            end++;
        for (int k = a + 1; k < end; k++)
            for (int j = a; j < k; j++) {
                const int first = h[j].row;
                if (like[first] == first &&
                    !memcmp(ir->taps[h[k].row], ir->taps[first], bytes)) {
                    like[h[k].row] = first;
                    break;
                }
            }
        a = end;
    }
    free(h);
    return 0;
}

/* The first sample of h[0..count) that is not finite, or -1. Each stretch
 * is read in one branch-free pass the compiler vectorises (an exponent of
 * all ones is an infinity or a NaN), and searched only where it holds one:
 * a 64 x 64 matrix of 10 s filters is 2 G samples, which a loop that stops
 * at the first bad one reads a sample at a time. */
static int first_not_finite(const float *h, int count)
{
    enum { STRETCH = 4096 };
    for (int at = 0; at < count; at += STRETCH) {
        const int end = count - at < STRETCH ? count : at + STRETCH;
        uint32_t any = 0;
        for (int t = at; t < end; t++) {
            uint32_t bits;
            memcpy(&bits, &h[t], sizeof bits);
            any |= (bits & 0x7f800000u) == 0x7f800000u;
        }
        for (int t = at; any && t < end; t++)
            if (!isfinite(h[t]))
                return t;
    }
    return -1;
}

/* The paths [first, end) of the matrix's rows (i * outputs + o) searched
 * for a sample that is not finite: the first such row and frame. */
typedef struct {
    const es_ir *ir;
    int first, end;
    int bad_row, bad_frame; /* -1: none */
} finite_search;

static void *search_rows(void *arg)
{
    finite_search *s = arg;
    s->bad_row = s->bad_frame = -1;
    for (int r = s->first; r < s->end && s->bad_row < 0; r++) {
        const float *h = s->ir->taps[r];
        const int t = h ? first_not_finite(h, s->ir->length) : -1;
        if (t >= 0) {
            s->bad_row = r;
            s->bad_frame = t;
        }
    }
    return NULL;
}

/* A large matrix is searched by several threads, each a share of the rows
 * (reading 8 GB is memory-bound: one thread reads about 10 GB/s); the
 * answer is the same as one thread's, the first bad sample in row order. */
#define SEARCH_THREADS_MAX 8
#define SEARCH_SAMPLES_PER_THREAD (16L << 20)

static void search_matrix(const es_ir *ir, int *bad_row, int *bad_frame)
{
    const int rows = ir->inputs * ir->outputs;
    const long samples = (long)es_ir_path_count(ir) * ir->length;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long threads = samples / SEARCH_SAMPLES_PER_THREAD;
    threads = threads < cpus ? threads : cpus;
    threads = threads < SEARCH_THREADS_MAX ? threads : SEARCH_THREADS_MAX;
    threads = threads < rows ? threads : rows;
    threads = threads > 1 ? threads : 1; /* small, or one CPU: this thread alone */
    finite_search part[SEARCH_THREADS_MAX];
    pthread_t id[SEARCH_THREADS_MAX];
    int started = 0;
    for (int k = 0; k < threads; k++) {
        part[k] = (finite_search){ir, (int)(rows * k / threads), (int)(rows * (k + 1) / threads),
                                  -1, -1};
        if (k > 0 && pthread_create(&id[k], NULL, search_rows, &part[k]) == 0)
            started |= 1 << k;
    }
    search_rows(&part[0]);
    for (int k = 1; k < threads; k++) {
        if (started & (1 << k))
            pthread_join(id[k], NULL);
        else
            search_rows(&part[k]); /* no thread to be had: here */
    }
    *bad_row = *bad_frame = -1;
    for (int k = 0; k < threads && *bad_row < 0; k++) {
        *bad_row = part[k].bad_row;
        *bad_frame = part[k].bad_frame;
    }
}

int es_ir_check(const es_ir *ir, char *err, size_t n)
{
    if (!ir || ir->length < 1) {
        snprintf(err, n, "impulse response is empty (0 samples)");
        return -1;
    }
    if (ir->inputs < 1 || ir->outputs < 1) {
        snprintf(err, n, "impulse response has %d inputs and %d outputs",
                 ir->inputs, ir->outputs);
        return -1;
    }
    if (!(ir->sample_rate > 0)) {
        snprintf(err, n, "impulse response has no sample rate");
        return -1;
    }
    if (es_ir_path_count(ir) == 0) {
        snprintf(err, n, "impulse response has no path from any input to any output");
        return -1;
    }
    int row, t;
    search_matrix(ir, &row, &t);
    if (row >= 0) {
        snprintf(err, n, "impulse response has a %s sample at frame %d (input %d -> output %d)",
                 isnan(ir->taps[row][t]) ? "NaN" : "infinite", t, row / ir->outputs + 1,
                 row % ir->outputs + 1);
        return -1;
    }
    return 0;
}

/* Both return 0, or -1 when the row could not be allocated. */
static int copy_row(es_ir *ir, int i, int o, const float *src)
{
    float *dst = es_ir_path(ir, i, o);
    if (!dst)
        return -1;
    memcpy(dst, src, (size_t)ir->length * sizeof(float));
    return 0;
}

static int add_row(es_ir *ir, int i, int o, const float *src)
{
    float *dst = es_ir_path(ir, i, o);
    if (!dst)
        return -1;
    for (int t = 0; t < ir->length; t++)
        dst[t] += src[t];
    return 0;
}

/* The layouts, in the order they are tried (C = file channels, N = inputs):
 *   C == 1            every input through the same filter, N in -> N out
 *   C == N            each input through its own filter (stereo: L*h0, R*h1)
 *   N == 1            mono in -> C outputs (mono in, stereo IR -> L/R)
 *   C == 4, N == 2    true stereo: LL, LR, RL, RR (covered by the next rule)
 *   C == N * M        full matrix, file channel i*M + o is input i -> out o
 * A 4-channel (true stereo) IR with a mono input feeds the input to both
 * sides: out L = x*(LL+RL), out R = x*(LR+RR). */
es_ir *es_ir_from_channels(const float *const *chan, int file_channels,
                           int length, double sample_rate, int inputs,
                           char *err, size_t n)
{
    const int c = file_channels;
    es_ir *ir = NULL;
    int failed = 0;
    if (c < 1 || inputs < 1) {
        snprintf(err, n, "no channels (file has %d, input has %d)", c, inputs);
        return NULL;
    }
    if (c == 1 || c == inputs) {
        ir = es_ir_create(inputs, inputs, length, sample_rate);
        for (int i = 0; ir && i < inputs; i++)
            failed |= copy_row(ir, i, i, chan[c == 1 ? 0 : i]);
    } else if (c == 4 && inputs == 1) {
        ir = es_ir_create(1, 2, length, sample_rate);
        if (ir)
            failed |= copy_row(ir, 0, 0, chan[0]) | add_row(ir, 0, 0, chan[2]) |
                      copy_row(ir, 0, 1, chan[1]) | add_row(ir, 0, 1, chan[3]);
    } else if (c % inputs == 0) {
        int outputs = c / inputs;
        ir = es_ir_create(inputs, outputs, length, sample_rate);
        for (int r = 0; ir && r < c; r++)
            failed |= copy_row(ir, r / outputs, r % outputs, chan[r]);
    } else {
        snprintf(err, n, "a %d-channel impulse response does not fit %d input "
                 "channels (use 1, %d, or a multiple of %d channels)",
                 c, inputs, inputs, inputs);
        return NULL;
    }
    if (!ir || failed) {
        es_ir_destroy(ir);
        snprintf(err, n, "out of memory for a %d-channel impulse response", c);
        return NULL;
    }
    return ir;
}

es_ir *es_ir_from_matrix(const float *const *chan, int channels, int length, double sample_rate,
                         int inputs, int outputs, char *err, size_t n)
{
    if (inputs < 1 || outputs < 1 || channels != inputs * outputs) {
        snprintf(err, n, "a %d x %d matrix takes %d channels, not %d", inputs, outputs,
                 inputs * outputs, channels);
        return NULL;
    }
    es_ir *ir = es_ir_create(inputs, outputs, length, sample_rate);
    int failed = !ir;
    for (int c = 0; ir && !failed && c < channels; c++) {
        int silent = 1;
        if (!chan[c])
            continue; /* a path with no filter */
        for (int t = 0; t < length && silent; t++)
            silent = chan[c][t] == 0.0f;
        if (!silent)
            failed = copy_row(ir, c / outputs, c % outputs, chan[c]);
    }
    if (failed) {
        es_ir_destroy(ir);
        snprintf(err, n, "out of memory for a %d x %d matrix", inputs, outputs);
        return NULL;
    }
    return ir;
}

int es_ir_layout_note(int file_channels, int inputs, char *out, size_t n)
{
    const int c = file_channels;
    out[0] = 0;
    if (c < 1 || inputs < 1 || c == 1 || c == inputs || (inputs == 1 && c == 2) ||
        (inputs == 2 && c == 4))
        return 0;
    if (c == 4 && inputs == 1)
        snprintf(out, n, "4-channel (true stereo) IR with 1 input: the input feeds both "
                 "sides, 2 outputs");
    else if (c % inputs == 0)
        snprintf(out, n, "%d-channel IR with %d input%s: played as a %d x %d matrix", c,
                 inputs, inputs == 1 ? "" : "s", inputs, c / inputs);
    else
        return 0; /* es_ir_from_channels refuses it */
    return 1;
}

es_ir *es_ir_outputs(es_ir *ir, int first, int count, char *err, size_t n)
{
    if (first < 0 || count < 1 || first + count > ir->outputs) {
        snprintf(err, n, "--outputs %d-%d: the room has %d output%s", first + 1, first + count,
                 ir->outputs, ir->outputs == 1 ? "" : "s");
        es_ir_destroy(ir);
        return NULL;
    }
    es_ir *share = es_ir_create(ir->inputs, count, ir->length, ir->sample_rate);
    if (!share) {
        snprintf(err, n, "out of memory");
        es_ir_destroy(ir);
        return NULL;
    }
    /* The rows move, not their samples. */
    for (int i = 0; i < ir->inputs; i++)
        for (int o = 0; o < count; o++) {
            float **row = &ir->taps[i * ir->outputs + first + o];
            share->taps[i * count + o] = *row;
            *row = NULL;
        }
    es_ir_destroy(ir);
    if (es_ir_path_count(share) == 0) {
        snprintf(err, n, "--outputs %d-%d: no path of the room reaches these outputs", first + 1,
                 first + count);
        es_ir_destroy(share);
        return NULL;
    }
    return share;
}

es_ir *es_ir_repeat_output(es_ir *ir, int outputs)
{
    es_ir *wide = ir && ir->outputs == 1 ? es_ir_create(ir->inputs, outputs, ir->length,
                                                         ir->sample_rate)
                                          : NULL;
    for (int i = 0; wide && i < ir->inputs; i++) {
        const float *row = ir->taps[i];
        for (int o = 0; row && o < outputs; o++) {
            float *copy = es_ir_path(wide, i, o);
            if (!copy) {
                es_ir_destroy(wide);
                wide = NULL;
                break;
            }
            memcpy(copy, row, (size_t)ir->length * sizeof(float));
        }
    }
    es_ir_destroy(ir);
    return wide;
}
