#include <fftw3.h>
#include <pthread.h>

#include "fftw_planner.h"

/* The one piece of global state in engines/: it guards FFTW's own globals. */
static pthread_mutex_t planner = PTHREAD_MUTEX_INITIALIZER;

void es_fftw_planner_lock(void)
{
    pthread_mutex_lock(&planner);
}

void es_fftw_planner_unlock(void)
{
    pthread_mutex_unlock(&planner);
}

void es_fftw_destroy_plans(fftwf_plan a, fftwf_plan b)
{
    if (!a && !b)
        return;
    es_fftw_planner_lock();
    if (a)
        fftwf_destroy_plan(a);
    if (b)
        fftwf_destroy_plan(b);
    es_fftw_planner_unlock();
}
