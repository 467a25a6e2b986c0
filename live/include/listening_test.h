/* A blind listening test run by the session (session_test.c): the plan's
 * trials in a random order, each stimulus a slot's room, engine, block and
 * level, switched by the primed A/B switch, so that the only thing heard
 * to change is the stimulus. While it runs the session is blind: nothing
 * the subject can read (the screen, the OSC replies and meters, the
 * commands that run) names a room, an engine or a slot, or shows a figure
 * that tells them apart; only hear, answer and a few commands that change
 * nothing compared run. Each answer is written as it comes (answers.h);
 * the session log (the experimenter's) has what stood behind each label. */
#ifndef ES_LISTENING_TEST_H
#define ES_LISTENING_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "listening_plan.h"
#include "listening_trials.h"

typedef struct {
    const es_plan *plan;         /* copied */
    const char *answers;         /* the answers' files: PREFIX.csv and PREFIX.jsonl */
    uint64_t seed;               /* the trials' order and labels */
    /* Each stimulus's level, dB: the plan's, with loudness matching's
     * offset when the plan asks (cmd_test.c). */
    double level_db[ES_PLAN_STIMULI_MAX];
} es_test_config;

/* What a view may show of the test: nothing that names a stimulus until
 * it is done. */
typedef struct {
    int running;                 /* trials remain: the session is blind */
    int done;                    /* every trial answered (the summary written) */
    int stopped;                 /* it could not go on (why in `line`) */
    int trial, trials;           /* the trial under way (1..), of */
    char kind[8];                /* "ab", "abx", "same" */
    char question[120];          /* "Is X A or B?" */
    char labels[16];             /* what may be heard: "a b x" */
    char answers[32];            /* what may be answered: "a b", "same different" */
    char hearing[4];             /* the label playing ("" while preparing) */
    int ready;                   /* the trial's stimuli play: labels may be heard */
    int listens;                 /* switches in this trial */
    int answered;                /* answers so far */
    char line[300];              /* the test's last line ("trial 3 of 20: ...") */
    char summary_path[1100];     /* PREFIX.jsonl */
} es_test_view;

#endif
