/* A listening test's trials, drawn from a seed: which stimulus each slot
 * holds, and the hidden truth (which slot X plays; the same or not). The
 * same plan and seed give the same trials on any machine, so a run can be
 * told again from its answers' header (the seed is written there). */
#ifndef ES_LISTENING_TRIALS_H
#define ES_LISTENING_TRIALS_H

#include <stdint.h>

#include "listening_plan.h"

typedef struct {
    int test;              /* index into plan->test */
    int number;            /* 1.. within the whole run */
    int slot_stimulus[2];  /* the stimulus slot A and slot B hold for this trial */
    /* ab: the two stimuli of the test in random order in A and B.
     * abx: A and B the two in random order; x (0 or 1) is which slot X plays.
     * same: `same` 1 (both slots hold the same stimulus, picked at random of
     * the two) or 0 (the two, in random order); each 50 %. */
    int x;                 /* abx: the slot X plays (0 A, 1 B); else -1 */
    int same;              /* same: 1 same, 0 different; else -1 */
} es_trial;

/* The plan's trials in a random order (all tests interleaved, Fisher-Yates),
 * from `seed`: the same seed gives the same trials. Returns the count
 * (es_plan_trials), or -1 when it is more than `max` (nothing written). */
int es_trials_make(const es_plan *plan, uint64_t seed, es_trial *out, int max);

/* The stimulus X plays in an abx trial (-1 for another kind). */
int es_trial_x_stimulus(const es_trial *t);

#endif
