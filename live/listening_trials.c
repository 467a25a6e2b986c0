/* A listening test's trials drawn (listening_trials.h). The generator is
 * xoshiro256** seeded through splitmix64, as its authors advise: small,
 * the same on every machine and C library (rand() is neither), and good
 * enough that a subject cannot learn its sequence. Bounded draws reject
 * the top of the range that would favour small values (the bias of a
 * plain modulo), so each order and each slot is exactly even. */
#include <stdint.h>

#include "listening_trials.h"

typedef struct {
    uint64_t s[4];
} prng;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna, 2018). */
static uint64_t prng_next(prng *g)
{
    uint64_t *s = g->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Four words of splitmix64 from the seed: never the all-zero state
 * xoshiro cannot leave, whatever the seed (0 included). */
static void prng_seed(prng *g, uint64_t seed)
{
    for (int k = 0; k < 4; k++)
        g->s[k] = splitmix64(&seed);
}

/* Uniform in 0..bound-1 (bound >= 1): draws below 2^64 mod bound are
 * drawn again, so that what is left is a whole number of bound's. */
static uint64_t prng_below(prng *g, uint64_t bound)
{
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        const uint64_t r = prng_next(g);
        if (r >= threshold)
            return r % bound;
    }
}

/* The two stimuli of a test, A and B in random order. */
static void two_in_order(prng *g, const es_plan_test *t, es_trial *tr)
{
    const int swap = (int)prng_below(g, 2);
    tr->slot_stimulus[0] = swap ? t->second : t->first;
    tr->slot_stimulus[1] = swap ? t->first : t->second;
}

int es_trials_make(const es_plan *plan, uint64_t seed, es_trial *out, int max)
{
    const int total = es_plan_trials(plan);
    if (total > max)
        return -1;
    prng g;
    prng_seed(&g, seed);
    /* Every test's trials in plan order, then shuffled together, so that
     * no test's trials come in a run a subject could learn. */
    int at = 0;
    for (int k = 0; k < plan->tests; k++)
        for (int j = 0; j < plan->test[k].trials; j++)
            out[at++] = (es_trial){.test = k, .x = -1, .same = -1};
    for (int k = total - 1; k > 0; k--) {
        const int j = (int)prng_below(&g, (uint64_t)k + 1);
        const es_trial swap = out[k];
        out[k] = out[j];
        out[j] = swap;
    }
    for (int k = 0; k < total; k++) {
        es_trial *tr = &out[k];
        const es_plan_test *t = &plan->test[tr->test];
        tr->number = k + 1;
        two_in_order(&g, t, tr);
        if (t->kind == ES_TRIAL_ABX) {
            tr->x = (int)prng_below(&g, 2);
        } else if (t->kind == ES_TRIAL_SAME) {
            tr->same = (int)prng_below(&g, 2);
            if (tr->same) {
                const int which = (int)prng_below(&g, 2) ? t->second : t->first;
                tr->slot_stimulus[0] = tr->slot_stimulus[1] = which;
            }
        }
    }
    return total;
}

int es_trial_x_stimulus(const es_trial *t)
{
    return t->x == 0 || t->x == 1 ? t->slot_stimulus[t->x] : -1;
}
