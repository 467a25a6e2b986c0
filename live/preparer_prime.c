/* The preparer's primings (preparer.h): how much input a new stream keeps
 * for them, a swap's plan of what the past rings, its ringing computed
 * from what the stream heard once the processor adopts its engine, and
 * its buffer freed once the processor lets go of it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "preparer_private.h"

/* ---- what a stream keeps, and what a swap plans ---- */

int es_prep_history_frames(double rate, int inputs, int past)
{
    const double bytes = (double)inputs * sizeof(float);
    double frames = ES_HISTORY_SECONDS * rate;
    if (frames * bytes > (double)ES_HISTORY_MAX_BYTES)
        frames = (double)ES_HISTORY_MAX_BYTES / bytes;
    if (past > frames && past * bytes <= (double)ES_HISTORY_ROOM_MAX_BYTES)
        frames = past;
    return (int)frames;
}

/* A swap's priming: the plan of what the past rings and its buffer, or
 * why there is none in r->prime_note. */
void es_prep_plan_priming(const es_prep_request *q, const es_ir *ir, es_prep_result *r)
{
    const int past = ir->length + q->now.latency - 1;
    if (past > q->now.history_frames) {
        snprintf(r->prime_note, sizeof r->prime_note, "not primed: the room (%.1f s) is longer "
                 "than the %.1f s of input the stream keeps", ir->length / q->rate,
                 q->now.history_frames / q->rate);
        return;
    }
    char why[256];
    r->ringing = es_ringing_create(ir, q->now.latency, ES_PRIME_MAX_BYTES, why, sizeof why);
    if (r->ringing)
        r->ringing_out = es_alloc_channels(r->fmt.outputs,
                                           (size_t)es_ringing_frames(r->ringing) + 1);
    if (!r->ringing || !r->ringing_out) {
        snprintf(r->prime_note, sizeof r->prime_note, "not primed: %s",
                 r->ringing ? "out of memory" : why);
        es_prep_free_priming(r->ringing, r->ringing_out, r->fmt.outputs);
        r->ringing = NULL;
        r->ringing_out = NULL;
    }
}

void es_prep_free_priming(es_ringing *plan, float **out, int outputs)
{
    es_ringing_destroy(plan);
    es_free_channels(out, outputs);
}

void es_prep_destroy_unused_priming(void *item)
{
    unused_priming *u = item;
    es_ringing_destroy(u->plan);
    es_free_channels(u->out, u->outputs);
    free(u);
}

/* ---- primings ---- */

/* Says what a priming came to (lock held); the oldest report goes when
 * nobody took them. */
static void report(es_preparer *p, const prime_job *j, int ok, double heard_s, const char *why)
{
    if (p->report_count == PRIMES) {
        memmove(p->reports, p->reports + 1, (PRIMES - 1) * sizeof *p->reports);
        p->report_count--;
    }
    es_prime_report *r = &p->reports[p->report_count++];
    *r = (es_prime_report){.ticket = j->ticket, .ok = ok, .ms = es_prep_ms_since(j->asked_ns),
                           .heard_s = heard_s};
    snprintf(r->why, sizeof r->why, "%s", why);
}

/* Reads what the stream heard before `start` and runs the plan into the
 * swap's buffer; tells the processor either way. 1 primed, else 0 and
 * why. Unlocked: only this thread touches a job once it is queued. */
static int run_priming(prime_job *j, uint64_t start, char *why, size_t n)
{
    const int past = es_ringing_past_frames(j->plan);
    const int inputs = es_history_inputs(j->history);
    float **x = es_alloc_channels(inputs, (size_t)past + 1);
    int ok = 0;
    if (!x)
        snprintf(why, n, "not primed: out of memory");
    else if (es_history_read(j->history, (int64_t)start - past, past, x) != 0)
        snprintf(why, n, "not primed: the stream had moved on before what it heard was read");
    else
        ok = (es_ringing_run(j->plan, (const float *const *)x, j->out), 1);
    es_free_channels(x, inputs);
    es_history_set_primed(j->history, j->ticket, ok);
    es_ringing_destroy(j->plan); /* its transforms are not needed again */
    j->plan = NULL;
    return ok;
}

