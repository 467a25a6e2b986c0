/* FFTW's planner (plan creation, destruction, wisdom) is not thread-safe;
 * only fftwf_execute* is. Every engine takes this lock around planner calls,
 * so instances can be built on a loader thread while others play. Never
 * taken on the audio thread. */
#ifndef ES_FFTW_PLANNER_H
#define ES_FFTW_PLANNER_H

#include <fftw3.h>

#include <stddef.h>
#include <stdio.h>

void es_fftw_planner_lock(void);
void es_fftw_planner_unlock(void);
/* Destroys two plans (either may be NULL) under the planner's lock. */
void es_fftw_destroy_plans(fftwf_plan a, fftwf_plan b);

/* FFTW wisdom kept in a file between runs (fftw_wisdom.c), so that
 * FFTW_MEASURE planning, slow the first time for a transform size, is
 * instant afterwards. */

/* $EARSHOT_WISDOM if set (NULL when it is empty or "off"), else
 * $XDG_CACHE_HOME/earshot/fftwf.wisdom, else ~/.cache/earshot/fftwf.wisdom. */
const char *es_fftw_wisdom_default_path(char *buf, size_t n);
/* 1: read; 0: no such file; -1: damaged or from another FFTW (rewritten
 * at the next save); -2: unreadable (not a regular file, no permission).
 * err says which; the run goes on planning from scratch. */
int es_fftw_wisdom_load(const char *path, char *err, size_t n);
/* Writes FFTW's wisdom to path (creating its folder; a temporary file
 * renamed over it) if planning learned something since it was loaded or
 * saved. 1: written; 0: nothing new; -1: could not (err says why). */
int es_fftw_wisdom_save(const char *path, char *err, size_t n);
/* A planner that measures says so when the wisdom did not hold its plan
 * (an FFTW_WISDOM_ONLY plan came back NULL). Under the planner lock. */
void es_fftw_wisdom_learned(void);
/* For programs: load the default file at start, save it at exit; a
 * problem with it is a one-line note on `notice` (NULL: silent), never an
 * error. */
void es_fftw_wisdom_open(FILE *notice);
void es_fftw_wisdom_close(FILE *notice);

/* The CPU engines' transforms planned ahead (fftw_ahead.c): a real
 * forward and inverse pair of `points` (2 x partition), planned at
 * `rigor` into FFTW's wisdom, which every later engine of that size
 * then plans from at once (FFTW takes wisdom of equal or greater rigor
 * for an FFTW_MEASURE request). The pair's time is measured with the
 * plan the wisdom held before (held: 0 when it held none) and with the
 * new one. 0, or -1 with err. Planner calls: never on the audio thread. */
typedef enum { ES_FFTW_MEASURE, ES_FFTW_PATIENT, ES_FFTW_EXHAUSTIVE } es_fftw_rigor;
typedef struct {
    int points;
    int held;       /* the wisdom held a plan of this size before */
    double held_us; /* the pair with that plan, best of five */
    double now_us;  /* the pair with the plan made now */
    double plan_s;  /* planning time (next to none when the wisdom held it at this rigor) */
} es_fftw_ahead;
int es_fftw_plan_ahead(int points, es_fftw_rigor rigor, es_fftw_ahead *out, char *err, size_t n);

#endif
