/* A room's gain for programme material (program_level.h). */
#include <fftw3.h>
#include <math.h>
#include <string.h>

#include "fftw_planner.h"
#include "program_level.h"

#define LOWEST_HZ 20.0

/* |H(j 2 pi f)|^2 of the analog biquad (b0 s^2 + b1 w0/Q s + b2 w0^2) /
 * (s^2 + w0/Q s + w0^2). */
static double biquad_power(double f, double f0, double q, double b0, double b1, double b2)
{
    const double w = f / f0; /* in units of w0 */
    const double re_num = b2 - b0 * w * w, im_num = b1 * w / q;
    const double re_den = 1 - w * w, im_den = w / q;
    return (re_num * re_num + im_num * im_num) / (re_den * re_den + im_den * im_den);
}

/* BS.1770's K-weighting, squared: its high shelf (+4 dB above about
 * 1.7 kHz) and its high-pass (the RLB curve, 38 Hz), as analog filters. */
static double k_power(double f)
{
    const double shelf = biquad_power(f, 1681.97, 0.7072, 1.5849, 1.2589, 1.0);
    const double high_pass = biquad_power(f, 38.135, 0.5003, 1.0, 0.0, 0.0);
    return shelf * high_pass;
}

double es_program_power(const float *h, int frames, double rate)
{
    size_t size = 1;
    while (size < (size_t)frames)
        size <<= 1;
    size = size < 4096 ? 4096 : size; /* bins of 12 Hz or finer at 48 kHz */
    const size_t bins = size / 2 + 1;
    float *buf = fftwf_malloc(size * sizeof *buf);
    fftwf_complex *spec = fftwf_malloc(bins * sizeof *spec);
    if (!buf || !spec) {
        fftwf_free(buf);
        fftwf_free(spec);
        return -1;
    }
    es_fftw_planner_lock();
    fftwf_plan plan = fftwf_plan_dft_r2c_1d((int)size, buf, spec, FFTW_ESTIMATE);
    es_fftw_planner_unlock();
    memset(buf, 0, size * sizeof *buf);
    memcpy(buf, h, (size_t)frames * sizeof *buf);
    fftwf_execute(plan);
    double power = 0, weights = 0;
    for (size_t k = 1; k < bins; k++) {
        const double f = (double)k * rate / (double)size;
        if (f < LOWEST_HZ)
            continue;
        const double w = k_power(f) / f;
        power += w * ((double)spec[k][0] * spec[k][0] + (double)spec[k][1] * spec[k][1]);
        weights += w;
    }
    es_fftw_planner_lock();
    fftwf_destroy_plan(plan);
    es_fftw_planner_unlock();
    fftwf_free(buf);
    fftwf_free(spec);
    return weights > 0 ? power / weights : -1;
}
