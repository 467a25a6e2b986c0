/* A recording judged window by window against a render of its input
 * (app_test.h): the tests that play a room and null what was heard
 * against `earshot render` of what was played. */
#include <math.h>
#include <stdio.h>

#include "app_test.h"

double app_residual_db(float **got, float **want, int channels, long from, long n,
                       double floor_db)
{
    double diff = 0, ref = 0;
    for (int c = 0; c < channels; c++)
        for (long t = from; t < from + n; t++) {
            const double d = (double)got[c][t] - want[c][t];
            diff += d * d;
            ref += (double)want[c][t] * want[c][t];
        }
    const double floor = pow(10, floor_db / 10) * (double)n * channels;
    return diff == 0 ? -300 : 10 * log10(diff / fmax(ref, floor));
}

int app_render_windows(const char *render_args, long window, double floor_db, double *db,
                       int most)
{
    if (app_sh("'%s' render %s dry.wav ref.wav >/dev/null 2>&1", app_earshot, render_args) != 0) {
        printf("FAIL render %s dry.wav\n", render_args);
        app_failures++;
        return 0;
    }
    es_audio_info wi, ri;
    float **wet = app_load("wet.wav", &wi), **ref = app_load("ref.wav", &ri);
    int count = 0;
    if (wet && ref && wi.channels == ri.channels && ri.frames >= wi.frames)
        for (long from = 0; from + window <= (long)wi.frames && count < most; from += window)
            db[count++] = app_residual_db(wet, ref, wi.channels, from, window, floor_db);
    else
        printf("FAIL wet.wav and ref.wav do not match in shape\n"), app_failures++;
    if (wet)
        es_audiofile_free_channels(wet, wi.channels);
    if (ref)
        es_audiofile_free_channels(ref, ri.channels);
    return count;
}

void app_print_windows(const char *what, double window_s, const double *db, int count)
{
    printf("    %s, %g s windows (dB):", what, window_s);
    for (int k = 0; k < count; k++)
        printf(" %.0f", db[k]);
    printf("\n");
}
