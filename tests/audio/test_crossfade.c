/* The processor's crossfade alone (audio/processor_crossfade.c):
 *   - its table: exactly the five transitions it documents are allowed
 *     (STEADY -swap-> FADING, STEADY -primed swap-> HELD, HELD -ringing->
 *     FADING, HELD -gave up-> FADING, FADING -faded-> STEADY), every other
 *     event keeps the state; each state and event has a name;
 *   - its gains, exactly, in every state it visits: two engines of one
 *     tap, each routing the input (ones) to an output of its own, so the
 *     wet signal's outputs are the two gains themselves: STEADY plays the
 *     engine's own output (1, 0); HELD (1, 0) while the ringing is not
 *     there; FADING linear (1 - k/len, k/len) for the same filter, equal
 *     power (sin, cos) for another room and for a swap that gave up;
 *   - a primed swap that is primed (counted), one whose builder could not
 *     (played unprimed, equal power), one never answered (given up after
 *     its wait, counted late); a swap waits while the crossfade runs;
 *   - at the fade's end the old engine is in the retired ring, the new one
 *     plays alone for its A/B slot, whose statistics started again;
 * every step counted for allocation, locks and waits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "processor_stages.h"
#include "reference.h"
#include "rt_window.h"

#define RATE 48000.0
#define BLOCK 64
#define FADE 256     /* frames */
#define HOLD_MAX 192 /* frames */
#define HALF_PI 1.57079632679489661923

static const es_format fmt = {.sample_rate = RATE, .max_block = BLOCK, .inputs = 1,
                              .outputs = 2};

typedef struct {
    es_crossfade x;
    es_spsc_ring retired;
    es_history *history;
    es_stats st;
    float ringing0[BLOCK], ringing1[BLOCK]; /* silence: adds nothing */
    float *ringing[2];
    float one[BLOCK]; /* the input */
    int playing_out;  /* the output the playing engine routes the input to */
    int linear;       /* the fade under way should be linear */
    int into;         /* frames into it, as the test counts them */
    int gain_errors;  /* samples whose gains were not the state's */
    int seen[ES_XFADE_STATES];
    uint64_t ticket;
} bench;

static void table(void)
{
    const int allowed[ES_XFADE_STATES][ES_XFADE_EVENTS] = {
        [ES_XFADE_STEADY] = {[ES_XFADE_SWAP] = 1 + ES_XFADE_FADING,
                             [ES_XFADE_SWAP_PRIMED] = 1 + ES_XFADE_HELD},
        [ES_XFADE_HELD] = {[ES_XFADE_RINGING] = 1 + ES_XFADE_FADING,
                           [ES_XFADE_GAVE_UP] = 1 + ES_XFADE_FADING},
        [ES_XFADE_FADING] = {[ES_XFADE_FADED] = 1 + ES_XFADE_STEADY},
    };
    int ok = 1, named = 1;
    for (int s = 0; s < ES_XFADE_STATES; s++) {
        named &= strcmp(es_xfade_state_name((es_xfade_state)s), "?") != 0;
        for (int e = 0; e < ES_XFADE_EVENTS; e++) {
            const int want = allowed[s][e] ? allowed[s][e] - 1 : s;
            ok &= es_xfade_allows((es_xfade_state)s, (es_xfade_event)e) == (allowed[s][e] != 0);
            ok &= (int)es_xfade_next((es_xfade_state)s, (es_xfade_event)e) == want;
        }
    }
    for (int e = 0; e < ES_XFADE_EVENTS; e++)
        named &= strcmp(es_xfade_event_name((es_xfade_event)e), "?") != 0;
    ok &= es_xfade_next(ES_XFADE_STATES, ES_XFADE_SWAP) == ES_XFADE_STATES &&
          !es_xfade_allows(ES_XFADE_STEADY, ES_XFADE_EVENTS);
    es_test_check(ok, "the table: the five transitions, every other event keeps the state");
    es_test_check(named, "every state and event has a name");
}

