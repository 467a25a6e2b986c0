/* A measurement through the device (exchange.h). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exchange.h"

struct es_exchange {
    atomic_int state;    /* es_exchange_state */
    atomic_int busy;     /* 1 while the audio thread works in a block */
    atomic_size_t done;  /* frames played and recorded */
    float *play;         /* frames */
    float **rec;         /* [inputs][frames] */
    size_t frames;
    uint64_t outputs;
    int inputs;
};

es_exchange *es_exchange_create(void)
{
    es_exchange *x = calloc(1, sizeof *x);
    if (x)
        atomic_init(&x->state, ES_EXCHANGE_IDLE);
    return x;
}

/* Waits until the audio thread is out of the block it may be in (a block
 * is a few milliseconds; it never waits on this side). */
static void wait_out(es_exchange *x)
{
    const struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000 && atomic_load_explicit(&x->busy, memory_order_seq_cst); i++)
        nanosleep(&ms, NULL);
}

static void free_buffers(es_exchange *x)
{
    free(x->play);
    for (int c = 0; x->rec && c < x->inputs; c++)
        free(x->rec[c]);
    free(x->rec);
    x->play = NULL;
    x->rec = NULL;
    x->inputs = 0;
}

void es_exchange_destroy(es_exchange *x)
{
    if (!x)
        return;
    es_exchange_abort(x);
    free_buffers(x);
    free(x);
}

int es_exchange_start(es_exchange *x, const float *play, size_t frames, uint64_t outputs,
                      int inputs, char *err, size_t n)
{
    const int st = atomic_load(&x->state);
    if (st != ES_EXCHANGE_IDLE) {
        snprintf(err, n, "a measurement is under way");
        return -1;
    }
    free_buffers(x);
    x->play = malloc(frames * sizeof *x->play);
    x->rec = calloc((size_t)inputs, sizeof *x->rec);
    int ok = x->play && x->rec;
    for (int c = 0; ok && c < inputs; c++)
        ok = (x->rec[c] = calloc(frames, sizeof *x->rec[c])) != NULL;
    x->inputs = inputs;
    if (!ok) {
        free_buffers(x);
        snprintf(err, n, "out of memory for %d input channels of %zu frames", inputs, frames);
        return -1;
    }
    memcpy(x->play, play, frames * sizeof *x->play);
    x->frames = frames;
    x->outputs = outputs;
    atomic_store_explicit(&x->done, 0, memory_order_relaxed);
    /* The buffers are written before the audio thread can see ARMED. */
    atomic_store_explicit(&x->state, ES_EXCHANGE_ARMED, memory_order_release);
    return 0;
}

ES_RT int es_exchange_block(es_exchange *x, const float *const *in, int inputs,
                            float *const *out, int outputs, int frames)
{
    int st = atomic_load_explicit(&x->state, memory_order_acquire);
    if (st != ES_EXCHANGE_ARMED && st != ES_EXCHANGE_RUNNING)
        return 0;
    atomic_store_explicit(&x->busy, 1, memory_order_seq_cst);
    /* Read again now that the control side can see busy: an abort before
     * this point is seen here; one after it waits for this block. */
    st = atomic_load_explicit(&x->state, memory_order_seq_cst);
    if (st == ES_EXCHANGE_ARMED) {
        int armed = ES_EXCHANGE_ARMED;
        if (atomic_compare_exchange_strong(&x->state, &armed, ES_EXCHANGE_RUNNING))
            st = ES_EXCHANGE_RUNNING;
        else
            st = armed;
    }
    int took = 0;
    if (st == ES_EXCHANGE_RUNNING) {
        const size_t at = atomic_load_explicit(&x->done, memory_order_relaxed);
        size_t take = x->frames - at;
        take = take < (size_t)frames ? take : (size_t)frames;
        for (int c = 0; c < outputs; c++) {
            const int plays = c < ES_EXCHANGE_OUTPUTS_MAX && (x->outputs >> c & 1);
            for (int i = 0; i < frames; i++)
                out[c][i] = plays && (size_t)i < take ? x->play[at + (size_t)i] : 0.0f;
        }
        for (int c = 0; c < x->inputs; c++)
            for (size_t i = 0; i < take; i++)
                x->rec[c][at + i] = c < inputs && in && in[c] ? in[c][i] : 0.0f;
        atomic_store_explicit(&x->done, at + take, memory_order_release);
        if (at + take == x->frames) {
            int running = ES_EXCHANGE_RUNNING;
            atomic_compare_exchange_strong(&x->state, &running, ES_EXCHANGE_DONE);
        }
        took = 1;
    }
    atomic_store_explicit(&x->busy, 0, memory_order_release);
    return took;
}

es_exchange_state es_exchange_state_now(const es_exchange *x)
{
    return (es_exchange_state)atomic_load_explicit(&((es_exchange *)x)->state,
                                                   memory_order_acquire);
}

size_t es_exchange_position(const es_exchange *x)
{
    return atomic_load_explicit(&((es_exchange *)x)->done, memory_order_acquire);
}

const float *es_exchange_recording(const es_exchange *x, int c)
{
    if (es_exchange_state_now(x) != ES_EXCHANGE_DONE || c < 0 || c >= x->inputs)
        return NULL;
    return x->rec[c];
}

void es_exchange_abort(es_exchange *x)
{
    int st = ES_EXCHANGE_ARMED;
    if (!atomic_compare_exchange_strong(&x->state, &st, ES_EXCHANGE_ABORTED)) {
        st = ES_EXCHANGE_RUNNING;
        atomic_compare_exchange_strong(&x->state, &st, ES_EXCHANGE_ABORTED);
    }
    wait_out(x);
}

void es_exchange_finish(es_exchange *x)
{
    const int st = atomic_load(&x->state);
    if (st == ES_EXCHANGE_DONE || st == ES_EXCHANGE_ABORTED) {
        wait_out(x);
        atomic_store(&x->state, ES_EXCHANGE_IDLE);
    }
}
