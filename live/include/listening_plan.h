/* A blind listening test's plan, as `earshot test PLAN` reads it: the
 * sound played, the stimuli (each a room with its engine, block and
 * level) and the tests that compare two of them (ab: which is preferred,
 * abx: which one X is, same: the same or different).
 *
 * The file is a person's text, line by line: `#` starts a comment to the
 * end of the line, blank lines are nothing, words are split on spaces and
 * tabs (so no value holds a space, but `title`, which takes the rest of
 * its line):
 *
 *   title    CPU against GPU, partitioned     (optional, at most 200 bytes)
 *   source   speech.wav      (required; relative to the plan's folder)
 *   alpha    0.05            (optional, in (0, 0.5])
 *   seed     12345           (optional, unsigned 64-bit)
 *   loudness match|off       (optional, off)
 *   subject  NAME            (optional, [A-Za-z0-9_.-]{1,63})
 *   stimulus NAME room=ROOM [engine=E] [block=N] [level=DB]   (1..16)
 *   test     ab|abx|same STIM1 STIM2 [trials=N]               (1..32)
 *
 * A test names stimuli defined on lines above it. Every error is one line,
 * "PATH:LINE: what is wrong" (the words it quotes escaped, never a control
 * byte raw); a fault of the whole file (not a regular file, over 1 MiB,
 * empty) is "PATH: what is wrong", and a line the plan lacks (no source,
 * no test) is said at its last line. */
#ifndef ES_LISTENING_PLAN_H
#define ES_LISTENING_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define ES_PLAN_STIMULI_MAX 16
#define ES_PLAN_TESTS_MAX 32
#define ES_PLAN_TRIALS_MAX 1000  /* over all tests: a session a person can sit through */
#define ES_PLAN_TEST_TRIALS_MAX 200
#define ES_PLAN_FILE_MAX (1024 * 1024) /* bytes: a plan is a page, never a recording */

typedef enum { ES_TRIAL_AB, ES_TRIAL_ABX, ES_TRIAL_SAME } es_trial_kind;

typedef struct {
    char name[32];                   /* [A-Za-z0-9_.-]{1,31}, unique in the plan */
    char room[1024];                 /* a library room's name or an IR file's path, as written */
    const es_engine_class *engine;   /* NULL: the session's */
    int block;                       /* frames, a power of two 16..8192; 0: the session's */
    double level_db;                 /* dB added to this stimulus, -60..+24 */
} es_plan_stimulus;

typedef struct {
    es_trial_kind kind;
    int first, second;               /* indices into es_plan.stimulus, never equal */
    int trials;                      /* 1..ES_PLAN_TEST_TRIALS_MAX */
} es_plan_test;

typedef struct {
    char path[1024];                 /* the plan file, as named */
    char title[201];                 /* "" when not given */
    char source[1024];               /* the sound played, resolved against the plan's folder */
    double alpha;                    /* significance level, (0, 0.5]; 0.05 when not given */
    int has_seed;                    /* 1: `seed` was given */
    uint64_t seed;
    int loudness_match;              /* 1: `loudness match` */
    char subject[64];                /* "" when not given */
    int stimuli, tests;
    es_plan_stimulus stimulus[ES_PLAN_STIMULI_MAX];
    es_plan_test test[ES_PLAN_TESTS_MAX];
} es_plan;

/* Reads the plan at `path` into *plan. 0, or -1 with one line in err[n]
 * (*plan then partly filled: use none of it). */
int es_plan_read(const char *path, es_plan *plan, char *err, size_t n);

/* The sum of every test's trials. */
int es_plan_trials(const es_plan *plan);

/* "ab", "abx", "same" ("?" for a value out of range). */
const char *es_trial_kind_word(es_trial_kind k);

#endif