/* cpu-direct of one tap: the input to output `to` alone. */
static es_engine *router(int to)
{
    es_ir *ir = es_ir_create(1, 2, 1, RATE);
    es_ir_path(ir, 0, to)[0] = 1.0f;
    char err[256];
    es_options opt = {0};
    es_engine *e = es_engine_create(es_engine_find("cpu-direct"), &fmt, ir, &opt, err,
                                    sizeof err);
    es_ir_destroy(ir);
    if (!e)
        printf("FAIL cpu-direct: %s\n", err);
    return e;
}

/* The gains the state should play the two engines at, sample t of the
 * block. */
static void gains_of(const bench *b, int t, float *out_gain, float *in_gain)
{
    if (b->x.state == ES_XFADE_STEADY) {
        *out_gain = 1.0f, *in_gain = 0.0f;
        return;
    }
    int k = b->x.state == ES_XFADE_HELD ? 0 : b->into + t;
    k = k < FADE ? k : FADE;
    *in_gain = b->linear ? (float)k / (float)FADE : (float)sin(HALF_PI * k / FADE);
    *out_gain = b->linear ? 1.0f - *in_gain : (float)sin(HALF_PI * (FADE - k) / FADE);
}

/* One block of ones, as the processor runs it; the wet signal's gains
 * against the state's. The state it played in. */
static es_xfade_state block(bench *b)
{
    const float *const in[1] = {b->one};
    float o0[BLOCK], o1[BLOCK];
    float *const out[2] = {o0, o1};
    es_engines_ran ran = {0};
    es_crossfade_await(&b->x, BLOCK, &b->st);
    const es_xfade_state played = b->x.state;
    b->seen[played] = 1;
    es_crossfade_run(&b->x, in, NULL, BLOCK, 1, 0, &ran, &b->st);
    const float *const *w = es_crossfade_wet(&b->x, out, BLOCK);
    for (int t = 0; t < BLOCK; t++) {
        float og, ig;
        gains_of(b, t, &og, &ig);
        b->gain_errors += w[b->playing_out][t] != og || w[1 - b->playing_out][t] != ig;
    }
    /* STEADY plays the engine's own output, with no pass over it. */
    b->gain_errors += (played == ES_XFADE_STEADY) != (w != (const float *const *)out);
    b->into += played == ES_XFADE_FADING ? BLOCK : 0;
    if (es_crossfade_advance(&b->x, BLOCK, &b->st))
        b->playing_out = 1 - b->playing_out;
    es_crossfade_report(&b->x, &b->st);
    return played;
}

/* How a swap of the walk is asked for, and how it should play. */
typedef struct {
    const char *what;
    int primed;        /* it brings a ringing to wait for */
    int answer;        /* the builder's: 1 primed, 0 could not, -1 never answers */
    int same_filter, ab, restart;
    int linear;        /* the fade it should play */
    int held;          /* blocks it should be HELD */
    int playing_ab;    /* the A/B slot playing after it */
} swap_plan;

static const swap_plan plans[] = {
    {"a primed swap, primed, into A/B slot 1 afresh", 1, 1, 1, 1, 1, 1, 2, 1},
    {"a swap to another room, in the slot playing", 0, 0, 0, -1, 0, 0, 0, 1},
    {"a primed swap the builder could not prime, into slot 0", 1, 0, 1, 0, 0, 0, 2, 0},
    {"a primed swap never answered", 1, -1, 1, -1, 0, 0, HOLD_MAX / BLOCK - 1, 0},
};
#define PLANS (int)(sizeof plans / sizeof *plans)

/* What one swap left behind. */
typedef struct {
    int held, faded;   /* blocks it was HELD, FADING */
    int refused;       /* blocks before which a swap would have waited */
    uint64_t primed, late, swaps;
    int ab, restarts, retired;
} swap_seen;

