/* FFTW's planner (plan creation, destruction, wisdom) is not thread-safe;
 * only fftwf_execute* is. Every engine takes this lock around planner calls,
 * so instances can be built on a loader thread while others play. Never
 * taken on the audio thread. */
#ifndef ES_FFTW_PLANNER_H
#define ES_FFTW_PLANNER_H

void es_fftw_planner_lock(void);
void es_fftw_planner_unlock(void);

#endif
