/* What a stream keeps for primed switches: the room's past the processor
 * is asked for, and a margin for the moment between a switch's adoption
 * and the preparer's copy of that past. The margin is ES_PRIME_WAIT_MS
 * (2 s) where that is cheap, and 4 MB over all inputs where it is not:
 * a 64-input stream keeps 16,384 frames more, not 96,000 (24.6 MB). And
 * what the margin is for: the past is still there to read a quarter of a
 * second after the switch, and gone once the stream has moved on past the
 * margin, which the history refuses rather than hand over overwritten
 * input. */
#include <stdio.h>
#include <stdlib.h>

#include "history.h"
#include "processor.h"

#define RATE 48000
#define BLOCK 256
#define PAST (4 * RATE)

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* A processor of `inputs` inputs on one cpu-direct path a tap long. */
static es_processor *make(int inputs)
{
    es_ir *ir = es_ir_create(inputs, 1, 1, RATE);
    es_ir_path(ir, 0, 0)[0] = 1.0f;
    const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = inputs,
                           .outputs = 1};
    const es_options opt = {0};
    char err[256];
    es_engine *e = es_engine_create(es_engine_find("cpu-direct"), &fmt, ir, &opt, err,
                                    sizeof err);
    es_ir_destroy(ir);
    const es_processor_config pc = {.mix = {.wet = 1, .gain = 1}, .history_frames = PAST};
    es_processor *p = e ? es_processor_create(&fmt, e, &pc, err, sizeof err) : NULL;
    if (!p) {
        printf("FAIL processor of %d inputs: %s\n", inputs, err);
        exit(1);
    }
    return p;
}

static void margin(int inputs, int expected)
{
    es_processor *p = make(inputs);
    es_history *h = es_processor_history(p);
    const int kept = es_history_capacity(h);
    char what[160];
    snprintf(what, sizeof what, "%d inputs: the past of %d frames and a margin of %d (%.2f s, "
             "%.1f MB over the inputs)", inputs, PAST, kept - PAST, (kept - PAST) / (double)RATE,
             (kept - PAST) * 4.0 * inputs / 1e6);
    check(kept == PAST + expected, what);
    es_history_unref(h);
    es_processor_destroy(p);
}

/* The 64-input history written as the audio thread writes it, frame
 * numbers as samples: the past of a switch at frame M read back whole
 * 0.25 s later, and refused once the stream is a margin past M. */
static void read_after(void)
{
    const int inputs = 64, margin_frames = (4 << 20) / (4 * inputs);
    es_history *h = es_history_create(inputs, PAST + margin_frames, BLOCK);
    static float block[64][BLOCK];
    const float *in[64];
    for (int i = 0; i < inputs; i++)
        in[i] = block[i];
    float **x = malloc(inputs * sizeof *x);
    for (int i = 0; i < inputs; i++)
        x[i] = malloc(PAST * sizeof **x);
    long written = 0;
    const long switch_at = 6 * RATE / BLOCK * BLOCK; /* frame M, after 6 s */
    int early = -1, late = -1, exact = 1;
    for (int b = 0; written < switch_at + margin_frames + 2 * BLOCK; b++) {
        for (int i = 0; i < inputs; i++)
            for (int t = 0; t < BLOCK; t++)
                block[i][t] = (float)((written + t) % 1000000);
        es_history_write(h, in, BLOCK);
        written += BLOCK;
        if (written == switch_at + RATE / 4 / BLOCK * BLOCK) {
            early = es_history_read(h, switch_at - PAST, PAST, x) == 0;
            for (int i = 0; early && i < inputs; i += 21)
                for (int t = 0; t < PAST; t += 997)
                    exact &= x[i][t] == (float)((switch_at - PAST + t) % 1000000);
        }
    }
    late = es_history_read(h, switch_at - PAST, PAST, x) == 0;
    check(early == 1 && exact, "64 inputs: a switch's past read a quarter of a second after it, as it was");
    check(late == 0, "64 inputs: refused once the stream has moved a margin past the switch");
    for (int i = 0; i < inputs; i++)
        free(x[i]);
    free(x);
    es_history_unref(h);
}

int main(void)
{
    margin(2, (int)(ES_PRIME_WAIT_MS * 1e-3 * RATE)); /* 2 s: 0.8 MB */
    margin(16, 65536);                                 /* 2 s would be 6.1 MB */
    margin(64, 16384);                                 /* 2 s would be 24.6 MB */
    read_after();
    return failures ? 1 : 0;
}
