/* The CPU engines' transforms planned ahead, at a rigor of the caller's
 * choosing (fftw_planner.h). An engine plans at FFTW_MEASURE, whose
 * choice on a busy or virtual machine is one noisy timing of a few
 * candidates; FFTW_PATIENT tries many more, once, and its wisdom then
 * serves every later FFTW_MEASURE request of the same transform (FFTW
 * uses wisdom of equal or greater rigor). The transforms are the
 * engines' own: real, out of place, points = 2 x partition, forward from
 * the time buffer to the spectrum and inverse back, on SIMD-aligned
 * buffers, so the wisdom FFTW keeps is keyed as the engines ask. */
#include <fftw3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fftw_planner.h"

static const unsigned rigor_flags[] = {
    [ES_FFTW_MEASURE] = FFTW_MEASURE,
    [ES_FFTW_PATIENT] = FFTW_PATIENT,
    [ES_FFTW_EXHAUSTIVE] = FFTW_EXHAUSTIVE,
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The best of five runs of the pair, each about 20 ms long, in us. */
static double pair_us(fftwf_plan forward, fftwf_plan inverse, int points)
{
    const int reps = points < 20000000 / 2 ? 20000000 / 2 / points : 1;
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        const double t0 = now_s();
        for (int r = 0; r < reps; r++) {
            fftwf_execute(forward);
            fftwf_execute(inverse);
        }
        const double took = (now_s() - t0) / reps;
        best = took < best ? took : best;
    }
    return 1e6 * best;
}

int es_fftw_plan_ahead(int points, es_fftw_rigor rigor, es_fftw_ahead *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    out->points = points;
    float *time = fftwf_alloc_real((size_t)points);
    fftwf_complex *spectrum = fftwf_alloc_complex((size_t)points / 2 + 1);
    if (!time || !spectrum) {
        fftwf_free(time);
        fftwf_free(spectrum);
        snprintf(err, n, "no memory for a %d-point transform", points);
        return -1;
    }
    memset(time, 0, (size_t)points * sizeof *time);
    memset(spectrum, 0, ((size_t)points / 2 + 1) * sizeof *spectrum);
    es_fftw_planner_lock();
    /* What an engine gets today: the wisdom's plan, if it holds one. */
    fftwf_plan held_f = fftwf_plan_dft_r2c_1d(points, time, spectrum,
                                              FFTW_MEASURE | FFTW_WISDOM_ONLY);
    fftwf_plan held_i = fftwf_plan_dft_c2r_1d(points, spectrum, time,
                                              FFTW_MEASURE | FFTW_WISDOM_ONLY);
    const double t0 = now_s();
    fftwf_plan f = fftwf_plan_dft_r2c_1d(points, time, spectrum, rigor_flags[rigor]);
    fftwf_plan i = fftwf_plan_dft_c2r_1d(points, spectrum, time, rigor_flags[rigor]);
    out->plan_s = now_s() - t0;
    es_fftw_wisdom_learned();
    es_fftw_planner_unlock();
    int status = 0;
    if (!f || !i) {
        snprintf(err, n, "FFTW could not plan a %d-point transform", points);
        status = -1;
    } else {
        out->held = held_f && held_i;
        out->held_us = out->held ? pair_us(held_f, held_i, points) : 0;
        out->now_us = pair_us(f, i, points);
    }
    es_fftw_destroy_plans(held_f, held_i);
    es_fftw_destroy_plans(f, i);
    fftwf_free(time);
    fftwf_free(spectrum);
    return status;
}