/* One step of the primings (lock held, let go while it works): runs one
 * whose engine was adopted, or frees one the processor let go of. 1 when
 * it did something. */
int es_prep_step_primings(es_preparer *p)
{
    for (int k = 0; k < PRIMES; k++) {
        prime_job *j = &p->primes[k];
        uint64_t start;
        if (!j->used)
            continue;
        if (!j->ran && es_history_started(j->history, j->ticket, &start)) {
            pthread_mutex_unlock(&p->lock);
            char why[200] = "";
            const int past = es_ringing_past_frames(j->plan);
            const int ok = run_priming(j, start, why, sizeof why);
            pthread_mutex_lock(&p->lock);
            j->ran = 1;
            /* The input it was primed on: the room's length, or all there
             * was when the stream is younger. */
            const double heard = start < (uint64_t)past ? (double)start : (double)past;
            report(p, j, ok, heard / p->rate, why);
            return 1;
        }
        if (es_history_holds(j->history, j->ticket))
            continue;
        if (!j->ran)
            report(p, j, 0, 0, "not primed: the stream changed before it played");
        const prime_job done = *j;
        j->used = 0;
        pthread_mutex_unlock(&p->lock);
        es_prep_free_priming(done.plan, done.out, done.outputs);
        es_history_unref(done.history);
        pthread_mutex_lock(&p->lock);
        return 1;
    }
    return 0;
}

/* How long the thread may sleep with primings under way (lock held): a
 * moment while one waits for its engine, longer while one waits to be
 * freed, LOOK_SECONDS with none. */
double es_prep_priming_poll(const es_preparer *p)
{
    double wait = LOOK_SECONDS;
    for (int k = 0; k < PRIMES; k++)
        if (p->primes[k].used)
            wait = fmin(wait, p->primes[k].ran ? RELEASE_POLL_S : PRIME_POLL_S);
    return wait;
}

int es_preparer_can_prime(es_preparer *p)
{
    pthread_mutex_lock(&p->lock);
    int free_job = 0;
    for (int k = 0; k < PRIMES; k++)
        free_job |= !p->primes[k].used;
    pthread_mutex_unlock(&p->lock);
    return free_job;
}

void es_preparer_prime(es_preparer *p, es_history *history, uint64_t ticket, es_ringing *plan,
                       float **out, int outputs)
{
    pthread_mutex_lock(&p->lock);
    prime_job *j = NULL;
    for (int k = 0; k < PRIMES && !j; k++)
        j = p->primes[k].used ? NULL : &p->primes[k];
    if (j) {
        *j = (prime_job){.used = 1, .history = history, .ticket = ticket, .plan = plan,
                         .out = out, .outputs = outputs, .asked_ns = es_now_ns()};
        pthread_cond_signal(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    /* Never without es_preparer_can_prime first; were it full, the swap
     * plays unprimed and its buffer stays for the process's life (the
     * processor may read it). */
    if (!j) {
        es_history_set_primed(history, ticket, 0);
        es_ringing_destroy(plan);
        es_history_unref(history);
    }
}

int es_preparer_take_primed(es_preparer *p, es_prime_report *out)
{
    pthread_mutex_lock(&p->lock);
    const int got = p->report_count > 0;
    if (got) {
        *out = p->reports[0];
        memmove(p->reports, p->reports + 1, (size_t)--p->report_count * sizeof *p->reports);
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}

void es_prep_free_primings(es_preparer *p)
{
    /* A buffer a processor may still read (a stream left as it was, whose
     * callback may yet return) is left for the process's life, never freed
     * under it. */
    for (int k = 0; k < PRIMES; k++) {
        prime_job *j = &p->primes[k];
        if (!j->used || es_history_holds(j->history, j->ticket))
            continue;
        es_prep_free_priming(j->plan, j->out, j->outputs);
        es_history_unref(j->history);
    }
}