/* One swap, block by block, until the new engine plays alone. */
static void play_swap(bench *b, const swap_plan *s, es_engine *e, swap_seen *seen)
{
    const es_swap_how how = {.ab = s->ab, .restart = s->restart, .same_filter = s->same_filter,
                             .ringing = s->primed ? b->ringing : NULL, .ringing_frames = BLOCK};
    es_crossfade_start(&b->x, e, &how, ++b->ticket);
    b->linear = s->linear;
    b->into = 0;
    for (int k = 0; k < 16 && !es_crossfade_steady(&b->x); k++) {
        if (seen->held == 2 && s->answer >= 0) /* the builder's turn */
            es_history_set_primed(b->history, b->ticket, s->answer);
        seen->refused++;
        const es_xfade_state played = block(b);
        seen->held += played == ES_XFADE_HELD;
        seen->faded += played == ES_XFADE_FADING;
    }
    seen->primed = b->st.primed;
    seen->late = b->st.prime_late;
    seen->swaps = b->st.swaps;
    seen->ab = es_crossfade_playing_ab(&b->x);
    seen->restarts = (int)b->st.ab[seen->ab].restarts;
}

/* The engines faded out, taken off the retired ring (destroyed later,
 * off the count). */
static void collect(bench *b, swap_seen *seen, es_engine **gone, int *gone_count)
{
    es_engine *e;
    while (es_spsc_pop(&b->retired, &e))
        gone[(*gone_count)++] = e, seen->retired++;
}

static void check_swap(const swap_plan *s, const swap_seen *seen, int k)
{
    char line[300];
    snprintf(line, sizeof line, "%s: HELD %d blocks, FADING %d (%s), a swap waiting all "
             "along; then STEADY for A/B slot %d, the old engine retired", s->what,
             seen->held, seen->faded, s->linear ? "linear" : "equal power", seen->ab);
    es_test_check(seen->held == s->held && seen->faded == FADE / BLOCK &&
                      seen->refused == seen->held + seen->faded &&
                      seen->swaps == (uint64_t)k + 1 && seen->retired == 1 &&
                      seen->ab == s->playing_ab,
                  line);
}

static void walk(bench *b)
{
    es_engine *next[PLANS], *gone[PLANS];
    int gone_count = 0, steady = 1;
    swap_seen seen[PLANS] = {0};
    for (int k = 0; k < PLANS; k++)
        next[k] = router(k % 2 == 0 ? 1 : 0);

    rt_window_open();
    for (int k = 0; k < 3; k++) {
        block(b);
        steady &= es_crossfade_steady(&b->x) && b->st.ab_playing == 0 && !b->st.crossfading;
    }
    for (int k = 0; k < PLANS; k++) {
        play_swap(b, &plans[k], next[k], &seen[k]);
        collect(b, &seen[k], gone, &gone_count);
    }
    rt_window_shut("the crossfade through every state");

    es_test_check(steady, "STEADY: the engine's own output, A/B slot 0 playing");
    for (int k = 0; k < PLANS; k++)
        check_swap(&plans[k], &seen[k], k);
    es_test_check(seen[0].primed == 1 && seen[0].restarts == 1,
                  "the primed swap counted primed; its A/B slot's statistics started again");
    es_test_check(seen[2].primed == 1 && seen[2].late == 0 && seen[3].late == 1,
                  "one the builder could not prime is not late; one never answered is");
    es_test_check(b->seen[ES_XFADE_STEADY] && b->seen[ES_XFADE_HELD] &&
                      b->seen[ES_XFADE_FADING] && b->gain_errors == 0,
                  "every state visited, each sample at its state's gains exactly");
    for (int k = 0; k < gone_count; k++)
        es_engine_destroy(gone[k]);
}

int main(void)
{
    table();
    static bench b;
    for (int t = 0; t < BLOCK; t++)
        b.one[t] = 1.0f;
    b.ringing[0] = b.ringing0, b.ringing[1] = b.ringing1;
    char err[256];
    b.history = es_history_create(1, 4 * BLOCK, BLOCK);
    if (!b.history || es_spsc_init(&b.retired, sizeof(es_engine *), 8) != 0 ||
        es_crossfade_init(&b.x, &fmt, 0, FADE, HOLD_MAX, b.history, &b.retired, err,
                          sizeof err) != 0) {
        printf("FAIL crossfade: %s\n", err);
        return 1;
    }
    es_crossfade_load_first(&b.x, router(0), 0);
    walk(&b);
    es_crossfade_free(&b.x);
    es_spsc_free(&b.retired);
    es_history_unref(b.history);
    printf("%d failed\n", es_test_failures);
    return es_test_failures ? 1 : 0;
}
